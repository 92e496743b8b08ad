"""The teacher's view of the class: per step, how many students are on it, ran it and
failed it (by the error catalog's kind), the names students chose to share, and the
requests for help, each one click from the code and error the student sent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.lessons.live_class import ClassSnapshot, HelpRow

COLUMNS = ("Step", "On", "Ran", "Failed", "Errors", "Who")
FAILED_BACKGROUND = QColor(220, 60, 60, 70)
TEACHER_BACKGROUND = QColor(60, 120, 220, 60)


class ClassViewPanel(QWidget):
    """Shows a ``ClassSnapshot``; holds no state of the class itself."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("classView")
        self.summary = QLabel("not teaching: Lesson › Teach on the server… starts a class")
        self.summary.setObjectName("classSummary")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("classTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.helps = QListWidget()
        self.helps.setObjectName("helpList")
        self.helps.currentRowChanged.connect(self._on_help_chosen)
        self.help_text = QPlainTextEdit()
        self.help_text.setObjectName("helpText")
        self.help_text.setReadOnly(True)
        self.help_text.setPlaceholderText("A student's request for help shows here: the "
                                          "step's code and its error, as the student sent them")
        self._help_rows: tuple[HelpRow, ...] = ()
        below = QSplitter(Qt.Orientation.Vertical)
        below.addWidget(self.table)
        below.addWidget(self.helps)
        below.addWidget(self.help_text)
        below.setSizes([300, 80, 160])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(below, 1)

    def show_class(self, view: ClassSnapshot) -> None:
        self.summary.setText(view.summary())
        self.table.setRowCount(len(view.rows))
        bold = QFont(self.table.font())
        bold.setBold(True)
        for r, row in enumerate(view.rows):
            kinds = ", ".join(f"{kind} ×{n}" for kind, n in row.kinds)
            cells = (f"▶ {row.step}" if row.step == view.teacher_step else str(row.step),
                     _count(row.on), _count(row.ran), _count(row.failed), kinds,
                     ", ".join(row.names))
            for c, text in enumerate(cells):
                item = self.table.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    self.table.setItem(r, c, item)
                item.setText(text)
                if 0 < c < 4:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setFont(bold if row.step == view.teacher_step else self.table.font())
                background = (FAILED_BACKGROUND if row.failed and c in (3, 4)
                              else TEACHER_BACKGROUND if row.step == view.teacher_step
                              else None)
                item.setBackground(QBrush(background) if background is not None else QBrush())
        self._show_helps(view.helps)

    def _show_helps(self, rows: tuple[HelpRow, ...]) -> None:
        chosen = self.helps.currentRow()
        was = self._help_rows[chosen].peer if 0 <= chosen < len(self._help_rows) else None
        self._help_rows = rows
        self.helps.blockSignals(True)
        self.helps.clear()
        for row in rows:
            failed = f" — {row.failed}" if row.failed else ""
            QListWidgetItem(f"step {row.request.step}: {row.who} asks for help{failed}",
                            self.helps)
        peers = [row.peer for row in rows]
        self.helps.setCurrentRow(peers.index(was) if was in peers else -1)
        self.helps.blockSignals(False)
        self._on_help_chosen(self.helps.currentRow())

    def _on_help_chosen(self, index: int) -> None:
        if not 0 <= index < len(self._help_rows):
            self.help_text.clear()
            return
        request = self._help_rows[index].request
        error = request.error or "(no error: the step ran)"
        self.help_text.setPlainText(f"# step {request.step}, as the student has it\n"
                                    f"{request.code}\n\n# its error\n{error}")

    def table_rows(self) -> list[tuple[str, ...]]:
        """The table's text, row by row (what the class view shows, for tests and exports)."""
        def text(r: int, c: int) -> str:
            item = self.table.item(r, c)
            return item.text() if item is not None else ""

        return [tuple(text(r, c) for c in range(len(COLUMNS)))
                for r in range(self.table.rowCount())]


def _count(n: int) -> str:
    return str(n) if n else ""
