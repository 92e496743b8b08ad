"""The CLI's FILE is a regular file of bounded size: special files and huge files get a message.

A FIFO used to hang the command forever and a link to /dev/zero to fill its memory
until it was killed; both now give one line and exit status 2.
"""

from __future__ import annotations

import os

from tests.cli.cli_util import run_cli, run_cli_process
from workbench.api.limits import MAX_SOURCE_BYTES, source_too_big

SOURCE = "def f(x):\n    return x + 1\n"


def _refused(proc, message: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [f"workbench trace: error: {message}"]


def test_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "prog.py"
    os.mkfifo(fifo)
    proc = run_cli_process("trace", str(fifo), "f", "--args", "f32[3]", timeout=60)
    _refused(proc, f"{fifo} is a named pipe (FIFO), not a regular file")


def test_link_to_dev_zero_is_refused_without_reading_it(tmp_path):
    link = tmp_path / "prog.py"
    link.symlink_to("/dev/zero")
    proc = run_cli_process("trace", str(link), "f", "--args", "f32[3]", timeout=60)
    _refused(proc, f"{link} (a link to /dev/zero) is a device, not a regular file")


def test_file_past_the_source_limit_is_refused(tmp_path, capsys):
    big = tmp_path / "big.py"
    big.write_text(SOURCE + "#" * (6 * 1000 * 1000) + "\n")  # valid Python, 6 MB
    size = big.stat().st_size
    assert size > MAX_SOURCE_BYTES
    code, out, err = run_cli(capsys, "trace", str(big), "f", "--args", "f32[3]")
    assert code == 2 and out == ""
    assert err.strip() == f"workbench trace: error: {source_too_big(size, str(big))}"


def test_regular_file_through_a_link_still_reads_with_universal_newlines(tmp_path, capsys):
    real = tmp_path / "real.py"
    real.write_bytes(SOURCE.replace("\n", "\r\n").encode())
    link = tmp_path / "link.py"
    link.symlink_to(real)
    code, out, err = run_cli(capsys, "trace", str(link), "f", "--args", "f32[3]")
    assert code == 0, err
    assert "add" in out
