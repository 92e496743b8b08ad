"""What to trace: the function chooser, the argument spec and the transform chain.

On a projector (the application font 1.5x) beside a lesson the row is narrow: the
argument box keeps room for its whole spec first (at least ``SPEC_MIN_CHARS``
characters, growing with its text up to ``SPEC_MAX_CHARS``); the function box and
a long transform chain shrink, and the transform buttons shorten to symbols (their
tooltips say what they do) before the spec is cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionFrame,
    QStylePainter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.api.choices import TRANSFORM_NAMED, TRANSFORMS, Transform
from workbench.api.functions import FunctionInfo

DEFAULT_ARG = "f32[1000]"
TRANSFORM_TIPS: dict[Transform, str] = {
    "jit": "jit: compile the function with XLA",
    "grad": "grad: the gradient of a scalar-valued function",
    "value_and_grad": "value_and_grad: the value and the gradient together",
    "vmap": "vmap: map the function over a leading batch axis",
    "jacfwd": "jacfwd: the Jacobian, forward mode",
    "jacrev": "jacrev: the Jacobian, reverse mode",
    "hessian": "hessian: the matrix of second derivatives",
}


SPEC_MIN_CHARS = 12  # "f32[100000]" and the like always whole
SPEC_MAX_CHARS = 40  # past this the box scrolls its text; the tooltip has it all
FUNCTION_MIN_CHARS = 4  # the function box shrinks to this under pressure, eliding
FUNCTION_HELP = "The function to trace, among those the editor's code defines"
CHAIN_MIN_CHARS = 10  # a longer transform chain is elided in the middle
SPEC_HELP = (
    "Arguments: f32[1000], i32[], bool[4], bf16[8,128]; literals 3, 2.5, True are "
    "static; (a, b) and [a, b] build pytrees."
)
# The transform buttons' words and the symbols they shorten to, in the order they shorten.
SHORTENINGS = (("+ transform", "+"), ("clear", "\u00d7"))
LINE_EDIT_MARGIN = 2  # QLineEdit's own padding each side of its text (horizontalMargin)


def _chars(widget: QWidget, n: int) -> int:
    return widget.fontMetrics().horizontalAdvance("0" * n)


def default_spec(function: FunctionInfo | None) -> str:
    """A spec guessed from the signature: one ``f32[1000]`` per parameter without a default."""
    params = [
        p
        for p in (function.params if function is not None else ())
        if p.default is None and p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
    ]
    return ", ".join(DEFAULT_ARG for _ in params)


class SpecEdit(QLineEdit):
    """The argument box: as wide as its text (``SPEC_MIN_CHARS`` to ``SPEC_MAX_CHARS``
    characters), never narrower than ``SPEC_MIN_CHARS``; its tooltip shows the whole spec."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.textChanged.connect(self._on_text_changed)
        self._on_text_changed(self.text())

    def _box_width(self, text_px: int) -> int:
        """The box's width for ``text_px`` pixels of text (frame, margins and a cursor)."""
        opt = QStyleOptionFrame()
        self.initStyleOption(opt)
        margins, inside = self.textMargins(), self.contentsMargins()
        width = (text_px + 2 * LINE_EDIT_MARGIN + margins.left() + margins.right()
                 + inside.left() + inside.right() + self.fontMetrics().horizontalAdvance(" "))
        size = QSize(width, super().sizeHint().height())
        return self.style().sizeFromContents(QStyle.ContentsType.CT_LineEdit, opt, size,
                                             self).width()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        text_px = self.fontMetrics().horizontalAdvance(self.text())
        text_px = min(max(text_px, _chars(self, SPEC_MIN_CHARS)), _chars(self, SPEC_MAX_CHARS))
        return QSize(self._box_width(text_px), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._box_width(_chars(self, SPEC_MIN_CHARS)),
                     super().minimumSizeHint().height())

    def _on_text_changed(self, text: str) -> None:
        self.setToolTip(f"{text}\n\n{SPEC_HELP}" if text.strip() else SPEC_HELP)
        self.updateGeometry()


class FunctionBox(QComboBox):
    """The function chooser: as wide as its longest name, but it gives way to
    ``FUNCTION_MIN_CHARS`` characters when the row is short, eliding the name ("sel…" for
    "selu_np", never a cut "selu" that names another function); its tooltip and list show
    it whole."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.currentTextChanged.connect(self._on_current_text_changed)
        self._on_current_text_changed("")

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        names = [self.itemText(i) for i in range(self.count())]
        widest = max((self.fontMetrics().horizontalAdvance(n) for n in names), default=0)
        chrome = hint.width() - max(widest, _chars(self, self.minimumContentsLength()))
        return QSize(min(hint.width(), _chars(self, FUNCTION_MIN_CHARS) + chrome),
                     super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The current name as painted: elided when the box is narrower than it."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        room = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(opt.currentText, Qt.TextElideMode.ElideRight,
                                             room.width() - 2)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def _on_current_text_changed(self, name: str) -> None:
        self.setToolTip(f"{name}\n\n{FUNCTION_HELP}" if name else FUNCTION_HELP)


class ChainLabel(QLabel):
    """``vmap(grad(f))``: whole when there is room, elided in the middle (never below
    ``CHAIN_MIN_CHARS`` characters) when not; the tooltip has it whole."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        return QSize(min(hint.width(), _chars(self, CHAIN_MIN_CHARS)), hint.height())

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        super().setText(text)
        self.setToolTip(f"What is traced: {text}, with f the chosen function")

    def shown_text(self) -> str:
        """The text as painted at the label's width (elided when narrow)."""
        room = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle, room)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        self.style().drawItemText(painter, self.contentsRect(), int(self.alignment()),
                                  self.palette(), self.isEnabled(), self.shown_text(),
                                  self.foregroundRole())


