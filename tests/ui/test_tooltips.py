"""Every control says what it does on hover: the checker, and the widgets of this package."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.api.choices import TRANSFORMS
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.edit_actions import build_edit_menu
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.editor.find_bar import FindBar, GoToLineBar
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.window.tooltips import check_tooltips, has_own_tooltip


def test_the_checker_names_each_control_without_a_tooltip(qtbot):
    root = QMainWindow()
    qtbot.addWidget(root)
    central = QWidget()
    central.setObjectName("central")
    layout = QHBoxLayout(central)
    bare_button = QPushButton("Go")
    named_combo = QComboBox()
    named_combo.setObjectName("bareCombo")
    named_combo.setEditable(True)  # its inner line edit is a part, not a control
    spin = QSpinBox()
    spin.setObjectName("bareSpin")
    slider = QSlider()
    slider.setObjectName("bareSlider")
    edit = QLineEdit()
    edit.setObjectName("bareEdit")
    edit.setClearButtonEnabled(True)
    tipped = QPushButton("Fine")
    tipped.setToolTip("does fine")
    for widget in (bare_button, named_combo, spin, slider, edit, tipped):
        layout.addWidget(widget)
    root.setCentralWidget(central)
    toolbar = root.addToolBar("tools")
    toolbar.setObjectName("tools")
    plain = QAction("Plain", root)
    plain.setObjectName("actionPlain")
    explained = QAction("Explained", root)
    explained.setToolTip("Explained (F9)")
    toolbar.addAction(plain)
    toolbar.addSeparator()
    toolbar.addAction(explained)
    root.show()

    assert sorted(check_tooltips(root)) == sorted(
        [
            "QPushButton 'Go' in central",
            "bareCombo (QComboBox)",
            "bareSpin (QSpinBox)",
            "bareSlider (QSlider)",
            "bareEdit (QLineEdit)",
            "actionPlain (QAction in toolbar tools)",
        ]
    )
    assert not has_own_tooltip(plain) and has_own_tooltip(explained)


def test_a_tool_button_is_judged_by_its_action(qtbot):
    root = QWidget()
    qtbot.addWidget(root)
    button = QToolButton(root)
    button.setObjectName("shows")
    action = QAction("Do", root)
    button.setDefaultAction(action)
    assert check_tooltips(root) == ["shows (QToolButton)"]
    action.setToolTip("Do it (Ctrl+D)")
    assert check_tooltips(root) == []


def test_call_controls_explain_every_control(qtbot):
    controls = CallControls()
    qtbot.addWidget(controls)
    assert check_tooltips(controls) == []
    assert "transform" in controls.chain.add_button.toolTip()
    menu = controls.chain.add_button.menu()
    assert menu.toolTipsVisible()
    assert [a.text() for a in menu.actions()] == list(TRANSFORMS)
    assert all(has_own_tooltip(a) for a in menu.actions())


def test_jaxpr_panel_explains_every_control(qtbot):
    panel = JaxprPanel()
    qtbot.addWidget(panel)
    assert check_tooltips(panel) == []
    assert all(panel.tabs.tabToolTip(i) for i in range(panel.tabs.count()))


def test_the_bars_and_the_edit_menu_explain_every_control(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    editor = CodeEditor()
    central = QWidget()
    QVBoxLayout(central).addWidget(editor)
    window.setCentralWidget(central)
    actions = build_edit_menu(window.menuBar().addMenu("&Edit"), editor, window)
    toolbar = window.addToolBar("edit")
    toolbar.setObjectName("editToolbar")
    toolbar.addActions(actions.actions())
    actions.find_bar.open_replace()
    assert check_tooltips(window) == []
    for bar in (FindBar(editor, window), GoToLineBar(editor, window)):
        assert check_tooltips(bar) == []
