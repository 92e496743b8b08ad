"""The window on a kernel started apart (``workbench --existing FILE``): the status bar names the
host, the console shares the kernel, Stop interrupts it, a Stop that cannot stop it offers a
restart the user chooses, and a kernel that dies or was never there is reported with the
editor's text kept."""

from __future__ import annotations

import json
import os
import signal

from tests.attach_util import DEAF_JIT_LOOP, start_tcp_kernel
from tests.kernel_util import wait_working
from workbench.api import messages as p
from workbench.api.messages import Output
from workbench.ui.control.engine_bridge import EngineBridge

SELU = """\
def selu(x, alpha=1.67, lmbda=1.05):
    negative = alpha * jnp.exp(x) - alpha
    return lmbda * jnp.where(x > 0, x, negative)
"""


def attached_window(make_window, connection_file, **kwargs):
    return make_window(engine=EngineBridge(connection_file=str(connection_file)), **kwargs)


def test_the_window_attaches_and_names_the_host(qtbot, make_window, tcp_kernel):
    window = attached_window(make_window, tcp_kernel.connection_file, console=True)
    window.new_file()
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.editor.setPlainText(SELU)
    assert window.engine.client.call(p.Ping(), 30).value.pid == tcp_kernel.proc.pid
    assert window.status.text().startswith("engine: localhost (attached), ")
    qtbot.waitUntil(lambda: window.status.text() == "engine: localhost (attached), idle",
                    timeout=30000)
    # The console talks to the same kernel, through the same connection file.
    qtbot.waitUntil(lambda: window.console_panel.widget is not None, timeout=30000)
    assert window.console_panel.connection_file == str(tcp_kernel.connection_file)
    window.console_panel.execute("from_console = 7")
    qtbot.waitUntil(lambda: isinstance(window.engine.client.call(
        p.LoadSource(source="seen = from_console"), 30), p.Result), timeout=30000)


def test_stop_interrupts_an_endless_loop_in_the_attached_kernel(qtbot, make_window, tcp_kernel):
    window = attached_window(make_window, tcp_kernel.connection_file)
    window.live_box.setChecked(False)
    qtbot.waitUntil(lambda: window.graph_panel is not None, timeout=60000)
    window.panel_docks[3].close()  # no values request queued before the loop: only the Stop
    qtbot.waitUntil(lambda: window.engine.state == "idle", timeout=60000)
    window.new_file()
    window.editor.setPlainText("n = 0\nwhile True:\n    n += 1\n")
    window.run()
    qtbot.waitUntil(lambda: window.engine.state == "busy", timeout=10000)
    window.action_stop.trigger()
    qtbot.waitUntil(lambda: window.engine.state == "idle", timeout=5000)
    assert not window.restart_offer.isVisible()
    assert window.engine.client.stats.restarts == 0  # interrupted, not restarted
    assert tcp_kernel.alive()


def test_a_stop_that_fails_offers_a_restart_and_only_the_user_starts_it(
        qtbot, make_window, tcp_kernel):
    window = attached_window(make_window, tcp_kernel.connection_file)
    window.live_box.setChecked(False)
    qtbot.waitUntil(lambda: window.engine.state == "idle", timeout=60000)
    window.new_file()
    window.editor.setPlainText(SELU)
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.run()
    window.editor.setPlainText(DEAF_JIT_LOOP)
    with qtbot.waitSignal(window.engine.sig_output, timeout=60000,
                          check_params_cb=lambda o: isinstance(o, Output)
                          and "started" in o.text):
        window.run()
    wait_working(tcp_kernel.proc.pid)  # inside XLA, not between the print and the call
    window.action_stop.trigger()
    qtbot.waitUntil(window.restart_offer.isVisible, timeout=30000)
    assert "did not stop" in window.notice_text.toPlainText()
    assert window.restart_offer.text() == "Restart the kernel on localhost"
    assert window.engine.state == "busy"  # still running: nothing restarted it
    assert window.engine.client.stats.restarts == 0
    window.restart_offer.click()
    qtbot.waitUntil(lambda: window.engine.state == "idle"
                    and "restarted" in window.notice_text.toPlainText(), timeout=60000)
    assert not window.restart_offer.isVisible()
    assert window.editor.toPlainText() == DEAF_JIT_LOOP  # the editor keeps its text
    window.editor.setPlainText(SELU)
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.run()


def test_a_kernel_that_dies_is_reported_with_the_text_kept(qtbot, make_window, tmp_path):
    kernel = start_tcp_kernel(tmp_path / "k")
    try:
        window = attached_window(make_window, kernel.connection_file)
        window.new_file()
        with qtbot.waitSignal(window.sig_traced, timeout=60000):
            window.editor.setPlainText(SELU)
        os.killpg(kernel.proc.pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: window.engine.state == "dead", timeout=10000)
        assert "lost contact with the kernel on localhost" in window.notice_text.toPlainText()
        assert window.status.text() == "engine: localhost (attached), dead"
        assert window.editor.toPlainText() == SELU
        assert window.engine.client.stats.restarts == 0
        with qtbot.waitSignal(window.sig_error_shown, timeout=10000) as shown:
            window.run()
        assert "lost contact" in shown.args[0]
        assert kernel.proc.poll() is not None  # nobody started it again
    finally:
        kernel.kill()


def test_a_connection_file_that_leads_nowhere_is_a_message_with_nothing_lost(
        qtbot, make_window, tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(SELU)
    window = make_window(mine, engine=EngineBridge(connection_file=str(tmp_path / "gone.json")))
    qtbot.waitUntil(lambda: window.engine.state == "dead", timeout=10000)
    assert window.notice_bar.isVisible()
    assert f"no such connection file: {tmp_path / 'gone.json'}" in \
        window.notice_text.toPlainText()
    assert window.status.text() == "engine: gone.json (attached), dead"
    assert window.editor.toPlainText() == SELU


def test_the_window_attaches_through_ssh(qtbot, make_window, tcp_kernel, sshd, monkeypatch):
    monkeypatch.setenv("PATH", sshd.env()["PATH"])
    bridge = EngineBridge(connection_file=str(tcp_kernel.connection_file), ssh=sshd.server)
    window = make_window(engine=bridge, console=True)
    assert window.status.text() == "engine: 127.0.0.1 (attached), starting"
    window.new_file()
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.editor.setPlainText(SELU)
    assert window.engine.client.call(p.Ping(), 30).value.pid == tcp_kernel.proc.pid
    # The console goes through the tunnel too (its own connection file, as qtconsole's).
    qtbot.waitUntil(lambda: window.console_panel.widget is not None, timeout=30000)
    first = window.console_panel.connection_file
    assert first == str(window.engine.client.connection_file)
    assert first != str(tcp_kernel.connection_file)
    # A restart closes jupyter_client's tunnels with their connections: the engine tunnels
    # afresh, and the console follows it through the new tunnel.
    window.restart_engine()
    qtbot.waitUntil(lambda: window.engine.state == "idle"
                    and "restarted" in window.notice_text.toPlainText(), timeout=60000)
    tunnelled = window.engine.client.connection_file
    assert window.console_panel.connection_file == str(tunnelled) != first
    assert window.console_panel.kernel_client.shell_port == \
        json.loads(tunnelled.read_text())["shell_port"]
    window.console_panel.execute("from_console = 7")
    qtbot.waitUntil(lambda: isinstance(window.engine.client.call(
        p.LoadSource(source="seen = from_console"), 30), p.Result), timeout=30000)
