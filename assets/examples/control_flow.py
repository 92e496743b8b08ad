"""Structured control flow: cond, while_loop and scan, nested (trace it with jit)."""


def clipped_step(x):
    return lax.cond(jnp.sum(x) > 0, lambda v: v * 0.5, lambda v: v + 1.0, x)


def halve_until_small(x):
    def keep_going(state):
        value, steps = state
        return (jnp.max(jnp.abs(value)) > 1.0) & (steps < 50)

    def halve(state):
        value, steps = state
        return clipped_step(value), steps + 1

    return lax.while_loop(keep_going, halve, (x, 0))


def running_sum(xs):
    def step(total, x):
        total = total + x
        return total, total * 2

    return lax.scan(step, jnp.zeros_like(xs[0]), xs)


def all_three(xs):
    final, doubled = running_sum(xs)
    small, steps = halve_until_small(final)
    return small, steps, doubled
