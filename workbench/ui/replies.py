"""Engine replies in words, for the panels' inline messages."""

from __future__ import annotations

from workbench.engine import protocol as p


def reply_text(reply: p.Reply) -> str:
    """One or two lines a student can act on: the catalog's title and hint for user code."""
    if isinstance(reply, p.UserCodeFailure):
        ex = reply.explanation
        where = f"line {ex.line}: " if ex.line else ""
        return f"{where}{ex.title}" + (f"\n{ex.hint}" if ex.hint else "")
    if isinstance(reply, p.Cancelled):
        return f"cancelled: {reply.reason}"
    for attr in ("message", "reason"):
        if hasattr(reply, attr):
            return str(getattr(reply, attr))
    return type(reply).__name__
