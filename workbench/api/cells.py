"""What a lesson step showed when it ran as a notebook cell: its outputs, as Jupyter shows them.

A cell's outputs are its printed text (``stream``), the value of its last
expression (``result``, IPython's ``Out``) and what it displayed (``display``:
a matplotlib figure, ``IPython.display``), in the order they came. Each keeps its
``text/plain`` and, for a figure, its ``image/png`` bytes.
"""

from __future__ import annotations

import ast
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


def bound_names(source: str) -> dict[str, str]:
    """Top-level names a cell binds, each with how ("imports", "defines"): what a failed (or
    not yet run) cell leaves undefined. ``source`` is the cell as Python reads it (the
    engine passes IPython's transformed cell); one that does not parse binds none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = "defines"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = "imports"
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.setdefault(sub.id, "defines")
    return names
