"""Helpers the sub-commands share: reading the user's file the way the editor would."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.engine.errors import UsageError

if TYPE_CHECKING:
    from workbench.engine.source import LoadedSource


def read_user_file(path: str) -> tuple[str, str]:
    """The text of FILE and the name it is compiled under (its resolved path)."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"no such file: {path}")
    if p.is_dir():
        raise UsageError(f"{path} is a folder, not a Python file")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return text, str(p.resolve())


def load_user_file(path: str) -> LoadedSource:  # engine imported lazily: jax is slow
    from workbench.engine.source import load_source

    text, filename = read_user_file(path)
    return load_source(text, filename)
