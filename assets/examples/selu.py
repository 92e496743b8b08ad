"""SELU, the self-normalising activation: try --transform grad --transform vmap."""


def selu(x, alpha=1.67, lmbda=1.05):
    negative_part = alpha * jnp.exp(x) - alpha
    return lmbda * jnp.where(x > 0, x, negative_part)


def selu_np(x, alpha=1.67, lmbda=1.05):
    """The same function in plain NumPy: a baseline for timing."""
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)
