"""The logistic sigmoid; its derivative is sigmoid(x) * (1 - sigmoid(x))."""


def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))


def sigmoid_slope(x):
    s = sigmoid(x)
    return s * (1 - s)
