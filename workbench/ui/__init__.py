"""The Qt window. Reaches the engine only through ``workbench.api``; never imports jax
(import-linter checks both)."""
