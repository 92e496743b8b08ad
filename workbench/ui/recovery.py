"""The dialog that offers back every buffer crashed windows left, and deletes none unasked.

It lists each buffer with its time, its file (or "untitled") and its first line. The
user restores one into the editor or discards the ones picked; whatever is left stays on
disk and is offered again at the next start. The dialog only asks: the document
controller restores and discards.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.autosave import RecoveredBuffer

FIRST_LINE_CHARS = 60
_ITEM_ROLE = Qt.ItemDataRole.UserRole


def describe(item: RecoveredBuffer) -> str:
    """``2024-05-01 14:03:12  model.py  def f(x):`` — when, which file, how it starts."""
    when = datetime.datetime.fromtimestamp(item.saved_at).strftime("%Y-%m-%d %H:%M:%S")
    name = Path(item.path).name if item.path else "untitled"
    return f"{when}   {name}   {first_line(item.text)}"


def first_line(text: str) -> str:
    """The first line with something on it, cut to ``FIRST_LINE_CHARS``."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "(empty)")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


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
        self.list = QListWidget()
        self.list.setObjectName("recoveryList")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for item in items:
            row = QListWidgetItem(describe(item))
            row.setData(_ITEM_ROLE, item)
            row.setToolTip(item.path or "untitled: never saved to a file")
            self.list.addItem(row)
        self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _row: self._on_restore())
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
        self.resize(640, 300)
        self._update_buttons()

    def items(self) -> list[RecoveredBuffer]:
        """The buffers still listed, in order."""
        return [self.list.item(row).data(_ITEM_ROLE) for row in range(self.list.count())]

    def select(self, items: list[RecoveredBuffer]) -> None:
        """Select exactly these buffers (what a click or Ctrl+click does)."""
        for row in range(self.list.count()):
            entry = self.list.item(row)
            entry.setSelected(entry.data(_ITEM_ROLE) in items)

    def selected(self) -> list[RecoveredBuffer]:
        return [entry.data(_ITEM_ROLE) for entry in self.list.selectedItems()]

    def _on_restore(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        self.accept()
        self.sig_restore.emit(chosen[0])

    def _on_discard(self) -> None:
        for entry in self.list.selectedItems():
            self.sig_discard.emit(entry.data(_ITEM_ROLE))
            self.list.takeItem(self.list.row(entry))
        if self.list.count() == 0:
            self.accept()

    def _update_buttons(self) -> None:
        count = len(self.list.selectedItems())
        self.restore_button.setEnabled(count == 1)
        self.discard_button.setEnabled(count > 0)
