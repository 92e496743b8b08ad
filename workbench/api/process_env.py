"""What a process sets up for itself: the engine kernel's environment (a quiet debugger,
and glibc's malloc left as plain Python has it), glibc's heap read and trimmed, and the one
lock under which matplotlib is first imported (the window's).

The kernel once tuned malloc (``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` to keep
blocks up to 1 GiB, ``MALLOC_ARENA_MAX=1``). Measured in plain Python, that alone moved
the figures a class compares: a jitted call on f32[100] 7.4-10.3 us -> 12.4-12.8 us (one
arena), an eager op on f32[1e6] several times faster than in Jupyter's kernel (no page
faults on reuse). A timing in a lesson must be what Jupyter measures, so the engine runs
with glibc's defaults. K-means pays for it: its 41 MB label history (N=1e6, 40
iterations) is now mapped and faulted in afresh each run, +14-29% per iteration where it
was about 0 (docs/performance.md). Memory goes back the other way: after a request that
left much of the heap free, the kernel calls ``trim_malloc``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from collections.abc import Mapping

# ipykernel starts debugpy, which warns about frozen modules into the user's console
# in the middle of their output; the kernel has no use for that validation.
QUIET_DEBUGGER: Mapping[str, str] = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}


def engine_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with a quiet debugger, unless set."""
    env = dict(os.environ if base is None else base)
    for key, value in QUIET_DEBUGGER.items():
        env.setdefault(key, value)
    return env


# matplotlib's first import fails half-way when two threads make it at once ("partially
# initialized module"). In the window, the lesson text's mathtext loads it on a thread while
# the panels' import of igraph (whose drawing code imports pyplot) may load it on the GUI
# thread: both import under this lock.
MATPLOTLIB_IMPORT = threading.Lock()


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
    if not all(hasattr(libc, name) for name in ("gnu_get_libc_version", "malloc_trim")):
        return None
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    return libc


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
