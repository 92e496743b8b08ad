"""What to trace: the function chooser, the argument spec and the transform chain."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
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


def default_spec(function: FunctionInfo | None) -> str:
    """A spec guessed from the signature: one ``f32[1000]`` per parameter without a default."""
    params = [
        p
        for p in (function.params if function is not None else ())
        if p.default is None and p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
    ]
    return ", ".join(DEFAULT_ARG for _ in params)


class TransformChain(QWidget):
    """An ordered chain of transforms, first applied first: shown as ``vmap(grad(f))``."""

    sig_changed = Signal()
    """The chain changed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("transformChain")
        self._chain: list[Transform] = []
        self.label = QLabel("f")
        self.label.setObjectName("transformChainLabel")
        self.add_button = QToolButton()
        self.add_button.setText("+ transform")
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
        self.clear_button.setText("clear")
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
        self.function_list = QComboBox()
        self.function_list.setObjectName("functionList")
        self.function_list.setMinimumContentsLength(12)
        self.function_list.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.function_list.setToolTip(
            "The function to trace, among those the editor's code defines"
        )
        self.arg_spec = QLineEdit()
        self.arg_spec.setObjectName("argSpec")
        self.arg_spec.setPlaceholderText("f32[1000], (f32[3], f32[3]), 3")
        self.arg_spec.setToolTip(
            "Arguments: f32[1000], i32[], bool[4], bf16[8,128]; literals 3, 2.5, True are "
            "static; (a, b) and [a, b] build pytrees."
        )
        self.chain = TransformChain()
        self.problem = QLabel("")
        self.problem.setObjectName("argSpecProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("QLabel#argSpecProblem { color: #b00020; }")
        self.problem.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("function"))
        row.addWidget(self.function_list)
        row.addWidget(QLabel("args"))
        row.addWidget(self.arg_spec, 2)
        row.addWidget(self.chain, 2)
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
