"""The jaxpr view: the tree (linked to editor lines), the text, and the lowered HLO.

Under the tree a pane shows the selected row whole, wrapped, params and all: the
tree keeps one line per equation (a large trace stays quick to scan, a long
``dot_general`` does not push its neighbours away), and a narrow jaxpr area on a
projector still reads every character of the one equation in focus. When the
tree is too narrow for its columns, the Output, Primitive and then Line columns
give way (the equation text names its primitive and output types itself).
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QRegularExpression,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QTabWidget,
    QTextEdit,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench.api.jaxpr import LoweringResult, TraceResult
from workbench.api.printed import Printed
from workbench.ui.panels.banner import describe_call, stale_banner
from workbench.ui.panels.jaxpr_model import (
    COL_EQUATION,
    COL_LINE,
    COL_OUTPUT,
    COL_PRIMITIVE,
    JaxprTreeModel,
    LineRole,
    PrimitiveFilter,
)


def _fmt(color: str, bold: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    return fmt


class JaxprHighlighter(QSyntaxHighlighter):
    """Colours jaxpr text: keywords, types, primitives, literals (Pygments has no jaxpr lexer)."""

    RULES = (
        (r"\b(lambda|let|in)\b", "#8959a8", True),
        (r"\b(?:bool|[iuf]\d+|bf16|c64|c128)\[[^\]]*\]", "#3e999f", False),
        (r"(?<== )[a-z_][a-z_0-9]*", "#4271ae", True),
        (r"\b\d+(?:\.\d*)?(?:e[-+]?\d+)?(?=:)", "#f5871f", False),
    )

    def __init__(self, document: QTextDocument):
        super().__init__(document)
        self._rules = [(QRegularExpression(p), _fmt(c, b)) for p, c, b in self.RULES]

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        for regex, fmt in self._rules:
            it = regex.globalMatch(text)
            while it.hasNext():
                m = it.next()
                self.setFormat(m.capturedStart(), m.capturedLength(), fmt)


def _mono() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


PRINTED_LINES = 6  # the output box grows to this many lines, then scrolls
EQUATION_LINES = 3  # the full-equation pane grows to this many lines, then scrolls
TREE_MIN_ROWS = 5  # the tree never shows fewer: the printed text, then the equation fold
STATS_LINES = 2  # the equation counts under a tree: the rest is in the tooltip
MIN_EQUATION_CHARS = 16  # the Equation column keeps this many characters before others hide
GIVE_WAY = (COL_OUTPUT, COL_PRIMITIVE, COL_LINE)  # the columns that hide first, in turn

TRACING_TIP = (
    "What your code printed while JAX traced this call. Under jit the Python body runs only "
    "while tracing, once per new shape or static value; a call that reuses the cached trace "
    "prints nothing (jax.debug.print prints at every call)."
)
LOADING_TIP = (
    "What the file's top-level code printed when it ran; a function called there runs "
    "(and, under jit, is traced) then."
)


MIN_CHARS = 10  # a clamped label's narrowest, in average characters


class ClampedLabel(QLabel):
    """A word-wrapped label that shows at most ``max_lines`` lines, the last one elided, with
    the whole text in its tooltip (``None``: every line). ``text()`` stays the whole text."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.max_lines: int | None = None

    def set_max_lines(self, lines: int | None) -> None:
        self.max_lines = lines
        self.updateGeometry()
        self.update()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        super().setText(text)
        self._update_tip()

    def shown_lines(self) -> list[str]:
        """The lines as painted at the label's width: every one, or the first
        ``max_lines``, the last ending in "…" (what is left is wider than a line)."""
        lines, starts = self._wrapped()
        keep = self.max_lines
        if keep is None or len(lines) <= keep:
            return lines
        rest = self.text()[starts[keep - 1]:]
        room = max(self.contentsRect().width(), 1)
        return [*lines[: keep - 1],
                self.fontMetrics().elidedText(rest, Qt.TextElideMode.ElideRight, room)]

    def is_clamped(self) -> bool:
        """Whether lines are left out (the tooltip has them)."""
        return self.max_lines is not None and len(self._wrapped()[1]) > self.max_lines

    def _wrapped(self) -> tuple[list[str], list[int]]:
        """The text's lines word-wrapped at the label's width, and where each starts."""
        text = self.text()
        layout = QTextLayout(text, self.font())
        starts = []
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(max(self.contentsRect().width(), 1))
            starts.append(line.textStart())
        layout.endLayout()
        ends = [*starts[1:], len(text)]
        return [text[a:b].strip() for a, b in zip(starts, ends, strict=True)], starts

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        return self._capped(super().heightForWidth(width))

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        return QSize(hint.width(), self._capped(hint.height()))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        # Not the longest word's width (a lesson's file name, at presentation size, pushed
        # the window past a 1024-pixel screen): a word wider than the label is cut, and the
        # tooltip has it whole.
        hint = super().minimumSizeHint()
        narrow = self.fontMetrics().averageCharWidth() * MIN_CHARS
        return QSize(min(hint.width(), narrow), self._capped(hint.height()))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        if self.max_lines is None:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        rect = self.contentsRect()
        step = self.fontMetrics().lineSpacing()
        for i, line in enumerate(self.shown_lines()):
            self.style().drawItemText(painter, rect.adjusted(0, i * step, 0, 0),
                                      int(self.alignment()), self.palette(), self.isEnabled(),
                                      line, self.foregroundRole())

    def _capped(self, height: int) -> int:
        if self.max_lines is None:
            return height
        margins = self.contentsMargins()
        most = self.max_lines * self.fontMetrics().lineSpacing() + margins.top() + margins.bottom()
        return min(height, most)

    def _update_tip(self) -> None:
        self.setToolTip(self.text() if self.is_clamped() else "")


