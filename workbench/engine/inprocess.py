"""An engine client without a kernel: the real ``Service`` on one thread of this process.

``InProcessClient`` offers the part of the kernel client's interface that the
window's ``EngineBridge`` uses (``request`` with superseding keys, ``call``,
``stop``, ``restart``, ``close``, the ``on_state``/``on_notice``/``on_output``
callbacks), after qtconsole's ``inprocess`` kernel: requests run in order on a
single worker thread, as on a kernel's shell channel, and every callback comes
from that thread, as the kernel client's come from its I/O thread. It exists so
that tests of the window need not start a kernel (1-2 s each, and JAX imported
again in every one); the application always uses a kernel.

What it cannot do is what a separate process is for: Stop only cancels what is
queued and asks the running request to stop through ``Context.should_stop``
(timing and values check it; a Python loop or a jitted computation runs to its
end), a crash takes the test process with it, and there is no console to attach
(``connection_file`` is None). Requests and replies still cross the codec, and
the user's stdout and stderr become ``Output`` events as in the kernel.
"""

from __future__ import annotations

import os
import queue
import threading
import traceback
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from workbench.api import codec
from workbench.api import messages as p
from workbench.api.contract.protocol import CELLS_NOT_RELOADED, reloads
from workbench.api.contract.routing import Pending, Router, Stats
from workbench.api.state import Notice, NoticeKind, State
from workbench.engine.kernel import DEFAULT_OUTPUT_LIMIT, OutputCapture
from workbench.engine.printed import TextSink, routed
from workbench.engine.service import Context, Service

_RESTART = object()  # on the queue: a fresh Service, between two requests
_CLOSE = object()
_WAKE = object()  # on the queue: requests may be waiting in the router's outbox


def _over_the_wire(value: Any) -> Any:
    """``value`` encoded and decoded, as it would reach the other side of a kernel's comm."""
    data, buffers = codec.encode(value)
    return codec.decode(data, [bytes(b) for b in buffers])


