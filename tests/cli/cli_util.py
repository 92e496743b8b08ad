"""Run the ``workbench`` command in process, as the CLI tests do, or in a child process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workbench.cli import main

# Starts the CLI with its address space capped, so that a broken build that reads without
# end fails with MemoryError instead of taking the test machine's memory.
_CAPPED = (
    "import resource, sys\n"
    "_, hard = resource.getrlimit(resource.RLIMIT_AS)\n"
    "resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), hard))\n"
    "from workbench.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def run_cli(capsys, *argv):
    """``workbench ARGV`` through ``main``: (exit status, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_cli_process(*argv: str, timeout: float = 120, memory: int = 16 << 30):
    """``workbench ARGV`` in a child process with at most MEMORY bytes of address space.

    A run past TIMEOUT seconds (a hang) is killed and fails the test.
    """
    try:
        return subprocess.run([sys.executable, "-c", _CAPPED, str(memory), *argv],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"workbench {' '.join(argv)} still running after {timeout} s")
