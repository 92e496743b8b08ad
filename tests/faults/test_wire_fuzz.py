"""Fuzzing the wire decoder: any JSON and any buffers give a value or a ProtocolError.

Then the same kind of messages go to a real kernel, which answers every one with
a usage error (or a result) and still answers a ping afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kernel_util import send_raw
from workbench.api import codec
from workbench.api import messages as p

MARKERS = ("$tuple", "$list", "$dict", "$float", "$array", "$scalar", "$bytes", "$type")
TAGS = [codec.tag_of(cls) for cls in codec.WIRE_TYPES] + ["os:system", "", "Request"]
FIELD_NAMES = sorted({f.name for cls in codec.WIRE_TYPES for f in dataclasses.fields(cls)})
GOOD = "def f(x, a=1.0):\n    return jnp.sin(x) * a\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # handlers get past "no source loaded yet"

json_scalars = (st.none() | st.booleans() | st.integers() | st.text(max_size=20)
                | st.floats(allow_nan=False, allow_infinity=False))
any_json = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(MARKERS) | st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
# Close to real messages: a known tag, known field names, values of any JSON shape,
# often the loaded function's name and plausible specs and transforms.
plausible = st.sampled_from(["f", "f", "f32[3]", "f32[]", "grad", "jit", "all", "eager", 0, 2])
wire_value = st.recursive(
    json_scalars | plausible,
    lambda inner: st.builds(lambda items: {"$tuple": items}, st.lists(inner, max_size=3))
    | st.builds(lambda items: {"$list": items}, st.lists(inner, max_size=3))
    | st.builds(lambda pairs: {"$dict": [list(pair) for pair in pairs]},
                st.lists(st.tuples(inner, inner), max_size=3))
    | st.builds(lambda index, dtype, shape: {"$array": index, "dtype": dtype, "shape": shape},
                st.integers(-1, 3), st.sampled_from(["float32", "int64", "bool", "O", "x"]),
                st.lists(st.integers(-2, 4), max_size=3))
    | st.builds(lambda tag, fields: {"$type": tag, "fields": fields},
                st.sampled_from(TAGS), st.dictionaries(st.sampled_from(FIELD_NAMES), inner,
                                                       max_size=4)),
    max_leaves=20,
)
REQUESTS = [cls for cls in codec.WIRE_TYPES if issubclass(cls, p.Request)]


def _fields_of(cls: type) -> st.SearchStrategy[dict]:
    """Every required field of ``cls`` and some optional ones, with values of any shape."""
    fields = [f for f in dataclasses.fields(cls) if f.init and f.name != "id"]
    required = [f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    optional = [f.name for f in fields if f.name not in required]
    return st.fixed_dictionaries({name: wire_value for name in required},
                                 optional={name: wire_value for name in optional})


messages = st.builds(
    lambda version, body: {"protocol": version, "body": body},
    st.sampled_from([p.PROTOCOL_VERSION] * 4 + [1, "2", None, True]),
    st.sampled_from(REQUESTS).flatmap(
        lambda cls: st.builds(lambda fields: {"$type": codec.tag_of(cls), "fields": fields},
                              _fields_of(cls)))
    | st.builds(lambda tag, fields: {"$type": tag, "fields": fields}, st.sampled_from(TAGS),
                st.dictionaries(st.sampled_from(FIELD_NAMES), wire_value, max_size=4)),
)
buffer_lists = st.lists(st.binary(max_size=64), max_size=3)


def _decode_or_protocol_error(message: object, buffers: list[bytes]) -> None:
    with contextlib.suppress(codec.ProtocolError):
        codec.decode(message, buffers)


@settings(max_examples=400, deadline=None)
@given(message=any_json, buffers=buffer_lists)
def test_any_json_decodes_or_is_a_protocol_error(message, buffers):
    _decode_or_protocol_error({"protocol": p.PROTOCOL_VERSION, "body": message}, buffers)
    _decode_or_protocol_error(message, buffers)


@settings(max_examples=400, deadline=None)
@given(message=messages, buffers=buffer_lists)
def test_message_shaped_json_decodes_or_is_a_protocol_error(message, buffers):
    _decode_or_protocol_error(message, buffers)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=messages, buffers=buffer_lists)
def test_the_kernel_answers_every_fuzzed_message_and_then_a_ping(engine, message, buffers):
    message["body"]["fields"]["id"] = "fuzz"
    reply = send_raw(engine.client, message, buffers, rid="fuzz")
    # Our own bug would be an EngineFailure: only results and usage errors are allowed.
    assert isinstance(reply, (p.Result, p.UsageFailure, p.UserCodeFailure)), reply
    assert isinstance(engine.call(p.Ping(), timeout=5), p.Result)


# --------------------------------------------------------------------------- typed requests


def _values(hint: object) -> st.SearchStrategy:
    """Values of the annotation ``hint``, extremes included (what the codec lets through)."""
    import types
    from typing import Literal, Union, get_args, get_origin

    import numpy as np

    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (Union, types.UnionType):
        return st.one_of([_values(a) for a in args])
    if hint is type(None):
        return st.none()
    if origin is tuple:
        return st.lists(_values(args[0]), max_size=3).map(tuple)
    if origin is dict:
        return st.dictionaries(_values(args[0]), _values(args[1]), max_size=2)
    if hint is str:
        return st.sampled_from(["f", "a", "x", "f32[3]", "f32[]", ""]) | st.text(max_size=8)
    if hint is int:
        return st.integers(-3, 5) | st.integers()
    if hint is float:
        return st.floats() | st.sampled_from([0.0, 1.0, -5.0, 5.0])
    if hint is bool:
        return st.booleans()
    if hint is np.ndarray:
        return st.sampled_from([np.zeros((2, 2)), np.zeros((0, 3)), np.full((4, 2), np.nan)])
    assert dataclasses.is_dataclass(hint), hint
    return _request(hint)


def _request(cls: type) -> st.SearchStrategy:
    hints = codec._hints(cls)
    fields = {f.name: _values(hints[f.name]) for f in dataclasses.fields(cls)
              if f.init and f.name != "id"}
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


# Time measures for seconds by design and LoadSource runs code: both have their own tests.
TYPED = [cls for cls in REQUESTS if cls not in (p.Time, p.LoadSource)]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request=st.sampled_from(TYPED).flatmap(_request))
def test_requests_of_the_right_types_never_fail_inside_the_engine(engine, request):
    """Through the kernel: its memory cap turns a runaway allocation into an error reply."""
    reply = engine.call(request, timeout=60)
    assert not isinstance(reply, p.EngineFailure), (request, reply.message)
