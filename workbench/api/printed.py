"""What the user's code printed while the engine ran it (loading a source, tracing a function).

A ``print`` inside a jitted function runs once, while JAX traces it: that text
is part of the lesson, so it travels with the result it belongs to instead of
only scrolling past in the console.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Printed:
    """stdout and stderr in the order written, at most a cap; ``dropped`` characters were cut."""

    text: str = ""
    dropped: int = 0

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def __bool__(self) -> bool:
        return bool(self.text) or self.truncated

    def shown(self) -> str:
        """The text, ending with a line that says how much was cut when it was capped."""
        if not self.truncated:
            return self.text
        newline = "" if not self.text or self.text.endswith("\n") else "\n"
        return f"{self.text}{newline}{truncation_note(self.dropped)}\n"


def truncation_note(dropped: int) -> str:
    """The one wording of a cap on user output, for the console, the CLI and the jaxpr panel."""
    return f"[output truncated: {dropped:,} more characters not shown]"
