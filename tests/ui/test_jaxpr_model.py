"""The jaxpr tree model: what a row says about an equation's editor line."""

from __future__ import annotations

from PySide6.QtCore import Qt

from workbench.api.jaxpr import Eqn, JaxprNode, Var
from workbench.ui.panels.jaxpr_model import COL_LINE, NO_LINE, JaxprTreeModel, LineRole


def _tree() -> JaxprNode:
    a, b, c = Var("a", "f32[3]"), Var("b", "f32[3]"), Var("c", "i32[3,3]")
    sin = Eqn("sin", {}, (a,), (b,), "lesson.py", 4, ())
    iota = Eqn("iota", {"dimension": "0"}, (), (c,), None, None, ())
    return JaxprNode((a,), (), (b,), (sin, iota))


def test_an_equation_without_a_line_says_so(qapp):
    model = JaxprTreeModel()
    model.set_tree(_tree())
    with_line = model.index(0, COL_LINE)
    without = model.index(1, COL_LINE)
    assert model.data(with_line) == "4"
    assert model.data(with_line, LineRole) == 4
    assert model.data(without) == NO_LINE == "\u2013"
    assert model.data(without, LineRole) is None
    tip = model.data(model.index(1, 0), Qt.ItemDataRole.ToolTipRole)
    assert "no line of your file" in tip
    assert "line 4" in model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
