"""The window on a kernel of a real Jupyter Server (``workbench --server URL``): it traces on
that kernel, the status bar names the server and the kernel's devices, the console pane says
where the console is, and the token is nowhere on screen."""

from __future__ import annotations

import pytest

from tests.server_util import running_jupyter_server
from workbench.api import messages as p
from workbench.client.server import server_target
from workbench.ui.control.engine_bridge import EngineBridge

SELU = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""


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
    placeholder = window.console_panel._placeholder.text()
    assert "JupyterLab's" in placeholder and f"127.0.0.1:{port}" in placeholder
    shown = " ".join([window.windowTitle(), window.status.text(), window.status.toolTip(),
                      placeholder, window.notice_text.toPlainText()])
    assert jupyter.token not in shown
