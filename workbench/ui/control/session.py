"""What the window knows about the engine and the editor's call, in one place panels connect to.

The session holds the functions of the last loaded source, the current call
(function, argument spec, transforms), the last trace and whether it still
belongs to that call, the engine's state and its devices. The trace controller fills it
from the engine's replies; panels take it in their constructor, connect to
its signals and read it, instead of asking the engine again for what is
already known (napari's ``QtDims(dims)`` pattern: the model knows no widget).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from workbench.api.choices import Transform
from workbench.api.devices import DeviceReport
from workbench.api.functions import FunctionInfo
from workbench.api.jaxpr import TraceResult
from workbench.api.messages import Reply
from workbench.api.printed import Printed
from workbench.api.values import ValuesResult
from workbench.ui.control.engine_bridge import EngineBridge


@dataclass(frozen=True)
class Call:
    """What the editor asks about: a function, its argument spec and a transform chain."""

    function: str
    args: str = ""
    transforms: tuple[Transform, ...] = ()


class Session(QObject):
    """The window's model of the engine session; emits on every change, never blocks."""

    sig_functions_changed = Signal(object)
    """A source was loaded: its functions (``tuple[FunctionInfo, ...]``); definitions may differ."""
    sig_call_changed = Signal(object)
    """The editor's call (a ``Call``) changed: another function, spec or transform chain."""
    sig_traced = Signal(object)
    """The current call was traced (a ``TraceResult``)."""
    sig_trace_failed = Signal(object)
    """Tracing the current call failed (the engine's ``Reply``); ``trace`` is now stale."""
    sig_source_failed = Signal(object)
    """The editor's source did not run (the engine's ``Reply``); the engine keeps the last
    source that ran, so what panels show comes from that one."""
    sig_values = Signal(object)
    """Every variable's value for the current trace arrived (a ``ValuesResult``)."""
    sig_engine_state_changed = Signal(str)
    """The engine's lifecycle state: starting, idle, busy, interrupting, restarting, dead."""
    sig_edited = Signal()
    """The editor's text changed and will run: work that follows the editor waits for a
    pause (``last_edit``)."""
    sig_devices_changed = Signal(object)
    """The engine listed its devices, every backend's (a ``DeviceReport``)."""

    def __init__(self, engine: EngineBridge, parent: QObject | None = None):
        """``engine``: whose lifecycle state the session follows (requests go through
        ``EngineRequests``, never through the model)."""
        super().__init__(parent)
        self.functions: tuple[FunctionInfo, ...] = ()
        self.load_printed = Printed()  # what the last loaded source's top-level code printed
        self.call: Call | None = None
        self.trace: TraceResult | None = None
        self.trace_is_current = False
        self.values: ValuesResult | None = None  # of ``trace``, once evaluated
        self.source_failure: Reply | None = None  # why the editor's source did not run
        self.loads = 0  # sources loaded so far: samples older than the last load are stale
        self.source: tuple[str, str] | None = None  # (file name, text) of the last load
        self.engine_state = engine.state
        self.devices: DeviceReport | None = None  # None until the engine first answers
        self.last_edit = float("-inf")  # time.monotonic() of the last edit that will run
        engine.sig_state_changed.connect(self._on_engine_state)

    def function_info(self, name: str | None = None) -> FunctionInfo | None:
        """The loaded function ``name`` (default: the current call's), if the source has it."""
        name = name if name is not None else (self.call.function if self.call else "")
        return next((f for f in self.functions if f.name == name), None)

    def function_names(self) -> list[str]:
        return [f.name for f in self.functions]

    def set_functions(self, functions: tuple[FunctionInfo, ...],
                      printed: Printed | None = None,
                      source: tuple[str, str] | None = None) -> None:
        """A source was loaded: its functions, what its top-level code printed, and its file
        name and text (what a measurement made on it is compared by)."""
        self.functions = tuple(functions)
        self.source = source
        self.load_printed = printed or Printed()
        self.source_failure = None
        self.loads += 1
        self.trace_is_current = False  # a new source: the last trace is of the old one
        self.sig_functions_changed.emit(self.functions)

    def note_edit(self) -> None:
        """The user edited the code that runs (live mode will run it)."""
        self.last_edit = time.monotonic()
        self.sig_edited.emit()

    def set_call(self, call: Call) -> None:
        if call != self.call:
            self.call = call
            self.trace_is_current = False
            self.sig_call_changed.emit(call)

    def set_trace(self, result: TraceResult) -> None:
        self.trace = result
        self.trace_is_current = True
        self.values = None  # values belong to one trace: the next ones are asked for anew
        self.sig_traced.emit(result)

    def set_values(self, values: ValuesResult) -> None:
        """The values of ``trace``; dropped when they belong to another call."""
        trace = self.trace
        if trace is None or (values.function, values.args, values.transforms) != (
                trace.function, trace.args, trace.transforms):
            return
        self.values = values
        self.sig_values.emit(values)

    def set_trace_failure(self, reply: Reply) -> None:
        self.trace_is_current = False
        self.sig_trace_failed.emit(reply)

    def set_source_failure(self, reply: Reply) -> None:
        self.source_failure = reply
        self.trace_is_current = False
        self.sig_source_failed.emit(reply)

    def set_devices(self, report: DeviceReport) -> None:
        """The engine's devices: panels offer them (timing per device, sharded k-means)."""
        if report != self.devices:
            self.devices = report
            self.sig_devices_changed.emit(report)

    def _on_engine_state(self, state: str) -> None:
        self.engine_state = state
        self.sig_engine_state_changed.emit(state)
