"""The dialog that offers back every buffer crashed windows left, and deletes none unasked.

It lists each buffer in columns (when it was saved, its file or "untitled", its first line),
with the first lines of its text as the row's tooltip. The user restores one into the editor
or discards the ones picked; whatever is left stays on disk and is offered again at the next
start. The dialog only asks: the document controller restores and discards.
"""

from __future__ import annotations

import datetime
import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.storage.autosave import RecoveredBuffer

FIRST_LINE_CHARS = 60
PREVIEW_LINES = 12
COLUMNS = ("Saved", "File", "First line")
# The dialog's least size in characters and text lines of its font (it grows with presentation
# zoom), and wider when the rows need it.
SIZE_CHARS = 100
SIZE_LINES = 20
_ITEM_ROLE = Qt.ItemDataRole.UserRole


def columns(item: RecoveredBuffer) -> tuple[str, str, str]:
    """``("2024-05-01 14:03:12", "model.py", "def f(x):")``: when, which file, how it starts."""
    when = datetime.datetime.fromtimestamp(item.saved_at).strftime("%Y-%m-%d %H:%M:%S")
    name = Path(item.path).name if item.path else "untitled"
    return when, name, first_line(item.text)


def first_line(text: str) -> str:
    """The first line with something on it, cut to ``FIRST_LINE_CHARS``."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "(empty)")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


def preview(item: RecoveredBuffer) -> str:
    """The row's tooltip (rich text): the full path (or "untitled") and the text's first lines
    in a fixed-width font, so two buffers that start alike can be told apart before restoring."""
    lines = item.text.strip("\n").splitlines()
    shown = "\n".join(lines[:PREVIEW_LINES]) or "(empty)"
    more = len(lines) - PREVIEW_LINES
    tail = f"<br>… {more} more line{'s' if more > 1 else ''}" if more > 0 else ""
    where = html.escape(item.path or "untitled: never saved to a file")
    return f"<b>{where}</b><pre>{html.escape(shown)}</pre>{tail}"


class RecoveryDialog(QDialog):
    """Lists recovered buffers; Restore takes one, Discard deletes the ones selected."""

    sig_restore = Signal(object)
    """The user chose this ``RecoveredBuffer`` to restore into the editor."""
    sig_discard = Signal(object)
    """The user discarded this ``RecoveredBuffer``: delete it for good."""

    def __init__(self, items: list[RecoveredBuffer], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("recoveryDialog")
        self.setWindowTitle("Restore unsaved work")
        many = len(items) > 1
        intro = QLabel(
            ("Windows of the workbench did not close cleanly and left unsaved work. "
             if many else "The workbench did not close cleanly and left unsaved work. ")
            + "Restore one into the editor; what you do not restore or discard stays saved "
            "and is offered again at the next start.")
        intro.setWordWrap(True)
        self.list = QTreeWidget()
        self.list.setObjectName("recoveryList")
        self.list.setColumnCount(len(COLUMNS))
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAllColumnsShowFocus(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for item in items:
            row = QTreeWidgetItem(list(columns(item)))
            row.setData(0, _ITEM_ROLE, item)
            for column in range(len(COLUMNS)):
                row.setToolTip(column, preview(item))
            self.list.addTopLevelItem(row)
        header = self.list.header()
        header.setStretchLastSection(True)
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.setCurrentItem(self._entries()[0])
        self.list.itemDoubleClicked.connect(lambda _row, _column: self._on_restore())
        self.list.itemSelectionChanged.connect(self._update_buttons)
        buttons = QDialogButtonBox()
        self.restore_button = QPushButton("Restore")
        self.restore_button.setObjectName("recoveryRestore")
        self.restore_button.setToolTip("put the selected buffer in the editor")
        self.discard_button = QPushButton("Discard")
        self.discard_button.setObjectName("recoveryDiscard")
        self.discard_button.setToolTip("delete the selected buffers for good")
        self.later_button = QPushButton("Later")
        self.later_button.setObjectName("recoveryLater")
        self.later_button.setToolTip("keep every buffer on disk and ask again next time")
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.later_button, QDialogButtonBox.ButtonRole.RejectRole)
        # The box's own accepted/rejected would close the dialog on Discard too.
        self.restore_button.clicked.connect(self._on_restore)
        self.discard_button.clicked.connect(self._on_discard)
        self.later_button.clicked.connect(self.reject)
        self.restore_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self._fit_to_font(layout)
        self._update_buttons()

    def items(self) -> list[RecoveredBuffer]:
        """The buffers still listed, in order."""
        return [entry.data(0, _ITEM_ROLE) for entry in self._entries()]

    def row_texts(self, row: int) -> tuple[str, ...]:
        """What a row shows, column by column."""
        entry = self._entries()[row]
        return tuple(entry.text(column) for column in range(len(COLUMNS)))

    def select(self, items: list[RecoveredBuffer]) -> None:
        """Select exactly these buffers (what a click or Ctrl+click does)."""
        for entry in self._entries():
            entry.setSelected(entry.data(0, _ITEM_ROLE) in items)

    def selected(self) -> list[RecoveredBuffer]:
        return [entry.data(0, _ITEM_ROLE) for entry in self.list.selectedItems()]

    def _entries(self) -> list[QTreeWidgetItem]:
        rows = (self.list.topLevelItem(row) for row in range(self.list.topLevelItemCount()))
        return [entry for entry in rows if entry is not None]

    def _fit_to_font(self, layout: QVBoxLayout) -> None:
        """Wide enough for every row unclipped, at least ``SIZE_CHARS`` by ``SIZE_LINES`` of
        the dialog's font (presentation zoom included), within the screen."""
        metrics = self.fontMetrics()
        rows = sum(self.list.sizeHintForColumn(column) + metrics.averageCharWidth() * 2
                   for column in range(len(COLUMNS)))
        margins = layout.contentsMargins()
        chrome = (margins.left() + margins.right() + 2 * self.list.frameWidth()
                  + self.list.verticalScrollBar().sizeHint().width())
        width = max(metrics.averageCharWidth() * SIZE_CHARS, rows + chrome)
        height = metrics.lineSpacing() * SIZE_LINES
        screen = self.screen()
        if screen is not None:
            room = screen.availableGeometry()
            width, height = min(width, room.width() * 9 // 10), min(height, room.height() * 9 // 10)
        self.resize(width, height)

    def _on_restore(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        self.accept()
        self.sig_restore.emit(chosen[0])

    def _on_discard(self) -> None:
        entries = self.list.selectedItems()
        if not entries:
            return
        next_row = min(self.list.indexOfTopLevelItem(entry) for entry in entries)
        for entry in entries:
            self.sig_discard.emit(entry.data(0, _ITEM_ROLE))
            self.list.takeTopLevelItem(self.list.indexOfTopLevelItem(entry))
        left = self._entries()
        if not left:
            self.accept()
            return
        # The row that took the discarded one's place is selected, so the buttons stay usable.
        self.list.setCurrentItem(left[min(next_row, len(left) - 1)])

    def _update_buttons(self) -> None:
        count = len(self.list.selectedItems())
        self.restore_button.setEnabled(count == 1)
        self.discard_button.setEnabled(count > 0)
