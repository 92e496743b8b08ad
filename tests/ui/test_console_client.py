"""The console's kernel client stops its loop thread when told: jupyter_client's own thread
looks at its exit flag once a second, and stopping it held the GUI thread that long each
time the console changed kernel."""

from __future__ import annotations

from qtconsole.client import QtKernelClient

from workbench.ui.panels.console_client import ConsoleKernelClient, WakeableLoopThread


def test_the_loop_thread_ends_by_its_event_not_its_flag():
    thread = WakeableLoopThread()
    thread.start()
    assert thread.is_alive() and thread.ioloop is not None
    thread.stop()
    assert not thread.is_alive()
    assert thread._stop_event.is_set() and thread.ioloop is None


def test_the_client_is_qtconsoles_and_its_channels_run_on_that_thread(qtbot, tmp_path):
    client = ConsoleKernelClient()
    assert isinstance(client, QtKernelClient)  # qtconsole's channel classes and signals
    client.load_connection_info({"transport": "ipc", "ip": str(tmp_path / "none"),
                                 "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
                                 "control_port": 4, "hb_port": 5})
    with qtbot.waitSignal(client.started_channels, timeout=5000):
        client.start_channels(hb=False)  # no kernel needed: zmq connects when one listens
    thread = client.ioloop_thread
    assert isinstance(thread, WakeableLoopThread) and client.shell_channel.is_alive()
    with qtbot.waitSignal(client.stopped_channels, timeout=5000):
        client.stop_channels()
    assert not thread.is_alive() and not client.channels_running
