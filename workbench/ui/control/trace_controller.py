"""From the editor to the engine and back: the live timer, load and trace, lowering on demand.

A run is one request: ``LoadSource`` carrying the ``Trace`` of the current
call, so a live edit costs one round trip. Only when the new source no longer
defines the traced function, or choosing the function changed its argument
spec, does a second ``Trace`` follow. Every request has a key: a newer edit
supersedes the one in flight and its late reply is dropped.

Nothing is sent before the engine first answers: its first idle runs the source once
(if live, or if Run was pressed meanwhile), so a file opened at start loads once. Live
mode can be paused for one document (a file opened from disk): nothing runs on its own
until the user presses Run or edits the text, or held: then an edit does not resume it
either, only Run or another document (code the user declined to run stays text).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.api import messages as p
from workbench.api.choices import HloKind
from workbench.api.devices import DeviceReport
from workbench.api.functions import FunctionInfo
from workbench.api.jaxpr import LoweringResult, TraceResult
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Call, Session
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.source_limit import run_refusal

LIVE_DELAY_MS = 300


class TraceController(QObject):
    """Keeps the session's functions and trace in step with the editor text and the controls."""

    sig_failed = Signal(object)
    """Loading or tracing failed: the engine's reply (a failure or a cancellation)."""
    sig_no_functions = Signal()
    """The source loaded but defines no function to trace."""
    sig_lowered = Signal(object)
    """The lowered HLO of the current call arrived (a ``LoweringResult``)."""
    sig_lower_failed = Signal(str)
    """Lowering failed: what to show in the HLO view instead."""
    sig_devices = Signal(object)
    """The engine listed its devices (a ``DeviceReport``)."""
    sig_engine_ready = Signal()
    """The engine answered for the first time."""
    sig_paused = Signal(str)
    """Live mode waits for Run or an edit: why, or "" when it follows the editor again."""
    sig_loaded = Signal(object)
    """A ``LoadSource`` reply was handled (the ``Functions`` result or a failure)."""
    sig_not_traced = Signal(str)
    """In a lesson, the function could not be traced with guessed arguments: what to say.
    Not the step's failure (its code ran), so no error is shown."""

    def __init__(self, session: Session, requests: EngineRequests, controls: CallControls,
                 source: Callable[[], str],
                 filename: Callable[[], str], *, live: bool = True,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.requests = requests
        self.controls = controls
        self._source = source
        self._filename = filename
        self.live = live
        self.engine_ready = False
        self.paused = ""  # why live mode waits for Run or an edit; "" when it does not
        self.held = False
        """Paused until Run or ``release_hold``: an edit does not resume live mode."""
        self.keep_names = False
        # The next load is a lesson step's: the call it makes, if any, chooses the function.
        self.follow_call = False
        """Sources keep the names earlier ones defined and run as notebook cells (a lesson's
        steps)."""
        self._run_when_ready = False
        self.live_timer = QTimer(self, singleShot=True, interval=LIVE_DELAY_MS)
        self.live_timer.timeout.connect(self.run)
        controls.sig_changed.connect(self._on_controls_changed)
        session.sig_engine_state_changed.connect(self._on_engine_state)

    # ------------------------------------------------------------------ requests

    def run(self) -> None:
        """Load the editor source in the engine and trace the chosen function, in one request.

        Before the engine first answers this only asks for one run when it does."""
        self.live_timer.stop()
        self.held = False
        self._set_paused("")
        if not self.engine_ready:
            self._run_when_ready = True
            return
        source = self._source()
        if (refusal := run_refusal(source)) is not None:  # typed or set, not pasted, past it
            self._fail(p.UsageFailure(id="", message=refusal))
            return
        call = self._sync_call()
        if call is not None and self.controls.requested() != call.function:
            # A function the new source is to define (a lesson step's): trace that one.
            call = Call(self.controls.requested(), call.args, call.transforms)
        trace = self._trace_request(call) if call is not None else None
        load = p.LoadSource(source=source, filename=self._filename(), trace=trace,
                            keep_names=self.keep_names, cell=self.keep_names)
        self.requests.load(load, lambda reply: self._on_loaded(reply, trace, load))

    def trace(self) -> None:
        """Trace the current call with the source already loaded."""
        call = self._sync_call()
        if call is not None:
            self.requests.trace(self._trace_request(call),
                                lambda reply: self._on_traced(reply, call))

    def lower(self, hlo: HloKind, cost: bool) -> None:
        call = self._sync_call()
        if call is None:
            return
        self.requests.lower(
            p.Lower(name=call.function, args=call.args, transforms=call.transforms, hlo=hlo,
                    cost=cost),
            self._on_lowered)

    def edited(self) -> None:
        """The editor text changed: re-run after the live delay, if live (and resume if paused).

        Before the engine is ready there is nothing to do: its first idle runs the source.
        While held, nothing: the text stays the user's to read, not to run."""
        if self.held:
            return
        self._set_paused("")
        if self.live and self.engine_ready:
            self.session.note_edit()
            self.live_timer.start()

    def pause_live(self, reason: str) -> None:
        """Run nothing on its own until the user presses Run or edits the text."""
        self.live_timer.stop()
        self._run_when_ready = False
        self._set_paused(reason)

    def hold(self, reason: str) -> None:
        """Run nothing, edits included, until the user presses Run or ``release_hold``."""
        self.pause_live(reason)
        self.held = True

    def release_hold(self) -> None:
        """The editor holds other text now: edits resume live mode again (still paused)."""
        self.held = False

    def set_live(self, on: bool) -> None:
        self.live = on
        if on and not self.paused and self.engine_ready:
            self.live_timer.start()
        else:
            self.live_timer.stop()

    def stop(self) -> None:
        self.live_timer.stop()
        self.requests.stop()

    # ------------------------------------------------------------------ replies

    def _on_loaded(self, reply: p.Reply, sent: p.Trace | None, load: p.LoadSource) -> None:
        loaded = p.result_value(reply, p.Functions)
        if loaded is None:
            if isinstance(reply, p.UserCodeFailure | p.UsageFailure):  # not a crash or a stop
                self.session.set_source_failure(reply)
            self._fail(reply)
            self.sig_loaded.emit(reply)
            return
        functions = self._follow(loaded)
        self.session.set_functions(functions, loaded.printed,
                                   source=(load.filename, load.source))
        call = self._sync_call()
        if call is None:
            self.sig_no_functions.emit()
        elif loaded.trace is not None and sent is not None and self._same(sent, call):
            self._on_traced(loaded.trace, call)
        else:
            self.trace()
        self.sig_loaded.emit(reply)

    def _follow(self, loaded: p.Functions) -> tuple[FunctionInfo, ...]:
        """The functions to list; a lesson step shown (``follow_call``) that calls one of the
        lesson's functions chooses it, at the arguments it passed: its trace is what the
        notebook calls, not a guess from its definitions."""
        functions, called = loaded.functions, loaded.call
        follow, self.follow_call = self.follow_call, False
        if not follow or called is None:
            self.controls.set_functions(functions)
            return functions
        if all(f.name != called.name for f in functions):
            functions = (*functions, called.function)
        self.controls.blockSignals(True)  # one trace below, of the call
        try:
            self.controls.set_functions(functions, prefer=called.name)
            self.controls.select(called.name, called.args, ())
        finally:
            self.controls.blockSignals(False)
        return functions

    def _on_traced(self, reply: p.Reply, call: Call) -> None:
        if call.function != self.controls.function():
            return  # another function was chosen since (a lesson step shown meanwhile): stale
        result = p.result_value(reply, TraceResult)
        if result is not None:
            self.session.set_trace(result)
        elif (self.keep_names and isinstance(reply, p.UserCodeFailure | p.UsageFailure)
              and self.controls.is_guess(call.function)):
            self.session.set_trace_failure(reply)  # the views of the last trace go stale
            self.sig_not_traced.emit(
                f"not traced: choose arguments for {call.function} (the args box above; "
                f"{call.args or 'no arguments'} was a guess)")
        else:
            self._fail(reply)

    def _on_lowered(self, reply: p.Reply) -> None:
        result = p.result_value(reply, LoweringResult)
        if result is None:
            self.sig_lower_failed.emit(p.reply_text(reply))
        else:
            self.sig_lowered.emit(result)

    def _on_devices(self, reply: p.Reply) -> None:
        report = p.result_value(reply, DeviceReport)
        if report is not None:
            self.session.set_devices(report)
            self.sig_devices.emit(report)

    def _fail(self, reply: p.Reply) -> None:
        if not isinstance(reply, p.Cancelled):
            self.session.set_trace_failure(reply)
        self.sig_failed.emit(reply)

    def _on_controls_changed(self) -> None:
        self._sync_call()
        if self.engine_ready and not self.paused:
            self.trace()

    def _on_engine_state(self, state: str) -> None:
        if state == "idle" and not self.engine_ready:
            self.engine_ready = True
            self.requests.devices(self._on_devices)
            self.sig_engine_ready.emit()
            if self._run_when_ready or (self.live and not self.paused):
                self._run_when_ready = False
                self.run()

    def _set_paused(self, reason: str) -> None:
        if reason != self.paused:
            self.paused = reason
            self.sig_paused.emit(reason)

    # ------------------------------------------------------------------ helpers

    def _sync_call(self) -> Call | None:
        """The controls' call, recorded in the session; None when no function is chosen."""
        name = self.controls.function()
        if not name:
            return None
        call = Call(name, self.controls.args(), self.controls.transforms())
        self.session.set_call(call)
        return call

    @staticmethod
    def _trace_request(call: Call) -> p.Trace:
        return p.Trace(name=call.function, args=call.args, transforms=call.transforms)

    @staticmethod
    def _same(sent: p.Trace, call: Call) -> bool:
        return (sent.name, sent.args, sent.transforms) == (call.function, call.args,
                                                          call.transforms)