class PrintedBox(QWidget):
    """A label and a short read-only text of printed output; hidden while there is none."""

    def __init__(self, name: str, title: str, tip: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.title = title
        self.label = QLabel(title)
        self.label.setObjectName(f"{name}Label")
        self.label.setToolTip(tip)
        self.label.setWordWrap(True)  # a narrow jaxpr column (a projector) keeps its width
        self.folded = False
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setObjectName(f"{name}Text")
        self.text.setFont(_mono())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setToolTip(tip)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.label)
        layout.addWidget(self.text)
        self.set_printed(Printed())

    def set_printed(self, printed: Printed, where: str = "") -> None:
        """Show ``printed`` (its truncation note included) under the title, or hide."""
        self.label.setText(f"{self.title} {where}".strip() + ":")
        self.text.setPlainText(printed.shown().rstrip("\n"))
        self._fit()
        self._printed = bool(printed)
        self.setVisible(self._printed and not self.folded)

    def set_folded(self, on: bool) -> None:
        """Hidden even with printed text (it is in the console too): room is short."""
        self.folded = on
        self.setVisible(self._printed and not on)

    def needs(self) -> int:
        """The height it takes when shown (0 with nothing printed)."""
        return self.sizeHint().height() if self._printed else 0

    def set_text_font(self, font: QFont) -> None:
        self.text.setFont(font)
        self._fit()

    def _fit(self) -> None:
        rows = min(max(self.text.document().blockCount(), 1), PRINTED_LINES)
        margins = self.text.contentsMargins()
        frame = 2 * self.text.frameWidth() + 2 * int(self.text.document().documentMargin())
        self.text.setFixedHeight(rows * self.text.fontMetrics().lineSpacing() + frame
                                 + margins.top() + margins.bottom())


