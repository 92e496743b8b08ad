"""The session model: one request per live edit, and no work in hidden panels."""

from __future__ import annotations

import time

import pytest

from workbench.api import messages as p
from workbench.ui.control.session import Call
from workbench.ui.panels.panel import SETTLE_S

SELU = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""


def _ready(qtbot, window):
    """A window with its panels built, SELU loaded and traced, and the engine idle."""
    qtbot.waitUntil(lambda: window.plot_panel is not None, timeout=30000)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=30000)
    window.new_file()
    window.editor.setPlainText(SELU)
    session = window.session  # the example opened at start-up may answer first: wait for SELU
    qtbot.waitUntil(lambda: session.function_names() == ["selu"] and session.trace_is_current
                    and window.engine.state == "idle", timeout=30000)


def test_a_live_edit_with_the_panels_hidden_sends_one_request(qtbot, make_window):
    window = make_window()
    _ready(qtbot, window)
    for dock in (*window.panel_docks[:2], window.panel_docks[3]):  # plot, timing and graph
        dock.close()
    sent: list[p.Request] = []
    window.engine.sig_request_sent.connect(sent.append)
    with qtbot.waitSignal(window.sig_traced, timeout=30000) as blocker:
        window.editor.setPlainText(SELU.replace("jnp.exp(x)", "jnp.expm1(x)"))
    assert "expm1" in blocker.args[0].text
    qtbot.waitUntil(lambda: window.engine.state == "idle", timeout=30000)
    assert [type(r).__name__ for r in sent] == ["LoadSource"]
    assert sent[0].trace is not None and sent[0].trace.name == "selu"
    assert window.plot_panel.has_deferred_work()  # it re-samples when shown, not before


def test_a_hidden_plot_panel_samples_when_shown(qtbot, make_window):
    window = make_window()
    _ready(qtbot, window)
    plot_dock = window.panel_docks[0]
    plot_dock.close()
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.editor.setPlainText(SELU.replace("selu", "swish"))
    assert window.session.call == Call("swish", "f32[1000]")
    sent: list[p.Request] = []
    window.engine.sig_request_sent.connect(sent.append)
    with qtbot.waitSignal(window.plot_panel.sig_curves_shown, timeout=30000) as blocker:
        plot_dock.show()
        plot_dock.raise_()
    assert blocker.args[0].function == "swish"
    # The Graph tab, shown while the plot's was closed, may ask for this trace's values, and
    # for the array of the output it then shows.
    assert {type(r).__name__ for r in sent} - {"Values", "VarArray"} == {"SampleCurves"}


def test_the_session_keeps_the_call_and_marks_a_failed_trace_stale(qtbot, make_window):
    window = make_window()
    _ready(qtbot, window)
    session = window.session
    assert session.trace is not None and session.trace_is_current
    with qtbot.waitSignal(session.sig_trace_failed, timeout=30000):
        window.controls.arg_spec.setText("f32[3")
        window.controls.arg_spec.editingFinished.emit()
    assert session.call == Call("selu", "f32[3")
    assert not session.trace_is_current and session.trace.function == "selu"


@pytest.mark.serial  # it times two timers against each other (live delay, SETTLE_S)
def test_panels_follow_an_edit_once_typing_pauses(qtbot, make_window):
    """The next edit's trace must not queue behind the last edit's curves in the engine:
    the plot re-samples only SETTLE_S after the last edit, then it does."""
    window = make_window()
    _ready(qtbot, window)
    plot_dock = window.panel_docks[0]
    plot_dock.show()
    plot_dock.raise_()
    qtbot.waitUntil(lambda: window.plot_panel.last_curves("selu") is not None, timeout=30000)
    # The first curves move the view's range, and the plot asks for them again over the new
    # range once it settles: that request belongs to before the edit.
    qtbot.waitUntil(lambda: not window.plot_panel.plot.range_settling()
                    and not window.plot_panel.curves_busy()
                    and window.engine.state == "idle", timeout=30000)
    sent: list[tuple[float, str]] = []
    window.engine.sig_request_sent.connect(
        lambda r: sent.append((time.monotonic(), type(r).__name__)))
    with qtbot.waitSignal(window.plot_panel.sig_curves_shown, timeout=30000,
                          check_params_cb=lambda c: c.function == "selu"):
        window.editor.setPlainText(SELU.replace("jnp.exp(x)", "jnp.expm1(x)"))
    assert sent[0][1] == "LoadSource", sent
    first_sample = next(t for t, name in sent if name == "SampleCurves")
    assert first_sample - window.session.last_edit >= SETTLE_S
