"""The request/reply protocol between the GUI and the engine, as typed frozen dataclasses.

Every request carries an ``id``; every reply and event names the request it
answers, so the client can drop a late reply to a superseded request. On the
wire a value becomes a JSON-able dict plus a list of binary buffers: numpy
arrays travel as raw bytes (dtype and shape in the JSON), never as JSON
lists. Only registered dataclasses (and those of the engine modules listed in
``RESULT_MODULES``) can be decoded: no pickle, no eval, no arbitrary imports.

This module never imports jax: the GUI process decodes replies with it.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.engine.errors import Explanation

PROTOCOL_VERSION = 1
COMM_TARGET = "workbench.engine"

# Engine modules whose dataclasses may appear in results. Decoding imports one
# of them only when a reply names it, so each must import jax lazily.
RESULT_MODULES: tuple[str, ...] = (
    "workbench.engine.errors",
    "workbench.engine.source",
    "workbench.engine.devices",
    "workbench.engine.trace",
    "workbench.engine.lowering",
    "workbench.engine.jaxpr_tree",
    "workbench.engine.source_info",
    "workbench.engine.curves",
    "workbench.engine.timing",
    "workbench.engine.kmeans",
    "workbench.engine.kmeans.run",
    "workbench.engine.kmeans.demo",
)


class ProtocolError(ValueError):
    """A message that does not follow the protocol (unknown type, bad field, bad buffer)."""


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
class LoadSource(Request):
    """Run the editor source (in the kernel: in the console's namespace)."""

    source: str
    filename: str = "editor.py"


@dataclass(frozen=True, kw_only=True)
class ListFunctions(Request):
    """The functions of the last loaded source."""


@dataclass(frozen=True, kw_only=True)
class Trace(Request):
    """The jaxpr of ``name`` called with ``args`` (an argument spec) under ``transforms``."""

    name: str
    args: str = ""
    transforms: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Lower(Request):
    """The lowered (StableHLO/HLO) text and cost analysis of ``name``."""

    name: str
    args: str = ""
    transforms: tuple[str, ...] = ()
    hlo: str = "stablehlo"  # lowering.HLO_KINDS
    cost: bool = False


@dataclass(frozen=True, kw_only=True)
class Devices(Request):
    """Every device JAX can use in the engine process."""


@dataclass(frozen=True, kw_only=True)
class SampleCurves(Request):
    """f and its derivatives on [lo, hi] (``curves.sample_curves``); arrays come back."""

    name: str
    order: int = 2
    lo: float = -5.0
    hi: float = 5.0
    points: int = 1000
    params: dict[str, float] | None = None
    wrt: str | None = None


@dataclass(frozen=True, kw_only=True)
class Hessian(Request):
    """Value, gradient and Hessian of f: R^n -> R at ``point`` (``curves.gradient_hessian``)."""

    name: str
    point: tuple[float, ...]
    params: dict[str, float] | None = None
    wrt: str | None = None


@dataclass(frozen=True, kw_only=True)
class KMeans(Request):
    """A recorded k-means run for the demo (``kmeans.demo.run_demo``): data and every frame."""

    dataset: str = "tutorial"  # tutorial | blobs | file
    n: int = 1000
    k: int = 4
    blob_k: int | None = None  # blobs to draw the data from (None: k)
    spread: float = 1.0
    seed: int = 0
    path: str | None = None
    init: str = "kmeans++"  # kmeans++ | random | farthest | given
    centroids: Any = None  # numpy [K, 2] for init="given"
    max_iter: int = 100
    tol: float = 1e-5


@dataclass(frozen=True, kw_only=True)
class Time(Request):
    """jit vs eager timings (``timing.time_function``); each measurement is a Progress event."""

    name: str
    args: str
    devices: str = "all"
    modes: tuple[str, ...] = ("eager", "jit")
    baseline: str | None = None
    sweep: str | None = None
    config: Any = None  # timing.TimingConfig, a dict of its fields, or None for its defaults


@dataclass(frozen=True, kw_only=True)
class Call(Request):
    """Generic engine call for the curves/timing/k-means operations: ``op`` names a handler."""

    op: str
    params: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Reply:
    """Base of every reply: ``id`` is the request's."""

    id: str


@dataclass(frozen=True)
class Result(Reply):
    """Success; ``value`` is the engine's plain-data result (a dataclass of the engine)."""

    value: Any = None


@dataclass(frozen=True)
class UserCodeFailure(Reply):
    """The user's code raised; the catalog explains it."""

    explanation: Explanation


@dataclass(frozen=True)
class UsageFailure(Reply):
    """The request itself was wrong (unknown function, bad spec, malformed message)."""

    message: str


@dataclass(frozen=True)
class Cancelled(Reply):
    """The request was stopped (Stop, or its engine was restarted) before it finished."""

    reason: str


@dataclass(frozen=True)
class EngineFailure(Reply):
    """The engine could not answer: a bug of ours, or the engine process died."""

    message: str
    fault: str = ""


@dataclass(frozen=True)
class Pong:
    """What ``Ping`` answers: who the engine is."""

    pid: int
    protocol: int
    in_kernel: bool
    memory_limit: int | None = None


@dataclass(frozen=True)
class Functions:
    """What ``LoadSource`` and ``ListFunctions`` answer."""

    filename: str
    functions: tuple[Any, ...]  # source.FunctionInfo


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Event:
    """Something a running request reports before its reply."""

    id: str


@dataclass(frozen=True)
class Progress(Event):
    """``done`` of ``total`` steps; ``value`` an optional partial result."""

    done: int
    total: int
    message: str = ""
    value: Any = None


@dataclass(frozen=True)
class Output(Event):
    """User stdout/stderr, batched; ``truncated`` marks that ``dropped`` characters were cut."""

    stream: str
    text: str
    truncated: bool = False
    dropped: int = 0


# --------------------------------------------------------------------------- registry

_REGISTRY: dict[str, type] = {}


def tag_of(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def register(cls: type) -> type:
    """Allow the dataclass ``cls`` to cross the wire (usable as a decorator)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    _REGISTRY[tag_of(cls)] = cls
    return cls


for _cls in (
    Ping, LoadSource, ListFunctions, Trace, Lower, Devices, SampleCurves, Hessian, KMeans, Time,
    Call,
    Result, UserCodeFailure, UsageFailure, Cancelled, EngineFailure, Pong, Functions,
    Progress, Output, Explanation,
):  # fmt: skip
    register(_cls)


def _resolve(tag: str) -> type:
    cls = _REGISTRY.get(tag)
    if cls is not None:
        return cls
    module, _, qualname = tag.partition(":")
    if module not in RESULT_MODULES or not qualname:
        raise ProtocolError(f"type {tag!r} is not allowed on the wire")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ProtocolError(f"unknown type {tag!r}") from exc
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise ProtocolError(f"{tag!r} is not a dataclass")
    return register(obj)


def _allowed_to_encode(cls: type) -> bool:
    return tag_of(cls) in _REGISTRY or cls.__module__ in RESULT_MODULES


# --------------------------------------------------------------------------- encoding


def encode(obj: Any) -> tuple[dict[str, Any], list[memoryview]]:
    """``obj`` as (JSON-able dict, buffers); raises TypeError for a value that cannot travel."""
    buffers: list[memoryview] = []
    return {"protocol": PROTOCOL_VERSION, "body": _enc(obj, buffers)}, buffers


def _enc(obj: Any, buffers: list[memoryview]) -> Any:
    if isinstance(obj, np.generic):  # before float: np.float64 is a float subclass
        return _enc_array(np.asarray(obj), buffers, "$scalar")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"$float": repr(obj)}
    if isinstance(obj, tuple):
        return {"$tuple": [_enc(x, buffers) for x in obj]}
    if isinstance(obj, list):
        return {"$list": [_enc(x, buffers) for x in obj]}
    if isinstance(obj, dict):
        return {"$dict": [[_enc(k, buffers), _enc(v, buffers)] for k, v in obj.items()]}
    if isinstance(obj, np.ndarray):
        return _enc_array(obj, buffers, "$array")
    if isinstance(obj, (bytes, bytearray)):
        buffers.append(memoryview(bytes(obj)))
        return {"$bytes": len(buffers) - 1}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        if not _allowed_to_encode(cls):
            raise TypeError(f"{tag_of(cls)} is not registered with the protocol")
        fields = {
            f.name: _enc(getattr(obj, f.name), buffers) for f in dataclasses.fields(obj) if f.init
        }
        return {"$type": tag_of(cls), "fields": fields}
    raise TypeError(f"a {type(obj).__module__}.{type(obj).__qualname__} cannot cross the wire")


def _enc_array(arr: np.ndarray, buffers: list[memoryview], marker: str) -> dict[str, Any]:
    if arr.dtype.hasobject:
        raise TypeError("object arrays cannot cross the wire")
    data = arr if arr.flags.c_contiguous else arr.copy(order="C")
    # Bytes via a uint8 view: memoryview cannot describe bfloat16 and friends.
    buffers.append(memoryview(data.reshape(-1).view(np.uint8)) if data.size else memoryview(b""))
    return {marker: len(buffers) - 1, "dtype": data.dtype.name, "shape": list(data.shape)}


def decode(message: Any, buffers: list[Any] | tuple[Any, ...] = ()) -> Any:
    """The value ``encode`` made; ProtocolError for anything else."""
    if not isinstance(message, dict) or message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(f"not a workbench protocol {PROTOCOL_VERSION} message")
    if "body" not in message:
        raise ProtocolError("message without a body")
    return _dec(message["body"], list(buffers))


def _dtype(name: Any) -> np.dtype:
    if not isinstance(name, str):
        raise ProtocolError("bad dtype")
    try:
        dtype = np.dtype(name)
    except TypeError:
        try:  # bfloat16 and friends: numpy-only, no jax
            import ml_dtypes

            dtype = np.dtype(getattr(ml_dtypes, name))
        except (ImportError, AttributeError, TypeError) as exc:
            raise ProtocolError(f"unknown dtype {name!r}") from exc
    if dtype.hasobject or dtype.fields is not None:
        raise ProtocolError(f"dtype {name!r} cannot cross the wire")
    return dtype


def _buffer(index: Any, buffers: list[Any]) -> memoryview:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(buffers):
        raise ProtocolError(f"bad buffer index {index!r}")
    return memoryview(buffers[index]).cast("B")


def _dec(obj: Any, buffers: list[Any]) -> Any:
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if not isinstance(obj, dict) or not obj:
        raise ProtocolError(f"unexpected {type(obj).__name__} in message")
    if "$tuple" in obj:
        return tuple(_dec(x, buffers) for x in _as_list(obj["$tuple"]))
    if "$list" in obj:
        return [_dec(x, buffers) for x in _as_list(obj["$list"])]
    if "$dict" in obj:
        out = {}
        for pair in _as_list(obj["$dict"]):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ProtocolError("bad dict item")
            key = _dec(pair[0], buffers)
            try:
                out[key] = _dec(pair[1], buffers)
            except TypeError as exc:  # an unhashable key
                raise ProtocolError("bad dict key") from exc
        return out
    if "$float" in obj:
        if obj["$float"] not in ("nan", "inf", "-inf"):
            raise ProtocolError("bad float")
        return float(obj["$float"])
    if "$array" in obj or "$scalar" in obj:
        return _dec_array(obj, buffers)
    if "$bytes" in obj:
        return bytes(_buffer(obj["$bytes"], buffers))
    if "$type" in obj:
        cls = _resolve(str(obj["$type"]))
        fields = obj.get("fields")
        if not isinstance(fields, dict):
            raise ProtocolError("dataclass without fields")
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        if not set(fields) <= names:
            raise ProtocolError(f"unknown fields {sorted(set(fields) - names)} of {cls.__name__}")
        try:
            return cls(**{k: _dec(v, buffers) for k, v in fields.items()})
        except TypeError as exc:
            raise ProtocolError(f"bad {cls.__name__}: {exc}") from exc
    raise ProtocolError(f"unknown value marker {sorted(obj)[:3]}")


def _as_list(obj: Any) -> list[Any]:
    if not isinstance(obj, list):
        raise ProtocolError("expected a list")
    return obj


def _dec_array(obj: dict[str, Any], buffers: list[Any]) -> Any:
    scalar = "$scalar" in obj
    buf = _buffer(obj["$scalar" if scalar else "$array"], buffers)
    dtype = _dtype(obj.get("dtype"))
    shape = obj.get("shape")
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise ProtocolError("bad shape")
    count = math.prod(shape)
    if count * dtype.itemsize != buf.nbytes:
        raise ProtocolError(f"buffer of {buf.nbytes} bytes for {dtype.name}{shape}")
    # A copy: the buffer belongs to the message, the array to the receiver.
    arr = np.frombuffer(buf, dtype=dtype, count=count).reshape(shape).copy()
    return arr[()] if scalar else arr
