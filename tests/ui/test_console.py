"""The console is a qtconsole client of the engine's own kernel: one namespace, no noise."""

from __future__ import annotations

from pathlib import Path

from workbench.ui.panels.console_client import WakeableLoopThread

SOURCE = "def double(x):\n    return x * 2\n"


def console_text(window) -> str:
    widget = window.console_panel.widget
    return "" if widget is None else widget._control.toPlainText()


def test_console_shares_the_editor_namespace(qtbot, make_window):
    window = make_window(console=True)
    window.new_file()
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.editor.setPlainText(SOURCE)
    assert window.console_panel.widget.objectName() == "console"
    qtbot.waitUntil(lambda: "In [" in console_text(window), timeout=20000)
    window.console_panel.execute("print('result', double(21))")
    qtbot.waitUntil(lambda: "result 42" in console_text(window), timeout=20000)
    # and back: a name defined in the console is visible to the editor's code
    window.console_panel.execute("offset = 100")
    qtbot.waitUntil(lambda: "In [3]" in console_text(window), timeout=20000)
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.editor.setPlainText(SOURCE + "\ndef shifted(x):\n    return x + offset\n")
    with qtbot.waitSignal(window.sig_traced, timeout=30000) as blocker:
        window.controls.function_list.setCurrentText("shifted")
    assert "add a 100.0" in blocker.args[0].text
    assert "No such comm" not in console_text(window)


def test_what_the_editor_prints_shows_in_the_console_and_a_threads_text_is_marked(
        qtbot, make_window):
    window = make_window(console=True)
    window.new_file()
    qtbot.waitUntil(lambda: "In [" in console_text(window), timeout=20000)
    source = (
        "import threading\n"
        "print('hello from the editor')\n"
        "threading.Thread(target=lambda: print('late word'), daemon=True).start()\n"
        "threading.Event().wait(0.5)\n" + SOURCE
    )
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.editor.setPlainText(source)
    qtbot.waitUntil(lambda: "hello from the editor" in console_text(window), timeout=10000)
    qtbot.waitUntil(lambda: "late word" in console_text(window), timeout=10000)
    assert "[background thread] late word" in console_text(window)
    assert "[background thread] hello" not in console_text(window)


def test_a_lesson_steps_value_and_figure_show_in_the_console(qtbot, make_window, tmp_path):
    import nbformat.v4 as nbf
    from nbformat import write

    notebook = tmp_path / "fig.ipynb"
    write(nbf.new_notebook(cells=[nbf.new_code_cell(
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 1])\nplt.show()\n6 * 7")]), notebook)
    window = make_window(console=True)
    window.new_file()
    qtbot.waitUntil(lambda: "In [" in console_text(window), timeout=20000)
    window.trust_lesson(notebook)
    assert window.open_lesson(notebook)
    with qtbot.waitSignal(window.lessons.sig_outputs, timeout=60000) as shown:
        window.lessons.go_to(1)
    assert [o.kind for o in shown.args[0]] == ["display", "result"]
    qtbot.waitUntil(lambda: "Out[" in console_text(window), timeout=10000)
    assert ": 42" in console_text(window)
    # the figure is an image in the console's document (an object character in its text)
    assert "\ufffc" in console_text(window)



def test_what_is_announced_as_the_console_changes_kernel_outlives_its_reset(
        qtbot, make_window, tmp_path):
    # A restart gives the kernel a new connection file: the console takes a new client and
    # qtconsole clears its text once that kernel answers. "names ... are gone" said in
    # between was once cleared with it.
    from workbench.ui.panels.console import ConsolePanel

    window = make_window(console=True)
    qtbot.waitUntil(lambda: "In [" in console_text(window), timeout=20000)
    panel = ConsolePanel()
    qtbot.addWidget(panel)
    panel.connect_kernel(window.console_panel.connection_file)

    def text() -> str:
        return panel.widget._control.toPlainText()

    qtbot.waitUntil(lambda: "In [" in text(), timeout=20000)
    old_thread = panel.kernel_client.ioloop_thread
    assert isinstance(old_thread, WakeableLoopThread)  # qtconsole's client, our loop thread
    moved = tmp_path / "same-kernel.json"
    moved.write_text(Path(panel.connection_file).read_text())
    panel.connect_kernel(str(moved))
    assert not old_thread.is_alive() and old_thread._stop_event.is_set()  # woken, not polled
    panel.announce("the kernel changed")
    # The old kernel's heartbeat can fall silent now (a crashed engine restarting slowly):
    # qtconsole resets without clearing, and the new kernel's answer clears after that.
    panel.widget._handle_kernel_died(3.0)
    qtbot.waitUntil(lambda: not panel.widget._starting and "In [" in text(), timeout=20000)
    assert text().count("[workbench] the kernel changed") == 1, text()
    panel.kernel_client.stop_channels()
