"""Attaching through a connection file other users can read, or to a kernel that listens on every
address (or is reached over the network without ssh), works, with a warning the user reads: a
stderr line from the CLI, a notice in the window. A file that leads nowhere is its error alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.cli_util import run_cli_process
from tests.kernel_util import wait_until
from workbench.api import messages as p
from workbench.api.state import Notice
from workbench.client.attach import attach_warnings
from workbench.client.core import SETUP_WARNING
from workbench.client.engine_client import EngineClient
from workbench.ui.control.engine_bridge import EngineBridge

ALL_ADDRESSES = ("the kernel listens on all addresses (0.0.0.0): anyone on the network who "
                 "gets its key can run code there; start it with --ip 127.0.0.1 and attach "
                 "with --ssh HOST")


def _readable(path: Path) -> str:
    return (f"{path} can be read by other users (mode 0644): anyone who can read it can run "
            "code in the kernel; chmod 600 it")


def _copy(kernel_info: dict, path: Path, mode: int, **changes) -> Path:
    path.write_text(json.dumps({**kernel_info, **changes}))
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize(("mode", "warned"), [(0o600, False), (0o644, True), (0o640, True),
                                              (0o604, True), (0o400, False)])
def test_a_file_others_can_read_is_warned_of(tmp_path, mode, warned):
    info = {"ip": "127.0.0.1", "transport": "tcp"}
    path = _copy(info, tmp_path / "kernel.json", mode)
    said = attach_warnings(path, info, None)
    assert said == ([f"{path} can be read by other users (mode {mode:04o}): anyone who can "
                     "read it can run code in the kernel; chmod 600 it"] if warned else [])


@pytest.mark.parametrize(("ip", "ssh", "says"), [
    ("127.0.0.1", None, ""), ("localhost", None, ""), ("::1", None, ""),
    ("0.0.0.0", None, ALL_ADDRESSES), ("0.0.0.0", "gpu-host", ALL_ADDRESSES),
    ("10.1.2.3", None, "the kernel at 10.1.2.3 is reached over the network without ssh: your "
                       "code and its results travel unencrypted; attach with --ssh HOST"),
    ("10.1.2.3", "gpu-host", ""),
])
def test_where_the_kernel_listens_is_warned_of(tmp_path, ip, ssh, says):
    info = {"ip": ip, "transport": "tcp"}
    path = _copy(info, tmp_path / "kernel.json", 0o600)
    assert attach_warnings(path, info, ssh) == ([says] if says else [])


def test_an_ipc_kernel_is_judged_by_its_file_alone(tmp_path):
    info = {"ip": "/run/user/1/kernel", "transport": "ipc"}
    assert attach_warnings(_copy(info, tmp_path / "k.json", 0o600), info, None) == []


def test_the_cli_warns_on_stderr_and_still_runs(tcp_kernel, tmp_path):
    readable = _copy(tcp_kernel.info, tmp_path / "readable.json", 0o644)
    everywhere = _copy(tcp_kernel.info, tmp_path / "everywhere.json", 0o600, ip="0.0.0.0")
    for path, says in ((readable, _readable(readable)), (everywhere, ALL_ADDRESSES)):
        proc = run_cli_process("devices", "--format", "json", "--existing", str(path),
                               timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["devices"]  # it ran there
        assert proc.stderr.splitlines() == [f"workbench devices: warning: {says}"]


def test_a_file_that_leads_nowhere_is_its_error_alone(tmp_path):
    from tests.attach_util import dead_connection_file

    path = dead_connection_file(tmp_path)
    os.chmod(path, 0o644)
    proc = run_cli_process("devices", "--existing", str(path), timeout=30)
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("workbench devices: error: nothing answers at 127.0.0.1")


def test_the_client_says_it_in_a_notice_once_the_kernel_answers(tcp_kernel, tmp_path):
    path = _copy(tcp_kernel.info, tmp_path / "readable.json", 0o644)
    notices: list[Notice] = []
    with EngineClient(path, on_notice=notices.append) as client:
        assert isinstance(client.call(p.Ping(), 60), p.Result)
        wait_until(lambda: notices, 10, "the warning")
        assert notices == [Notice(SETUP_WARNING, f"warning: {_readable(path)}")]
        assert client.attach_warnings == [_readable(path)]
        client.restart()  # said once, not again after a restart
        wait_until(lambda: len(notices) > 1 and client.state == "idle", 60, "the restart")
        assert [n.message for n in notices[1:]] == ["the kernel on localhost restarted"]


def test_the_window_shows_it_in_the_notice_bar(qtbot, make_window, tcp_kernel, tmp_path):
    path = _copy(tcp_kernel.info, tmp_path / "readable.json", 0o644)
    window = make_window(engine=EngineBridge(connection_file=str(path)))
    qtbot.waitUntil(lambda: window.notice_bar.isVisible(), timeout=60000)
    assert window.notice_text.toPlainText() == f"warning: {_readable(path)}"
    qtbot.waitUntil(lambda: window.engine.state == "idle", timeout=60000)  # it still runs
    assert window.engine.client.call(p.Ping(), 30).value.pid == tcp_kernel.proc.pid
