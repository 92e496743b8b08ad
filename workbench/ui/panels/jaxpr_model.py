"""A Qt item model over the engine's plain-data jaxpr tree (``TraceResult.jaxpr``).

Rows are equations; an equation with sub-jaxprs (cond branches, a while body,
a scan, a jit) has one child row per sub-jaxpr, labelled with its parameter,
whose children are that jaxpr's equations, to any depth. Children are built
when first asked for, so a large trace costs only what the view shows.
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

Index = QModelIndex | QPersistentModelIndex


def var_text(var: Var) -> str:
    if var.literal is not None:
        return f"{var.literal}:{var.type}"
    return str(var.name)


def eqn_text(eqn: Eqn) -> str:
    outs = " ".join(f"{v.name}:{v.type}" for v in eqn.outvars) or "_"
    params = " ".join(
        f"{k}={v}" for k, v in eqn.params.items() if not v.startswith("{") and len(v) <= 40
    )
    head = f"{eqn.primitive}[{params}]" if params else eqn.primitive
    args = " ".join(var_text(v) for v in eqn.invars)
    return f"{outs} = {head} {args}".rstrip()


class _Row:
    """One row: an equation (``eqn``) or a sub-jaxpr heading (``sub``)."""

    __slots__ = ("kind", "item", "parent", "row", "_children", "line")

    def __init__(self, kind: str, item: JaxprNode | SubJaxpr | Eqn, parent: _Row | None,
                 row: int, line: int | None):
        self.kind = kind
        self.item = item
        self.parent = parent
        self.row = row
        self.line = line
        self._children: list[_Row] | None = None

    def child_count(self) -> int:
        item = self.item
        if isinstance(item, Eqn):
            return len(item.subjaxprs)
        return len(item.jaxpr.eqns if isinstance(item, SubJaxpr) else item.eqns)

    @property
    def children(self) -> list[_Row]:
        if self._children is None:
            item = self.item
            if isinstance(item, Eqn):
                self._children = [
                    _Row("sub", s, self, i, self.line) for i, s in enumerate(item.subjaxprs)
                ]
            else:
                eqns = item.jaxpr.eqns if isinstance(item, SubJaxpr) else item.eqns
                self._children = [_Row("eqn", e, self, i, e.line) for i, e in enumerate(eqns)]
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
        for row in path:
            index = self.index(row, 0, index)
            if not index.isValid():
                return QModelIndex()
        return index

    @staticmethod
    def path_for_index(index: Index) -> tuple[int, ...]:
        """The row path of ``index``: the equation path the graph and the values use."""
        path: list[int] = []
        node: _Row | None = index.internalPointer() if index.isValid() else None
        while node is not None and node.kind != "root":
            path.append(node.row)
            node = node.parent
        return tuple(reversed(path))

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
        if role == Qt.ItemDataRole.FontRole and node.kind == "sub":
            return self._heading_font
        return None

    def _display(self, node: _Row, col: int) -> str | None:
        item = node.item
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
