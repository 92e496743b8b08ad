"""The bundled example programs and what each opens on (no jax: the window reads it too)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


def find_assets() -> Path:
    """The assets folder: inside the installed package (a wheel), else the repository's.

    The wheel carries the top-level ``assets/`` as ``workbench/assets``
    (pyproject.toml); a source checkout or an editable install has it beside the package.
    """
    packaged = resources.files("workbench") / "assets"
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged.resolve()
    return Path(__file__).resolve().parents[1] / "assets"


ASSETS_DIR = find_assets()
EXAMPLES_DIR = ASSETS_DIR / "examples"


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
