"""The window in front of a class: truthful views after an error, a layout for teaching,
presentation mode, crash notices that leave the editor readable, the theme everywhere."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication, QMessageBox, QToolButton, QToolTip

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def layer(x):
    return jnp.ones((3, 4)) @ x
"""


def _traced(qtbot, window):
    """The window with SOURCE loaded and selu traced, engine idle (the example opened at
    start-up may answer first: wait for SOURCE's own functions)."""
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=30000)
    window.new_file()
    window.editor.setPlainText(SOURCE)
    session = window.session
    qtbot.waitUntil(lambda: session.function_names() == ["selu", "layer"]
                    and session.trace_is_current and window.engine.state == "idle",
                    timeout=30000)


def test_a_failed_trace_never_shows_another_functions_tree_as_current(qtbot, make_window):
    window = make_window()
    _traced(qtbot, window)
    assert not window.jaxpr.is_stale() and window.jaxpr.tree.isEnabled()
    with qtbot.waitSignal(window.sig_error_shown, timeout=30000):
        window.controls.function_list.setCurrentText("layer")
    banner = window.jaxpr.stale_banner
    assert banner.isVisible()
    assert banner.text().startswith("last good: selu(f32[1000]) — this call failed")
    assert not window.jaxpr.tree.isEnabled() and not window.jaxpr.text.isEnabled()
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.controls.function_list.setCurrentText("selu")
    assert not banner.isVisible() and window.jaxpr.tree.isEnabled()


def test_a_source_that_does_not_run_marks_the_plot_as_showing_older_code(qtbot, make_window):
    window = make_window()
    qtbot.waitUntil(lambda: window.plot_panel is not None, timeout=30000)
    _traced(qtbot, window)
    with qtbot.waitSignal(window.sig_error_shown, timeout=30000):
        window.editor.setPlainText(SOURCE + "\ndef broken(:\n")
    assert "does not run" in (window.plot_panel.stale_text() or "")
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.editor.setPlainText(SOURCE)
    assert window.plot_panel.stale_text() is None


def test_an_error_shows_its_specifics_and_jaxs_message_one_click_away(qtbot, make_window):
    window = make_window()
    _traced(qtbot, window)
    with qtbot.waitSignal(window.sig_error_shown, timeout=30000) as blocker:
        window.controls.function_list.setCurrentText("layer")
    explanation = blocker.args[0]
    shown = window.messages.toPlainText()
    assert explanation.title in shown and "show JAX's message" in shown
    assert "(4,) vs (1000,)" in explanation.specifics  # the shapes, in the window too
    assert explanation.specifics.splitlines()[0] in shown
    assert explanation.message.splitlines()[0] not in shown
    window.messages.anchorClicked.emit(QUrl("wb:more"))
    assert explanation.message.splitlines()[0] in window.messages.toPlainText()
    window.messages.anchorClicked.emit(QUrl("wb:less"))
    assert explanation.message.splitlines()[0] not in window.messages.toPlainText()


def test_first_start_gives_editor_and_jaxpr_most_of_the_height(qtbot, make_window):
    window = make_window(console=True)
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.isVisible(), timeout=5000)
    window.reset_layout()
    QApplication.processEvents()

    def top_share() -> float:
        top = window.centralWidget().height()
        return top / (top + window.console_dock.height())

    assert top_share() >= 0.6
    tabs = {window.console_dock, *window.panel_docks}
    assert all(set(window.tabifiedDockWidgets(d)) == tabs - {d} for d in tabs)
    before = window.centralWidget().height()
    window.resize(1600, 1200)
    qtbot.waitUntil(lambda: window.centralWidget().height() > before, timeout=5000)
    window.resizeDocks([window.console_dock], [900], Qt.Orientation.Vertical)
    QApplication.processEvents()
    assert top_share() < 0.6  # squeezed by hand ...
    window.reset_layout()  # ... and back
    QApplication.processEvents()
    assert top_share() >= 0.6


def test_presentation_mode_scales_every_widget_menus_and_tooltips(qtbot, make_window):
    window = make_window()
    qtbot.waitUntil(lambda: window.plot_panel is not None, timeout=30000)
    run_button = next(b for b in window.findChildren(QToolButton)
                      if b.defaultAction() is window.action_run)
    base = run_button.font().pointSizeF()
    menu_base = window.menuBar().font().pointSizeF()
    window.action_presentation.trigger()
    assert window.action_presentation.isChecked()
    qtbot.waitUntil(lambda: run_button.font().pointSizeF() == pytest.approx(base * 1.5),
                    timeout=5000)
    assert window.menuBar().font().pointSizeF() == pytest.approx(menu_base * 1.5)
    assert QToolTip.font().pointSizeF() == pytest.approx(base * 1.5)
    box = QMessageBox(window)
    assert box.font().pointSizeF() == pytest.approx(base * 1.5)
    from workbench.plots.presentation import axis_font_size

    assert axis_font_size(window.plot_panel.plot.plotItem) == pytest.approx(9.0 * 1.5)
    window.action_presentation.trigger()
    qtbot.waitUntil(lambda: run_button.font().pointSizeF() == pytest.approx(base), timeout=5000)