class InProcessClient:
    """The engine on a worker thread of this process, driven like the kernel client."""

    def __init__(
        self,
        *,
        on_state: Callable[[State], None] | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        on_output: Callable[[p.Output], None] | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        capture_output: bool = True,
    ):
        self.on_state = on_state
        self.on_notice = on_notice
        self.on_output = on_output
        self.output_limit = output_limit
        self.capture_output = capture_output
        self.connection_file: str | None = None  # no kernel: nothing for a console to attach
        self.host: str | None = None
        self.owned = True
        self.stats = Stats()
        # The kernel client's router: who supersedes whom, one request of a key at a time.
        # Every use of it here is under the lock (the kernel client's, on its I/O thread).
        self._router = Router(self.stats)
        self._service = self._fresh_service()
        self._lock = threading.RLock()  # state changes are emitted under it, so in order
        self._state = State.STARTING
        self._closing = False
        self._restarting = False
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._running: str | None = None
        self._stop = threading.Event()  # the running request's should_stop
        self._last_source: p.LoadSource | None = None
        self._fresh: str | None = None  # what a restart without a reload is for (its notice)
        self._thread = threading.Thread(target=self._run, name="workbench-inprocess-engine",
                                        daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ public API (any thread)

    @property
    def state(self) -> State:
        return self._state

    @property
    def pid(self) -> int:
        return os.getpid()

    def request(
        self,
        request: p.Request,
        on_reply: Callable[[p.Reply], None] | None = None,
        on_event: Callable[[p.Event], None] | None = None,
        *,
        key: str | None = None,
    ) -> str:
        """Queue ``request``; ``on_reply`` gets exactly one reply unless a later request with
        the same ``key`` supersedes it first (then it is skipped, or its reply dropped)."""
        if not isinstance(request, p.Request):
            raise TypeError(f"not a request: {request!r}")
        with self._lock:
            if key is not None:
                self._router.mark_sent(key, request.id)
            if self._closing or self._state == State.DEAD:
                reply: p.Reply = p.EngineFailure(request.id, "the engine is not running")
            else:
                self._router.add(Pending(request, on_reply, on_event, key))
                self._router.queue(request.id, {}, [])
                self._queue.put(_WAKE)
                self._refresh_state()
                return request.id
        self._emit(on_reply, reply)
        return request.id

    def is_current(self, key: str, rid: str) -> bool:
        """Whether ``rid`` is still the latest request sent with ``key`` (its reply wanted)."""
        return self._router.is_current(key, rid)

    def call(self, request: p.Request, timeout: float = 30.0,
             on_event: Callable[[p.Event], None] | None = None) -> p.Reply:
        """Blocking convenience for scripts and tests (never from the thread of a callback)."""
        return p.blocking_call(self.request, request, timeout, on_event)

    def stop(self) -> None:
        """Cancel every request and ask the running one to stop (``Context.should_stop``)."""
        with self._lock:
            if self._closing or self._state in (State.DEAD, State.RESTARTING):
                return
            self._stop.set()
            cancelled = self._drop_all()
            if self._running is not None:
                self._set_state(State.INTERRUPTING)  # idle once the running request returns
        for pending in cancelled:
            self._emit(pending.on_reply, p.Cancelled(pending.request.id, "stopped"))
        with self._lock:
            self._refresh_state()

    def restart(self, fresh: str | None = None) -> None:
        """A fresh engine namespace once the running request returns; the last good editor
        source is loaded again, and a ``restarted`` notice says so. ``fresh``: nothing is
        loaded again (a lesson opened), and the notice says these words."""
        with self._lock:
            if self._closing or self._restarting:
                return
            if fresh is not None:
                self._last_source = None
                self._fresh = fresh
            self._restarting = True
            self._stop.set()
            cancelled = self._drop_all()
            self._set_state(State.RESTARTING)
            self.stats.restarts += 1
            self._queue.put(_RESTART)
        for pending in cancelled:
            self._emit(pending.on_reply, p.Cancelled(pending.request.id,
                                                     "engine restarted (restart requested)"))

    def close(self, timeout: float = 5.0) -> None:
        """End the worker thread; a request still running is left to finish on its own."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            cancelled = self._drop_all()
            self._stop.set()
            self._queue.put(_CLOSE)
        for pending in cancelled:
            self._emit(pending.on_reply, p.Cancelled(pending.request.id, "engine closed"))
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        self._state = State.DEAD

    def __enter__(self) -> InProcessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    @staticmethod
    def _fresh_service() -> Service:
        return Service({})  # a namespace of its own, shared by every load, as a kernel's is

    def _emit(self, callback: Callable[..., None] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - a callback's bug must not kill the engine thread
            traceback.print_exc()

    def _set_state(self, state: State) -> None:
        if state != self._state:
            self._state = state
            self._emit(self.on_state, state)

    def _refresh_state(self) -> None:
        """Busy while anything is queued or runs; called with the lock held."""
        if self._closing or self._restarting or self._state == State.STARTING:
            return
        if self._state == State.INTERRUPTING and self._running is not None:
            return
        busy = self._router.pending or self._running
        self._set_state(State.BUSY if busy else State.IDLE)

    def _drop_all(self) -> list[Pending]:
        """Forget every request (the running one's reply is then dropped); lock held."""
        return list(self._router.abandon_all().values())

    # ------------------------------------------------------------------ the worker thread

    def _run(self) -> None:
        with self._lock:
            self._state = State.IDLE if not self._router.pending else State.BUSY
            self._emit(self.on_state, self._state)
        while True:
            item = self._queue.get()
            if item is _CLOSE:
                return
            if item is _RESTART:
                self._do_restart()
                continue
            self._run_ready()

    def _run_ready(self) -> None:
        """Run what the router lets go, in order, until its outbox holds nothing that may."""
        while True:
            with self._lock:
                ready = [] if self._closing else self._router.take_outbox()
            if not ready:
                return
            for rid, _, _ in ready:
                self._run_one(rid)

    def _run_one(self, rid: str) -> None:
        with self._lock:
            pending = self._router.pending.get(rid)
            if pending is None or self._closing:
                self._router.settled(rid)  # superseded or stopped after the outbox let it go
                return
            self._running = rid
            self._stop.clear()
        reply = self._answer(pending)
        with self._lock:
            self._running = None
            wanted = self._router.take(rid)  # None: superseded or stopped, its reply dropped
            if wanted is not None:
                self._router.answered(wanted)
            self._router.settled(rid)
            if isinstance(pending.request, p.LoadSource) and isinstance(reply, p.Result):
                self._last_source = pending.request
        if wanted is not None:
            self._emit(wanted.on_reply, reply)
        with self._lock:
            self._refresh_state()

    def _answer(self, pending: Pending) -> p.Reply:
        """The service's reply to ``pending``, its output sent as ``Output`` events."""
        rid = pending.request.id
        send = self._on_event
        context = Context(rid, send, self._stop.is_set)
        try:
            request = _over_the_wire(pending.request)
            if not self.capture_output:
                return _over_the_wire(self._service.handle(request, context))
            capture = OutputCapture(rid, send, self.output_limit)
            try:
                with routed(TextSink(partial(capture.write, "stdout"), capture.flush_soon),
                            TextSink(partial(capture.write, "stderr"), capture.flush_soon)):
                    return _over_the_wire(self._service.handle(request, context))
            finally:
                capture.close()
        except Exception as exc:  # noqa: BLE001 - a reply the codec refuses is still answered
            return p.EngineFailure(rid, f"internal error: {type(exc).__name__}: {exc}")

    def _on_event(self, event: p.Event) -> None:
        """An event to its request's ``on_event``, else output to ``on_output``; as in the
        kernel client, one whose id names no pending request is dropped."""
        event = _over_the_wire(event)
        rid = event.id
        if isinstance(event, p.Output) and event.background:
            self._emit(self.on_output, event)  # a thread's, not the request's: the console's
            return
        with self._lock:
            pending = self._router.pending.get(rid)
        if pending is None:
            return
        if pending.on_event is not None:
            self._emit(pending.on_event, event)
        elif isinstance(event, p.Output):
            self._emit(self.on_output, event)

    def _do_restart(self) -> None:
        """Between two requests: a fresh service, with the last good source loaded again."""
        self._service = self._fresh_service()
        with self._lock:
            self._restarting = False
            source = self._last_source if reloads(self._last_source) else None
            fresh, self._fresh = self._fresh, None
            if fresh is None and self._last_source is not None and source is None:
                fresh = CELLS_NOT_RELOADED  # a lesson step: nothing runs on its own
            self._set_state(State.IDLE if source is None else State.BUSY)
        if source is None:
            self._emit(self.on_notice, Notice(NoticeKind.RESTARTED, fresh or "engine restarted"))
            return
        reload = p.LoadSource(source=source.source, filename=source.filename)
        reply = self._answer(Pending(reload, None, None, None))
        if isinstance(reply, p.Result):
            self._emit(self.on_notice, Notice(NoticeKind.RESTARTED,
                                              "engine restarted, definitions reloaded",
                                              reloaded=True))
        else:
            self._emit(self.on_notice, Notice(NoticeKind.RESTARTED, "engine restarted"))
            self._emit(self.on_notice, Notice(
                NoticeKind.RELOAD_FAILED,
                "the editor source could not be loaded again: " + p.reply_text(reply)))
        with self._lock:
            self._refresh_state()


if TYPE_CHECKING:  # mypy: it is an engine client as the window's bridge uses one
    from workbench.api.contract.protocol import EngineClientProtocol

    _CHECK: type[EngineClientProtocol] = InProcessClient

__all__ = ["InProcessClient"]
