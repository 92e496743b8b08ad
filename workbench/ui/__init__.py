"""The Qt user interface. Never imports jax (import-linter checks it)."""
