"""On a projector (1024x768 and 1280x800, presentation mode) the panel a lesson step is about
gets the screen: the window stays the screen's size, the lesson text runs the whole height on
the left, and the step's chart, with its axes and legend, is on screen with nothing to scroll.
"""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.exceptions import TimeoutError as WaitTimedOut

from tests.ui.projector import clipped
from workbench.lessons.bundled import LESSONS_DIR
from workbench.ui.style.presentation import editor_minimum_height
from workbench.ui.window.window_layout import default_size

ENGINE_MS = 60000
SCREENS = [(1024, 768), (1280, 800)]


@pytest.mark.parametrize(("area", "size"), [
    ((1024, 768), (1024, 768)),  # a projector: all of it (the window starts maximized)
    ((1280, 800), (1280, 800)),
    ((1920, 1080), (1600, 972)),  # a large screen: most of it
    ((2560, 1440), (1600, 1000)),
    ((800, 600), (1024, 700)),  # smaller than any panel is laid out for: at least that
    ((800, 800), (1024, 720)),
])
def test_a_first_start_fills_a_projectors_screen(area, size):
    assert default_size(QSize(*area)) == QSize(*size)


def _presenting_lesson(qtbot, make_window, size, lesson):
    window = make_window()
    window.resize(*size)
    window.set_presentation(True)
    window.trust_lesson(LESSONS_DIR / lesson)
    assert window.open_lesson(LESSONS_DIR / lesson)
    return window


def _fits_the_screen(qtbot, window, size):
    """The window's minimum fits the screen (a window manager keeps a maximised window at
    the screen's size: offscreen, nothing does, so the test puts it back there)."""
    hint = window.minimumSizeHint()
    assert hint.width() <= size[0] and hint.height() <= size[1], hint
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=5000)


def _shown_whole(qtbot, window, widget, dock_index):
    """Wait (panels lay themselves out again after a resize) until nothing hides ``widget``;
    fail saying what does."""
    with contextlib.suppress(WaitTimedOut):
        qtbot.waitUntil(lambda: _on_screen(window, widget, dock_index) == "", timeout=5000)
    assert _on_screen(window, widget, dock_index) == ""


def _on_screen(window, widget, dock_index):
    """What hides ``widget`` in its dock's scroll area or outside the window ("" if none)."""
    problems = clipped(widget, window.panel_docks[dock_index].widget())
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    if not window.rect().contains(rect):
        problems += f"; outside the window {window.rect().getRect()}: {rect.getRect()}"
    return problems


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plot_step_shows_the_whole_plot_with_its_sliders(qtbot, make_window, size):
    window = _presenting_lesson(qtbot, make_window, size, "01_quick_peek.ipynb")
    window.lessons.go_to(6)  # selu with alpha and lmbda on sliders
    plot = window.plot_panel
    qtbot.waitUntil(lambda: plot.last_curves("selu") is not None, timeout=ENGINE_MS)
    _fits_the_screen(qtbot, window, size)
    assert window.lesson_dock.isVisible()
    assert window.lesson_dock.height() > window.height() * 0.75  # the text's whole column
    _shown_whole(qtbot, window, plot.plot, 0)
    assert plot.plot.height() >= 220
    for name in ("alpha", "lmbda"):
        _shown_whole(qtbot, window, plot.slider(name), 0)
    # The panel took most of what the editor could spare; the editor still shows code.
    assert window.panel_docks[0].height() > window.height() * 0.45
    assert window.editor.height() >= window.editor.fontMetrics().lineSpacing() * 4


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_graph_step_shows_the_graph(qtbot, make_window, size):
    window = _presenting_lesson(qtbot, make_window, size, "02_transformations.ipynb")
    window.lessons.go_to(3)  # the gradient's values
    graph = window.graph_panel
    qtbot.waitUntil(lambda: graph.values is not None, timeout=ENGINE_MS)
    _fits_the_screen(qtbot, window, size)
    _shown_whole(qtbot, window, graph.graph, 3)
    assert graph.graph.height() >= 200


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_kmeans_step_shows_the_scatter(qtbot, make_window, size):
    window = _presenting_lesson(qtbot, make_window, size, "04_kmeans_from_scratch.ipynb")
    window.lessons.go_to(6)
    kmeans = window.kmeans_panel
    qtbot.waitUntil(lambda: window.panel_docks[2].isVisible(), timeout=ENGINE_MS)
    _fits_the_screen(qtbot, window, size)
    _shown_whole(qtbot, window, kmeans.scatter, 2)
    assert kmeans.scatter.height() >= 220


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_timing_step_shows_the_chart(qtbot, make_window, size):
    window = _presenting_lesson(qtbot, make_window, size, "01_quick_peek.ipynb")
    window.lessons.go_to(7)
    timing = window.timing_panel
    qtbot.waitUntil(lambda: window.panel_docks[1].isVisible(), timeout=ENGINE_MS)
    _fits_the_screen(qtbot, window, size)
    _shown_whole(qtbot, window, timing.chart, 1)
    assert timing.chart.height() >= 200


