"""Helpers the sub-commands share: reading the user's file the way the editor would."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.api.limits import MAX_SOURCE_BYTES, source_too_big
from workbench.engine.errors import UsageError
from workbench.engine.userfiles import read_regular_file

if TYPE_CHECKING:
    from workbench.engine.source import LoadedSource


def read_user_file(path: str) -> tuple[str, str]:
    """The text of FILE and the name it is compiled under (its resolved path).

    Only a regular file up to ``MAX_SOURCE_BYTES``: a FIFO would hang the command and
    ``/dev/zero`` would fill its memory.
    """
    p = Path(path)
    if not p.exists():
        raise UsageError(f"no such file: {path}")
    if p.is_dir():
        raise UsageError(f"{path} is a folder, not a Python file")
    data = read_regular_file(p, MAX_SOURCE_BYTES, lambda size: source_too_big(size, path))
    try:
        # Universal newlines, as the editor and Path.read_text give.
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    return text, str(p.resolve())


def load_user_file(path: str) -> LoadedSource:  # engine imported lazily: jax is slow
    from workbench.engine.source import load_source

    text, filename = read_user_file(path)
    return load_source(text, filename)
