"""The dataflow graph of a jaxpr as plain data and logic, with no Qt and no jax.

``model`` holds the graph's nodes, edges, boxes and ids; ``build`` lays a jaxpr
tree out into one (with ``blocks`` and ``layout`` for each level); ``style`` the
primitive families and colours; ``marks`` what each node is drawn as (not run,
error, badges, stepping); ``geometry`` the numpy arrays that paint and hit-test
it; ``framing`` where a fitted view looks; ``tooltips`` and ``value_text`` the
words shown; ``stepper`` the position of a step through the evaluation order. The
window's widgets (``plots``, ``ui``) read these; nothing here imports them, so the
layout runs headless and in tests.
"""
