"""Reading a file the user named, for the engine and the CLI: ``api.limits``'s one reader,
its refusal a ``UsageError`` (one line, exit status 2)."""

from __future__ import annotations

import os
from collections.abc import Callable

from workbench.api.limits import FileRefused, file_kind
from workbench.api.limits import read_regular_file as _read
from workbench.engine.errors import UsageError

__all__ = ["file_kind", "read_regular_file"]


def read_regular_file(path: str | os.PathLike[str], limit: int,
                      too_big: Callable[[int], str]) -> bytes:
    """The bytes of PATH, a regular file of at most LIMIT bytes, else ``UsageError``."""
    try:
        return _read(path, limit, too_big)
    except FileRefused as exc:
        raise UsageError(str(exc)) from None
