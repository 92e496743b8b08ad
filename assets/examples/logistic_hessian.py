"""Sum of logistic functions: its gradient, and its Hessian by jax.hessian or by hand."""


def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))


def hessian_by_hand(x):
    """Forward-over-reverse, one Hessian-vector product per basis vector, batched by vmap."""

    def hvp(v):
        return jax.jvp(jax.grad(sum_logistic), (x,), (v,))[1]

    return jax.vmap(hvp)(jnp.eye(x.shape[0], dtype=x.dtype))


def hessian_by_jax(x):
    return jax.hessian(sum_logistic)(x)
