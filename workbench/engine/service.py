"""One dispatcher from request dataclasses to reply dataclasses, in-process or in the kernel.

``Service.handle(request)`` never raises for anything a request or the user's
code can cause: user-code errors become ``UserCodeFailure`` (explained by the
catalog), bad requests ``UsageFailure``, a Stop (KeyboardInterrupt)
``Cancelled``, our own bugs ``EngineFailure``. Adding an operation is one
function decorated with ``@handles(RequestType)`` that returns the request's
plain-data result (a ``workbench.api.messages.ResultValue``).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.api import messages as p
from workbench.engine.errors import UsageError, UserCodeError, explain
from workbench.engine.printed import PrintedCapture, capture_printed
from workbench.engine.source import DEFAULT_FILENAME, LoadedSource, load_source
from workbench.engine.source_info import running_at, running_threads_note, stopped_at

_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


@dataclass
class Context:
    """What a running handler may use besides its request: progress events and a stop flag."""

    request_id: str = ""
    emit: Callable[[p.Event], None] = field(default=lambda event: None)
    should_stop: Callable[[], bool] = field(default=lambda: False)

    def progress(self, done: int, total: int, message: str = "", value: Any = None) -> None:
        self.emit(p.Progress(self.request_id, int(done), int(total), message, value))


Handler = Callable[["Service", Any, Context], p.ResultValue]
_HANDLERS: dict[type[p.Request], Handler] = {}


def handles(request_type: type[p.Request]) -> Callable[[Handler], Handler]:
    """Register the handler of ``request_type``; it returns the value of the ``Result``."""

    def deco(fn: Handler) -> Handler:
        _HANDLERS[request_type] = fn
        return fn

    return deco


class Service:
    """Holds the loaded editor source and answers requests about it.

    With ``namespace`` (the kernel's user namespace) the editor source runs
    there, so the console sees the same names; otherwise each load gets a fresh
    namespace.
    """

    def __init__(self, namespace: dict[str, Any] | None = None, *, in_kernel: bool = False,
                 memory_limit: int | None = None):
        self.namespace = namespace
        self.in_kernel = in_kernel
        self.memory_limit = memory_limit
        self.loaded: LoadedSource | None = None
        # Names that cells which failed were to bind: name -> (step number, "imports"/...).
        self.unbound: dict[str, tuple[int, str]] = {}
        # Every name the user's code was compiled under (the editor's, lesson steps'): its
        # frames are the ones a Stop names.
        self.user_files: set[str] = set()

    def handle(self, request: Any, context: Context | None = None) -> p.Reply:
        """The reply to ``request``; never raises for a user's or a request's fault."""
        rid = getattr(request, "id", "")
        rid = rid if isinstance(rid, str) else ""
        context = context or Context(request_id=rid)
        if not isinstance(request, p.Request):
            return p.UsageFailure(rid, f"not a request: {type(request).__name__}")
        handler = _HANDLERS.get(type(request))
        if handler is None:
            return p.UsageFailure(rid, f"no handler for {type(request).__name__}")
        try:
            return p.Result(rid, handler(self, request, context))
        except UserCodeError as exc:
            return p.UserCodeFailure(rid, exc.explanation, exc.outputs)
        except UsageError as exc:
            return p.UsageFailure(rid, exc.message, exc.field, exc.exit_code)
        except KeyboardInterrupt as exc:
            file, line = stopped_at(exc, self.user_files) or ("", 0)
            return p.Cancelled(rid, "stopped", line, file,
                               running_threads_note(self.user_files, self._own_file()))
        except BaseException as exc:  # noqa: BLE001 - sys.exit() and kin are the code's errors
            return self._unexpected(rid, exc)

    def where_running(self, thread_id: int) -> dict[str, Any]:
        """The line of the user's code thread ``thread_id`` runs now (``messages.WHERE_REPLY``'s
        content); safe to call from another thread while that one computes."""
        file, line, in_jax = running_at(sys._current_frames().get(thread_id), self.user_files)
        return {"file": file, "line": line, "in_jax": in_jax,
                "threads": running_threads_note(self.user_files, self._own_file())}

    def _own_file(self) -> str:
        return self.loaded.filename if self.loaded is not None else DEFAULT_FILENAME

    def require_loaded(self) -> LoadedSource:
        if self.loaded is None:
            raise UsageError("no source loaded yet: send LoadSource first")
        return self.loaded

    def _unexpected(self, rid: str, exc: BaseException) -> p.Reply:
        """An exception nobody wrapped: ours if it was raised in workbench code, else the user's."""
        frames = traceback.extract_tb(exc.__traceback__)
        filename = self.loaded.filename if self.loaded else DEFAULT_FILENAME
        ours = bool(frames) and frames[-1].filename.startswith(_PACKAGE_DIR + os.sep)
        if not ours:
            return p.UserCodeFailure(rid, explain(exc, filename))
        text = "".join(traceback.format_exception(exc))
        return p.EngineFailure(rid, f"internal error: {type(exc).__name__}: {exc}", text)

    def _forget_stale(self, before: dict[str, Any], loaded: LoadedSource) -> LoadedSource:
        """Drop editor functions the new source no longer defines (a renamed function).

        Only matters in the shared kernel namespace, where the old objects stay behind.
        """
        for name, obj in before.items():
            if obj is not None and self.namespace is not None and self.namespace.get(name) is obj:
                del self.namespace[name]
        loaded.functions = tuple(f for f in loaded.functions if f.name in loaded.namespace)
        return loaded


