"""A cell's outputs in the order they came: printed text cut where each display or the
displayed value fell, terminal colours taken out, each output capped."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

from workbench.api.cells import MAX_OUTPUTS, MAX_PNG_BYTES, MAX_TEXT_CHARS, CellOutput
from workbench.api.printed import Printed
from workbench.engine.printed import PrintedCapture

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # terminal colours (JAX colours its jaxprs)


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape codes: the lesson panel and JSON show plain text."""
    return _ANSI.sub("", text) if "\x1b" in text else text


@dataclass
class CellRun:
    """What one cell did: its outputs in order, and the error that ended it (if any)."""

    outputs: list[CellOutput] = field(default_factory=list)
    dropped: int = 0
    """Outputs past ``MAX_OUTPUTS``, counted only."""
    error: BaseException | None = None


class Collector:
    """Displays and the displayed result, each placed after the text printed before it."""

    def __init__(self, printed: PrintedCapture) -> None:
        self.printed = printed
        self.marks: list[tuple[int, CellOutput]] = []
        self.dropped = 0

    def add(self, kind: str, data: dict[str, Any], count: int | None = None) -> None:
        if len(self.marks) >= MAX_OUTPUTS:
            self.dropped += 1
            return
        text = strip_ansi(str(data.get("text/plain", "")))
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + f"\n[{len(text) - MAX_TEXT_CHARS:,} more characters]"
        png = data.get("image/png", b"")
        if isinstance(png, str):
            try:
                png = base64.b64decode(png)
            except ValueError:
                png = b""
        if not isinstance(png, bytes) or len(png) > MAX_PNG_BYTES:
            png = b""
        self.marks.append((self.printed.position(), CellOutput(
            kind, text, png, execution_count=count)))  # type: ignore[arg-type]

    def outputs(self, printed: Printed) -> list[CellOutput]:
        """Printed text cut at each mark, the marked outputs in between."""
        out: list[CellOutput] = []
        start = 0
        for position, output in self.marks:
            if position > start:
                out.append(CellOutput("stream", strip_ansi(printed.text[start:position]),
                                      stream="stdout"))
                start = position
            out.append(output)
        tail = printed.shown()[start:] if start <= len(printed.text) else ""
        if tail:
            out.append(CellOutput("stream", strip_ansi(tail), stream="stdout"))
        return out
