"""Find the controls that would leave a student hovering in vain: no tooltip.

A test runs ``check_tooltips`` over a window or panel and expects an empty list.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QSlider,
    QTabBar,
    QToolBar,
    QToolButton,
    QWidget,
    QWidgetAction,
)

INTERACTIVE = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox, QSlider)
# Parts of a compound control: the control itself carries the tooltip.
_COMPOUND = (QComboBox, QAbstractSpinBox, QLineEdit, QTabBar)


def check_tooltips(root: QWidget) -> list[str]:
    """Describe each interactive control under `root`, and each toolbar action, with no tooltip.

    Qt's own parts (names starting ``qt_`` or ``_q_``, the pieces inside combo boxes,
    spin boxes, line edits and tab bars) are skipped; a tool button that shows an
    action is judged by its action, whose default tooltip (its text) does not count.
    """
    missing: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if not isinstance(widget, INTERACTIVE) or _is_qt_part(widget):
            continue
        action = widget.defaultAction() if isinstance(widget, QToolButton) else None
        if action is not None:
            # The button shows its action's tooltip; a toolbar's actions are listed below.
            if not isinstance(widget.parentWidget(), QToolBar) and not has_own_tooltip(action):
                missing.append(_describe(widget))
        elif not widget.toolTip().strip():
            missing.append(_describe(widget))
    for toolbar in (w for w in widgets if isinstance(w, QToolBar)):
        for action in toolbar.actions():
            if action.isSeparator() or isinstance(action, QWidgetAction):
                continue
            if not has_own_tooltip(action):
                name = action.objectName() or repr(action.text())
                missing.append(f"{name} (QAction in toolbar {toolbar.objectName() or '?'})")
    return missing


def has_own_tooltip(action: QAction) -> bool:
    """Whether the action's tooltip was set, not Qt's default made from its text."""
    probe = QAction()
    probe.setText(action.text())
    probe.setIconText(action.iconText())
    tip = action.toolTip().strip()
    return bool(tip) and tip != probe.toolTip().strip()


def _is_qt_part(widget: QWidget) -> bool:
    name = widget.objectName()
    parent = widget.parentWidget()
    return name.startswith(("qt_", "_q_")) or isinstance(parent, _COMPOUND)


def _describe(widget: QWidget) -> str:
    """objectName (class), or the class, its text and the nearest named ancestor."""
    cls = type(widget).__name__
    if widget.objectName():
        return f"{widget.objectName()} ({cls})"
    text = widget.text() if isinstance(widget, (QAbstractButton, QLineEdit)) else ""
    label = f"{cls} {text!r}" if text else cls
    ancestor = widget.parentWidget()
    while ancestor is not None and not ancestor.objectName():
        ancestor = ancestor.parentWidget()
    return f"{label} in {ancestor.objectName()}" if ancestor is not None else label
