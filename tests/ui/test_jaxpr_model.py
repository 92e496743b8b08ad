"""The jaxpr tree model: what a row says about an equation's editor line, the inputs and
outputs rows around the equations, and the whole text the full-equation pane shows."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt

from workbench.api.jaxpr import Eqn, JaxprNode, Var
from workbench.ui.panels.jaxpr_model import (
    COL_EQUATION,
    COL_LINE,
    COL_OUTPUT,
    NO_LINE,
    JaxprTreeModel,
    LineRole,
    PrimitiveFilter,
)

LONG = "(((1,), (0,)), ((), ()))_and_more_than_forty_characters"


def _tree() -> JaxprNode:
    a, b, c = Var("a", "f32[3]"), Var("b", "f32[3]"), Var("c", "i32[3,3]")
    sin = Eqn("sin", {}, (a,), (b,), "lesson.py", 4, ())
    iota = Eqn("iota", {"dimension": "0", "sharding": LONG}, (), (c,), None, None, ())
    return JaxprNode((a,), (Var("k", "f32[3]"),), (b, Var(literal="1.0", type="f32[]")),
                     (sin, iota))


def _model() -> JaxprTreeModel:
    model = JaxprTreeModel()
    model.set_tree(_tree())
    return model


def test_an_equation_without_a_line_says_so(qapp):
    model = _model()
    with_line = model.index_for_path((0,)).siblingAtColumn(COL_LINE)
    without = model.index_for_path((1,)).siblingAtColumn(COL_LINE)
    assert model.data(with_line) == "4"
    assert model.data(with_line, LineRole) == 4
    assert model.data(without) == NO_LINE == "\u2013"
    assert model.data(without, LineRole) is None
    tip = model.data(without.siblingAtColumn(0), Qt.ItemDataRole.ToolTipRole)
    assert "no line of your file" in tip
    assert "line 4" in model.data(with_line.siblingAtColumn(0), Qt.ItemDataRole.ToolTipRole)


def test_the_first_row_lists_the_inputs_and_the_last_the_outputs(qapp):
    """As the jaxpr text's first line (``{ lambda k; a. let``) and last (``in (b, 1.0)``)."""
    model = _model()
    assert model.rowCount() == 2 + 2
    first, last = model.index(0, COL_EQUATION), model.index(3, COL_EQUATION)
    assert first.data() == "in: a:f32[3]  consts: k:f32[3]"
    assert last.data() == "out: b:f32[3] 1.0:f32[]"
    assert model.index(3, COL_OUTPUT).data() == "f32[3] f32[]"
    assert model.row_kind(first) == "in" and model.row_kind(last) == "out"
    assert model.data(first, LineRole) is None
    assert "first line of the jaxpr text" in first.data(Qt.ItemDataRole.ToolTipRole)
    assert not model.hasChildren(first)


def test_a_function_of_no_arguments_says_so(qapp):
    model = JaxprTreeModel()
    model.set_tree(JaxprNode((), (), (), ()))
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "in: (none)", "out: (none)"]
    model.set_tree(None)
    assert model.rowCount() == 0


def test_equation_paths_skip_the_inputs_row(qapp):
    """The graph and the values number equations from 0: the inputs row is no equation."""
    model = _model()
    sin = model.index_for_path((0,))
    assert sin.row() == 1 and model.index(1, 1).data() == "sin"
    assert model.path_for_index(sin) == (0,)
    assert model.path_for_index(model.index(0, 0)) == ()
    assert model.path_for_index(model.index(3, 0)) == ()
    assert not model.index_for_path((2,)).isValid()  # the outputs row is not equation 2
    assert [model.path_for_index(i) for i in model.iter_eqn_indexes()] == [(0,), (1,)]


def test_the_pane_text_keeps_every_param_the_row_leaves_out(qapp):
    model = _model()
    iota = model.index_for_path((1,))
    assert LONG not in iota.data()
    whole = model.full_text(iota)
    assert f"c:i32[3,3] = iota[dimension=0 sharding={LONG}]" in whole
    assert "no line of your file" in whole
    assert model.full_text(model.index_for_path((0,))) == "b:f32[3] = sin a\nline 4"
    assert model.full_text(model.index(0, 0)) == "in: a:f32[3]  consts: k:f32[3]"
    assert model.full_text(QModelIndex()) == ""


def test_a_primitive_filter_leaves_out_the_inputs_and_outputs(qapp):
    model = _model()
    proxy = PrimitiveFilter()
    proxy.setSourceModel(model)
    assert proxy.rowCount() == 4
    proxy.setFilterFixedString("sin")
    assert proxy.rowCount() == 1 and proxy.index(0, 1).data() == "sin"