@handles(p.Ping)
def _ping(service: Service, request: p.Ping, context: Context) -> p.Pong:
    return p.Pong(os.getpid(), p.PROTOCOL_VERSION, service.in_kernel, service.memory_limit)


@handles(p.LoadSource)
def _load(service: Service, request: p.LoadSource, context: Context) -> p.Functions:
    service.user_files.add(request.filename)
    if request.cell:
        return _load_cell(service, request, context)
    old = service.loaded
    before = {f.name: old.namespace.get(f.name) for f in old.functions} if old else {}
    # A failed load raises here and leaves the last good source in place.
    with capture_printed(tee=True) as printed:
        loaded = load_source(request.source, request.filename, namespace=service.namespace)
    service.loaded = service._forget_stale({} if request.keep_names else before, loaded)
    functions = tuple(service.loaded.functions)
    trace = request.trace
    if trace is not None and any(f.name == trace.name for f in functions):
        return p.Functions(service.loaded.filename, functions,
                           service.handle(trace, Context(trace.id, context.emit,
                                                         context.should_stop)),
                           printed.result())
    return p.Functions(service.loaded.filename, functions, printed=printed.result())


def _load_cell(service: Service, request: p.LoadSource, context: Context) -> p.Functions:
    """A lesson step run as a notebook cell (``workbench.engine.cells``)."""
    from workbench.engine import cells
    from workbench.engine.cells.calls import last_call
    from workbench.engine.source import list_functions

    if service.namespace is None:
        service.namespace = {}  # a notebook's cells share one namespace
    namespace = service.namespace  # nothing imported for it: a notebook imports what it uses
    shell = cells.shell_for(namespace)
    step = _step_number(request.filename)
    capture = PrintedCapture()
    with capture.capturing(tee=True):
        run = cells.run_cell(shell, request.source, request.filename, namespace, capture,
                             forward=service.in_kernel)
    transformed = shell.transform_cell(request.source)
    bound = cells.bound_names(transformed)
    if run.error is not None:
        # Explained first: a step's own names are not the cause of its own error.
        explanation = cells.explain_cell_error(run.error, request.filename, service.unbound)
        for name, verb in bound.items():
            if name not in namespace:  # the first failed step that was to bind it is the cause
                service.unbound.setdefault(name, (step, verb))
        raise UserCodeError(explanation, tuple(run.outputs))
    for name in bound:
        service.unbound.pop(name, None)
    service.loaded = LoadedSource(request.source, request.filename, namespace,
                                  list_functions(namespace, request.filename))
    functions = tuple(service.loaded.functions)
    trace = request.trace
    reply = None
    if trace is not None and any(f.name == trace.name for f in functions):
        reply = service.handle(trace, Context(trace.id, context.emit, context.should_stop))
    call = last_call(transformed, namespace, service.user_files)
    return p.Functions(request.filename, functions, reply, capture.result(), tuple(run.outputs),
                       run.dropped, call)


def _step_number(filename: str) -> int:
    """``"name.ipynb, step 12"`` -> 12 (0 for a file that is not a lesson step)."""
    head, _, number = filename.rpartition(", step ")
    return int(number) if head and number.isdigit() else 0


@handles(p.ListFunctions)
def _list(service: Service, request: p.ListFunctions, context: Context) -> p.Functions:
    loaded = service.require_loaded()
    return p.Functions(loaded.filename, tuple(loaded.functions))


