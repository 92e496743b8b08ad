"""pyqtgraph plot widgets and items. Never imports jax (import-linter checks it)."""
