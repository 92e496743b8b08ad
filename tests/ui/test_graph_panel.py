"""The Graph panel in the window: graph, tree and editor linked three ways, values, stepping.

A real window on a real engine kernel; clicks land on the graph's canvas where
the node is drawn.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from workbench.graph.model import IoId

SOURCE = """\
def f(x):
    y = jnp.sin(x)
    z = y * 2.0
    return jnp.sum(z)
"""
SIN_LINE, MUL_LINE, SUM_LINE = 2, 3, 4

LOOP = """\
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


def _graph_window(qtbot, make_window, source, spec="f32[8]", function="f"):
    window = make_window()
    window.new_file()
    qtbot.waitUntil(lambda: window.graph_panel is not None, timeout=30000)
    window.panel_docks[3].raise_()
    panel = window.graph_panel
    qtbot.waitUntil(panel.isVisible, timeout=10000)
    window.controls.select(function, spec)
    with qtbot.waitSignal(window.session.sig_values, timeout=60000):
        window.editor.setPlainText(source)
    assert window.controls.args() == spec
    qtbot.waitUntil(lambda: panel.values is not None and panel.trace is window.session.trace,
                    timeout=30000)
    return window, panel


def _click_node(qtbot, panel, path):
    graph = panel.graph
    graph.center_on(path)
    pos = graph.node_view_pos(path)
    qtbot.mouseClick(graph.canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def _paths_by_primitive(panel):
    tree = panel.trace.jaxpr
    return {e.primitive: (i,) for i, e in enumerate(tree.eqns)}


def test_node_row_and_line_follow_each_other(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    paths = _paths_by_primitive(panel)
    sin, mul = paths["sin"], paths["mul"]

    # A node picked in the graph: its tree row, its editor line, its value.
    with qtbot.waitSignal(panel.sig_eqn_selected, timeout=5000):
        _click_node(qtbot, panel, mul)
    assert window.jaxpr.selected_path() == mul
    assert window.editor.current_line == MUL_LINE
    assert "mul" in panel.value_view.header.text()

    # A tree row picked: the graph selects (and centres) its node.
    window.jaxpr.tree.setCurrentIndex(
        window.jaxpr.proxy.mapFromSource(window.jaxpr.model.index_for_path(sin)))
    assert panel.graph.selected_node() == panel.graph.node_index(sin)
    assert "sin" in panel.value_view.header.text()

    # The editor cursor on a line: that line's nodes are highlighted.
    window.editor.go_to_line(MUL_LINE)
    assert panel.graph.highlighted_nodes() == [panel.graph.node_index(mul)]


def test_the_value_view_shows_the_picked_value_and_its_full_array(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    sin = _paths_by_primitive(panel)["sin"]
    _click_node(qtbot, panel, sin)
    qtbot.waitUntil(lambda: panel.value_view.picture_kind() == "line", timeout=20000)
    data = panel.value_view.line_data()[1]
    summary = panel.values.root.eqns[sin[0]].outs[0]
    assert len(data) == 8
    assert data.min() == pytest.approx(summary.min) and data.max() == pytest.approx(summary.max)


def test_stepping_walks_the_evaluation_order_and_keeps_its_place(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    order = panel.stepper.order
    assert len(order) == len(panel.trace.jaxpr.eqns)
    assert panel.step_label.text().startswith(f"{len(order)} equations ran")

    qtbot.mouseClick(panel.step_next, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.step_next, Qt.MouseButton.LeftButton)
    second = order[1]
    assert panel.step_label.text().startswith(f"step 2 of {len(order)}")
    assert panel.graph.current_node() == panel.graph.node_index(second)
    assert window.jaxpr.selected_path() == second
    line = panel.trace.jaxpr.eqns[second[0]].line
    assert window.editor.highlighted_lines() == [line]
    not_yet = panel.graph.node_index(order[-1])
    assert panel.graph.node_states(not_yet)["not_yet"]

    # Another panel, then back: the same step.
    window.panel_docks[0].raise_()
    qtbot.waitUntil(lambda: panel.visibleRegion().isEmpty(), timeout=5000)
    window.panel_docks[3].raise_()
    qtbot.waitUntil(lambda: not panel.visibleRegion().isEmpty(), timeout=5000)
    assert panel.stepper.position == 1
    assert panel.graph.current_node() == panel.graph.node_index(second)

    # Run to the cursor's line; Previous goes back one.
    window.editor.go_to_line(SUM_LINE)
    qtbot.mouseClick(panel.step_to_cursor, Qt.MouseButton.LeftButton)
    assert panel.trace.jaxpr.eqns[panel.stepper.current[0]].line == SUM_LINE
    before = panel.stepper.position
    qtbot.mouseClick(panel.step_previous, Qt.MouseButton.LeftButton)
    assert panel.stepper.position == before - 1
    window.editor.go_to_line(SIN_LINE)  # ran already: nowhere to go
    qtbot.mouseClick(panel.step_to_cursor, Qt.MouseButton.LeftButton)
    assert panel.stepper.position == before - 1
    assert f"no equation of line {SIN_LINE}" in panel.step_label.text()


def test_a_loop_node_shows_its_iterations_and_carry_trace(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, LOOP, spec="f32[]",
                                  function="newton")
    while_path = next((i,) for i, e in enumerate(panel.trace.jaxpr.eqns)
                      if e.primitive == "while")
    ev = panel.values.root.eqns[while_path[0]]
    assert ev.iterations is not None and ev.iterations > 0
    _click_node(qtbot, panel, while_path)
    assert panel.value_view.picture_kind() == "carry"
    assert f"{ev.iterations:,} iterations" in panel.value_view.note_label.text()


NAN_SOURCE = """\
def f(x):
    y = jnp.log(x - x)
    return y * 0.0
"""


def test_the_first_inf_and_nan_are_flagged_on_their_nodes(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, NAN_SOURCE)
    values = panel.values
    assert values.first_inf is not None and values.first_nan is not None
    text = panel.status.text()
    assert "first Inf here: log (line 2)" in text
    assert "first NaN here: mul (line 3)" in text
    assert "Inf" in panel.graph.badge(panel.graph.node_index(values.first_inf))
    assert "NaN" in panel.graph.badge(panel.graph.node_index(values.first_nan))


RUNTIME_ERROR = """\
def check(v):
    if (v > 100).any():
        raise ValueError("value too large")
    return v

def f(x):
    y = x * 1000.0
    z = jax.pure_callback(check, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
    return z + 1.0
"""


def test_a_run_time_error_keeps_the_values_before_it_and_marks_its_node_and_line(
        qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, RUNTIME_ERROR)
    values = panel.values
    assert values.error is not None and values.error_path is not None
    failing = panel.graph.node_index(values.error_path)
    assert panel.graph.node_states(failing)["error"]
    assert "stopped at" in panel.status.text()
    assert any(line == 8 for line, _title, _hint in window.editor.error_marks())
    mul = _paths_by_primitive(panel)["mul"]
    assert values.root.eqns[mul[0]].outs[0] is not None  # before the error: kept
    add = _paths_by_primitive(panel)["add"]
    assert values.root.eqns[add[0]] is None  # after it: not run


def test_an_edit_that_fails_leaves_the_graph_marked_stale(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    with qtbot.waitSignal(window.session.sig_trace_failed, timeout=30000):
        window.editor.setPlainText(SOURCE.replace("jnp.sin(x)", "jnp.sin(x) + undefined_name"))
    assert panel.stale_text() is not None and "this call failed" in panel.stale_text()
    with qtbot.waitSignal(window.session.sig_values, timeout=60000):
        window.editor.setPlainText(SOURCE.replace("2.0", "3.0"))
    assert panel.stale_text() is None


def _examples():
    from workbench.examples import bundled_examples

    return bundled_examples()


@pytest.fixture(scope="module")
def example_window(qapp, tmp_path_factory):
    """One window for all bundled examples: each is opened in turn, as a teacher would."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from tests.ui.conftest import in_process_bridge
    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    tmp = tmp_path_factory.mktemp("examples")
    window = MainWindow(settings=Settings(tmp / "settings.ini"), autosave_dir=tmp / "autosave",
                        ask=False, console=False, engine=in_process_bridge())
    window.engine.setParent(window)  # deleted with it, as the window's own bridge is
    window.show()
    yield window
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.mark.parametrize("example", _examples(), ids=lambda e: e.name)
def test_every_bundled_example_graphs_values_and_steps(qtbot, example_window, example):
    window = example_window
    qtbot.waitUntil(lambda: window.graph_panel is not None, timeout=30000)
    window.panel_docks[3].raise_()
    panel = window.graph_panel
    qtbot.waitUntil(lambda: not panel.visibleRegion().isEmpty(), timeout=10000)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=120000):
        window.open_example(example)
        window.run()
    # Not the first sig_values after the run: a late reply for the example before (or for
    # the trace that choosing the example's function asked of the old source) can come
    # first. The values of the example's own trace, the one on screen, are what this is about.
    qtbot.waitUntil(lambda: panel.values is not None and panel.trace is window.session.trace
                    and panel.values.function == example.function, timeout=120000)
    values = panel.values
    assert values.function == example.function and values.error is None
    assert panel.graph.graph is not None and panel.graph.graph.nodes
    order = panel.stepper.order
    assert order and len(order) == len(set(order))
    for _ in range(min(3, len(order))):
        qtbot.mouseClick(panel.step_next, Qt.MouseButton.LeftButton)
    current = panel.stepper.current
    assert current == order[min(3, len(order)) - 1]
    assert window.jaxpr.selected_path() == current
    assert panel.value_view.header.text()  # the step's value is shown



def test_an_edit_keeps_the_step_on_the_same_equation_and_another_function_starts_over(
        qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    for _ in range(2):
        qtbot.mouseClick(panel.step_next, Qt.MouseButton.LeftButton)
    here = panel.stepper.current
    with qtbot.waitSignal(window.session.sig_values, timeout=60000):
        window.editor.setPlainText(SOURCE.replace("2.0", "3.0"))
    assert panel.stepper.current == here
    assert panel.graph.current_node() == panel.graph.node_index(here)

    other = SOURCE + "\n\ndef g(x):\n    return jnp.cos(x) + jnp.exp(x) * 2.0\n"
    with qtbot.waitSignal(window.session.sig_values, timeout=60000):
        window.editor.setPlainText(other)
    with qtbot.waitSignal(window.session.sig_values, timeout=60000):
        window.controls.select("g")
        window.tracer.trace()
    assert panel.trace.function == "g"
    assert panel.stepper.current is None


def test_new_values_look_at_the_outputs_in_the_window(qtbot, make_window):
    window, panel = _graph_window(qtbot, make_window, SOURCE)
    assert panel.graph.selected_nodes() == [panel.graph.node_index(IoId("out", (), 0))]
    assert panel.value_view.header.text().startswith("output 1 of 1: ")
    assert panel.step_label.text().startswith(f"{len(panel.stepper.order)} equations ran")
