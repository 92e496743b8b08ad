"""A headless command gets the engine kernel's malloc tuning without re-executing itself.

Observed through glibc itself: after ``workbench trace`` has run in a process started
without the ``MALLOC_*`` variables, a 100 MB block comes from the heap (kept for
reuse), as in the kernel; in a process that did not run the CLI it is mapped afresh.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.api.process_env import MALLOC_TUNING, glibc

EXAMPLE = Path(__file__).resolve().parents[2] / "assets" / "examples" / "selu.py"
pytestmark = pytest.mark.skipif(glibc() is None or not hasattr(glibc(), "mallinfo2"),
                                reason="needs glibc 2.33+ (mallopt, mallinfo2)")

PROBE = f"""
import ctypes, sys
from workbench.api.process_env import MallInfo2, glibc
libc = glibc()
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "cli":
    from workbench.cli import main
    assert main(["trace", {str(EXAMPLE)!r}, "selu", "--args", "f32[3]"]) == 0
before = libc.mallinfo2().hblkhd
block = libc.malloc(100 << 20)
print("mapped", libc.mallinfo2().hblkhd - before)
libc.free(block)
"""


def _mapped_bytes(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if k not in MALLOC_TUNING}
    run = subprocess.run([sys.executable, "-c", PROBE, mode], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    last = run.stdout.splitlines()[-1].split()
    assert last[0] == "mapped"
    return int(last[1])


def test_the_cli_keeps_a_100_mb_block_in_the_heap_as_the_kernel_does():
    assert _mapped_bytes("cli") == 0


def test_without_the_cli_glibc_maps_it():
    assert _mapped_bytes("plain") >= 100 << 20
