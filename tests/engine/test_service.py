"""The service in-process, and the protocol's encoding (arrays as buffers, no pickle)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from workbench.engine import protocol as p
from workbench.engine.service import Service

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)


def roundtrip(value):
    data, buffers = p.encode(value)
    wire = json.loads(json.dumps(data, allow_nan=False))  # what Jupyter's packer accepts
    return p.decode(wire, [bytes(b) for b in buffers])


@pytest.fixture
def service():
    s = Service()
    assert isinstance(s.handle(p.LoadSource(source=SELU)), p.Result)
    return s


def test_load_and_list_functions(service):
    reply = service.handle(p.ListFunctions(id="r1"))
    assert reply.id == "r1"
    assert [f.name for f in reply.value.functions] == ["selu"]


def test_trace_reply_survives_the_wire(service):
    reply = service.handle(p.Trace(name="selu", args="f32[8]", transforms=("jit",)))
    assert isinstance(reply, p.Result)
    assert roundtrip(reply) == reply
    assert "pjit" in reply.value.text or "jit" in reply.value.text


def test_devices_reply_survives_the_wire(service):
    reply = service.handle(p.Devices())
    assert roundtrip(reply) == reply


def test_errors_become_replies_never_exceptions(service):
    syntax = service.handle(p.LoadSource(source="def f(:\n"))
    assert isinstance(syntax, p.UserCodeFailure) and syntax.explanation.kind == "syntax"
    raised = service.handle(p.LoadSource(source="x = 1\n1 / 0\n"))
    assert isinstance(raised, p.UserCodeFailure) and raised.explanation.line == 2
    unknown = service.handle(p.Trace(name="nope", args="f32[3]"))
    assert isinstance(unknown, p.UsageFailure) and "selu" in unknown.message
    bad_spec = service.handle(p.Trace(name="selu", args="f32[3"))
    assert isinstance(bad_spec, p.UsageFailure)
    assert isinstance(service.handle(p.Call(op="no-such-op")), p.UsageFailure)
    assert isinstance(service.handle("not a request"), p.UsageFailure)
    stopped = service.handle(p.LoadSource(source="raise KeyboardInterrupt\n"))
    assert isinstance(stopped, p.Cancelled)
    # The last good source is still the loaded one.
    assert [f.name for f in service.handle(p.ListFunctions()).value.functions] == ["selu"]


def test_nothing_loaded_is_a_usage_failure():
    assert isinstance(Service().handle(p.ListFunctions()), p.UsageFailure)


def test_shared_namespace_forgets_a_renamed_function():
    ns: dict = {}
    s = Service(ns)
    s.handle(p.LoadSource(source="def f(x):\n    return x\n"))
    ns["typed_in_console"] = 1
    reply = s.handle(p.LoadSource(source="def g(x):\n    return x\n"))
    assert [f.name for f in reply.value.functions] == ["g"]
    assert "f" not in ns and "g" in ns and ns["typed_in_console"] == 1


def test_arrays_travel_as_buffers_not_json_lists():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    data, buffers = p.encode(p.Result("a", {"x": arr, "s": np.float64(2.5), "t": (1, None)}))
    assert "[0.0, 1.0" not in json.dumps(data)
    assert len(buffers) == 2 and bytes(buffers[0]) == arr.tobytes()
    back = roundtrip(p.Result("a", {"x": arr, "s": np.float64(2.5), "t": (1, None)}))
    np.testing.assert_array_equal(back.value["x"], arr)
    assert back.value["x"].dtype == np.float32 and back.value["t"] == (1, None)
    assert back.value["s"] == 2.5 and isinstance(back.value["s"], np.float64)


def test_special_values_round_trip():
    value = {"nan": float("inf"), 3: [b"\x00raw", np.zeros((0, 2), np.int8)], "t": ()}
    back = roundtrip(value)
    assert back["nan"] == float("inf") and back[3][0] == b"\x00raw"
    assert back[3][1].shape == (0, 2) and back["t"] == ()
    import ml_dtypes

    bf = np.ones(3, dtype=ml_dtypes.bfloat16)
    assert roundtrip(bf).dtype == bf.dtype


@pytest.mark.parametrize(
    "message, buffers",
    [
        ({"protocol": 99, "body": None}, []),
        ({"protocol": 1, "body": {"$type": "os:system", "fields": {}}}, []),
        ({"protocol": 1, "body": {"$type": "builtins:eval", "fields": {}}}, []),
        ({"protocol": 1, "body": {"$type": "workbench.engine.protocol:Ping",
                                  "fields": {"id": "x", "evil": 1}}}, []),
        ({"protocol": 1, "body": {"$array": 0, "dtype": "float32", "shape": [4]}}, [b"123"]),
        ({"protocol": 1, "body": {"$array": 3, "dtype": "float32", "shape": [0]}}, []),
        ({"protocol": 1, "body": {"$array": 0, "dtype": "object", "shape": [1]}}, [b"12345678"]),
        ({"protocol": 1, "body": {"$pickle": "gASVAAAA"}}, []),
        ({"protocol": 1, "body": [1, 2]}, []),
        ("not even a dict", []),
    ],
)
def test_malformed_messages_are_refused(message, buffers):
    with pytest.raises(p.ProtocolError):
        p.decode(message, buffers)


def test_values_that_cannot_travel_are_refused_when_sent():
    with pytest.raises(TypeError):
        p.encode(p.Result("x", object()))
    with pytest.raises(TypeError):
        p.encode(np.array([object()]))


def test_decoding_results_does_not_import_jax():
    """The GUI decodes replies; that must not pull JAX into its process."""
    service = Service()
    service.handle(p.LoadSource(source=SELU))
    reply = service.handle(p.Trace(name="selu", args="f32[3]"))
    data, buffers = p.encode(reply)
    code = (
        "import json, sys\n"
        "from workbench.engine import protocol as p\n"
        "msg = json.loads(sys.stdin.read())\n"
        "r = p.decode(msg, [])\n"
        "assert type(r.value).__name__ == 'TraceResult'\n"
        "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(data),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert buffers == []


def test_memory_limit_settings(monkeypatch):
    from workbench.engine.kernel import accelerator_present, parse_memory_limit, total_memory

    assert parse_memory_limit("off") is None
    assert parse_memory_limit("8G") == 8 * 2**30
    assert parse_memory_limit("0.5") == int(0.5 * total_memory())
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert not accelerator_present()
    assert parse_memory_limit("auto") == max(int(total_memory() * 0.75), 4 * 2**30)
