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


def test_a_kernel_shut_down_from_outside_is_one_line_never_a_modal(qtbot, tmp_path):
    """qtconsole asked "Close the Console?" in a modal box, which held the window's event
    loop until someone answered; now one line in the console, and nothing to answer."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.ui.panels.console_widget import ConsoleWidget

    widget = ConsoleWidget()
    qtbot.addWidget(widget)
    client = ConsoleKernelClient()
    client.load_connection_info({"transport": "ipc", "ip": str(tmp_path / "none"),
                                 "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
                                 "control_port": 4, "hb_port": 5})
    with qtbot.waitSignal(client.started_channels, timeout=5000):
        client.start_channels(hb=False)
    widget.kernel_client = client
    modals: list[str] = []

    def close_any_modal() -> None:  # the old code's box: recorded and closed, not waited on
        box = QApplication.activeModalWidget()
        if box is not None:
            modals.append(box.windowTitle() + ": " + getattr(box, "text", lambda: "")())
            box.close()

    timer = QTimer()
    timer.timeout.connect(close_any_modal)
    timer.start(50)
    elsewhere = {"header": {"msg_type": "shutdown_reply"}, "msg_type": "shutdown_reply",
                 "parent_header": {"session": "someone-else", "msg_id": "x"},
                 "content": {"status": "ok", "restart": False}}
    try:
        widget._handle_shutdown_reply(elsewhere)
    finally:
        timer.stop()
        client.stop_channels()
    assert modals == []
    assert "The kernel was shut down from outside the workbench: Restart engine starts a " \
           "new one." in widget._control.toPlainText()
