"""The jaxpr Tree on a projector: the application font 1.5x, the code font 15 pt (as the
window's presentation zoom sets it), and the jaxpr area as narrow as it gets beside a
lesson. Every equation reads whole in the pane under the tree, the Equation column keeps
room, and the first row lists the inputs, as lesson 2 says ("the first line lists the
inputs with their types")."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView

from tests.ui.projector import presentation_font
from workbench.engine.source import load_source
from workbench.engine.trace import trace_function
from workbench.ui.panels.jaxpr_model import COL_EQUATION
from workbench.ui.panels.jaxpr_panel import MIN_EQUATION_CHARS, JaxprPanel

LOSS = """\
import jax.numpy as jnp


def loss(w, x, y):
    prediction = x @ w
    return jnp.mean((prediction - y) ** 2)
"""
NARROW, WIDE = (300, 400), (1250, 430)
SIGNATURE = "in: a:f32[3] b:f32[8,3] c:f32[8]\nout: h:f32[]"


@pytest.fixture(scope="module")
def loss_trace():
    """Lesson 2's first step, traced by the engine."""
    return trace_function(load_source(LOSS, "lesson.py"), "loss", "f32[3], f32[8,3], f32[8]")


@pytest.fixture(scope="module")
def grad_trace():
    """Lesson 2's gradient step: ten equations, two long ``dot_general`` ones."""
    return trace_function(load_source(LOSS, "lesson.py"), "loss", "f32[3], f32[8,3], f32[8]",
                          ["grad"])


@pytest.fixture
def panel(qtbot, loss_trace):
    with presentation_font() as factor:
        panel = JaxprPanel()
        qtbot.addWidget(panel)
        font = panel.tree.font()
        font.setPointSizeF(10 * factor)
        panel.set_code_font(font)
        panel.show_trace(loss_trace)
        yield panel


def _show(qtbot, panel, size):
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.tree.viewport().width() < size[0])


def _select(panel, row):
    panel.tree.setCurrentIndex(panel.proxy.index(row, COL_EQUATION))
    return panel.equation.toPlainText()


def test_the_first_row_lists_the_inputs_and_the_last_the_outputs(panel, loss_trace):
    proxy = panel.proxy
    first = proxy.index(0, COL_EQUATION).data()
    last = proxy.index(proxy.rowCount() - 1, COL_EQUATION).data()
    assert first == "in: a:f32[3] b:f32[8,3] c:f32[8]"
    assert last.startswith("out: ") and last.endswith(":f32[]")
    assert proxy.rowCount() == len(loss_trace.jaxpr.eqns) + 2


def test_the_equation_column_keeps_room_in_a_narrow_jaxpr_area(qtbot, panel):
    _show(qtbot, panel, NARROW)
    header = panel.tree.header()
    chars = QFontMetrics(panel.tree.font()).horizontalAdvance("0")
    assert header.sectionSize(COL_EQUATION) >= MIN_EQUATION_CHARS * chars
    assert header.sectionSize(COL_EQUATION) > QFontMetrics(header.font()).horizontalAdvance(
        "Equation") + chars  # its title whole, not "Equ…"
    assert panel.shown_columns() == ["Equation", "Line"]  # Output, Primitive gave way
    assert not panel.tree.horizontalScrollBar().isVisible()


def test_every_column_comes_back_when_there_is_room(qtbot, panel):
    _show(qtbot, panel, NARROW)
    panel.resize(*WIDE)
    qtbot.waitUntil(lambda: panel.shown_columns() == ["Equation", "Primitive", "Output",
                                                      "Line"])


def test_the_pane_shows_the_selected_equation_whole(qtbot, panel):
    _show(qtbot, panel, NARROW)
    row = next(r for r in range(panel.proxy.rowCount())
               if panel.proxy.index(r, 1).data() == "dot_general")
    text = _select(panel, row)
    shown = panel.proxy.index(row, COL_EQUATION).data()
    assert "preferred_element_type=float32" in text and text.startswith(shown.split("[")[0])
    assert text.endswith("line 5")
    pane = panel.equation
    assert pane.font().pointSizeF() == pytest.approx(15)  # the tree's presentation font
    assert pane.font().family() == panel.tree.font().family()
    assert not pane.horizontalScrollBar().isVisible()
    # wrapped at the pane's width: more lines than the text has, none wider than the pane
    qtbot.waitUntil(lambda: pane.document().size().height()
                    > 2 * pane.fontMetrics().lineSpacing())
    assert pane.document().idealWidth() <= pane.viewport().width()
    assert pane.height() >= 2 * pane.fontMetrics().lineSpacing()


def test_the_pane_shows_the_inputs_row_whole_and_no_equation_is_picked(qtbot, panel):
    _show(qtbot, panel, NARROW)
    picked, lines = [], []
    panel.sig_eqn_selected.connect(picked.append)
    panel.sig_line_activated.connect(lines.append)
    assert _select(panel, 0) == "in: a:f32[3] b:f32[8,3] c:f32[8]"
    assert panel.selected_path() is None
    last = panel.proxy.rowCount() - 1
    assert _select(panel, last).startswith("out: ")
    assert picked == [] and lines == []
    _select(panel, 1)
    assert picked == [(0,)] and lines == [5]  # the first equation is path (0,), line 5


