"""Where in the editor an equation came from.

JAX records a traceback on every equation (``eqn.source_info``) but the API to
read it is private (``jax._src.source_info_util``); this module is the one place
that touches it, so a JAX upgrade breaks one tested function, not the tree.
"""

from __future__ import annotations

import os
from typing import Any


def editor_location(source_info: Any, filename: str) -> tuple[str | None, int | None]:
    """(base name, line) of the innermost frame of ``filename`` in an equation's traceback.

    Frames of JAX, NumPy and workbench itself are skipped: an equation that
    ``jnp.where`` creates inside JAX takes the line of the user's call. JAX
    stores frames innermost first (``raw_frames``), so the first match wins.
    Returns (None, None) when no editor frame is on the stack.
    """
    traceback = getattr(source_info, "traceback", None)
    if traceback is None:
        return None, None
    codes, lastis = traceback.raw_frames()
    for i, code in enumerate(codes):
        if code.co_filename == filename:
            line = traceback.code_addr2location(code, lastis[i])[0]
            return os.path.basename(filename), line
    return None, None


def defined_in(jaxpr: Any, filename: str) -> bool:
    """Whether the function traced into ``jaxpr`` (a scan body, a cond branch) is editor code.

    JAX caches the jaxpr of a jitted library helper such as ``jnp.where`` after its
    first trace, equations and tracebacks included; its equations therefore name
    the line of the *first* call and must take the line of the call at hand instead.
    """
    info = getattr(jaxpr, "debug_info", None)
    src = getattr(info, "func_src_info", None) or ""
    # "name at /path/file.py:12"
    where = src.partition(" at ")[2].rpartition(":")[0]
    return where == filename