class JaxprPanel(QWidget):
    """Tree, text and HLO of the traced function; selecting an equation names its line."""

    sig_line_activated = Signal(int)
    """An equation was selected: its editor line (1-based)."""
    sig_eqn_selected = Signal(object)
    """The user selected an equation's row: its path (``tuple[int, ...]``, the graph's node id)."""
    sig_hlo_wanted = Signal(str, bool)
    """The HLO tab is shown (or its dialect changed): dialect, with cost analysis."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = JaxprTreeModel(self)
        self.proxy = PrimitiveFilter(self)
        self.proxy.setSourceModel(self.model)
        self._hlo_stale = True
        self._trace: TraceResult | None = None
        self._selecting = False  # a row selected by select_path, not by the user

        self.filter_edit = QLineEdit(placeholderText="filter by primitive (e.g. mul, cond)")
        self.filter_edit.setObjectName("jaxprFilter")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip(
            "Show only the equations whose primitive contains this text (e.g. mul, cond)"
        )
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.stats_label = ClampedLabel()
        self.stats_label.setObjectName("jaxprStats")

        self.tree = QTreeView()
        self.tree.setObjectName("jaxprTree")
        self.tree.setModel(self.proxy)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setFont(_mono())
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_EQUATION, QHeaderView.ResizeMode.Stretch)
        for col in range(1, self.model.columnCount()):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)
        self.tree.viewport().installEventFilter(self)

        self.equation = QTextEdit(readOnly=True)
        self.equation.setObjectName("jaxprEquation")
        self.equation.setFont(_mono())
        self.equation.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.equation.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.equation.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.equation.setToolTip("The selected row whole: every param, and its editor line. "
                                 "With no row selected: the function's inputs and outputs")
        self._equation_highlighter = JaxprHighlighter(self.equation.document())
        self.equation.document().documentLayout().documentSizeChanged.connect(
            self._fit_equation)
        self._show_selected()

        self.text = QPlainTextEdit(readOnly=True)
        self.text.setObjectName("jaxprText")
        self.text.setFont(_mono())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._text_highlighter = JaxprHighlighter(self.text.document())

        self.hlo_dialect = QComboBox()
        self.hlo_dialect.setObjectName("hloDialect")
        self.hlo_dialect.addItem("StableHLO", "stablehlo")
        self.hlo_dialect.addItem("Compiled HLO", "compiled")
        self.hlo_dialect.setToolTip(
            "StableHLO: what JAX hands to XLA; Compiled HLO: what XLA made of it after "
            "optimising for this device"
        )
        self.hlo_dialect.currentIndexChanged.connect(self._on_dialect_changed)
        self.hlo = QPlainTextEdit(readOnly=True)
        self.hlo.setObjectName("hloText")
        self.hlo.setFont(_mono())
        self.hlo.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.cost_label = QLabel("")
        self.cost_label.setObjectName("hloCost")
        self.cost_label.setWordWrap(True)
        self.cost_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        tree_page = QWidget()
        tl = self._tree_layout = QVBoxLayout(tree_page)
        tl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.filter_edit)
        tl.addLayout(row)
        tl.addWidget(self.tree, 1)
        tl.addWidget(self.equation)
        tl.addWidget(self.stats_label)

        hlo_page = QWidget()
        hl = QVBoxLayout(hlo_page)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.addWidget(self.hlo_dialect)
        hl.addWidget(self.hlo, 1)
        hl.addWidget(self.cost_label)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("jaxprTabs")
        self.tabs.addTab(tree_page, "Tree")
        self.tabs.addTab(self.text, "Text")
        self.tabs.addTab(hlo_page, "HLO")
        self.tabs.setTabToolTip(0, "The equations as a tree; select one to see its source line")
        self.tabs.setTabToolTip(1, "The jaxpr as JAX prints it")
        self.tabs.setTabToolTip(2, "The program XLA receives and compiles, with its cost estimates")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.stale_banner = stale_banner("jaxprStale")
        self.printed_loading = PrintedBox("printedLoading", "printed while loading",
                                          LOADING_TIP)
        self.printed_tracing = PrintedBox("printedTracing", "printed while tracing",
                                          TRACING_TIP)
        self.folded_note = QLabel("")
        self.folded_note.setObjectName("jaxprFolded")
        self.folded_note.setWordWrap(True)
        # It wraps: never what widens the window (its minimum is the tabs', in _fit_room).
        self.folded_note.setSizePolicy(QSizePolicy.Policy.Ignored,
                                       QSizePolicy.Policy.Preferred)
        self.folded_note.hide()
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stale_banner)
        layout.addWidget(self.folded_note)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.printed_loading)
        layout.addWidget(self.printed_tracing)
        self._compact = False
        self._fit_room()

    # ------------------------------------------------------------------ content

    def show_trace(self, result: TraceResult, loading: Printed | None = None) -> None:
        """Show a ``TraceResult`` and what this trace (and the source's load) printed.

        The HLO is fetched again only when its tab is shown.
        """
        self.set_stale(None)
        self._trace = result
        self.model.set_tree(result.jaxpr)
        self._show_selected()
        self._fit_columns()
        self.text.setPlainText(result.text)
        self.printed_loading.set_printed(loading or Printed())
        self.printed_tracing.set_printed(result.printed, describe_call(result))
        by = ", ".join(f"{k} {v}" for k, v in list(result.stats.by_primitive.items())[:12])
        self.stats_label.set_max_lines(STATS_LINES)  # beside a tree: the tree's room first
        self.stats_label.setText(f"{result.stats.eqns} equations at all depths: {by}")
        self._fit_room()
        if self.filter_edit.text():
            self.tree.expandAll()
        self._hlo_stale = True
        if self.tabs.currentIndex() == 2:
            self._request_hlo()

    def set_stale(self, text: str | None) -> None:
        """Grey the views under a banner saying what they show instead (None: current again)."""
        stale = text is not None
        self.stale_banner.setText(text or "")
        self.stale_banner.setVisible(stale)
        for view in (self.tree, self.equation, self.text, self.hlo, self.stats_label,
                     self.printed_loading, self.printed_tracing):
            view.setEnabled(not stale)
        self._fit_room()

    def set_code_font(self, font: QFont) -> None:
        """The monospace font of the tree, the equation pane, the texts and the printed
        output (zoom, presentation)."""
        for view in (self.tree, self.equation, self.text, self.hlo):
            view.setFont(font)
        for box in (self.printed_loading, self.printed_tracing):
            box.set_text_font(font)
        self._fit_columns()
        self._fit_room()

    def set_compact(self, on: bool) -> None:
        """A panel below has the screen (a projector): the tree keeps its rows, the whole-
        equation pane and the printed text (the console has it too) fold away."""
        self._compact = on
        if on:
            self._fit_room()
            return
        # The room comes once the window has laid out again: shown now, judged then.
        self.equation.setVisible(True)
        for box in (self.printed_loading, self.printed_tracing):
            box.set_folded(False)
        QTimer.singleShot(0, self._fit_room)

    def tree_rows(self) -> float:
        """How many rows the tree's viewport shows (for tests and the room policy)."""
        return self.tree.viewport().height() / self._row_height()

    def _row_height(self) -> int:
        found = self.tree.sizeHintForRow(0) if self.proxy.rowCount() else -1
        return max(found, self.tree.fontMetrics().lineSpacing() + 4)

    def _fit_room(self) -> None:
        """Whatever the dock's height (a projector at 1024x768, a step that printed), the tree
        keeps ``TREE_MIN_ROWS`` rows where the panel has them: the printed text folds first
        (the console has it), then the whole-equation pane; each comes back when the room
        does. (Not a minimum height: the docks beside it keep theirs.)"""
        header = self.tree.header().sizeHint().height() if not self.tree.isHeaderHidden() else 0
        tree_least = header + TREE_MIN_ROWS * self._row_height() + 2 * self.tree.frameWidth()
        boxes = (self.printed_loading, self.printed_tracing)
        if self.tabs.isHidden():  # folded: measured with the tabs back (before any paint)
            self.folded_note.setVisible(False)
            self.tabs.setVisible(True)
            self._layout.activate()
        # Measured: the layout has placed everything for this height (and these fonts).
        fixed = (self.height() - self.tree.height() - sum(
            w.height() for w in (self.equation, *boxes) if w.isVisibleTo(self)))
        # Shown, the equation pane takes its height and one more spacing of the tree's page.
        equation = self.equation.minimumHeight() + max(self._tree_layout.spacing(), 0)
        room = self.height() - fixed - tree_least
        fold_printed = self._compact or room < equation + sum(b.needs() for b in boxes)
        for box in boxes:
            box.set_folded(fold_printed)
        self.equation.setVisible(not self._compact and room >= equation)
        # Even then too short for the rows (another panel has the screen): a line that says
        # what is there, never a tree of one row.
        folded = room < 0 and self._trace is not None  # with no tree, its message shows
        self.tabs.setVisible(not folded)
        self.folded_note.setVisible(folded)
        # Folded, the column keeps the tabs' width: the splitter never squeezes it away.
        self.folded_note.setMinimumWidth(self.tabs.minimumSizeHint().width())
        if folded:
            trace = self._trace
            shown = (f"{trace.function}: {trace.stats.eqns} equations" if trace is not None
                     else self.stats_label.text().split("\n")[0] or "no jaxpr")
            self.folded_note.setText(f"{shown} (the tree needs room for {TREE_MIN_ROWS} rows)")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_room()

    def is_stale(self) -> bool:
        return not self.stale_banner.isHidden()

    def trace(self) -> TraceResult | None:
        """The trace the views show (current or, under the banner, the last good one)."""
        return self._trace

    def clear(self, message: str = "") -> None:
        # Emptied before the room is fitted: a folded note never names the trace cleared,
        # and the tabs, shown again for the message, lay out no rows.
        self._trace = None
        self.model.set_tree(None)
        self._show_selected()
        self.text.setPlainText(message)
        self.stats_label.set_max_lines(None)  # a message with no tree: every line
        self.stats_label.setText(message)
        self.printed_loading.set_printed(Printed())
        self.printed_tracing.set_printed(Printed())
        self.set_stale(None)

    def show_lowering(self, lowering: LoweringResult) -> None:
        dialect = self.hlo_dialect.currentData()
        text = lowering.compiled_hlo if dialect == "compiled" else lowering.stablehlo
        self.hlo.setPlainText(text or "")
        cost = lowering.cost
        parts = []
        if cost is not None:
            for name in ("flops", "bytes_accessed", "transcendentals"):
                value = getattr(cost, name, None)
                parts.append(f"{name.replace('_', ' ')}: {_num(value)}")
        mem = lowering.memory
        if mem is not None:
            for name, value in vars(mem).items():
                if isinstance(value, (int, float)):
                    parts.append(f"{name.replace('_', ' ')}: {_num(value)}")
        self.cost_label.setText(
            "XLA estimates: " + "; ".join(parts) if parts else "no cost analysis on this backend"
        )
        self._hlo_stale = False

    def show_hlo_error(self, message: str) -> None:
        self.hlo.setPlainText(message)
        self.cost_label.setText("")

    def select_path(self, path: tuple[int, ...]) -> bool:
        """Select and scroll to the equation at ``path`` (the graph's selection, a step).

        The editor follows (``sig_line_activated``); ``sig_eqn_selected`` does not fire:
        the caller already knows. False when the row is filtered out or missing.
        """
        source = self.model.index_for_path(path)
        index = self.proxy.mapFromSource(source) if source.isValid() else source
        if not index.isValid():
            return False
        self.tree.scrollTo(index)
        self._selecting = True
        try:
            self.tree.setCurrentIndex(index)
        finally:
            self._selecting = False
        return True

    def selected_path(self) -> tuple[int, ...] | None:
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        return self.model.path_for_index(self.proxy.mapToSource(index)) or None

    def set_cursor_line(self, line: int) -> None:
        """Highlight the equations made by this editor line."""
        self.model.set_highlighted_lines({line})

    def shown_columns(self) -> list[str]:
        """The tree's column titles not hidden to leave the Equation column room."""
        header = self.tree.header()
        return [str(self.model.headerData(c, Qt.Orientation.Horizontal))
                for c in range(self.model.columnCount()) if not header.isSectionHidden(c)]

    # ------------------------------------------------------------------ fitting

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            if event.size().width() != event.oldSize().width():  # type: ignore[attr-defined]
                self._fit_columns()  # only the width decides (it measures rows: not for less)
            current = self.tree.currentIndex()
            if current.isValid():  # the pane grew under it: keep the selected row in sight
                self.tree.scrollTo(current)
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Hide Output, then Primitive, then Line while the Equation column would get fewer
        than ``MIN_EQUATION_CHARS`` characters; show them again when there is room."""
        header = self.tree.header()
        fm = QFontMetrics(self.tree.font())
        want = (MIN_EQUATION_CHARS * fm.horizontalAdvance("0") + self.tree.indentation()
                + 2 * fm.horizontalAdvance(" "))
        room = self.tree.viewport().width()
        widths = {c: max(self.tree.sizeHintForColumn(c), header.sectionSizeHint(c))
                  for c in GIVE_WAY}
        hidden: set[int] = set()
        for col in GIVE_WAY:
            if room - sum(w for c, w in widths.items() if c not in hidden) >= want:
                break
            hidden.add(col)
        for col in GIVE_WAY:
            if header.isSectionHidden(col) != (col in hidden):
                header.setSectionHidden(col, col in hidden)

    def _show_selected(self) -> None:
        """The selected row whole in the pane; with none selected, the function's inputs and
        outputs (its first and last rows, whole however narrow the tree)."""
        current = self.tree.currentIndex()
        if current.isValid():
            text = self.model.full_text(self.proxy.mapToSource(current))
        else:
            text = "\n".join(self.model.full_text(self.model.index(row, COL_EQUATION))
                             for row in (0, self.model.rowCount() - 1) if self.model.rowCount())
        self.equation.setPlainText(text)

    def _fit_equation(self) -> None:
        """As tall as its wrapped text, from two lines up to ``EQUATION_LINES`` (then it
        scrolls). Its minimum stays two lines whatever is selected, so picking a row never
        changes what the panel needs (a focused dock beside it keeps its height)."""
        doc = self.equation.document()
        lines, block = 0, doc.begin()
        while block.isValid():
            lines += block.layout().lineCount()
            block = block.next()
        margin = 2 * doc.documentMargin()
        line = ((doc.size().height() - margin) / lines if lines
                else self.equation.fontMetrics().lineSpacing())
        edges = self.equation.contentsMargins()
        frame = 2 * self.equation.frameWidth() + edges.top() + edges.bottom()
        least = math.ceil(2 * line + margin) + frame
        most = math.ceil(EQUATION_LINES * line + margin) + frame
        fitted = math.ceil(doc.size().height()) + frame
        self.equation.setMinimumHeight(least)
        self.equation.setMaximumHeight(max(least, min(fitted, most)))

    # ------------------------------------------------------------------ slots

    def _on_filter_changed(self, text: str) -> None:
        self.proxy.setFilterRegularExpression(
            QRegularExpression(
                re.escape(text.strip()), QRegularExpression.PatternOption.CaseInsensitiveOption
            )
        )
        if text.strip():
            self.tree.expandAll()

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_selected()
        line = current.data(LineRole) if current.isValid() else None
        if isinstance(line, int):
            self.sig_line_activated.emit(line)
        if current.isValid() and not self._selecting:
            path = self.model.path_for_index(self.proxy.mapToSource(current))
            if len(path) % 2 == 1:  # an equation, not a sub-jaxpr heading
                self.sig_eqn_selected.emit(path)

    def _on_tab_changed(self, index: int) -> None:
        if index == 2 and self._hlo_stale and self._trace is not None:
            self._request_hlo()

    def _on_dialect_changed(self, _index: int) -> None:
        if self.tabs.currentIndex() == 2 and self._trace is not None:
            self._request_hlo()

    def _request_hlo(self) -> None:
        self.hlo.setPlainText("lowering ...")
        self.sig_hlo_wanted.emit(self.hlo_dialect.currentData(), True)


def _num(value: float | int | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.4g}"
    return f"{int(value):,}"
