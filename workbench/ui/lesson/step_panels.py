"""The panels a lesson step's directive fills, and how each directive fills its panel.

A step's ``# workbench:`` directive names what the class should see beside its code:
values in the Graph, a plot, a timing, a k-means run. The panels are built on first
use (``LessonHost.lesson_panels``), so only a step that asks for one builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from workbench.lessons import CallDirective, KMeansDirective, PlotDirective, TimeDirective
from workbench.lessons.directives import Directive
from workbench.lessons.plan import curve_requests, kmeans_request, time_request

if TYPE_CHECKING:  # built after the first paint: pyqtgraph loads then
    from workbench.ui.panels.graph_panel import GraphPanel
    from workbench.ui.panels.kmeans_panel import KMeansPanel
    from workbench.ui.panels.plot_panel import FunctionPlotPanel
    from workbench.ui.panels.timing_panel import TimingPanel


@dataclass(frozen=True)
class LessonPanels:
    """The panels a directive fills (built on first use)."""

    plot: FunctionPlotPanel
    timing: TimingPanel
    kmeans: KMeansPanel
    graph: GraphPanel

def apply_directive(panels: Callable[[], LessonPanels], directive: Directive,
                    note: Callable[[str], None]) -> None:
    """Fill the panel ``directive`` asks for, once that panel is shown; ``note`` says what
    the window does differently from the command (``--wrt``)."""
    if isinstance(directive, CallDirective) and (directive.verb == "values"
                                                 or directive.select):
        # The Graph looks where the step's text points (its outputs, unless it names).
        panels().graph.select_names(directive.select or ("outputs",))
    if isinstance(directive, PlotDirective):
        shown = panels()
        shown.plot.when_shown("lesson", partial(_apply_plot, shown, directive, note))
    elif isinstance(directive, TimeDirective):
        shown = panels()
        shown.timing.when_shown("lesson", partial(_apply_time, shown, directive, note))
    elif isinstance(directive, KMeansDirective):
        panels().kmeans.run_requested(kmeans_request(directive))


def _apply_plot(panels: LessonPanels, d: PlotDirective, note: Callable[[str], None]) -> None:
    panels.plot.show_requested(curve_requests(d))
    if d.at is not None:
        panels.plot.set_crosshair(d.at)
    if d.wrt:
        note(f"the Plot panel varies the first argument: --wrt {d.wrt} is for the workbench "
             "plot command")


def _apply_time(panels: LessonPanels, d: TimeDirective, note: Callable[[str], None]) -> None:
    said = panels.timing.measure_requested(time_request(d))
    if said:
        note(said)
