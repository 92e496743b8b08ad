"""The banner a view shows over a result that is not the current one (one look everywhere)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from workbench.api.jaxpr import TraceResult

STYLE = "background: #fdecc8; color: #5a3b00; padding: 4px;"


def stale_banner(name: str, parent: QWidget | None = None) -> QLabel:
    """A hidden, word-wrapped banner with objectName ``name``."""
    banner = QLabel(parent)
    banner.setObjectName(name)
    banner.setWordWrap(True)
    banner.setStyleSheet(f"QLabel#{name} {{ {STYLE} }}")
    banner.hide()
    return banner


def call_text(function: str, args: tuple[str, ...] | list[str]) -> str:
    """``selu(f32[1000])``: a call as a student writes it."""
    return f"{function}({', '.join(args)})"


def describe_call(result: TraceResult) -> str:
    """``jit(grad(f))(f32[1000])``: the call a trace belongs to, as a student writes it."""
    name = result.function
    for transform in result.transforms:
        name = f"{transform}({name})"
    return call_text(name, result.args)
