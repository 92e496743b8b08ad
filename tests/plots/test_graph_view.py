"""JaxprGraphView on real widgets: clicks, hover, groups, values, stepping, schemes."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt

from tests.graph.graph_trees import chain, failing_values, small_tree, small_values, traced
from workbench.api.jaxpr import JaxprNode
from workbench.api.values import VarRef
from workbench.graph.model import ChunkId, IoId
from workbench.graph.style import FAMILIES, graph_colours
from workbench.plots.graph_paint import TEXT_MIN_PX
from workbench.plots.graph_view import READABLE_TEXT_PX, JaxprGraphView


@pytest.fixture(scope="module")
def control_flow() -> JaxprNode:
    return traced("control_flow.py", "all_three", "f32[5,3]", ("jit",))


@pytest.fixture
def view(qtbot):
    w = JaxprGraphView()
    qtbot.addWidget(w)
    w.resize(900, 700)
    w.show()
    qtbot.waitExposed(w)
    return w


def viewport(view: JaxprGraphView) -> QtWidgets.QWidget:
    return view.canvas.viewport()


def click(qtbot, view: JaxprGraphView, pos: QtCore.QPoint) -> None:
    qtbot.mouseClick(viewport(view), Qt.MouseButton.LeftButton, pos=pos)


def pixel(view: JaxprGraphView, pos: QtCore.QPoint) -> QtGui.QColor:
    return viewport(view).grab().toImage().pixelColor(pos)


def test_object_name_legend_and_message(view):
    assert view.objectName() == "jaxprGraph"
    assert all(f in view.legend.text() for f in FAMILIES)
    view.set_graph(None, "Trace a function to see its graph")
    assert view.graph is None
    assert view.message.isVisible() and view.message.text() == "Trace a function to see its graph"
    view.set_graph(small_tree())
    assert view.canvas.isVisible() and not view.message.isVisible()
    assert view.graph is not None and "equations shown" in view.info.text()


def test_click_node_emits_its_path(qtbot, view, control_flow):
    view.set_graph(control_flow)
    with qtbot.waitSignal(view.sig_node_selected) as sig:
        click(qtbot, view, view.node_view_pos((0, 0, 4, 0, 0)))
    assert sig.args == [(0, 0, 4, 0, 0)]
    assert view.selected_node() == view.node_index((0, 0, 4, 0, 0))


def test_click_input_node_and_edge_emit_var_refs(qtbot, view):
    view.set_graph(small_tree())
    with qtbot.waitSignal(view.sig_var_selected) as sig:
        click(qtbot, view, view.node_view_pos(IoId("in", (), 0)))
    assert sig.args == [VarRef((), None, 0)]
    g = view.graph
    # The longest edge: its first segment's middle is clear of every node.
    k = max(range(len(g.edges)), key=lambda e: g.edges[e].points[1][1] - g.edges[e].points[0][1])
    assert view.node_at(view.edge_view_pos(k)) is None
    with qtbot.waitSignal(view.sig_var_selected) as sig:
        click(qtbot, view, view.edge_view_pos(k))
    assert sig.args == [g.edges[k].ref] and g.edges[k].ref is not None
    with qtbot.waitSignal(view.sig_var_selected) as sig:
        click(qtbot, view, view.node_view_pos(IoId("out", (), 1)))
    assert sig.args == [VarRef((), 2, 0)]  # the output d is reduce_sum's result


def test_select_and_center_on_emit_nothing(qtbot, view, control_flow):
    view.set_graph(control_flow)
    view.set_collapse_threshold(3)
    assert not view.is_expanded((0, 0, 4))
    with qtbot.assertNotEmitted(view.sig_node_selected), \
            qtbot.assertNotEmitted(view.sig_var_selected):
        view.select((0, 0, 4, 0, 3, 1, 0))
        # Hidden inside the collapsed while: the while's node is the one marked.
        assert view.selected_node() == view.node_index((0, 0, 4))
        view.center_on((0, 0, 4, 0, 3, 1, 0))
    assert view.is_expanded((0, 0, 4)) and view.is_expanded((0, 0, 4, 0, 3))
    assert view.selected_node() == view.node_index((0, 0, 4, 0, 3, 1, 0))
    centre = viewport(view).rect().center()
    pos = view.node_view_pos((0, 0, 4, 0, 3, 1, 0))
    assert abs(pos.x() - centre.x()) <= 2 and abs(pos.y() - centre.y()) <= 2


def test_double_click_toggles_a_group_in_place(qtbot, view, control_flow):
    view.set_graph(control_flow)
    view.set_collapse_threshold(3)
    before = view.node_view_pos((0, 0, 4))
    with qtbot.waitSignal(view.sig_group_toggled) as sig:
        qtbot.mouseDClick(viewport(view), Qt.MouseButton.LeftButton, pos=before)
    assert sig.args == [(0, 0, 4)] and view.is_expanded((0, 0, 4))
    assert view.node_index((0, 0, 4, 1, 5)) is not None
    i = view.node_index((0, 0, 4))
    nd = view.graph.nodes[i]
    top = view.canvas.mapFromScene(QtCore.QPointF(nd.x + nd.w / 2, nd.y))
    assert abs(top.y() - (before.y() - view.zoom() * view.graph.options.node_h / 2)) <= 3
    view.toggle_group((0, 0, 4))
    assert not view.is_expanded((0, 0, 4))
    with pytest.raises(KeyError, match="no group"):
        view.toggle_group((0, 0, 99))


def test_threshold_is_checked_and_kept(view, control_flow):
    with pytest.raises(ValueError, match="collapse threshold"):
        view.set_collapse_threshold(-1)
    view.set_graph(control_flow)
    view.set_collapse_threshold(3)
    assert view.collapse_threshold() == 3 and not view.is_expanded((0, 0, 4))
    view.set_collapse_threshold(60)
    assert view.is_expanded((0, 0, 4))


def test_highlight_lines(view, control_flow):
    view.set_graph(control_flow)
    view.highlight_lines({11})
    lit = {view.graph.nodes[i].id for i in view.highlighted_nodes()}
    assert lit == {(0, 0, 4, 1, k) for k in range(6)}
    view.set_collapse_threshold(3)  # the while collapsed: it stands for its inside's lines
    assert {view.graph.nodes[i].id for i in view.highlighted_nodes()} == {(0, 0, 4)}
    assert view.node_states(view.node_index((0, 0, 4)))["highlighted"]
    view.highlight_lines(set())
    assert view.highlighted_nodes() == []


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_values_tooltips_dimmed_branch_and_first_nan(view):
    view.set_graph(small_tree())
    view.set_values(small_values())
    g = view.graph
    # The branch not taken did not run: its nodes are dimmed, the taken one's are not.
    assert view.node_states(view.node_index((5, 1, 0)))["not_run"]
    assert view.node_states(view.node_index(IoId("in", (5, 1), 0)))["not_run"]
    assert not view.node_states(view.node_index((5, 0, 0)))["dim"]
    assert view.badge(view.node_index((1,))) == "first NaN here"
    log_tip = view.node_tooltip(view.node_index((1,)))
    assert "log" in log_tip and "line 3" in log_tip and "first NaN here" in log_tip
    assert "c: f32[3]  min -0.1  max 0  mean -0.05  1 NaN" in log_tip
    cond_tip = view.node_tooltip(view.node_index((5,)))
    assert "branch taken: 0" in cond_tip
    # Hovering an edge: its variable's summary.
    k = next(i for i, e in enumerate(g.edges) if e.name == "b")
    tip = view.edge_tooltip(k)
    assert tip == "b: f32[3]\nmin -0.8  max 0.9\nmean 0.05  std 0.85\nNaN 0  Inf 0"
    assert view.tooltip_at(view.edge_view_pos(k)) == tip
    # ... through a real tooltip event on the viewport.
    pos = view.edge_view_pos(k)
    event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, pos, viewport(view).mapToGlobal(pos))
    QtWidgets.QApplication.sendEvent(viewport(view), event)
    assert QtWidgets.QToolTip.text() == tip
    QtWidgets.QToolTip.hideText()
    not_taken = next(i for i, e in enumerate(g.edges) if e.name == "k")
    assert view.edge_tooltip(not_taken).endswith("not computed: this did not run")
    out = view.node_tooltip(view.node_index(IoId("out", (), 1)))
    assert out.startswith("output\nd: f32[]") and "min -0.1" in out
    view.set_values(None)
    assert view.edge_tooltip(k) == "b: f32[3]"
    assert not view.node_states(view.node_index((5, 1, 0)))["dim"]


def test_hover_and_selected_variable_highlight_edges(qtbot, view):
    view.set_graph(small_tree())
    g = view.graph
    k = next(i for i, e in enumerate(g.edges) if e.name == "b")
    qtbot.mouseMove(viewport(view), view.edge_view_pos(k))
    qtbot.waitUntil(lambda: view.hovered_edge() == k)
    assert view.highlighted_edges() == [k]
    qtbot.mouseMove(viewport(view), QtCore.QPoint(2, 2))
    qtbot.waitUntil(lambda: view.hovered_edge() is None)
    view.select_var(VarRef((), 1, 0))  # c: into reduce_sum and both branches
    assert sorted(g.edges[i].name for i in view.highlighted_edges()) == ["c", "c", "c"]


def test_nan_and_inf_first_at_the_same_node(view):
    from dataclasses import replace

    view.set_graph(small_tree())
    view.set_values(replace(small_values(), first_inf=(1,)))
    assert view.badge(view.node_index((1,))) == "first NaN and Inf here"
    view.set_collapse_threshold(0)
    view.set_values(replace(small_values(), first_nan=(5, 0, 0), first_inf=None))
    assert view.badge(view.node_index((5,))) == "first NaN inside"


def test_the_plus_box_toggles_a_group(qtbot, view):
    view.set_graph(small_tree())
    view.set_collapse_threshold(0)
    nd = view.graph.nodes[view.node_index((5,))]
    tw = view.graph.options.toggle_w
    plus = view.canvas.mapFromScene(QtCore.QPointF(nd.x + nd.w - tw / 2, nd.y + 6))
    with qtbot.waitSignal(view.sig_group_toggled), qtbot.assertNotEmitted(view.sig_node_selected):
        click(qtbot, view, plus)
    assert view.is_expanded((5,))


def test_error_node_and_what_did_not_run(view):
    view.set_graph(small_tree())
    view.set_values(failing_values())
    err = view.node_index((2,))
    assert view.node_states(err)["error"] and not view.node_states(err)["dim"]
    tip = view.node_tooltip(err)
    assert "error: boom: bad reduction" in tip
    for path in [(3,), (4,), (5,), (6,), (5, 0, 0)]:
        assert view.node_states(view.node_index(path))["not_run"], path
    assert not view.node_states(view.node_index((1,)))["dim"]
    # Collapsed, a group says the error is inside it.
    view.set_graph(small_tree())
    view.set_collapse_threshold(0)
    from workbench.api.values import EqnValues, NodeValues, ValuesResult

    v = failing_values()
    inner_fail = ValuesResult(
        "f", (), (), NodeValues(v.root.invars, (), (*v.root.eqns[:5], EqnValues(
            (), subs=(NodeValues((None,), (), (EqnValues((), error="inner boom"),)), None),
            error=None), None)), error=v.error, error_path=(5, 0, 0))
    view.set_values(inner_fail)
    cond = view.node_index((5,))
    assert view.node_states(cond)["error"]
    assert "error inside: The computation failed: boom: bad reduction" in view.node_tooltip(cond)


def test_error_colour_is_painted(view):
    view.set_graph(small_tree())
    view.set_scheme("light")
    pos = view.node_view_pos((2,))
    before = pixel(view, pos)
    view.set_values(failing_values())
    after = pixel(view, pos)
    assert after == QtGui.QColor(graph_colours("light").error_fill) != before


def test_step_dims_what_is_not_evaluated_yet(view):
    view.set_graph(small_tree())
    view.set_values(small_values())
    graph_before = view.graph
    order = view.step_order()
    assert order == [(0,), (1,), (2,), (3,), (4,), (5, 0, 0), (5,), (6,)]  # branch 1 never ran
    view.set_step((2,), 2)
    assert view.graph is graph_before  # no new layout for a step
    assert view.current_node() == view.node_index((2,))
    assert view.node_states(view.node_index((2,)))["current"]
    assert not view.node_states(view.node_index((2,)))["dim"]  # marked, not greyed out
    assert view.node_states(view.node_index((3,)))["not_yet"]
    assert not view.node_states(view.node_index((1,)))["dim"]
    assert view.node_states(view.node_index((6,)))["not_yet"]
    assert not view.node_states(view.node_index(IoId("in", (), 0)))["dim"]
    view.set_step((5, 0, 0), {(0,), (1,), (2,), (3,), (4,)})
    assert view.node_states(view.node_index((5, 0, 0)))["current"]
    assert not view.node_states(view.node_index((4,)))["dim"]
    assert view.node_states(view.node_index((5,)))["not_yet"]
    # Inside a collapsed group, the group's node is the current one.
    view.set_collapse_threshold(0)
    view.set_step((5, 0, 0), 5)
    assert view.current_node() == view.node_index((5,))
    view.set_step(None, None)
    assert view.current_node() is None
    assert not any(view.node_states(i)["not_yet"] for i in range(len(view.graph.nodes)))


def test_step_current_is_painted(view):
    view.set_graph(small_tree())
    view.set_scheme("light")
    nd = view.graph.nodes[view.node_index((3,))]
    edge = view.canvas.mapFromScene(QtCore.QPointF(nd.x, nd.y + nd.h / 2))
    outside = QtCore.QPoint(edge.x() - 6, edge.y())  # where the current node's frame goes
    assert pixel(view, outside) == QtGui.QColor(graph_colours("light").background)
    view.set_step((3,), 3)
    assert pixel(view, outside) == QtGui.QColor(graph_colours("light").current)


def test_scheme_switch(view):
    view.set_graph(small_tree())
    corner = QtCore.QPoint(2, 2)
    view.set_scheme("light")
    assert pixel(view, corner) == QtGui.QColor("#ffffff")
    view.set_scheme("dark")
    assert view.scheme() == "dark"
    assert pixel(view, corner) == QtGui.QColor(graph_colours("dark").background)
    assert view.background_colour() == QtGui.QColor("#1e1e20")


def test_presentation_scale_grows_nodes_and_fonts(view):
    view.set_graph(small_tree())
    w1 = view.graph.nodes[view.node_index((0,))].w
    h1 = view.graph.nodes[view.node_index((0,))].h
    view.set_presentation_scale(2.0)
    nd = view.graph.nodes[view.node_index((0,))]
    assert nd.w == pytest.approx(2 * w1, rel=0.2) and nd.h == pytest.approx(2 * h1, rel=0.15)
    assert view.legend.font().pointSizeF() == pytest.approx(18.0)
    view.set_presentation_scale(2.0)  # twice: no compounding
    assert view.graph.nodes[view.node_index((0,))].w == pytest.approx(nd.w)
    with pytest.raises(ValueError, match="presentation scale"):
        view.set_presentation_scale(0)


def test_values_toggle_draws_sparklines(qtbot, view):
    view.set_graph(small_tree())
    view.set_values(small_values())
    h0 = view.graph.nodes[view.node_index((0,))].h
    with qtbot.waitSignal(view.sig_show_values_changed) as sig:
        view.values_box.click()
    assert sig.args == [True] and view.show_values()
    assert view.graph.nodes[view.node_index((0,))].h > h0
    assert view.sparkline_kind((0,)) == "line"  # three values: their preview
    assert view.sparkline_kind((2,)) == "text"  # a scalar: its value
    assert view.sparkline_kind((5, 1, 0)) == "none"  # did not run
    view.canvas.viewport().repaint()
    view.set_show_values(False)
    assert not view.values_box.isChecked()
    assert view.graph.nodes[view.node_index((0,))].h == pytest.approx(h0)


def test_wheel_zooms_around_the_cursor(view, control_flow):
    view.set_graph(control_flow)
    at = QtCore.QPoint(300, 250)
    scene_before = view.canvas.mapToScene(at)
    z0 = view.zoom()
    event = QtGui.QWheelEvent(QtCore.QPointF(at), QtCore.QPointF(viewport(view).mapToGlobal(at)),
                              QtCore.QPoint(), QtCore.QPoint(0, 240), Qt.MouseButton.NoButton,
                              Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                              False)
    QtWidgets.QApplication.sendEvent(viewport(view), event)
    assert view.zoom() == pytest.approx(z0 * 1.0015 ** 240)
    after = view.canvas.mapFromScene(scene_before)
    assert abs(after.x() - at.x()) <= 1 and abs(after.y() - at.y()) <= 1
    # F fits again.
    view.canvas.setFocus()
    QtWidgets.QApplication.sendEvent(view.canvas, QtGui.QKeyEvent(
        QtCore.QEvent.Type.KeyPress, Qt.Key.Key_F, Qt.KeyboardModifier.NoModifier, "f"))
    assert view.zoom() == pytest.approx(z0)


def test_drag_pans_without_selecting(qtbot, view, control_flow):
    view.set_graph(control_flow)
    view.zoom_by(2.0)
    vp = viewport(view)
    start, end = QtCore.QPoint(400, 300), QtCore.QPoint(340, 260)
    scene = view.canvas.mapToScene(start)
    with qtbot.assertNotEmitted(view.sig_node_selected), \
            qtbot.assertNotEmitted(view.sig_var_selected):
        qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
        move = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(end),
                                 QtCore.QPointF(vp.mapToGlobal(end)), Qt.MouseButton.NoButton,
                                 Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(vp, move)
        qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=end)
    moved = view.canvas.mapFromScene(scene)
    assert abs(moved.x() - end.x()) <= 1 and abs(moved.y() - end.y()) <= 1


def test_double_click_background_fits(qtbot, view, control_flow):
    view.set_graph(control_flow)
    z0 = view.zoom()
    view.zoom_by(3.0)
    corner = QtCore.QPoint(3, 3)
    assert view.node_at(corner) is None and view.edge_at(corner) is None
    qtbot.mouseDClick(viewport(view), Qt.MouseButton.LeftButton, pos=corner)
    assert view.zoom() == pytest.approx(z0)
    view.zoom_by(3.0)
    view.fit_button.click()
    assert view.zoom() == pytest.approx(z0)


def test_a_100k_equation_program_stays_small_and_centres_inside_a_chunk(view):
    view.set_graph(chain(100_000))
    g = view.graph
    assert len(g.nodes) == 102 and "100,000 inside 100 collapsed groups" in view.info.text()
    view.center_on((54_321,))
    assert view.is_expanded(ChunkId((), 54_000, 55_000))
    assert len(view.graph.nodes) == 102 + 1000 + 2
    pos = view.node_view_pos((54_321,))
    centre = viewport(view).rect().center()
    assert abs(pos.x() - centre.x()) <= 2 and abs(pos.y() - centre.y()) <= 2


def test_new_graph_drops_old_values_and_step(view):
    view.set_graph(small_tree())
    view.set_values(small_values())
    view.set_step((2,), 2)
    view.set_graph(small_tree())
    assert view.values() is None and view.current_node() is None
    assert not view.node_states(view.node_index((5, 1, 0)))["dim"]


MLP = """\
def mlp(w, x):
    for _ in range(12):
        x = jnp.tanh(x @ w + 0.1)
        x = x / (1.0 + jnp.sum(x * x))
    return jnp.mean(x ** 2)