class TransformChain(QWidget):
    """An ordered chain of transforms, first applied first: shown as ``vmap(grad(f))``."""

    sig_changed = Signal()
    """The chain changed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("transformChain")
        self._chain: list[Transform] = []
        self.shortened = 0  # how many buttons show symbols, in SHORTENINGS order
        self.label = ChainLabel("f")
        self.label.setObjectName("transformChainLabel")
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.add_button = QToolButton()
        self.add_button.setText(SHORTENINGS[0][0])
        self.add_button.setObjectName("transformAdd")
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.add_button.setToolTip(
            "Wrap the function in a transform (jit, grad, vmap, ...); the last one added is "
            "the outermost"
        )
        menu = QMenu(self.add_button)
        menu.setToolTipsVisible(True)
        for name in TRANSFORMS:
            action = menu.addAction(name, lambda n=name: self.append(n))
            action.setToolTip(TRANSFORM_TIPS[name])
        self.add_button.setMenu(menu)
        self.undo_button = QToolButton()
        self.undo_button.setText("−")
        self.undo_button.setToolTip("Remove the outermost transform")
        self.undo_button.setObjectName("transformPop")
        self.undo_button.clicked.connect(self.pop)
        self.clear_button = QToolButton()
        self.clear_button.setText(SHORTENINGS[1][0])
        self.clear_button.setObjectName("transformClear")
        self.clear_button.setToolTip("Remove every transform: trace the plain function")
        self.clear_button.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.add_button)
        layout.addWidget(self.undo_button)
        layout.addWidget(self.clear_button)
        self._refresh()

    def transforms(self) -> tuple[Transform, ...]:
        return tuple(self._chain)

    def set_shortened(self, count: int) -> None:
        """The first ``count`` buttons of ``SHORTENINGS`` show symbols ("+", "×"), the rest
        words: symbols leave the argument box room (the tooltips still say what they do)."""
        if count != self.shortened:
            self.shortened = count
            for i, (button, (words, symbol)) in enumerate(
                    zip(self._buttons(), SHORTENINGS, strict=True)):
                button.setText(symbol if i < count else words)

    def width_beyond(self, count: int) -> int:
        """How much wider the buttons are with ``count`` of them shortened than with all."""
        fm = self.add_button.fontMetrics()
        return sum(fm.horizontalAdvance(words) - fm.horizontalAdvance(symbol)
                   for words, symbol in SHORTENINGS[count:])

    def _buttons(self) -> tuple[QToolButton, QToolButton]:
        return self.add_button, self.clear_button

    def set_transforms(self, names: Sequence[str]) -> None:
        unknown = [n for n in names if n not in TRANSFORMS]
        if unknown:
            raise ValueError(f"unknown transform(s): {', '.join(unknown)}")
        if list(names) != self._chain:
            self._chain = [TRANSFORM_NAMED[n] for n in names]
            self._refresh()
            self.sig_changed.emit()

    def append(self, name: str) -> None:
        self.set_transforms([*self._chain, name])

    def pop(self) -> None:
        self.set_transforms(self._chain[:-1])

    def clear(self) -> None:
        self.set_transforms([])

    def _refresh(self) -> None:
        text = "f"
        for name in self._chain:
            text = f"{name}({text})"
        self.label.setText(text)
        self.undo_button.setEnabled(bool(self._chain))
        self.clear_button.setEnabled(bool(self._chain))


class CallControls(QWidget):
    """Function chooser (``functionList``), argument spec (``argSpec``) and transform chain."""

    sig_changed = Signal()
    """The function, its arguments or the transforms changed: trace again."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.function_list = FunctionBox()
        self.function_list.setObjectName("functionList")
        self.function_list.setMinimumContentsLength(FUNCTION_MIN_CHARS)
        self.function_list.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.arg_spec = SpecEdit()
        self.arg_spec.setObjectName("argSpec")
        self.arg_spec.setPlaceholderText("f32[1000], (f32[3], f32[3]), 3")
        self.chain = TransformChain()
        self.problem = QLabel("")
        self.problem.setObjectName("argSpecProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("QLabel#argSpecProblem { color: #b00020; }")
        self.problem.hide()
        row = self._row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self._row_widgets = (QLabel("function"), self.function_list, QLabel("args"),
                             self.arg_spec, self.chain)
        for widget, stretch in zip(self._row_widgets, (0, 0, 0, 2, 2), strict=True):
            row.addWidget(widget, stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addLayout(row)
        layout.addWidget(self.problem)
        self._functions: dict[str, FunctionInfo] = {}
        self._specs: dict[str, str] = {}  # what the user typed, per function
        self._updating = False
        self._wanted: str | None = None  # chosen before the engine listed it (an example)
        self.function_list.currentTextChanged.connect(self._on_function_changed)
        self.arg_spec.editingFinished.connect(self._on_spec_edited)
        self.chain.sig_changed.connect(self.sig_changed)
        self.arg_spec.textChanged.connect(self._fit_row)
        self.chain.sig_changed.connect(self._fit_row)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """What the row needs with symbols on the buttons: given less than it needs with
        words, the row switches to symbols (``_fit_row``) rather than push the jaxpr away."""
        hint = super().minimumSizeHint()
        return QSize(hint.width() - self.chain.width_beyond(self.chain.shortened),
                     hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_row()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_row()

    def _fit_row(self) -> None:
        """As few transform buttons shortened to symbols as leave the argument box and the
        function box their whole text."""
        chain = self.chain
        shortest = self.preferred_width() - chain.width_beyond(chain.shortened)
        count = next((n for n in range(len(SHORTENINGS))
                      if shortest + chain.width_beyond(n) <= self.width()), len(SHORTENINGS))
        chain.set_shortened(count)

    def preferred_width(self) -> int:
        """The row's width with every text whole, its buttons as they are now; from its
        widgets' own hints, fresh (the layout's are cached until the event loop lays it out
        again, a text change ago)."""
        widgets = [w for w in self._row_widgets if not w.isHidden()]
        spacing = max(self._row.spacing(), 0)
        return sum(w.sizeHint().width() for w in widgets) + spacing * (len(widgets) - 1)

    def show_problem(self, text: str) -> None:
        """Say what is wrong with the argument spec right under it ("" hides it)."""
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def function(self) -> str:
        return self.function_list.currentText() or self._wanted or ""

    def requested(self) -> str:
        """The function asked for last, even before a source defining it loaded: what the
        next load should trace in the same round trip."""
        return self._wanted or self.function()

    def args(self) -> str:
        return self.arg_spec.text().strip()

    def transforms(self) -> tuple[Transform, ...]:
        return self.chain.transforms()

    def function_info(self, name: str | None = None) -> FunctionInfo | None:
        return self._functions.get(name or self.function())

    def forget_wanted(self) -> None:
        """No function is asked for ahead of its source any more (a lesson step that names
        none): the next source's own functions decide."""
        self._wanted = None

    def reset_call(self) -> None:
        """Other code is opened: no transform, no typed arguments, no function waited for; the
        new source's functions and their guessed arguments decide (whoever opened it may then
        ``select`` its own call)."""
        self._wanted = None
        self._specs.clear()
        self.chain.set_transforms(())

    def is_guess(self, name: str | None = None) -> bool:
        """Whether the arguments shown are the workbench's guess from the signature: nobody
        typed them, no lesson chose them."""
        return (name or self.function()) not in self._specs

    def set_functions(self, functions: Sequence[FunctionInfo], prefer: str | None = None) -> None:
        """New list from the engine; keeps the chosen function when it still exists."""
        listed = {f.name for f in functions}
        # A function asked for before a source defining it loaded wins; one that the new
        # source does not define either gives way to the choice in the box.
        current = next((n for n in (prefer, self._wanted, self.function()) if n in listed),
                       None)
        if self._wanted in listed:
            self._wanted = None
        self._functions = {f.name: f for f in functions}
        names = list(self._functions)
        self._updating = True
        try:
            if [self.function_list.itemText(i) for i in range(self.function_list.count())] != names:
                self.function_list.clear()
                self.function_list.addItems(names)
            if current in self._functions:
                self.function_list.setCurrentText(current)
            elif names:
                self.function_list.setCurrentIndex(0)
        finally:
            self._updating = False
        self._show_spec(self.function())
        self._fit_row()  # the box is as wide as the longest name listed

    def select(
        self, name: str, args: str | None = None, transforms: Sequence[str] | None = None
    ) -> None:
        if args is not None:
            self._specs[name] = args
        if name in self._functions:
            self._wanted = None  # this choice replaces one still waiting for its source
            self.function_list.setCurrentText(name)
        else:
            self._wanted = name
        self._show_spec(name)
        if transforms is not None:
            self.chain.set_transforms(transforms)

    def _show_spec(self, name: str) -> None:
        info = self._functions.get(name)
        spec = self._specs.get(name)
        if not name:
            return
        if spec is None and info is not None:
            spec = default_spec(info)
        if spec is not None and spec != self.arg_spec.text():
            self.arg_spec.setText(spec)
            self.arg_spec.setCursorPosition(0)  # a spec too long for the box shows its start

    def _on_function_changed(self, name: str) -> None:
        if self._updating or not name:
            return
        self._show_spec(name)
        self.sig_changed.emit()

    def _on_spec_edited(self) -> None:
        name = self.function()
        if name and self._specs.get(name) != self.args():
            self._specs[name] = self.args()
            self.sig_changed.emit()
