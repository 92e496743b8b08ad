"""The window on a kernel of a real Jupyter Server (``workbench --server URL``): it traces on
that kernel, the status bar names the server and the kernel's devices, the console shares the
kernel's names over the engine's WebSocket (one socket, so that the server replays what a
drop loses, to both), and the token is nowhere on screen."""

from __future__ import annotations

import queue

import pytest

from tests.server_util import running_jupyter_server
from tests.ui.test_console import console_text
from workbench.api import messages as p
from workbench.api.state import State
from workbench.client.server import server_target
from workbench.ui.control.engine_bridge import EngineBridge

SELU = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""


def until_console(qtbot, window, needle: str, timeout: int = 30000) -> None:
    """Wait for ``needle`` in the console and for its prompt (a person types at the prompt);
    a timeout shows the console's last lines."""
    def shown() -> None:
        text = console_text(window)
        assert needle in text and not window.console_panel.widget._executing, (
            f"waiting for {needle!r} and the prompt; the console ends:\n{text[-1500:]}")
    qtbot.waitUntil(shown, timeout=timeout)


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    with running_jupyter_server(tmp_path_factory.mktemp("server")) as server:
        yield server


def test_the_window_runs_on_a_server_kernel_and_names_the_server(qtbot, make_window, jupyter):
    target = server_target(jupyter.url + "lab?token=" + jupyter.token)  # a browser's link
    window = make_window(engine=EngineBridge(server=target), console=True)
    window.new_file()
    with qtbot.waitSignal(window.sig_traced, timeout=90000) as traced:
        window.editor.setPlainText(SELU)
    assert "exp" in traced.args[0].text
    port = jupyter.url.rstrip("/").rsplit(":", 1)[1]
    qtbot.waitUntil(lambda: window.status.text() == f"engine: 127.0.0.1:{port} (attached), "
                    "idle", timeout=30000)
    kernels = {k["id"] for k in jupyter.kernels()}
    assert window.engine.client.server.kernel_id in kernels  # the server's kernel ran it
    assert isinstance(window.engine.client.call(p.Ping(), 30), p.Result)
    qtbot.waitUntil(lambda: "cpu" in window.status_widgets.devices_label.text(), timeout=30000)
    # The console: on the same kernel, through the server, both ways.
    until_console(qtbot, window, "In [")
    console = window.console_panel
    assert jupyter.token not in repr(console.connection_file)
    console.execute("print('selu says', float(selu(2.0)))")
    until_console(qtbot, window, "selu says 2.0999")  # f32
    console.execute("offset = 100; print('offset', offset)")
    until_console(qtbot, window, "offset 100")
    with qtbot.waitSignal(window.sig_traced, timeout=30000) as traced:
        window.editor.setPlainText(SELU + "\ndef shifted(x):\n    return x + offset\n")
    with qtbot.waitSignal(window.sig_traced, timeout=30000) as traced:
        window.controls.function_list.setCurrentText("shifted")
    assert "add a 100.0" in traced.args[0].text
    # One socket for both, so that the server replays what a drop loses (it buffers only
    # for a kernel's last connection): a reply in flight comes, and the console goes on.
    kernel_id = window.engine.client.server.kernel_id
    assert [k["connections"] for k in jupyter.kernels() if k["id"] == kernel_id] == [1]
    replies: queue.SimpleQueue = queue.SimpleQueue()
    slow = SELU + "import threading\nthreading.Event().wait(1.0)\nafter = 1\n"
    window.engine.client.request(p.LoadSource(source=slow, filename="/on_server.py"),
                                 replies.put)
    qtbot.waitUntil(lambda: window.engine.client.state == State.BUSY, timeout=30000)
    window.engine.client.server.transport.abort()
    console.execute("print('still', offset + 1)")
    until_console(qtbot, window, "still 101")
    assert isinstance(replies.get(timeout=30), p.Result)
    assert window.engine.client.server.reconnected == 1
    # Restart engine, with a cell of the console's running: the console starts afresh on
    # the new process, as it does on a local kernel, and is not left waiting.
    console.execute("import threading; threading.Event().wait(30)")
    qtbot.waitUntil(lambda: window.engine.client.state == State.BUSY, timeout=30000)
    old_client = console.kernel_client
    window.restart_engine()
    qtbot.waitUntil(lambda: console.kernel_client is not old_client
                    and window.engine.client.state == State.IDLE, timeout=90000)
    until_console(qtbot, window, "In [1]")
    console.execute("print('after', 2 + 2)")
    until_console(qtbot, window, "after 4")
    shown = " ".join([window.windowTitle(), window.status.text(), window.status.toolTip(),
                      console_text(window), window.notice_text.toPlainText()])
    assert jupyter.token not in shown
