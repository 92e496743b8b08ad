"""The plot, timing, k-means and graph panels, each built the first time its dock comes to the
front (or a lesson step, Show panel or a test asks for it), not all four after the first paint.

A window starts with the console or one panel in front. The three behind it are 14 pyqtgraph
plots and their menus: building them cost every start 0.3 s of the GUI thread, for panels
many sessions never open. What a panel shows comes from the session (functions, call,
devices, the last trace), so one built late starts where the others are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Signal

from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.panel import Panel
from workbench.ui.style.theme import PresentationZoom, ThemeWatcher
from workbench.ui.window.window_layout import DockLayout

if TYPE_CHECKING:
    from workbench.ui.panels.graph_panel import GraphPanel
    from workbench.ui.panels.kmeans_panel import KMeansPanel
    from workbench.ui.panels.plot_panel import FunctionPlotPanel
    from workbench.ui.panels.timing_panel import TimingPanel


def _panel_classes() -> dict[str, Callable[[Session, EngineRequests], Panel]]:
    """Each dock's panel class, imported on first use (pyqtgraph with them)."""
    from workbench.ui.panels.graph_panel import GraphPanel
    from workbench.ui.panels.kmeans_panel import KMeansPanel
    from workbench.ui.panels.plot_panel import FunctionPlotPanel
    from workbench.ui.panels.timing_panel import TimingPanel

    return {"plotDock": FunctionPlotPanel, "timingDock": TimingPanel,
            "kmeansDock": KMeansPanel, "graphDock": GraphPanel}


class PanelSet(QObject):
    """The window's four panels, built on demand into their docks."""

    sig_built = Signal(str, object)
    """A panel was built: its dock's name and the panel."""

    def __init__(self, session: Session, requests: EngineRequests, docks: DockLayout,
                 zoom: PresentationZoom, theme: ThemeWatcher, parent: QObject | None = None):
        super().__init__(parent)
        self._session, self._requests, self._docks = session, requests, docks
        self._zoom, self._theme = zoom, theme
        self._built: dict[str, Panel] = {}
        self._in_front: dict[str, bool] = {}  # each dock's last visibilityChanged
        self._started = False
        self._arranging = 0
        for dock in docks.panel_docks:
            dock.visibilityChanged.connect(partial(self._on_visibility, dock.objectName()))

    def start(self) -> None:
        """After the first frame: the panel in front now; the others when they come to it.

        The panels' modules (and pyqtgraph) are imported here either way, so the first
        click on a panel's tab builds it in a tenth of a second, not a second.
        """
        self._started = True
        _panel_classes()
        self._build_in_front()

    @contextmanager
    def arranging(self) -> Iterator[None]:
        """While the docks are re-arranged (each is shown on the way, re-tabified), nothing
        is built; then the panel in front is."""
        self._arranging += 1
        try:
            yield
        finally:
            self._arranging -= 1
            if not self._arranging and self._started:
                self._build_in_front()

    def panel(self, dock_name: str) -> Panel:
        """The panel of the dock ``dock_name``, built now if it was not."""
        panel = self._built.get(dock_name)
        if panel is None:
            panel = _panel_classes()[dock_name](self._session, self._requests)
            self._built[dock_name] = panel
            dock = next(d for d in self._docks.panel_docks if d.objectName() == dock_name)
            self._docks.install_panel(dock, panel)
            panel.follow_zoom(self._zoom)
            self._theme.sig_scheme_changed.connect(panel.set_scheme)
            panel.set_scheme(self._theme.scheme)
            self.sig_built.emit(dock_name, panel)
        return panel

    def built(self, dock_name: str) -> Panel | None:
        """The panel of ``dock_name`` if it was built, else None (it shows nothing yet)."""
        return self._built.get(dock_name)

    def any_built(self) -> bool:
        return bool(self._built)

    def code_panels(self) -> tuple[Panel | None, ...]:
        """The panels that show results of the editor's code (not the k-means demo), None
        for one not built."""
        return tuple(self._built.get(name) for name in ("plotDock", "timingDock", "graphDock"))

    def build_all(self) -> None:
        for dock in self._docks.panel_docks:
            self.panel(dock.objectName())

    def plot(self) -> FunctionPlotPanel:
        return cast("FunctionPlotPanel", self.panel("plotDock"))

    def timing(self) -> TimingPanel:
        return cast("TimingPanel", self.panel("timingDock"))

    def kmeans(self) -> KMeansPanel:
        return cast("KMeansPanel", self.panel("kmeansDock"))

    def graph(self) -> GraphPanel:
        return cast("GraphPanel", self.panel("graphDock"))

    def _build_in_front(self) -> None:
        for dock_name, in_front in self._in_front.items():
            if in_front:
                self.panel(dock_name)

    def _on_visibility(self, dock_name: str, visible: bool) -> None:
        self._in_front[dock_name] = visible
        if visible and self._started and not self._arranging:
            self.panel(dock_name)
