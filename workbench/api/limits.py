"""Sizes past which the workbench refuses input instead of slowing to a crawl, and the one
reader of every file the user names (a source, a lesson, points, centroids).

One place for the editor, the CLI, the lessons and the engine, so each says the same
thing. A path may lead (through links) to a named pipe, where ``open`` waits for a
writer for ever, to a device such as ``/dev/zero`` that never ends, or to a file that
grows while it is read: ``read_regular_file`` refuses each in one line, never hangs,
and never reads past its limit.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

MAX_SOURCE_BYTES = 5 * 1024 * 1024
"""Editor source (a file opened, a buffer loaded): 5 MB loads in seconds, 10 MB in ~45 s."""


def source_too_big(size: int, what: str = "the source") -> str:
    """The one message for source past ``MAX_SOURCE_BYTES``."""
    return (f"{what} is {size / 1e6:.1f} MB; the workbench loads Python source up to "
            f"{MAX_SOURCE_BYTES / 1e6:.1f} MB")


MAX_OUTPUT_CHARS = 100_000
"""User output kept per request (the console's, the jaxpr panel's, the CLI's): past it, counted."""


# Opening without O_NONBLOCK waits for a FIFO's writer; a regular file ignores the flag.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))


class FileRefused(Exception):
    """A file the user named that is not read; ``str()`` is the one line to show.

    ``reason``: "missing", "folder", "special" (a pipe, a device, a socket), "too_big" or
    "unreadable" (what the system said), for a caller that words some of them its own way.
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


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


@dataclass(frozen=True)
class OpenedFile:
    """The bytes of a file and the file they were read from, as the open descriptor saw
    it: what a caller decides on (trust, a bundled lesson, where to save) is then the
    file that was read, not whatever the path leads to a moment later."""

    data: bytes
    real_path: str
    """The file's real path when it was read (links resolved)."""
    identity: tuple[int, int]
    """Its device and inode numbers."""


def read_regular_file(path: str | os.PathLike[str], limit: int,
                      too_big: Callable[[int], str], name: str | None = None) -> bytes:
    """The bytes of ``path``, a regular file (links followed) of at most ``limit`` bytes.

    ``too_big(size)`` is the message for a larger file; ``name`` is how messages name the
    file (its path by default). The file is checked before it is opened (a device is never
    opened) and again after (it may have been replaced), and at most ``limit + 1`` bytes
    are read, so a file that grows meanwhile is refused too.
    """
    return read_opened_file(path, limit, too_big, name).data


def read_opened_file(path: str | os.PathLike[str], limit: int,
                     too_big: Callable[[int], str], name: str | None = None) -> OpenedFile:
    """``read_regular_file``, with the real path and identity of the file the bytes came
    from (taken from the open descriptor, so a link re-pointed meanwhile does not count)."""
    where = os.fspath(path)
    shown = name or where
    try:
        before = os.stat(where)
        _require_regular(where, shown, before.st_mode)
        if before.st_size > limit:
            raise FileRefused(too_big(before.st_size), "too_big")
        fd = os.open(where, _OPEN_FLAGS)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            _require_regular(where, shown, info.st_mode)
            real = _descriptor_path(fd, where)
            data = handle.read(limit + 1)
            if len(data) > limit:
                raise FileRefused(too_big(max(len(data), os.fstat(fd).st_size)), "too_big")
    except FileNotFoundError:
        raise FileRefused(f"no such file: {shown}", "missing") from None
    except OSError as exc:
        raise FileRefused(f"cannot read {shown}: {exc.strerror or exc}", "unreadable") from None
    return OpenedFile(data, real, (info.st_dev, info.st_ino))


def _descriptor_path(fd: int, where: str) -> str:
    """The real path of the file open as ``fd``: Linux names it in /proc; elsewhere the
    path's real path now (the identity still tells the file apart)."""
    try:
        named = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(where)
    return named if named.startswith("/") and not named.endswith(" (deleted)") \
        else os.path.realpath(where)


def _require_regular(where: str, shown: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    target = os.path.realpath(where)
    via = f" (a link to {target})" if target != os.path.abspath(where) else ""
    reason = "folder" if stat.S_ISDIR(mode) else "special"
    raise FileRefused(f"{shown}{via} is {file_kind(mode)}, not a regular file", reason)
