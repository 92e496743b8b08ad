"""What a process sets up for itself: glibc malloc tuned to keep large blocks (the engine's
process), and the one lock under which matplotlib is first imported (the window's).

XLA's CPU runtime allocates its large buffers (a k-means label history of
tens of MB, temporaries of every run) with malloc, which glibc serves with a
fresh ``mmap`` above 32 MB and returns on free. Every run then pays a page
fault per 4 KiB it touches. Measured at N=1e6, K=8, 40 iterations: 3.1-3.3 ms
per iteration and +5..21% for the recorded history with the default; 2.2-2.3
ms and +4..6% when freed blocks up to 1 GiB stay in one heap for reuse.
Larger blocks are still mapped and returned, so a huge array does not pin
memory. Other C libraries ignore these variables.

A process that runs the engine in-process (the ``workbench`` sub-commands) gets
the same tuning from ``tune_malloc`` (glibc's ``mallopt``) without re-executing
itself. Freed blocks kept for reuse still count in RSS until ``trim_malloc``
hands them back; the kernel does that after a request that left much free.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from collections.abc import Mapping

MALLOC_TUNING: Mapping[str, str] = {
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
    "MALLOC_TRIM_THRESHOLD_": str(2 << 30),
    # XLA allocates from its worker threads; a thread arena's heap is at most 64 MB,
    # so larger blocks would be mapped afresh anyway. One arena keeps them all.
    "MALLOC_ARENA_MAX": "1",
}


# ipykernel starts debugpy, which warns about frozen modules into the user's console
# in the middle of their output; the kernel has no use for that validation.
QUIET_DEBUGGER: Mapping[str, str] = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}


def engine_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with the malloc tuning and a quiet
    debugger, unless set."""
    env = dict(os.environ if base is None else base)
    for key, value in {**MALLOC_TUNING, **QUIET_DEBUGGER}.items():
        env.setdefault(key, value)
    return env


# matplotlib's first import fails half-way when two threads make it at once ("partially
# initialized module"). In the window, the lesson text's mathtext loads it on a thread while
# the panels' import of igraph (whose drawing code imports pyplot) may load it on the GUI
# thread: both import under this lock.
MATPLOTLIB_IMPORT = threading.Lock()


# glibc's mallopt() parameter for each variable (malloc.h: M_TRIM_THRESHOLD, M_MMAP_THRESHOLD,
# M_ARENA_MAX); mallopt takes a C int.
MALLOPT_PARAMS: Mapping[str, int] = {
    "MALLOC_TRIM_THRESHOLD_": -1,
    "MALLOC_MMAP_THRESHOLD_": -3,
    "MALLOC_ARENA_MAX": -8,
}
INT_MAX = 2**31 - 1


class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (2.33+): the heap's totals, in bytes."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


@functools.cache
def glibc() -> ctypes.CDLL | None:
    """This process's C library when it is glibc (the only one with these knobs), else None."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not all(hasattr(libc, name) for name in ("gnu_get_libc_version", "mallopt",
                                                 "malloc_trim")):
        return None
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    return libc


def tune_malloc(environ: Mapping[str, str] | None = None) -> dict[str, int]:
    """Give this process the engine kernel's malloc tuning now; return what was set.

    A variable already in ``environ`` (default: this process's) was read by glibc
    at start and wins, as it would in the kernel. Nothing happens without glibc.
    """
    libc = glibc()
    if libc is None:
        return {}
    env = os.environ if environ is None else environ
    applied = {}
    for key, value in MALLOC_TUNING.items():
        # mallopt takes a C int: the 2 GiB trim threshold is one byte past its largest.
        number = min(int(value), INT_MAX)
        if key not in env and libc.mallopt(MALLOPT_PARAMS[key], number) == 1:
            applied[key] = number
    return applied


def malloc_free_bytes() -> int | None:
    """Bytes freed but kept by glibc's heap (``mallinfo2().fordblks``); None without glibc."""
    libc = glibc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = MallInfo2
    return int(libc.mallinfo2().fordblks)


def trim_malloc() -> bool:
    """Return the heap's free pages to the system (``malloc_trim(0)``); True if any went."""
    libc = glibc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
