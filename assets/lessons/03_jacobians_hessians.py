# %% [markdown]
# # Jacobians and Hessians
#
# `jax.grad` handles a function with one number as output. For a function from
# $\mathbb{R}^n$ to $\mathbb{R}^m$ the derivative is an $m \times n$ matrix, the
# **Jacobian** $J_{ij} = \partial f_i / \partial x_j$, and for a scalar function the
# matrix of second derivatives is the **Hessian**. JAX builds both from the same two
# tools: forward mode (`jax.jvp`) and reverse mode (`jax.vjp`).
#
# Our running example maps 3 numbers to 2. The **Graph** tab shows its values on an
# example input of type `f32[3]`.


# %%
# workbench: values field --args 'f32[3]'
import jax.numpy as jnp


def field(x):
    first = x[0] * x[1]
    second = jnp.sin(x[2]) + x[0] ** 2
    return jnp.stack([first, second])


# %% [markdown]
# ## jacfwd: one column per input
#
# `jax.jacfwd` uses forward mode: a Jacobian-vector product pushes one input
# direction through the function and gets one *column* of $J$. To get all columns,
# it pushes the 3 unit vectors at once, as a batch.
#
# At the top of the jaxpr, two `iota` equations and an `eq` build that batch: a
# $3 \times 3$ identity matrix, one unit vector per row. The products that follow
# carry all three directions at once (`f32[3]` tangents next to scalar values), and
# the result has shape `f32[2,3]`: 2 outputs by 3 inputs.


# %%
# workbench: trace field --args 'f32[3]' --transform jacfwd
import jax.numpy as jnp


def field(x):
    first = x[0] * x[1]
    second = jnp.sin(x[2]) + x[0] ** 2
    return jnp.stack([first, second])


# %% [markdown]
# ## jacrev: one row per output
#
# `jax.jacrev` uses reverse mode: a vector-Jacobian product pulls one output
# direction back through the function and gets one *row* of $J$. In the jaxpr the
# forward pass comes first, once; then a $2 \times 2$ identity matrix gives the two
# output directions, and the backward pass runs on both at once, filling the rows
# of an `f32[2,3]` result with `pad` and `add_any`.
#
# The rule of thumb: `jacfwd` costs about one pass per input, `jacrev` about one per
# output. Use `jacfwd` for tall Jacobians (few inputs, many outputs) and `jacrev`
# for wide ones (many inputs, few outputs, as a loss has). See
# [the autodiff cookbook](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html).


# %%
# workbench: trace field --args 'f32[3]' --transform jacrev
import jax.numpy as jnp


def field(x):
    first = x[0] * x[1]
    second = jnp.sin(x[2]) + x[0] ** 2
    return jnp.stack([first, second])


# %% [markdown]
# ## Same matrix, two routes
#
# Two different programs, one answer. `both_ways` returns the Jacobian computed each
# way; the **Graph** tab shows the two outputs with the same six numbers.
#
# You can check them by hand: the first row is $(x_1, x_0, 0)$ and the second is
# $(2x_0, 0, \cos x_2)$.


# %%
# workbench: values both_ways --args 'f32[3]'
import jax
import jax.numpy as jnp


def field(x):
    first = x[0] * x[1]
    second = jnp.sin(x[2]) + x[0] ** 2
    return jnp.stack([first, second])


def both_ways(x):
    return jax.jacfwd(field)(x), jax.jacrev(field)(x)


# %% [markdown]
# ## The Hessian
#
# For a function with one number as output, the Hessian $H_{ij} = \partial^2 f /
# \partial x_i \partial x_j$ is the Jacobian of the gradient. `jax.hessian(f)` is
# `jax.jacfwd(jax.jacrev(f))`: reverse mode for the gradient (one output, many
# inputs), then forward mode over it (as many outputs as inputs).
#
# `energy` below is a small landscape with a coupling term $x_0 x_1$. The jaxpr is
# much longer than the function: the gradient's forward and backward passes, each
# carried along all three unit vectors at once (the `f32[3,3]` arrays), with a
# `transpose` at the end.


# %%
# workbench: trace energy --args 'f32[3]' --transform hessian
import jax.numpy as jnp


def energy(x):
    return jnp.sum(x**4) / 4 - jnp.sum(x**2) / 2 + x[0] * x[1]


# %% [markdown]
# ## Hessian values
#
# The **Graph** tab runs the Hessian on an example point. The result is a symmetric
# `f32[3,3]` matrix. On its diagonal you should find $3x_i^2 - 1$, and off the
# diagonal only the coupling term contributes: $1$ at positions $(0, 1)$ and
# $(1, 0)$, zero elsewhere.


# %%
# workbench: values energy --args 'f32[3]' --transform hessian
import jax.numpy as jnp


def energy(x):
    return jnp.sum(x**4) / 4 - jnp.sum(x**2) / 2 + x[0] * x[1]


# %% [markdown]
# ## Hessian-vector products without the Hessian
#
# Many algorithms (Newton-CG, some optimisers, curvature checks) need $Hv$ for a
# vector $v$, not $H$ itself. With a million parameters $H$ has $10^{12}$ entries,
# but $Hv$ is as cheap as a couple of gradients.
#
# The trick is *forward-over-reverse*: $Hv$ is the directional derivative of the
# gradient in the direction $v$, so `jax.jvp` of `jax.grad(energy)` gives it. Look at
# the types in the jaxpr: vectors `f32[3]`, slices `f32[1]` and scalars, but no
# `f32[3,3]` matrix anywhere.


# %%
# workbench: trace hvp --args 'f32[3], f32[3]'
import jax
import jax.numpy as jnp


def energy(x):
    return jnp.sum(x**4) / 4 - jnp.sum(x**2) / 2 + x[0] * x[1]


def hvp(x, v):
    _, tangent = jax.jvp(jax.grad(energy), (x,), (v,))
    return tangent


# %% [markdown]
# ## Checking the product
#
# Trust, but verify: `hvp_check` returns the product computed both ways, with the
# trick and with the full Hessian. In the **Graph** tab the two outputs hold the
# same three numbers, up to rounding in the last digits.


# %%
# workbench: values hvp_check --args 'f32[3], f32[3]'
import jax
import jax.numpy as jnp


def energy(x):
    return jnp.sum(x**4) / 4 - jnp.sum(x**2) / 2 + x[0] * x[1]


def hvp(x, v):
    return jax.jvp(jax.grad(energy), (x,), (v,))[1]


def hvp_check(x, v):
    return hvp(x, v), jax.hessian(energy)(x) @ v


# %% [markdown]
# ## The Hessian, one product at a time
#
# Multiplying $H$ by the unit vectors gives its columns, so `vmap` over the rows of
# an identity matrix rebuilds the whole Hessian from Hessian-vector products. This is
# essentially what `jax.hessian` does.
#
# In the jaxpr the products run as one batch, on `f32[3,3]` arrays: the leading axis
# is the batch of 3 directions. Going further:
# [the autodiff cookbook](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html)
# on Hessian-vector products.


# %%
# workbench: trace hessian_by_products --args 'f32[3]'
import jax
import jax.numpy as jnp


def energy(x):
    return jnp.sum(x**4) / 4 - jnp.sum(x**2) / 2 + x[0] * x[1]


def hessian_by_products(x):
    def hvp(v):
        return jax.jvp(jax.grad(energy), (x,), (v,))[1]

    return jax.vmap(hvp)(jnp.eye(x.shape[0], dtype=x.dtype))
