"""What a lesson step showed when it ran as a notebook cell: its outputs, as Jupyter shows them.

A cell's outputs are its printed text (``stream``), the value of its last
expression (``result``, IPython's ``Out``) and what it displayed (``display``:
a matplotlib figure, ``IPython.display``), in the order they came. Each keeps its
``text/plain`` and, for a figure, its ``image/png`` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OutputKind = Literal["stream", "result", "display"]

MAX_OUTPUTS = 64
"""Outputs kept per cell; past it only a count."""
MAX_PNG_BYTES = 4 * 2**20
"""A figure larger than this travels as its text only (a 4 MB PNG is a poster, not a plot)."""
MAX_TEXT_CHARS = 20_000
"""Characters of one result's or display's text kept (a repr of a big array is shortened)."""


@dataclass(frozen=True)
class CellOutput:
    """One output of a cell; ``stream`` is ``stdout``/``stderr`` for printed text."""

    kind: OutputKind
    text: str = ""
    png: bytes = b""
    stream: str = ""
    execution_count: int | None = None
    """The ``Out[n]`` number of a result."""
