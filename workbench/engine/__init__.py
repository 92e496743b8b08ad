"""The engine: the ``workbench.api`` operations implemented with JAX, run in the kernel.

Never imports Qt or the window (import-linter checks it); returns only the
plain-data results of ``workbench.api``, never a jax object.
"""
