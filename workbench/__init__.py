"""The JAX workbench: see a function's jaxpr, derivatives, timings and k-means live."""

__version__ = "0.1.0"
