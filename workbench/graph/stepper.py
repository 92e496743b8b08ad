"""Stepping through a program in evaluation order: a position in the list of equations that ran.

Plain Python, no Qt: the graph panel owns one and shows its position in the
graph, the tree and the editor. The position is an equation path, so it
survives a panel switch and, when the same equation still runs, a re-run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.api.values import Path


class Stepper:
    """Before the first step ``position`` is -1; ``current`` is then None."""

    def __init__(self, order: Sequence[Path] = ()):
        self.order: list[Path] = list(order)
        self.position = -1
        self._index: dict[Path, int] = {}

    def reset(self, order: Sequence[Path] | None = None) -> None:
        """Back to before the first step; with ``order``, a new program's order."""
        if order is not None:
            self.order = list(order)
            self._index = {}
        self.position = -1

    def follow(self, order: Sequence[Path]) -> None:
        """A new order (the code ran again): stay on the same equation if it still runs."""
        current = self.current
        self.reset(order)
        if current is not None:
            self.position = self.index_of(current)

    def index_of(self, path: Path) -> int:
        if not self._index and self.order:
            self._index = {p: i for i, p in enumerate(self.order)}
        return self._index.get(path, -1)

    @property
    def current(self) -> Path | None:
        return self.order[self.position] if 0 <= self.position < len(self.order) else None

    @property
    def total(self) -> int:
        return len(self.order)

    def done(self) -> frozenset[Path]:
        """The equations evaluated so far, the current one included."""
        return frozenset(self.order[: self.position + 1])

    def next(self) -> bool:
        if self.position + 1 >= len(self.order):
            return False
        self.position += 1
        return True

    def previous(self) -> bool:
        if self.position < 0:
            return False
        self.position -= 1
        return True

    def go_to(self, path: Path) -> bool:
        """Put the position on ``path`` (a node picked in the graph) if it ran."""
        i = self.index_of(path)
        if i < 0:
            return False
        self.position = i
        return True

    def run_to_line(self, line: int, line_of: Callable[[Path], int | None]) -> bool:
        """Step forward to the next equation made by editor ``line``; False (and no move)
        when none of the equations still to come has that line."""
        for i in range(self.position + 1, len(self.order)):
            if line_of(self.order[i]) == line:
                self.position = i
                return True
        return False
