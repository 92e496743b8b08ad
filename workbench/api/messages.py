"""Requests the window sends, replies and events the engine sends back, as frozen dataclasses.

Every request carries an ``id``; every reply and event names the request it
answers, so a late reply to a superseded request can be dropped. A
successful reply is a ``Result`` whose ``value`` is one of ``ResultValue``;
``result_value`` reads it with its type checked. Adding an operation means a
request here, its result type in a sibling module, a line in
``codec.WIRE_TYPES`` and a handler in ``workbench.engine.service``
(docs/architecture.md walks through it).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from workbench.api.cells import CellOutput
from workbench.api.choices import Dataset, DemoInit, HloKind, Init, Mode, Transform
from workbench.api.curves import Curves, PointDerivatives, PointValues
from workbench.api.devices import DeviceReport, DevicesQuiet
from workbench.api.errors import Explanation
from workbench.api.functions import CalledWith, FunctionInfo
from workbench.api.jaxpr import LoweringResult, TraceResult
from workbench.api.kmeans import KMeansDemo
from workbench.api.printed import Printed
from workbench.api.timing import SweepPoint, TimingConfig, TimingReport
from workbench.api.values import ArrayValue, ValuesResult, VarRef

if TYPE_CHECKING:  # numpy loads with the codec, after the window's first frame
    import numpy as np

PROTOCOL_VERSION = 2
COMM_TARGET = "workbench.engine"
WHERE_REQUEST = "workbench_where_request"
"""A control-channel message Stop sends beside the interrupt. The kernel's control thread
answers ``WHERE_REPLY`` with the line of the user's code its main thread is at (content
``{"file": str, "line": int, "in_jax": bool, "threads": str}``; line 0: none; threads: the
user's own threads that still run, in words), even while that thread is deaf to the
interrupt inside a compiled computation."""
WHERE_REPLY = "workbench_where_reply"


def new_id() -> str:
    return uuid.uuid4().hex[:12]


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True, kw_only=True)
class Request:
    """Base of every request; ``id`` defaults to a fresh unique one."""

    id: str = field(default_factory=new_id)


@dataclass(frozen=True, kw_only=True)
class Ping(Request):
    """Cheapest round trip: proves the engine answers."""


@dataclass(frozen=True, kw_only=True)
class Trace(Request):
    """The jaxpr of ``name`` called with ``args`` (an argument spec) under ``transforms``."""

    name: str
    args: str = ""
    transforms: tuple[Transform, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Values(Request):
    """Every variable's value when the traced call runs on its spec's example arguments.

    The same jaxpr ``Trace`` returns (the trace is cached), run equation by
    equation with JAX itself; the reply is a ``ValuesResult``.
    """

    name: str
    args: str = ""
    transforms: tuple[Transform, ...] = ()


@dataclass(frozen=True, kw_only=True)
class VarArray(Request):
    """The full array of one variable of that run (strided past ``FULL_ARRAY_MAX`` elements)."""

    name: str
    args: str = ""
    transforms: tuple[Transform, ...] = ()
    ref: VarRef = VarRef()


@dataclass(frozen=True, kw_only=True)
class LoadSource(Request):
    """Run the editor source (in the kernel: in the console's namespace).

    With ``trace``, the same round trip then traces that call when the new
    source still defines its function: a live edit costs one request.
    """

    source: str
    filename: str = "editor.py"
    trace: Trace | None = None
    keep_names: bool = False
    """Keep the names earlier sources defined (a lesson's steps build on each other, as a
    notebook's cells do); otherwise a function the new source no longer defines is dropped."""
    cell: bool = False
    """Run it as Jupyter runs a notebook cell (IPython's magics, ``!`` lines, display hook):
    ``Functions.outputs`` then holds what it showed. Implies ``keep_names``."""


@dataclass(frozen=True, kw_only=True)
class ListFunctions(Request):
    """The functions of the last loaded source."""


@dataclass(frozen=True, kw_only=True)
class Lower(Request):
    """The lowered (StableHLO/HLO) text and cost analysis of ``name``."""

    name: str
    args: str = ""
    transforms: tuple[Transform, ...] = ()
    hlo: HloKind = "stablehlo"
    cost: bool = False


@dataclass(frozen=True, kw_only=True)
class Devices(Request):
    """Every device JAX can use in the engine process."""


@dataclass(frozen=True, kw_only=True)
class WaitDevices(Request):
    """Wait up to ``timeout`` seconds for the work already queued on every device to end.

    Stop sends it once the interrupted request has answered: only a quiet device
    means the engine is really idle.
    """

    timeout: float = 1.0


@dataclass(frozen=True, kw_only=True)
class SampleCurves(Request):
    """f and its derivatives on [lo, hi]; the arrays come back as buffers.

    ``check`` also compares each derivative with a central difference (``Curves.checks``).
    """

    name: str
    order: int = 2
    lo: float = -5.0
    hi: float = 5.0
    points: int = 1000
    params: dict[str, float] | None = None
    wrt: str | None = None
    check: bool = False


@dataclass(frozen=True, kw_only=True)
class CurvesAt(Request):
    """f and its derivatives at exactly ``x`` (the crosshair), and whether they exist there."""

    name: str
    x: float
    order: int = 2
    params: dict[str, float] | None = None
    wrt: str | None = None


@dataclass(frozen=True, kw_only=True)
class Hessian(Request):
    """Value, gradient and Hessian of f: R^n -> R at ``point``."""

    name: str
    point: tuple[float, ...]
    params: dict[str, float] | None = None
    wrt: str | None = None


@dataclass(frozen=True, kw_only=True)
class KMeans(Request):
    """A recorded k-means run for the demo: its data and every frame."""

    dataset: Dataset = "tutorial"
    n: int = 1000
    k: int = 4
    blob_k: int | None = None  # blobs to draw the data from (None: k)
    spread: float = 1.0
    seed: int = 0
    path: str | None = None
    init: DemoInit = "kmeans++"
    centroids: np.ndarray | None = None  # [K, 2] for init="given"
    max_iter: int = 100
    tol: float = 1e-5
    devices: str | None = None  # None: one device; "all" (or a --devices spec): sharded


@dataclass(frozen=True, kw_only=True)
class RunKMeans(Request):
    """Lloyd's k-means as the ``kmeans`` command runs it: any N x D data, no animation limits.

    The data is the tutorial's, blobs drawn in the engine, or ``points`` the
    client read (a file on its own machine, which the engine may not see); the
    start ``init`` or the client's ``centroids``. The reply is a ``KMeansDemo``
    whose ``points`` are the first two columns when ``with_points`` (to draw
    them), else empty.
    """

    dataset: Dataset = "tutorial"
    points: np.ndarray | None = None  # dataset "file"
    n: int = 0  # blobs
    k: int | None = None
    spread: float = 1.0
    seed: int = 0
    init: Init = "kmeans++"
    centroids: np.ndarray | None = None  # given starting centroids: init is not used
    max_iter: int = 100
    tol: float = 1e-5
    with_points: bool = False
    devices: str | None = None  # None: one device; "all" (or a --devices spec): sharded


@dataclass(frozen=True, kw_only=True)
class Time(Request):
    """jit vs eager timings; each measurement is reported as a ``Progress`` event."""

    name: str
    args: str
    devices: str = "all"  # a DeviceChoice, a device such as "cpu:1", or a comma-separated list
    modes: tuple[Mode, ...] = ("eager", "jit")
    baseline: str | None = None
    sweep: str | None = None
    config: TimingConfig | None = None  # None: TimingConfig's defaults


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Reply:
    """Base of every reply: ``id`` is the request's."""

    id: str


@dataclass(frozen=True)
class Pong:
    """What ``Ping`` answers: who the engine is."""

    pid: int
    protocol: int
    in_kernel: bool
    memory_limit: int | None = None


@dataclass(frozen=True)
class Functions:
    """What ``LoadSource`` and ``ListFunctions`` answer.

    ``trace`` is the reply to the ``Trace`` a ``LoadSource`` carried (None when
    it carried none, or when the new source no longer defines that function).
    ``printed`` is what the source's top-level code printed while it ran.
    """

    filename: str
    functions: tuple[FunctionInfo, ...]
    trace: Reply | None = None
    printed: Printed = Printed()
    outputs: tuple[CellOutput, ...] = ()
    """A cell's outputs in order (``LoadSource(cell=True)``); its printed text among them."""
    outputs_dropped: int = 0
    call: CalledWith | None = None
    """A cell's last call of a lesson function, at the arguments it passed (None: none)."""


ResultValue = (
    Pong | Functions | TraceResult | LoweringResult | DeviceReport | DevicesQuiet | Curves
    | PointDerivatives | PointValues | KMeansDemo | TimingReport | ValuesResult | ArrayValue
)


@dataclass(frozen=True)
class Result(Reply):
    """Success; ``value`` is the operation's plain-data result."""

    value: ResultValue


@dataclass(frozen=True)
class UserCodeFailure(Reply):
    """The user's code raised; the catalog explains it. A notebook cell's ``outputs`` are what
    it showed before it raised."""

    explanation: Explanation
    outputs: tuple[CellOutput, ...] = ()


@dataclass(frozen=True)
class UsageFailure(Reply):
    """The request itself was wrong (unknown function, bad spec, malformed message).

    ``field`` names the input at fault when one is (``"args"``: the argument spec).
    ``exit_code`` is the CLI's status for it: 2 for a mistake in the command, 1 for what
    the machine lacks (a platform ``--devices`` names that is not there).
    """

    message: str
    field: str = ""
    exit_code: int = 2


@dataclass(frozen=True)
class Cancelled(Reply):
    """The request was stopped (Stop, or its engine was restarted) before it finished.

    ``line`` and ``file``: where the user's code was when it heard the Stop (the innermost
    frame of the editor's file or a lesson step's); 0 and "" when no user code was running.
    """

    reason: str
    line: int = 0
    file: str = ""
    threads: str = ""
    """The threads the user's code started that still run (a Stop does not end them), in
    words; "" when none."""


@dataclass(frozen=True)
class EngineFailure(Reply):
    """The engine could not answer: a bug of ours, or the engine process died."""

    message: str
    fault: str = ""
    crashed: bool = False
    """The engine died, or was restarted, under the request: the crash notice reports it."""


Failure = UserCodeFailure | UsageFailure | Cancelled | EngineFailure

V = TypeVar("V")


def result_value(reply: Reply, kind: type[V]) -> V | None:
    """The value of a successful ``reply`` if it is a ``kind``; None for any other reply."""
    if isinstance(reply, Result) and isinstance(reply.value, kind):
        return reply.value
    return None


def reply_text(reply: Reply) -> str:
    """Words for a reply that is not the expected result: for user code the catalog's
    title (with its line) and hint, a student can act on."""
    if isinstance(reply, UserCodeFailure):
        ex = reply.explanation
        where = f"line {ex.line}: " if ex.line else ""
        return f"{where}{ex.title}" + (f"\n{ex.hint}" if ex.hint else "")
    if isinstance(reply, UsageFailure | EngineFailure):
        return reply.message
    if isinstance(reply, Cancelled):
        return f"cancelled: {reply.reason}"
    if isinstance(reply, Result):
        return f"unexpected result: {type(reply.value).__name__}"
    return type(reply).__name__


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event:
    """Something a running request reports before its reply."""

    id: str


@dataclass(frozen=True)
class Progress(Event):
    """``done`` of ``total`` steps; ``value`` a partial result (a sweep point) if any."""

    done: int
    total: int
    message: str = ""
    value: SweepPoint | None = None


@dataclass(frozen=True)
class Output(Event):
    """User stdout/stderr, batched; ``truncated`` marks that ``dropped`` characters were cut.

    ``background`` marks text written by another thread than the one running the
    request (a thread the user's code started): it may belong to an earlier request.
    """

    stream: str
    text: str
    truncated: bool = False
    dropped: int = 0
    background: bool = False


# --------------------------------------------------------------------------- one reply, waited for
# The blocking ``call`` both engine clients (the kernel's, the in-process one) offer scripts,
# tests and benchmarks over their callback-based ``request``.

EventHandler = Callable[[Event], None]
Send = Callable[[Request, Callable[[Reply], None], EventHandler | None], object]


def blocking_call(send: Send, request: Request, timeout: float,
                  on_event: EventHandler | None = None) -> Reply:
    """``send(request, on_reply, on_event)``, then wait for its reply (never call this from
    the thread that runs the callbacks)."""
    done = threading.Event()
    box: list[Reply] = []

    def on_reply(reply: Reply) -> None:
        box.append(reply)
        done.set()

    send(request, on_reply, on_event)
    if not done.wait(timeout):
        raise TimeoutError(f"no reply to {type(request).__name__} within {timeout} s")
    return box[0]
