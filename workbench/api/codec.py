"""Messages on the wire: a JSON-able dict plus binary buffers, no pickle, no imports by name.

numpy arrays travel as raw bytes (dtype and shape in the JSON), never as JSON
lists. Only the dataclasses listed in ``WIRE_TYPES`` cross the wire, each
tagged with its class name; anything else is refused when encoding and a
``ProtocolError`` when decoding. Decoding imports nothing: the window decodes
every reply without loading jax or the engine.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import numpy as np

from workbench.api import (
    cells,
    curves,
    devices,
    errors,
    functions,
    jaxpr,
    kmeans,
    printed,
    timing,
    values,
)
from workbench.api import messages as m
from workbench.api.messages import PROTOCOL_VERSION


class ProtocolError(ValueError):
    """A message that does not follow the protocol (unknown type, bad field, bad buffer)."""


WIRE_TYPES: tuple[type, ...] = (
    # requests
    m.Ping, m.LoadSource, m.ListFunctions, m.Trace, m.Lower, m.Devices, m.SampleCurves,
    m.CurvesAt, m.Hessian, m.KMeans, m.RunKMeans, m.Time, m.WaitDevices, m.Values, m.VarArray,
    # replies and events
    m.Result, m.UserCodeFailure, m.UsageFailure, m.Cancelled, m.EngineFailure, m.Progress,
    m.Output,
    # results
    m.Pong, m.Functions, errors.Explanation, functions.FunctionInfo, functions.ParamInfo,
    functions.CalledWith,
    functions.SyntaxProblem, jaxpr.TraceResult, jaxpr.JaxprNode, jaxpr.Eqn, jaxpr.Var,
    jaxpr.SubJaxpr, jaxpr.JaxprStats, jaxpr.LoweringResult, jaxpr.CostEstimate,
    jaxpr.MemoryStats, devices.DeviceReport, devices.DeviceInfo, devices.DevicesQuiet,
    curves.Curves,
    curves.CurveParam, curves.DerivativeCheck, curves.PointDerivatives, curves.PointValues,
    timing.TimingConfig, timing.TimingReport, timing.ModeResult, timing.LoopStats,
    timing.CompileSplit, timing.DeviceTiming, timing.SweepPoint, kmeans.KMeansRun,
    kmeans.KMeansDemo, printed.Printed, cells.CellOutput, values.ValueSummary, values.CarryTrace,
    values.NodeValues, values.EqnValues, values.ValuesResult, values.VarRef, values.ArrayValue,
)  # fmt: skip

_REGISTRY: dict[str, type] = {}
for _cls in WIRE_TYPES:
    if not dataclasses.is_dataclass(_cls):
        raise TypeError(f"{_cls!r} is not a dataclass")
    if _cls.__qualname__ in _REGISTRY:
        raise TypeError(f"two wire types are called {_cls.__qualname__}")
    _REGISTRY[_cls.__qualname__] = _cls


MAX_DEPTH = 64
"""Nesting levels a message may have; ours use fewer than ten."""


def tag_of(cls: type) -> str:
    return cls.__qualname__


def _resolve(tag: str) -> type:
    cls = _REGISTRY.get(tag)
    if cls is None:
        raise ProtocolError(f"type {tag!r} is not allowed on the wire")
    return cls


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
        if _REGISTRY.get(tag_of(cls)) is not cls:
            raise TypeError(f"{cls.__module__}.{tag_of(cls)} is not a wire type")
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
    buffers.append(data.reshape(-1).view(np.uint8).data if data.size else memoryview(b""))
    return {marker: len(buffers) - 1, "dtype": data.dtype.name, "shape": list(data.shape)}


def decode(message: Any, buffers: list[Any] | tuple[Any, ...] = ()) -> Any:
    """The value ``encode`` made; ProtocolError for anything else.

    A request's fields are checked against their annotations: the engine never
    runs a handler on a value of the wrong type.
    """
    if not isinstance(message, dict) or "protocol" not in message:
        raise ProtocolError(f"not a workbench message (no protocol version; "
                            f"this side speaks protocol {PROTOCOL_VERSION})")
    version = message["protocol"]
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        raise ProtocolError(f"protocol version {str(version)[:20]} is not supported "
                            f"(this side speaks protocol {PROTOCOL_VERSION})")
    if "body" not in message:
        raise ProtocolError("message without a body")
    return _dec(message["body"], list(buffers), 0)


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


def _dec(obj: Any, buffers: list[Any], depth: int) -> Any:
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if not isinstance(obj, dict) or not obj:
        raise ProtocolError(f"unexpected {type(obj).__name__} in message")
    if depth >= MAX_DEPTH:
        raise ProtocolError(f"message nested more than {MAX_DEPTH} levels deep")
    depth += 1
    if "$tuple" in obj:
        return tuple(_dec(x, buffers, depth) for x in _as_list(obj["$tuple"]))
    if "$list" in obj:
        return [_dec(x, buffers, depth) for x in _as_list(obj["$list"])]
    if "$dict" in obj:
        out = {}
        for pair in _as_list(obj["$dict"]):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ProtocolError("bad dict item")
            key = _dec(pair[0], buffers, depth)
            try:
                out[key] = _dec(pair[1], buffers, depth)
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
        names = _init_names(cls)
        if not names.issuperset(fields):
            raise ProtocolError(f"unknown fields {sorted(set(fields) - names)} of {cls.__name__}")
        values = {k: _dec(v, buffers, depth) for k, v in fields.items()}
        if cls in _CHECKED:
            _check_fields(cls, values)
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"bad {cls.__name__}: {exc}") from exc
    raise ProtocolError(f"unknown value marker {sorted(obj)[:3]}")


@functools.cache
def _init_names(cls: type) -> frozenset[str]:
    """The fields a message dataclass is made from (asked for each one decoded: cached)."""
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


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


# --------------------------------------------------------------------------- field types

_CHECKED: frozenset[type] = frozenset(
    cls for cls in WIRE_TYPES if issubclass(cls, m.Request) or cls is timing.TimingConfig
)
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        namespace = {**vars(sys.modules[cls.__module__]), "np": np}
        hints = typing.get_type_hints(cls, globalns=namespace)
        _HINTS[cls] = hints
    return hints


def _check_fields(cls: type, values: dict[str, Any]) -> None:
    hints = _hints(cls)
    for name, value in values.items():
        hint = hints.get(name, Any)
        if not _conforms(value, hint):
            raise ProtocolError(f"{cls.__name__}.{name} must be {_describe(hint)}, "
                                f"not {_describe_value(value)}")


def _conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is what the annotation ``hint`` allows (the shapes our messages use)."""
    if hint is Any or hint is object:
        return True
    if hint is type(None) or hint is None:
        return value is None
    origin = get_origin(hint)
    if origin is Literal:
        return any(type(value) is type(arg) and value == arg for arg in get_args(hint))
    if origin is Union or origin is types.UnionType:
        return any(_conforms(value, arg) for arg in get_args(hint))
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(args) == len(value) and all(map(_conforms, value, args))
    if origin is dict:
        key, item = get_args(hint)
        return isinstance(value, dict) and all(
            _conforms(k, key) and _conforms(v, item) for k, v in value.items()
        )
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    if hint is bool:
        return isinstance(value, (bool, np.bool_))
    if hint is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation our messages do not use: nothing to hold it to


def _describe(hint: Any) -> str:
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"a tuple, each item {_describe(args[0])}"
    if origin is Union or origin is types.UnionType:
        return " or ".join(_describe(a) for a in args)
    if hint is type(None):
        return "None"
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _describe_value(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"
