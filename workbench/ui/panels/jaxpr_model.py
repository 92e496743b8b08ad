"""A Qt item model over the engine's plain-data jaxpr tree (``TraceResult.jaxpr``).

The first row lists the function's inputs and the last its outputs, as the
jaxpr text's first and last lines do; the rows between are equations. An
equation with sub-jaxprs (cond branches, a while body, a scan, a jit) has one
child row per sub-jaxpr, labelled with its parameter, whose children are that
jaxpr's equations, to any depth. Children are built when first asked for, so a
large trace costs only what the view shows.

Paths (``index_for_path``, ``path_for_index``) count equations only, as the graph
and the values do: the inputs row is not equation 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from workbench.api.jaxpr import Eqn, JaxprNode, SubJaxpr, Var

COLUMNS = ("Equation", "Primitive", "Output", "Line")
COL_EQUATION, COL_PRIMITIVE, COL_OUTPUT, COL_LINE = range(4)
LineRole = Qt.ItemDataRole.UserRole + 1
NO_LINE = "\u2013"
NO_LINE_TIP = ("no line of your file: JAX made this equation itself "
               "(a Jacobian's basis, a transpose that puts a result in place)")
PrimitiveRole = Qt.ItemDataRole.UserRole + 2
EqnRole = Qt.ItemDataRole.UserRole + 3
INPUTS_TIP = ("What the function takes: its arguments as JAX traced them, with their types "
              "(the first line of the jaxpr text)")
OUTPUTS_TIP = "What the function returns (the last line of the jaxpr text)"

Index = QModelIndex | QPersistentModelIndex


def var_text(var: Var) -> str:
    if var.literal is not None:
        return f"{var.literal}:{var.type}"
    return str(var.name)


def typed_text(var: Var) -> str:
    """``a:f32[3]`` for a variable, ``2.0:f32[]`` for a literal."""
    if var.literal is not None:
        return f"{var.literal}:{var.type}"
    return f"{var.name}:{var.type}"


def eqn_text(eqn: Eqn, all_params: bool = False) -> str:
    """One equation as the jaxpr text writes it; a row leaves out long and sub-jaxpr params
    (``all_params`` keeps them, for the full-equation pane)."""
    outs = " ".join(f"{v.name}:{v.type}" for v in eqn.outvars) or "_"
    params = " ".join(
        f"{k}={v}" for k, v in eqn.params.items()
        if all_params or (not v.startswith("{") and len(v) <= 40)
    )
    head = f"{eqn.primitive}[{params}]" if params else eqn.primitive
    args = " ".join(var_text(v) for v in eqn.invars)
    return f"{outs} = {head} {args}".rstrip()


def inputs_text(tree: JaxprNode) -> str:
    """``in: a:f32[3] b:f32[8,3]``, and the constants the jaxpr closes over, if any."""
    ins = " ".join(typed_text(v) for v in tree.invars) or "(none)"
    consts = " ".join(typed_text(v) for v in tree.constvars)
    return f"in: {ins}" + (f"  consts: {consts}" if consts else "")


def outputs_text(tree: JaxprNode) -> str:
    """``out: e:f32[3]`` (a literal output as ``1.0:f32[]``)."""
    return "out: " + (" ".join(typed_text(v) for v in tree.outvars) or "(none)")


class _Row:
    """One row: an equation (``eqn``), a sub-jaxpr heading (``sub``), or the top jaxpr's
    inputs (``in``) or outputs (``out``). ``row`` is its Qt row; ``step`` its place in
    an equation path (the inputs row shifts the top level's rows by one)."""

    __slots__ = ("kind", "item", "parent", "row", "step", "_children", "line")

    def __init__(self, kind: str, item: JaxprNode | SubJaxpr | Eqn, parent: _Row | None,
                 row: int, line: int | None, step: int | None = None):
        self.kind = kind
        self.item = item
        self.parent = parent
        self.row = row
        self.step = row if step is None else step
        self.line = line
        self._children: list[_Row] | None = None

    def child_count(self) -> int:
        item = self.item
        if self.kind in ("in", "out"):
            return 0
        if isinstance(item, Eqn):
            return len(item.subjaxprs)
        if isinstance(item, SubJaxpr):
            return len(item.jaxpr.eqns)
        return len(item.eqns) + 2  # the root: inputs, equations, outputs

    @property
    def children(self) -> list[_Row]:
        if self._children is None:
            item = self.item
            if isinstance(item, Eqn):
                self._children = [
                    _Row("sub", s, self, i, self.line) for i, s in enumerate(item.subjaxprs)
                ]
            elif isinstance(item, SubJaxpr):
                eqns = item.jaxpr.eqns
                self._children = [_Row("eqn", e, self, i, e.line) for i, e in enumerate(eqns)]
            else:
                n = len(item.eqns)
                self._children = [
                    _Row("in", item, self, 0, None),
                    *(_Row("eqn", e, self, i + 1, e.line, i) for i, e in enumerate(item.eqns)),
                    _Row("out", item, self, n + 1, None),
                ]
        return self._children


class JaxprTreeModel(QAbstractItemModel):
    """Model of one jaxpr tree; ``set_tree`` swaps it in a single reset."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._root: _Row | None = None
        self._highlight: frozenset[int] = frozenset()
        self._highlight_brush = QBrush(QColor(255, 200, 0, 70))
        self._heading_font = QFont()
        self._heading_font.setItalic(True)

    # ------------------------------------------------------------------ content

    def set_tree(self, tree: JaxprNode | None) -> None:
        self.beginResetModel()
        self._root = _Row("root", tree, None, 0, None) if tree is not None else None
        self.endResetModel()

    def tree(self) -> JaxprNode | None:
        item = self._root.item if self._root is not None else None
        return item if isinstance(item, JaxprNode) else None

    def set_highlighted_lines(self, lines: Iterable[int]) -> None:
        """Equations of these editor lines are painted highlighted (the editor's cursor line)."""
        lines = frozenset(lines)
        if lines == self._highlight:
            return
        self._highlight = lines
        if self._root is not None and self._root.child_count():
            self._emit_all_changed(QModelIndex(), Qt.ItemDataRole.BackgroundRole)

    def _emit_all_changed(self, parent: QModelIndex, role: int) -> None:
        rows = self.rowCount(parent)
        if rows == 0:
            return
        self.dataChanged.emit(
            self.index(0, 0, parent), self.index(rows - 1, len(COLUMNS) - 1, parent), [role]
        )
        node = self._node(parent)
        if node is None or node._children is None:
            return  # children never built are painted fresh when shown
        for r in range(rows):
            self._emit_all_changed(self.index(r, 0, parent), role)

    def index_for_path(self, path: tuple[int, ...]) -> QModelIndex:
        """The index of the row at ``path`` (an equation or sub-jaxpr path of
        ``workbench.api.values``); invalid when the tree has no such row."""
        index = QModelIndex()
        for depth, step in enumerate(path):
            row = step + 1 if depth == 0 else step  # past the inputs row
            if depth == 0 and not 0 <= step < self.rowCount() - 2:
                return QModelIndex()
            index = self.index(row, 0, index)
            if not index.isValid():
                return QModelIndex()
        return index

    @staticmethod
    def path_for_index(index: Index) -> tuple[int, ...]:
        """The equation path of ``index``, as the graph and the values use it; ``()`` for
        the inputs and outputs rows, which are no equation."""
        path: list[int] = []
        node: _Row | None = index.internalPointer() if index.isValid() else None
        if node is not None and node.kind in ("in", "out"):
            return ()
        while node is not None and node.kind != "root":
            path.append(node.step)
            node = node.parent
        return tuple(reversed(path))

    def row_kind(self, index: Index) -> str:
        """``eqn``, ``sub`` (a sub-jaxpr heading), ``in`` or ``out``; ``""`` when invalid."""
        node = self._node(index) if index.isValid() else None
        return node.kind if node is not None else ""

    def full_text(self, index: Index) -> str:
        """The whole of a row, params and all: what the full-equation pane shows."""
        node = self._node(index) if index.isValid() else None
        if node is None:
            return ""
        item = node.item
        if node.kind == "in" and isinstance(item, JaxprNode):
            return inputs_text(item)
        if node.kind == "out" and isinstance(item, JaxprNode):
            return outputs_text(item)
        if isinstance(item, SubJaxpr):
            ins = " ".join(typed_text(v) for v in item.jaxpr.invars)
            outs = " ".join(typed_text(v) for v in item.jaxpr.outvars)
            n = len(item.jaxpr.eqns)
            return (f"{item.param}: lambda {ins}  ({n} equation{'' if n == 1 else 's'})"
                    f"\nout: {outs}")
        if isinstance(item, Eqn):
            where = f"line {node.line}" if node.line else NO_LINE_TIP
            return f"{eqn_text(item, all_params=True)}\n{where}"
        return ""

    def iter_eqn_indexes(self, parent: QModelIndex | None = None) -> Iterator[QModelIndex]:
        """Every equation index, depth first (builds the whole tree: for tests and search)."""
        parent = parent if parent is not None else QModelIndex()
        for r in range(self.rowCount(parent)):
            idx = self.index(r, 0, parent)
            if self._node(idx).kind == "eqn":  # type: ignore[union-attr]
                yield idx
            yield from self.iter_eqn_indexes(idx)

    # ------------------------------------------------------------------ Qt model API

    def _node(self, index: Index) -> _Row | None:
        if not index.isValid():
            return self._root
        return index.internalPointer()

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        if node is None or not (0 <= row < node.child_count()) or not 0 <= column < len(COLUMNS):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        node: _Row = index.internalPointer()
        up = node.parent
        if up is None or up.kind == "root":
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        if parent.isValid() and parent.column() != 0:
            return 0
        node = self._node(parent)
        return node.child_count() if node is not None else 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return len(COLUMNS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802, B008
        return self.rowCount(parent) > 0

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> str | None:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        node: _Row = index.internalPointer()
        item = node.item
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(node, col)
        if role == LineRole:
            return node.line
        if role == PrimitiveRole:
            return item.primitive if isinstance(item, Eqn) else ""
        if role == Qt.ItemDataRole.ToolTipRole and node.kind in ("in", "out"):
            return f"{self.full_text(index)}\n{INPUTS_TIP if node.kind == 'in' else OUTPUTS_TIP}"
        if role == EqnRole:
            return item
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(item, Eqn):
            params = "\n".join(f"  {k} = {v}" for k, v in item.params.items())
            where = f"line {node.line}" if node.line else NO_LINE_TIP
            return f"{eqn_text(item)}\n{where}" + (f"\nparams:\n{params}" if params else "")
        if (
            role == Qt.ItemDataRole.BackgroundRole
            and node.kind == "eqn"
            and node.line is not None
            and node.line in self._highlight
        ):
            return self._highlight_brush
        if role == Qt.ItemDataRole.FontRole and node.kind != "eqn":
            return self._heading_font
        return None

    def _display(self, node: _Row, col: int) -> str | None:
        item = node.item
        if node.kind in ("in", "out") and isinstance(item, JaxprNode):
            if col == COL_EQUATION:
                return inputs_text(item) if node.kind == "in" else outputs_text(item)
            if col == COL_OUTPUT and node.kind == "out":
                return " ".join(v.type for v in item.outvars)
            return None
        if isinstance(item, SubJaxpr):
            sub = item.jaxpr
            if col == COL_EQUATION:
                ins = " ".join(f"{v.name}:{v.type}" for v in sub.invars)
                return f"{item.param}: lambda {ins}"
            if col == COL_OUTPUT:
                return " ".join(v.type for v in sub.outvars)
            if col == COL_PRIMITIVE:
                return f"{len(sub.eqns)} eqns"
            return None
        if not isinstance(item, Eqn):
            return None
        eqn = item
        if col == COL_EQUATION:
            return eqn_text(eqn)
        if col == COL_PRIMITIVE:
            return eqn.primitive
        if col == COL_OUTPUT:
            return " ".join(v.type for v in eqn.outvars)
        return str(eqn.line) if eqn.line is not None else NO_LINE


class PrimitiveFilter(QSortFilterProxyModel):
    """Keeps equations whose primitive contains the filter text, with their ancestors."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterRole(PrimitiveRole)
        self.setFilterKeyColumn(COL_EQUATION)