def test_a_graph_path_selects_its_equation_not_the_inputs_row(qtbot, panel):
    _show(qtbot, panel, NARROW)
    assert panel.select_path((0,))
    assert panel.tree.currentIndex().row() == 1
    assert panel.selected_path() == (0,)
    assert panel.equation.toPlainText().startswith("d:f32[8] = dot_general[")


def test_picking_a_row_never_changes_what_the_panel_needs(qtbot, panel):
    """A focused dock beside the editor keeps its height whichever row is picked."""
    _show(qtbot, panel, NARROW)
    before = panel.minimumSizeHint()
    for row in range(panel.proxy.rowCount()):
        _select(panel, row)
        assert panel.minimumSizeHint() == before


def test_with_no_row_selected_the_pane_shows_the_inputs_and_outputs(qtbot, panel, loss_trace):
    """However narrow the tree, the lesson's "first line" reads whole under it."""
    _show(qtbot, panel, NARROW)
    assert panel.equation.toPlainText() == SIGNATURE
    _select(panel, 1)
    panel.show_trace(loss_trace)  # a new trace: no row selected any more
    assert panel.equation.toPlainText() == SIGNATURE
    panel.clear("no function defined yet")
    assert panel.equation.toPlainText() == ""
    assert panel.model.rowCount() == 0


def test_the_selected_row_stays_in_sight_when_the_pane_grows(qtbot, panel, grad_trace):
    panel.show_trace(grad_trace)
    _show(qtbot, panel, NARROW)
    tree = panel.tree
    last = panel.proxy.rowCount() - 2  # the transposed dot_general: four lines in the pane
    index = panel.proxy.index(last, COL_EQUATION)
    tall = tree.viewport().height()  # under the inputs and outputs: three lines
    _select(panel, last + 1)  # the outputs row: one line, the pane at its least
    qtbot.waitUntil(lambda: tree.viewport().height() > tall)
    tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtBottom)
    assert tree.verticalScrollBar().value() > 0  # the row sits on the tree's bottom edge
    before = panel.equation.height()
    tree.setCurrentIndex(index)
    qtbot.waitUntil(lambda: panel.equation.height() > before)
    qtbot.waitUntil(lambda: tree.viewport().rect().contains(tree.visualRect(index)))
    assert "dot_general[dimension_numbers=" in panel.equation.toPlainText()


def test_the_equation_counts_leave_the_tree_its_room(qtbot, panel, grad_trace):
    """Under a tree the counts take two lines at most (the rest in their tooltip); a message
    with no tree ("not run yet", why a call failed) shows every line."""
    panel.show_trace(grad_trace)
    _show(qtbot, panel, NARROW)
    stats = panel.stats_label
    lines = stats.fontMetrics().lineSpacing()
    assert stats.text().startswith("10 equations at all depths: ")  # the whole text
    assert stats.is_clamped() and len(stats.shown_lines()) == 2
    assert stats.shown_lines()[-1].endswith("\u2026")
    assert stats.height() <= 2 * lines + stats.contentsMargins().top() * 2
    assert stats.toolTip() == stats.text()
    message = "this call failed: " + "a long reason, said in full, " * 4
    panel.clear(message)
    qtbot.waitUntil(lambda: stats.height() > 3 * lines)
    assert not stats.is_clamped() and stats.text() == message and stats.toolTip() == ""


def test_a_long_word_in_the_stats_line_never_widens_the_panel(qtbot):
    # The stats line names the lesson file: at presentation size its longest word once made
    # the jaxpr column, and with it the window, wider than a 1024-pixel projector.
    from workbench.ui.panels.jaxpr_panel import MIN_CHARS, ClampedLabel

    label = ClampedLabel()
    qtbot.addWidget(label)
    word = "01_quick_peek_with_a_long_name.ipynb,step_6_of_the_lesson_on_jacobians"
    label.setText(f"selu: 8 equations, from {word}")
    assert label.minimumSizeHint().width() <= label.fontMetrics().averageCharWidth() * MIN_CHARS
    assert label.fontMetrics().horizontalAdvance(word) > label.minimumSizeHint().width() * 3


def test_a_folded_tree_cleared_for_the_next_step_never_names_the_trace_cleared(qtbot, panel,
                                                                                loss_trace):
    """Too short for the rows, the tree folds to "loss: N equations". Cleared for another
    step, it is the step's message that shows: before, the room was fitted while the old
    trace was still held, and the folded line went on naming ``loss`` with no banner."""
    _show(qtbot, panel, (420, 90))  # held at the panel's least height
    panel.set_code_font(panel.tree.font())  # fitted again, the layout done
    qtbot.waitUntil(lambda: not panel.folded_note.isHidden())
    assert panel.folded_note.text().startswith("loss: ")
    panel.clear("step 4: not run yet")
    assert panel.folded_note.isHidden() and not panel.tabs.isHidden()
    assert panel.stats_label.text() == "step 4: not run yet"