def test_a_crash_is_one_notice_marks_its_line_and_keeps_ten_lines(qtbot, make_window):
    window = make_window(console=True)
    _traced(qtbot, window)
    window.resize(1280, 720)
    source = SOURCE + "\n" * 30 + "import os\nos.abort()\n"
    abort_line = source.splitlines().index("os.abort()") + 1
    with qtbot.waitSignal(window.engine.sig_notice, timeout=30000,
                          check_params_cb=lambda n: n.kind == "restarted"):
        window.editor.setPlainText(source)
    QApplication.processEvents()
    shown = window.notice_text.toPlainText() + window.messages.toPlainText()
    assert shown.count("engine died") == 1, shown
    assert "restarted" in window.notice_text.toPlainText()
    assert [m[0] for m in window.editor.error_marks()] == [abort_line]
    assert window.editor.current_line == abort_line
    lines = window.editor.viewport().height() / window.editor.fontMetrics().lineSpacing()
    assert lines >= 10
    qtbot.waitUntil(lambda: "engine restarted: names defined in the console are gone"
                    in window.console_panel.widget._control.toPlainText(), timeout=30000)
    console = window.console_panel.widget._control.toPlainText()
    assert "frozen modules" not in console and "Debugger warning" not in console


def test_the_console_follows_the_theme_and_the_menu_says_which(qtbot, make_window):
    window = make_window(console=True)
    qtbot.waitUntil(lambda: window.console_panel.widget is not None, timeout=30000)
    window.set_theme("dark")
    assert window.findChild(type(window.action_run), "theme_dark").isChecked()
    assert not window.findChild(type(window.action_run), "theme_light").isChecked()
    console = window.console_panel.widget
    assert window.console_panel.scheme() == window.theme.scheme == "dark"
    assert "#272822" in console.style_sheet or "black" in console.style_sheet.lower()
    window.set_theme("light")
    assert window.console_panel.scheme() == "light"
    window.set_theme("system")


def test_stop_shows_its_shortcut(make_window):
    window = make_window()
    assert window.action_stop.shortcut().toString() == "Esc"
    assert "(Esc)" in window.action_stop.toolTip()


def test_every_control_of_the_window_has_a_tooltip(qtbot, make_window):
    from workbench.ui.window.tooltips import check_tooltips

    window = make_window(console=True)
    window.build_panels()
    assert check_tooltips(window) == []


def test_the_timing_chart_keeps_200_px_at_the_default_layout(qtbot, make_window):
    window = make_window(console=True)
    window.resize(1440, 900)
    window.build_panels()
    window.reset_layout()
    timing_dock = window.panel_docks[1]
    timing_dock.raise_()
    qtbot.waitUntil(lambda: window.timing_panel.isVisible()
                    and window.timing_panel.chart.height() >= 200, timeout=5000)
    top = window.centralWidget().height()
    assert top / (top + timing_dock.height()) >= 0.6
    lines = window.editor.viewport().height() / window.editor.fontMetrics().lineSpacing()
    assert lines >= 10


def test_a_bad_argument_spec_is_answered_next_to_its_box(qtbot, make_window):
    window = make_window()
    _traced(qtbot, window)
    problem = window.controls.problem
    assert not problem.isVisible()
    with qtbot.waitSignal(window.sig_error_shown, timeout=30000):
        window.controls.arg_spec.setText("f32[3")
        window.controls.arg_spec.editingFinished.emit()
    assert problem.isVisible() and "argument 1" in problem.text()
    assert not window.messages.isVisible()  # said once, where it was typed
    with qtbot.waitSignal(window.sig_error_shown, timeout=30000):  # another error now ...
        window.controls.function_list.setCurrentText("layer")
    assert not problem.isVisible()  # ... so the spec's message is gone
    with qtbot.waitSignal(window.sig_traced, timeout=30000):
        window.controls.function_list.setCurrentText("selu")
        window.controls.arg_spec.setText("f32[3]")
        window.controls.arg_spec.editingFinished.emit()
    assert not problem.isVisible()


def test_a_fresh_start_already_has_the_teaching_layout(qtbot, make_window):
    window = make_window(console=True)  # fresh settings: no saved layout
    qtbot.waitUntil(lambda: window.plot_panel is not None, timeout=30000)

    def top_share() -> float:
        top = window.centralWidget().height()
        return top / (top + window.console_dock.height())

    qtbot.waitUntil(lambda: top_share() >= 0.6, timeout=5000)


def test_presentation_mode_follows_the_zoom_keys(qtbot, make_window):
    window = make_window()
    window.set_presentation(True)
    assert window.zoom.factor == pytest.approx(1.5)
    window.zoom.reset()  # Ctrl+0
    assert not window.action_presentation.isChecked()
    window.action_presentation.trigger()  # F5 turns it on again, not off
    assert window.action_presentation.isChecked() and window.zoom.factor == pytest.approx(1.5)
    window.zoom.zoom_in()  # 1.75
    window.action_presentation.trigger()  # off: back to the zoom before, never larger
    assert window.zoom.factor == pytest.approx(1.0)
