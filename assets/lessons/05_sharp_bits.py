# %% [markdown]
# # The sharp bits
#
# JAX's transformations make a few assumptions about your code. When the code breaks
# them, the result is an error or, worse, a silently wrong answer. This lesson walks
# through the most common ones, following JAX's own
# [sharp bits](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html) page.
#
# **Pure functions.** JAX expects a function's result to depend only on its inputs,
# with no side effects. A side effect such as `print` or appending to a list runs
# while JAX *traces*, not each time the compiled function runs. Below, `add_one` is
# called three times, but the console shows its message only once, and the list
# `calls` holds one entry. The workbench then traces `add_one` for its panel with a
# new shape, `f32[3]`, so the body runs once more: the panel shows that print next
# to the jaxpr, and `x` is a tracer, not numbers.


# %%
# workbench: trace add_one --args 'f32[3]'
import jax
import jax.numpy as jnp

calls = []


@jax.jit
def add_one(x):
    calls.append(x)
    print("Python is running add_one; x is", x)
    return x + 1


for i in range(3):
    add_one(jnp.float32(i))
print("add_one was called 3 times; its Python body ran", len(calls), "time(s)")


# %% [markdown]
# ## Arrays cannot be changed in place
#
# In NumPy, `x[0] = 0.0` overwrites an element. JAX arrays are immutable: once made,
# they never change, which is what lets JAX trace, reorder and compile code safely.
#
# This step is *meant* to fail: the panel explains the error and points at the line.


# %%
# workbench: expect-error in-place-update
# workbench: trace zero_first --args 'f32[4]'
def zero_first(x):
    x[0] = 0.0
    return x


# %% [markdown]
# ## The functional update: x.at[i].set
#
# Instead of changing `x`, `x.at[0].set(0.0)` returns a *new* array with that one
# element changed; `x` itself stays as it was. There are siblings for other updates:
# `.at[i].add(v)`, `.at[i].multiply(v)`, `.at[i].min(v)`, and more.
#
# In the jaxpr it is a `scatter` equation. A copy of every array on every update
# sounds slow, but under `jit` XLA does the update in place whenever the old array is
# not needed any more.


# %%
# workbench: trace zero_first --args 'f32[4]'
def zero_first(x):
    return x.at[0].set(0.0)


# %% [markdown]
# ## Random numbers need a key
#
# NumPy's random functions change a hidden global state each time you call them: a
# side effect. JAX has no hidden state. You make a **key** from a seed with
# `jax.random.key(seed)` and pass it to every random function.
#
# The same key always gives the same numbers. The argument spec `0` passes the seed
# 0: run this step twice and the **Graph** tab shows the same four numbers both
# times.


# %%
# workbench: values noise --args '0'
import jax


def noise(seed):
    key = jax.random.key(seed)
    return jax.random.normal(key, (4,))


# %% [markdown]
# ## One key, one use
#
# That is also the trap: draw twice with the same key, and you get the same
# "random" numbers twice. Without a check, `a` and `b` below would be identical,
# which is almost never what you want.
#
# JAX can check for this: inside `jax.debug_key_reuse(True)`, using a key a second
# time is an error. This step is *meant* to fail with that error.


# %%
# workbench: expect-error key-reuse
import jax


def two_draws(seed):
    key = jax.random.key(seed)
    a = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))
    return a, b


with jax.debug_key_reuse(True):
    two_draws(0)


# %% [markdown]
# ## Split the key
#
# When you need new randomness, split: `jax.random.split(key)` returns two new,
# independent keys. Use each key once, and keep one of them to split again later.
#
# The **Graph** tab shows the outputs: `a` and `b` now hold different numbers, and
# they are still the same every time you run the step with seed 0.


# %%
# workbench: values two_draws --args '0'
import jax


def two_draws(seed):
    key = jax.random.key(seed)
    key_a, key_b = jax.random.split(key)
    a = jax.random.normal(key_a, (3,))
    b = jax.random.normal(key_b, (3,))
    return a, b


# %% [markdown]
# ## A Python if on a traced value
#
# While JAX traces `relu_if`, `x` is a placeholder with a shape and a dtype but no
# value, so `x > 0` is a traced boolean too, and Python's `if` cannot decide which
# branch to take.
#
# This step is *meant* to fail. The error names the condition and the line, and
# suggests fixes; the next step shows two of them.


# %%
# workbench: expect-error tracer-bool
# workbench: trace relu_if --args 'f32[]' --transform jit
import jax.numpy as jnp


def relu_if(x):
    if x > 0:
        return x
    return jnp.zeros_like(x)


# %% [markdown]
# ## The fix: jnp.where
#
# To choose element by element, compute both sides and select: `jnp.where(x > 0, x,
# 0.0)`. It works on arrays of any shape, and `grad` and `vmap` go through it.
#
# In the jaxpr the choice is `select_n` (inside the small `jit` named `_where`), an
# operation on data rather than a branch in Python.


# %%
# workbench: trace relu_where --args 'f32[5]' --transform jit
import jax.numpy as jnp


def relu_where(x):
    return jnp.where(x > 0, x, 0.0)


# %% [markdown]
# ## The fix: lax.cond
#
# When the two branches are expensive, or when the condition is one number for the
# whole computation, `lax.cond(pred, true_fun, false_fun, operand)` runs only the
# chosen branch. Both branches must return the same shapes and dtypes.
#
# The jaxpr shows a single `cond` equation holding both branches as small jaxprs
# (branch 0 is the false one, the `-inf`); the decision is made when the compiled
# code runs, not when Python traces it. (Under `vmap`, with one condition per
# element, `lax.cond` turns into a `select` and both branches run.)
#
# Finally, if the condition depends only on a setting that does not change, make it
# a static argument (`jax.jit(f, static_argnames=...)`) and a plain `if` is fine.


# %%
# workbench: trace safe_log --args 'f32[]' --transform jit
import jax.numpy as jnp
from jax import lax


def safe_log(x):
    return lax.cond(x > 0, jnp.log, lambda v: jnp.full_like(v, -jnp.inf), x)


# %% [markdown]
# ## What to remember
#
# - Write pure functions: inputs in, results out, no side effects. A `print` under
#   `jit` runs once, at trace time (use `jax.debug.print` to print values).
# - Arrays are immutable: `x = x.at[i].set(v)` instead of `x[i] = v`.
# - Randomness is explicit: one key per draw, `jax.random.split` for more.
# - Under a transformation, branch on values with `jnp.where` or `lax.cond`, and loop
#   with `lax.fori_loop`, `lax.while_loop` or `lax.scan`.
