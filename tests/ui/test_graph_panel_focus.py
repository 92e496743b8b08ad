"""The Graph panel looks where a lesson points and fits a projector's dock.

A real ``GraphPanel`` on a real engine (in this process), fed traces the way the
window feeds it (``Session.set_trace``); its values come from the engine.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QRect, Qt
from PySide6.QtWidgets import QWidget

from tests.ui.conftest import _close_windows
from tests.ui.projector import PROJECTOR_DOCKS, clipped, framed, presentation_font
from workbench.api import messages as p
from workbench.api.jaxpr import TraceResult
from workbench.graph.model import IoId
from workbench.ui.panels.graph_panel import GraphPanel

SOURCE = """\
def two(x):
    y = jnp.sin(x)
    z = y * 2.0
    return jnp.sum(z), z - 1.0

def other(x):
    return jnp.cos(x) + jnp.exp(x) * 2.0

def newton(a):
    a = jnp.abs(a) + 1.0

    def keep_going(state):
        x, i = state
        return (jnp.abs(x * x - a) > 1e-6) & (i < 100)

    def improve(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    return lax.while_loop(keep_going, improve, (a, 0))
"""
KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="graph.py")  # for ``bridge``
ENGINE_MS = 60_000


def _trace(bridge, name: str, args: str) -> TraceResult:
    reply = bridge.client.call(p.Trace(name=name, args=args), timeout=120)
    assert isinstance(reply, p.Result), reply
    return reply.value


@pytest.fixture(scope="module")
def traces(bridge) -> dict[str, TraceResult]:
    """Each function traced once, up front: a blocking call to the engine while a test
    changes the application font makes Qt warn of timers started from the engine's thread."""
    return {name: _trace(bridge, name, args)
            for name, args in (("two", "f32[8]"), ("other", "f32[8]"), ("newton", "f32[]"))}


@pytest.fixture
def built(qtbot, bridge):
    """The top-level widgets a test builds, deleted after it on this thread.

    The engine's thread keeps its last request (and the panel its reply callback holds)
    until the next one comes; dropped there, a panel's Qt objects would be destroyed on
    the wrong thread. So a last request first, and its reply, then the widgets go here.
    """
    widgets: list[QWidget] = []
    yield widgets
    assert isinstance(bridge.client.call(p.Ping(), timeout=60), p.Result)
    QCoreApplication.processEvents()  # the replies still queued for this thread
    _close_windows(widgets)


@pytest.fixture
def panel(qtbot, session, requests, built):
    panel = GraphPanel(session, requests)
    built.append(panel)
    panel.resize(1000, 600)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _show(qtbot, panel, trace: TraceResult) -> TraceResult:
    """Hand ``trace`` over as the window would and wait for the panel to show its values."""
    panel.session.set_trace(trace)
    qtbot.waitUntil(lambda: panel.values is not None and panel.trace is trace, timeout=ENGINE_MS)
    return trace


def _on_screen(panel, node_id) -> bool:
    view = panel.graph
    nd = view.graph.nodes[view.node_index(node_id)]
    top_left = view.canvas.mapFromScene(nd.x, nd.y)
    bottom_right = view.canvas.mapFromScene(nd.x + nd.w, nd.y + nd.h)
    return view.canvas.viewport().rect().contains(QRect(top_left, bottom_right))


def _outputs(panel) -> list[int]:
    return [panel.graph.node_index(IoId("out", (), i))
            for i in range(len(panel.trace.jaxpr.outvars))]


def test_new_values_select_the_outputs_and_show_the_first(qtbot, panel, traces):
    _show(qtbot, panel, traces["two"])
    assert panel.graph.selected_nodes() == _outputs(panel)
    assert all(_on_screen(panel, IoId("out", (), i)) for i in range(2))
    header = panel.value_view.header.text()
    assert header.startswith("output 1 of 2: ") and "reduce_sum" in header
    assert panel.value_view.picture_kind() == "scalar"

    # A node picked in another program: its frame goes with it.
    sin = next((i,) for i, e in enumerate(panel.trace.jaxpr.eqns) if e.primitive == "sin")
    panel.show_path(sin)
    assert panel.graph.selected_nodes() == [panel.graph.node_index(sin)]
    _show(qtbot, panel, traces["other"])
    assert panel.graph.selected_nodes() == _outputs(panel)
    assert panel.value_view.header.text().startswith("output 1 of 1: ")


def test_select_names_before_the_values_applies_when_they_arrive(qtbot, panel, traces):
    trace = traces["two"]
    panel.session.set_trace(trace)
    assert panel.values is None
    (mul,) = [(i,) for i, e in enumerate(trace.jaxpr.eqns) if e.primitive == "mul"]
    z = trace.jaxpr.eqns[mul[0]].outvars[0].name  # the jaxpr's name of y * 2.0
    panel.select_names([z, "nowhere"])
    qtbot.waitUntil(lambda: panel.values is not None, timeout=ENGINE_MS)
    assert panel.graph.selected_nodes() == [panel.graph.node_index(mul)]
    assert _on_screen(panel, mul)
    assert panel.value_view.header.text().startswith(f"{z}: ")
    qtbot.waitUntil(lambda: panel.value_view.picture_kind() == "line", timeout=ENGINE_MS)
    assert "not in this program: nowhere" in panel.status.text()

    # Values shown already: at once; "inputs" are the program's own.
    panel.select_names(["inputs"])
    assert panel.graph.selected_nodes() == [panel.graph.node_index(IoId("in", (), 0))]
    assert panel.value_view.header.text().startswith("input 1 of 1: ")


def test_a_rerun_of_the_same_program_keeps_the_users_view_and_pick(qtbot, panel, traces):
    trace = _show(qtbot, panel, traces["two"])
    panel.graph.zoom_by(2.0)
    zoom = panel.graph.zoom()
    _show(qtbot, panel, trace)  # run again, the same jaxpr: the view stays where it was
    assert panel.graph.zoom() == pytest.approx(zoom)
    assert panel.graph.selected_nodes() == _outputs(panel)

    sin = next((i,) for i, e in enumerate(trace.jaxpr.eqns) if e.primitive == "sin")
    panel.graph.center_on(sin)
    with qtbot.waitSignal(panel.sig_eqn_selected, timeout=5000):
        qtbot.mouseClick(panel.graph.canvas.viewport(), Qt.MouseButton.LeftButton,
                         pos=panel.graph.node_view_pos(sin))
    _show(qtbot, panel, trace)
    assert "sin" in panel.value_view.header.text()
    assert panel.graph.selected_nodes() == [panel.graph.node_index(sin)]


def test_stepping_a_while_loop_runs_its_cond_first_and_says_the_iteration(qtbot, panel,
                                                                           traces):
    trace = _show(qtbot, panel, traces["newton"])
    (w,) = [e for e, q in enumerate(trace.jaxpr.eqns) if q.primitive == "while"]
    cond, body = (next(s for s, sub in enumerate(trace.jaxpr.eqns[w].subjaxprs)
                       if sub.param.startswith(word)) for word in ("cond", "body"))
    order = panel.stepper.order
    inside = [path[1] for path in order if path[:1] == (w,) and len(path) > 1]
    assert inside == sorted(inside, key=lambda s: s != cond)  # every cond step, then the body's
    n = panel.values.root.eqns[w].iterations
    first_body = next(k for k, path in enumerate(order) if path[:2] == (w, body))
    while panel.stepper.position < first_body:
        panel.step_next.click()
    cond_nodes = [panel.graph.node_index(path) for path in order if path[:2] == (w, cond)]
    assert not any(panel.graph.node_states(i)["not_yet"] for i in cond_nodes)
    assert panel.value_view.note_label.text().startswith(
        f"values from the last iteration ({n} of {n}) of the while loop")


@pytest.mark.parametrize("where", list(PROJECTOR_DOCKS))
def test_on_a_projector_the_graph_keeps_its_height_and_nothing_is_clipped(
        qtbot, session, requests, traces, built, where):
    panel = GraphPanel(session, requests)
    built.append(panel)
    panel.show()
    trace = _show(qtbot, panel, traces["newton"])
    (w,) = [e for e, q in enumerate(trace.jaxpr.eqns) if q.primitive == "while"]
    panel.show_path((w,))  # the loop's carry: the value view at its widest
    assert panel.value_view.picture_kind() == "carry"
    with presentation_font() as factor:  # as F5 does, with the values on screen
        panel.set_presentation_scale(factor)
        scroll = framed(qtbot, panel, PROJECTOR_DOCKS[where])
        built.append(scroll)
        # A 1024 px window holds a 680 px dock: the panel never asks for more.
        assert panel.minimumSizeHint().width() <= PROJECTOR_DOCKS["1024x768 lesson"].width()
        qtbot.waitUntil(lambda: clipped(panel.graph, scroll) == "", timeout=2000)
        assert clipped(panel.value_view, scroll) == ""
        assert panel.graph.canvas.height() >= 200, panel.graph.canvas.height()
        for control in (panel.step_next, panel.step_to_cursor, panel.fit_button, panel.more):
            assert clipped(control, scroll) == ""
