"""The error catalog: JAX's sharp bits explained for a student (placeholder, see issue 2)."""

from __future__ import annotations

import traceback as _tb

from workbench.engine.errors import Explanation


def editor_frames(exc: BaseException, filename: str) -> list[_tb.FrameSummary]:
    """The frames of ``exc``'s traceback that belong to the editor source, outermost first."""
    return [f for f in _tb.extract_tb(exc.__traceback__) if f.filename == filename]


def explain(exc: BaseException, filename: str) -> Explanation:
    frames = editor_frames(exc, filename)
    last = frames[-1] if frames else None
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return Explanation(
        kind="exception",
        title=f"{type(exc).__name__}: {message}",
        hint="",
        message=str(exc),
        file=filename if last else None,
        line=last.lineno if last else None,
        exception_type=type(exc).__name__,
        traceback="".join(_tb.format_list(frames)),
    )
