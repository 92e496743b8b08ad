"""Four virtual CPU devices for tests: JAX reads ``XLA_FLAGS`` when its backend starts, so
they exist only in a process started with this environment (a CLI run, a script, a kernel)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

DEVICES = 4
FLAG = f"--xla_force_host_platform_device_count={DEVICES}"
NAMES = [f"cpu:{i}" for i in range(DEVICES)]


def four_device_env() -> dict[str, str]:
    """This process's environment with four CPU devices asked for."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {FLAG}".strip()
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def run_four(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python ARGV`` in a child process that has four CPU devices."""
    try:
        return subprocess.run([sys.executable, *argv], capture_output=True, text=True,
                              timeout=timeout, env=four_device_env())
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} still running after {timeout} s")


def workbench_four(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``workbench ARGV`` with four CPU devices."""
    return run_four("-m", "workbench.cli", *argv, timeout=timeout)
