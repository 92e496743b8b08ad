"""The engine: everything that touches jax. Never imports Qt (import-linter checks it)."""