def test_presentation_off_gives_the_editor_its_ten_lines_back(qtbot, make_window):
    window = _presenting_lesson(qtbot, make_window, (1024, 768), "01_quick_peek.ipynb")
    window.lessons.go_to(6)
    qtbot.waitUntil(lambda: window.plot_panel.last_curves("selu") is not None,
                    timeout=ENGINE_MS)
    assert window.editor.minimumHeight() == editor_minimum_height(window.editor, 4)
    assert window.jaxpr.equation.isHidden()  # folded beside the four lines
    window.set_presentation(False)
    assert window.editor.minimumHeight() == editor_minimum_height(window.editor, 10)
    assert window.panel_focus.focused is None
    # Judged once the window has laid out again (the panel's new height): the tree has its
    # five rows back (the whole-equation pane shows where a sixth row's room is left).
    qtbot.waitUntil(lambda: window.jaxpr.tree_rows() >= 5)
    assert window.jaxpr.folded_note.isHidden()


PRINTING = """\
# %%
import jax.numpy as jnp

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

for i in range(8):
    print("line", i, "of what the step printed")
selu(jnp.ones(1000))
"""


def _printing_step_shown(qtbot, make_window, tmp_path, size):
    """A window at ``size``, presenting, with ``PRINTING``'s step traced and on screen."""
    lesson = tmp_path / "printing.py"
    lesson.write_text(PRINTING)
    window = make_window()
    window.resize(*size)
    window.set_presentation(True)
    window.trust_lesson(lesson)
    assert window.open_lesson(lesson)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_MS)
    window.lessons.go_to(1)
    qtbot.waitUntil(lambda: (t := window.jaxpr.trace()) is not None and t.function == "selu",
                    timeout=ENGINE_MS)
    _fits_the_screen(qtbot, window, size)
    return window


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_step_that_printed_leaves_the_tree_its_five_rows(qtbot, make_window, tmp_path, size):
    """Before, the printed text took the jaxpr column and the tree kept one row (1024x768,
    presentation mode). The printed text folds first (the console has it), then the whole-
    equation pane; where even five rows do not fit, one line says what is there."""
    window = _printing_step_shown(qtbot, make_window, tmp_path, size)
    jaxpr = window.jaxpr
    qtbot.waitUntil(lambda: jaxpr.tree_rows() >= 5 or not jaxpr.folded_note.isHidden())
    if jaxpr.folded_note.isHidden():
        assert jaxpr.tree_rows() >= 5
    else:  # too short for five rows: a readable line, not a tree of one row
        assert jaxpr.tabs.isHidden()
        assert jaxpr.folded_note.text().startswith("selu: ")


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plot_opened_from_its_tab_has_its_axes(qtbot, make_window, tmp_path, size):
    """Not through a step's directive: the teacher clicks the Plot tab. Before, the dock kept
    the console's height there and the plot lost its x axis at 1024x768."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTabBar

    window = _printing_step_shown(qtbot, make_window, tmp_path, size)
    bar = next(b for b in window.findChildren(QTabBar)
               if any(b.tabText(i) == "Plot" for i in range(b.count())))
    tab = next(i for i in range(bar.count()) if bar.tabText(i) == "Plot")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(tab).center())
    plot = window.plot_panel
    qtbot.waitUntil(lambda: plot.last_curves("selu") is not None, timeout=ENGINE_MS)
    _shown_whole(qtbot, window, plot.plot, 0)
    assert plot.plot.height() >= 220


def test_a_saved_layout_too_small_to_read_is_repaired_on_start(qtbot, make_window):
    """A panel dragged down to its 90 px stayed so at the next start (on a projector) until
    View > Reset layout. Now the start lays it out afresh, and says so; a layout that can be
    read is kept as it was saved."""
    first = make_window()
    first.resize(1024, 768)
    qtbot.waitExposed(first)
    dock = first.panel_docks[0]  # the tab in front below the editor (no console here)
    assert dock.isVisible()
    # Once the panels are built after the first paint (building one arranges the docks).
    qtbot.waitUntil(lambda: first.plot_panel is not None and dock.height() > 150)
    first.resizeDocks([dock], [dock.minimumSizeHint().height()], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: dock.height() < 120)
    first.close()  # the layout is saved as it is
    second = make_window()
    again = second.panel_docks[0]
    qtbot.waitUntil(lambda: second.plot_panel is not None and again.height() >= 140)
    assert second.statusBar().currentMessage() == (
        "the saved layout had a panel too small to read: laid out afresh")
    tall = again.height()
    second.close()  # a layout a class can read: the next start keeps it
    third = make_window()
    kept = third.panel_docks[0]
    qtbot.waitUntil(lambda: third.plot_panel is not None and abs(kept.height() - tall) <= 2)
    QApplication.processEvents()  # the check is a queued call: it has run, and kept it
    assert abs(kept.height() - tall) <= 2
    assert third.statusBar().currentMessage() == ""


def test_a_jaxpr_column_with_no_tree_shows_its_message_not_a_folded_line(qtbot):
    """A step that defines no function: there is no tree to fold, and the column (its width
    kept) says what the step is. Before, a short panel folded it into "(the tree needs
    room ...)" and, folded, the splitter could squeeze the column away."""
    from workbench.ui.panels.jaxpr_panel import JaxprPanel

    panel = JaxprPanel()
    qtbot.addWidget(panel)
    panel.resize(160, 120)
    panel.show()
    panel.clear("this step defines no function: nothing to trace")
    qtbot.waitExposed(panel)
    panel.resize(160, 110)
    assert panel.folded_note.isHidden() and not panel.tabs.isHidden()
    assert panel.folded_note.minimumWidth() == panel.tabs.minimumSizeHint().width()
