"""The recovery dialog as a teacher reads it: rows in columns that line up whatever the file
names, nothing clipped at normal size or in presentation mode, a preview to tell buffers apart,
and Discard leaving the next buffer selected."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from workbench.ui.storage.autosave import RecoveredBuffer
from workbench.ui.storage.recovery import COLUMNS, RecoveryDialog, first_line
from workbench.ui.style.presentation import AppFontZoom
from workbench.ui.style.theme import PresentationZoom

NOW = time.time()
ITEMS = [
    RecoveredBuffer("main", None, "def softmax(z):  # z < 1e3\n    return z\n", NOW, "/a"),
    RecoveredBuffer("main", "/home/t/week3_gradient_descent.py",
                    "import jax\n# week 3\n\ndef loss(w, x, y):\n    return 0.0\n", NOW - 40, "/b"),
    RecoveredBuffer("main", "/home/t/selu.py",
                    "\n\ndef selu(x, alpha=1.67, lam=1.05):\n    return x\n", NOW - 300, "/c"),
]


@pytest.fixture
def dialog(qtbot):
    dialog = RecoveryDialog(ITEMS)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def cell_left(dialog: RecoveryDialog, row: int, column: int) -> int:
    entry = dialog.list.topLevelItem(row)
    return dialog.list.visualItemRect(entry).left() + dialog.list.header().sectionPosition(column)


def unclipped(dialog: RecoveryDialog) -> bool:
    """Every column is as wide as its widest cell, and the columns fit in the list."""
    header = dialog.list.header()
    fits = all(header.sectionSize(column) >= dialog.list.sizeHintForColumn(column)
               for column in range(len(COLUMNS)))
    return fits and header.length() <= dialog.list.viewport().width()


def test_rows_are_columns_that_line_up(dialog):
    assert [dialog.list.headerItem().text(c) for c in range(len(COLUMNS))] == list(COLUMNS)
    rows = [dialog.row_texts(row) for row in range(len(ITEMS))]
    assert [row[1] for row in rows] == ["untitled", "week3_gradient_descent.py", "selu.py"]
    assert [row[2] for row in rows] == [first_line(item.text) for item in ITEMS]
    # The first lines start at the same x whatever the length of the file name before them.
    assert len({cell_left(dialog, row, 2) for row in range(len(ITEMS))}) == 1
    assert unclipped(dialog)


def capped(dialog: RecoveryDialog) -> bool:
    """The dialog was held to 90% of a screen too small for it."""
    return dialog.width() >= dialog.screen().availableGeometry().width() * 9 // 10


def test_nothing_is_clipped_in_presentation_mode(qtbot, dialog):
    app = QApplication.instance()
    zoom = PresentationZoom()
    fonts = AppFontZoom(zoom)
    try:
        zoom.set_factor(1.5)
        big = RecoveryDialog(ITEMS)
        qtbot.addWidget(big)
        big.show()
        qtbot.waitExposed(big)
        assert big.font().pointSizeF() == pytest.approx(app.font().pointSizeF())
        assert big.height() > dialog.height() * 1.3
        assert big.width() > dialog.width() * 1.1
        assert unclipped(big) or capped(big)
        buttons = [big.restore_button, big.discard_button, big.later_button]
        assert all(b.width() >= b.sizeHint().width() for b in buttons)
    finally:
        fonts.restore()


def test_tooltip_previews_the_text(dialog):
    tip = dialog.list.topLevelItem(1).toolTip(2)
    assert "/home/t/week3_gradient_descent.py" in tip
    assert "def loss(w, x, y):" in tip  # lines past the first tell buffers apart
    assert "<pre>" in tip  # code in a fixed-width font
    untitled = dialog.list.topLevelItem(0).toolTip(0)
    assert "untitled" in untitled
    assert "z &lt; 1e3" in untitled  # the text is shown as text, not read as markup


def test_discard_selects_the_next_buffer(qtbot, dialog):
    discarded = []
    dialog.sig_discard.connect(discarded.append)
    dialog.select([ITEMS[0]])
    qtbot.mouseClick(dialog.discard_button, Qt.MouseButton.LeftButton)
    assert discarded == [ITEMS[0]]
    assert dialog.items() == ITEMS[1:]
    assert dialog.selected() == [ITEMS[1]]
    assert dialog.restore_button.isEnabled() and dialog.discard_button.isEnabled()
    dialog.select([ITEMS[2]])
    qtbot.mouseClick(dialog.discard_button, Qt.MouseButton.LeftButton)
    assert dialog.selected() == [ITEMS[1]]  # the last row went: the one above is next
    assert dialog.isVisible()
