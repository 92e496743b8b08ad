"""Four virtual CPU devices for tests: JAX reads ``XLA_FLAGS`` when its backend starts, so
they exist only in a process started with this environment (a CLI run, a script, a kernel)."""

from __future__ import annotations

import json
import os
import select
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


# One child with four devices runs command after command through ``workbench.cli.main``, as
# the in-process CLI tests do: a child process each (JAX and its four devices started again)
# cost a second of CPU per command.
_SERVE = r"""
import contextlib, io, json, sys

from workbench.cli import main


class Text(io.StringIO):
    encoding = "utf-8"  # what a command's pipe to its caller says


for line in sys.stdin:
    out, err = Text(), Text()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(json.loads(line))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    print(json.dumps([code, out.getvalue(), err.getvalue()]), flush=True)
"""


class FourDeviceCli:
    """``workbench ARGV`` run by one child process that has four CPU devices."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=four_device_env())

    def __call__(self, *argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(list(argv)) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.close()
            pytest.fail(f"workbench {' '.join(argv)} still running after {timeout} s")
        line = self.proc.stdout.readline()
        if not line:
            pytest.fail(f"the four-device child exited ({self.proc.wait()}) running "
                        f"workbench {' '.join(argv)}")
        code, out, err = json.loads(line)
        return subprocess.CompletedProcess(["workbench", *argv], code, out, err)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