"""


@pytest.fixture(scope="module")
def grad_mlp() -> JaxprNode:
    """grad of a 12-layer network: some 300 equations in one level, as a lesson shows."""
    from workbench.engine.source import load_source
    from workbench.engine.trace import trace_function

    tree = trace_function(load_source(MLP, "mlp.py"), "mlp", "f32[16,16], f32[8,16]",
                          ["grad"]).jaxpr
    assert len(tree.eqns) > 200
    return tree


def on_screen(view: JaxprGraphView, i: int) -> bool:
    nd = view.graph.nodes[i]
    rect = QtCore.QRect(view.canvas.mapFromScene(QtCore.QPointF(nd.x, nd.y)),
                        view.canvas.mapFromScene(QtCore.QPointF(nd.x + nd.w, nd.y + nd.h)))
    return viewport(view).rect().contains(rect)


def test_fit_shows_a_large_graph_readably_around_its_outputs(view, grad_mlp):
    view.set_graph(grad_mlp)
    assert view.fits_partly()
    assert view.zoom() == pytest.approx(view.readable_zoom())
    assert READABLE_TEXT_PX >= 1.5 * TEXT_MIN_PX  # labels are drawn, and big enough to read
    outputs = [i for i, nd in enumerate(view.graph.nodes) if nd.kind == "output"]
    assert outputs and all(on_screen(view, i) for i in outputs)
    assert "Fit all (Shift+F)" in view.info_text() and "the outputs" in view.info_text()
    shown = sum(on_screen(view, i) for i in range(len(view.graph.nodes)))
    assert 10 < shown < len(view.graph.nodes)  # a neighbourhood, not a sliver

    # Fit all really fits all, however small.
    view.fit_all_button.click()
    assert not view.fits_partly() and view.zoom() < view.readable_zoom()
    assert all(on_screen(view, i) for i in range(len(view.graph.nodes)))
    assert "Fit all" not in view.info_text()
    view.canvas.setFocus()
    QtWidgets.QApplication.sendEvent(view.canvas, QtGui.QKeyEvent(
        QtCore.QEvent.Type.KeyPress, Qt.Key.Key_F, Qt.KeyboardModifier.NoModifier, "f"))
    assert view.fits_partly()
    QtWidgets.QApplication.sendEvent(view.canvas, QtGui.QKeyEvent(
        QtCore.QEvent.Type.KeyPress, Qt.Key.Key_F, Qt.KeyboardModifier.ShiftModifier, "F"))
    assert not view.fits_partly()

    # With a selection, Fit shows the selection; a resize keeps it in sight.
    middle = (len(grad_mlp.eqns) // 2,)
    view.select(middle)
    view.fit()
    assert on_screen(view, view.node_index(middle)) and "the selection" in view.info_text()
    view.resize(600, 450)
    QtWidgets.QApplication.processEvents()
    assert on_screen(view, view.node_index(middle))
    assert view.zoom() == pytest.approx(view.readable_zoom())


def test_fit_shows_a_small_graph_whole(view):
    view.set_graph(small_tree())
    view.fit()
    assert not view.fits_partly() and view.zoom() >= view.readable_zoom()
    assert all(on_screen(view, i) for i in range(len(view.graph.nodes)))
    assert "Fit all" not in view.info_text()


def test_several_nodes_selected_and_shown_inside_their_groups(view, control_flow):
    view.set_graph(control_flow)
    view.set_collapse_threshold(3)
    inner = (0, 0, 4, 0, 3, 1, 0)
    outs = [IoId("out", (), i) for i in range(len(control_flow.outvars))]
    view.show_nodes([inner, *outs])
    assert view.is_expanded((0, 0, 4)) and view.is_expanded((0, 0, 4, 0, 3))
    picked = [view.node_index(inner), *(view.node_index(o) for o in outs)]
    assert view.selected_nodes() == picked
    assert all(view.node_states(i)["selected"] for i in picked)
    assert all(on_screen(view, i) for i in picked)
    # A new program: the old selection's frames go.
    view.set_graph(small_tree())
    assert view.selected_nodes() == [] and view.selected_node() is None


def test_on_a_projector_the_readable_floor_grows_with_the_text(view, grad_mlp):
    """In presentation mode the labels a fit shows are as much larger as the text around
    them: before, the floor stayed 9 px on screen, and a class read 7-9 px labels."""
    view.set_presentation_scale(1.5)
    view.set_graph(grad_mlp)
    label_px = view.zoom() * QtGui.QFontMetricsF(view._font).height()
    assert view.fits_partly() and label_px == pytest.approx(1.5 * READABLE_TEXT_PX)
