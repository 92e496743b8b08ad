"""The engine's interface as plain data: what the window and the engine say to each other.

Everything here imports without jax and without Qt: request and reply
messages (``messages``), the result of every operation (``functions``,
``jaxpr``, ``lowering``, ``devices``, ``curves``, ``timing``, ``kmeans``,
``errors``), the choices both sides agree on (``choices``), the wire codec
(``codec``) and the kernel client (``client``). ``workbench.engine``
implements it inside the kernel; ``workbench.ui`` and ``workbench.plots`` use
it and never import the engine (import-linter checks both).
"""
