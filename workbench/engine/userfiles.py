"""Reading a file the user named: a regular file only, and never more than a size limit.

A path may lead (through links) to a named pipe, where ``open`` waits for a writer
forever, to a device such as ``/dev/zero`` that never ends, or to a file that grows
while it is read. Each gets one clear ``UsageError`` instead of a hang or a process
killed for memory.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from workbench.engine.errors import UsageError

# Opening without O_NONBLOCK waits for a FIFO's writer; a regular file ignores the flag.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words, for a message."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_regular_file(path: str | os.PathLike[str], limit: int,
                      too_big: Callable[[int], str]) -> bytes:
    """The bytes of PATH, a regular file (links followed) of at most LIMIT bytes.

    ``too_big(size)`` is the message for a larger file. The file is checked before it
    is opened (a device is never opened) and again after (it may have been replaced),
    and at most LIMIT + 1 bytes are read, so a file that grows meanwhile is refused too.
    """
    name = os.fspath(path)
    try:
        before = os.stat(name)
        _check(name, before.st_mode)
        if before.st_size > limit:
            raise UsageError(too_big(before.st_size))
        fd = os.open(name, _OPEN_FLAGS)
        with os.fdopen(fd, "rb") as f:
            _check(name, os.fstat(fd).st_mode)
            data = f.read(limit + 1)
            if len(data) > limit:
                raise UsageError(too_big(max(len(data), os.fstat(fd).st_size)))
    except FileNotFoundError:
        raise UsageError(f"no such file: {name}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    return data


def _check(name: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    target = os.path.realpath(name)
    via = f" (a link to {target})" if target != os.path.abspath(name) else ""
    raise UsageError(f"{name}{via} is {file_kind(mode)}, not a regular file")