@handles(p.Trace)
def _trace(service: Service, request: p.Trace, context: Context) -> p.ResultValue:
    from workbench.engine.trace import trace_function

    return trace_function(service.require_loaded(), request.name, request.args,
                          tuple(request.transforms))


@handles(p.Lower)
def _lower(service: Service, request: p.Lower, context: Context) -> Any:
    try:
        from workbench.engine.lowering import lower_function
    except ImportError:
        raise UsageError("lowering is not available in this engine") from None
    return lower_function(service.require_loaded(), request.name, request.args,
                          tuple(request.transforms), hlo=request.hlo, cost=request.cost)


@handles(p.Devices)
def _devices(service: Service, request: p.Devices, context: Context) -> p.ResultValue:
    from workbench.engine.devices import list_devices

    return list_devices()


@handles(p.WaitDevices)
def _wait_devices(service: Service, request: p.WaitDevices, context: Context) -> p.ResultValue:
    from workbench.engine.devices import wait_devices

    return wait_devices(request.timeout)


@handles(p.SampleCurves)
def _curves(service: Service, request: p.SampleCurves, context: Context) -> p.ResultValue:
    from workbench.engine.curves import check_derivatives, sample_curves

    loaded = service.require_loaded()
    curves = sample_curves(loaded, request.name, order=request.order,
                           lo=request.lo, hi=request.hi, points=request.points,
                           params=request.params, wrt=request.wrt)
    if request.check:
        return replace(curves, checks=check_derivatives(loaded, curves))
    return curves


@handles(p.CurvesAt)
def _curves_at(service: Service, request: p.CurvesAt, context: Context) -> p.ResultValue:
    from workbench.engine.curves import curves_at

    return curves_at(service.require_loaded(), request.name, request.x, order=request.order,
                     params=request.params, wrt=request.wrt)


@handles(p.Hessian)
def _hessian(service: Service, request: p.Hessian, context: Context) -> p.ResultValue:
    from workbench.engine.curves import gradient_hessian

    return gradient_hessian(service.require_loaded(), request.name, request.point,
                            params=request.params, wrt=request.wrt)


@handles(p.KMeans)
def _kmeans(service: Service, request: p.KMeans, context: Context) -> p.ResultValue:
    from workbench.engine.kmeans.demo import run_demo

    return run_demo(
        request.dataset, n=request.n, k=request.k,
        blob_k=request.blob_k, spread=request.spread, seed=request.seed, path=request.path,
        init=request.init, centroids=request.centroids, max_iter=request.max_iter,
        tol=request.tol, devices=request.devices,
    )


@handles(p.RunKMeans)
def _run_kmeans(service: Service, request: p.RunKMeans, context: Context) -> p.ResultValue:
    from workbench.engine.kmeans.demo import run_headless

    return run_headless(
        request.dataset, points=request.points, n=request.n, k=request.k,
        spread=request.spread, seed=request.seed, init=request.init,
        centroids=request.centroids, max_iter=request.max_iter, tol=request.tol,
        with_points=request.with_points, devices=request.devices,
    )


@handles(p.Time)
def _time(service: Service, request: p.Time, context: Context) -> p.ResultValue:
    from workbench.engine.timing import TimingConfig, time_function

    def on_progress(event: Any) -> None:
        context.progress(event.done, event.total, event.label, event.point)

    config = request.config or TimingConfig()
    # In the kernel Stop arrives as KeyboardInterrupt (a Cancelled reply); in-process a
    # caller may also stop it between measurements through the context.
    return time_function(service.require_loaded(), request.name, request.args,
                         devices=request.devices, modes=request.modes,
                         baseline=request.baseline, sweep=request.sweep,
                         config=config, on_progress=on_progress,
                         should_stop=context.should_stop)


@handles(p.Values)
def _values(service: Service, request: p.Values, context: Context) -> p.ResultValue:
    from workbench.engine.values import evaluate_values

    # A run-time error in the user's program is part of the result (values up to it),
    # not a failure reply; Stop between equations is a KeyboardInterrupt (Cancelled).
    return evaluate_values(service.require_loaded(), request.name, request.args,
                           tuple(request.transforms), should_stop=context.should_stop)


@handles(p.VarArray)
def _var_array(service: Service, request: p.VarArray, context: Context) -> p.ResultValue:
    from workbench.engine.values import variable_array

    return variable_array(service.require_loaded(), request.name, request.args,
                          tuple(request.transforms), request.ref)
