"""The bundled example programs and what each opens on (no jax: the window reads it too)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "assets" / "examples"


@dataclass(frozen=True)
class Example:
    path: Path
    title: str
    function: str
    args: str
    transforms: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path.stem


def bundled_examples(folder: Path = EXAMPLES_DIR) -> tuple[Example, ...]:
    with open(folder / "examples.toml", "rb") as fh:
        table = tomllib.load(fh)
    return tuple(
        Example(
            folder / e["file"],
            e["title"],
            e["function"],
            e["args"],
            tuple(e.get("transforms", ())),
        )
        for e in table["example"]
    )
