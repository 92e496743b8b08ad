"""A small reduction: each line becomes one equation of the jaxpr."""


def shifted_square_sum(x):
    x = x + 2
    x = x**2 - 4
    return jnp.sum(x)
