"""The wire codec: arrays as buffers, an explicit registry of types, no pickle, no jax."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from tests.codec_util import roundtrip
from workbench.api import codec
from workbench.api import messages as p
from workbench.engine.service import Service

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)


def test_arrays_travel_as_buffers_not_json_lists():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    data, buffers = codec.encode(p.Result("a", {"x": arr, "s": np.float64(2.5), "t": (1, None)}))
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


V = p.PROTOCOL_VERSION


@pytest.mark.parametrize(
    "message, buffers",
    [
        ({"protocol": 99, "body": None}, []),
        ({"protocol": V, "body": {"$type": "os:system", "fields": {}}}, []),
        ({"protocol": V, "body": {"$type": "builtins:eval", "fields": {}}}, []),
        ({"protocol": V, "body": {"$type": "Ping",
                                  "fields": {"id": "x", "evil": 1}}}, []),
        ({"protocol": V, "body": {"$array": 0, "dtype": "float32", "shape": [4]}}, [b"123"]),
        ({"protocol": V, "body": {"$array": 3, "dtype": "float32", "shape": [0]}}, []),
        ({"protocol": V, "body": {"$array": 0, "dtype": "object", "shape": [1]}}, [b"12345678"]),
        ({"protocol": V, "body": {"$pickle": "gASVAAAA"}}, []),
        ({"protocol": V, "body": [1, 2]}, []),
        ("not even a dict", []),
    ],
)
def test_malformed_messages_are_refused(message, buffers):
    with pytest.raises(codec.ProtocolError):
        codec.decode(message, buffers)


def test_values_that_cannot_travel_are_refused_when_sent():
    with pytest.raises(TypeError):
        codec.encode(p.Result("x", object()))
    with pytest.raises(TypeError):
        codec.encode(np.array([object()]))


def test_decoding_results_does_not_import_jax():
    """The GUI decodes replies; that must not pull JAX into its process."""
    service = Service()
    service.handle(p.LoadSource(source=SELU))
    reply = service.handle(p.Trace(name="selu", args="f32[3]"))
    data, buffers = codec.encode(reply)
    code = (
        "import json, sys\n"
        "from workbench.api import codec, messages as p\n"
        "msg = json.loads(sys.stdin.read())\n"
        "r = codec.decode(msg, [])\n"
        "assert type(r.value).__name__ == 'TraceResult'\n"
        "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(data),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert buffers == []


def _every_reply() -> list[object]:
    """One reply or event of every kind the window can receive, made by the real engine."""
    from workbench.api.timing import TimingConfig

    service = Service()
    source = SELU + "def energy(x):\n    return jnp.sum(x ** 2)\n"
    tiny = TimingConfig(min_batch_s=1e-4, repeats=2, max_measure_s=0.05, dispatch_samples=2)
    events: list[object] = []
    replies = [
        service.handle(p.Ping()),
        service.handle(p.LoadSource(source=source, trace=p.Trace(name="selu", args="f32[3]"))),
        service.handle(p.ListFunctions()),
        service.handle(p.Trace(name="selu", args="f32[3]", transforms=("jit",))),
        service.handle(p.Lower(name="selu", args="f32[3]", hlo="compiled", cost=True)),
        service.handle(p.Devices()),
        service.handle(p.SampleCurves(name="selu", points=16)),
        service.handle(p.Hessian(name="energy", point=(0.5, 1.0))),
        service.handle(p.KMeans(dataset="blobs", n=64, k=3, max_iter=5)),
        service.handle(p.Time(name="selu", args="f32[8]", sweep=None, config=tiny)),
        service.handle(p.Trace(name="selu", args="f32[2,2]", transforms=("grad",))),  # user code
        service.handle(p.Trace(name="nope")),  # a usage failure
        p.Cancelled("x", "stopped"),
        p.EngineFailure("x", "internal error", "fault"),
        p.Progress("x", 1, 2, "cpu:0 jit", None),
        p.Output("x", "stdout", "hello", True, 3),
    ]
    from workbench.engine.service import Context

    sweep = Service()
    sweep.handle(p.LoadSource(source=SELU))
    sweep.handle(p.Time(name="selu", args="f32[N]", sweep="N=8:16", config=tiny),
                 Context(emit=events.append))
    return replies + events


def test_every_reply_decodes_without_jax_or_the_engine(tmp_path):
    """The window decodes every reply; that must load neither jax nor workbench.engine."""
    kinds = set()
    for i, reply in enumerate(_every_reply()):
        data, buffers = codec.encode(reply)
        (tmp_path / f"{i:02d}.json").write_text(json.dumps(data, allow_nan=False))
        for j, buf in enumerate(buffers):
            (tmp_path / f"{i:02d}.{j}.bin").write_bytes(bytes(buf))
        value = getattr(reply, "value", None)
        kinds.add(type(value).__name__ if value is not None else type(reply).__name__)
    assert kinds >= {"Pong", "Functions", "TraceResult", "LoweringResult", "DeviceReport",
                     "Curves", "PointDerivatives", "KMeansDemo", "TimingReport",
                     "UserCodeFailure", "UsageFailure", "Cancelled", "EngineFailure",
                     "SweepPoint", "Output", "Progress"}
    code = (
        "import json, pathlib, sys\n"
        "from workbench.api import codec\n"
        "folder = pathlib.Path(sys.argv[1])\n"
        "for f in sorted(folder.glob('*.json')):\n"
        "    bufs = [b.read_bytes() for b in sorted(folder.glob(f.stem + '.*.bin'),\n"
        "            key=lambda b: int(b.name.split('.')[1]))]\n"
        "    codec.decode(json.loads(f.read_text()), bufs)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib')\n"
        "             or m.startswith('workbench.engine'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_api_dataclass_is_a_wire_type():
    """A result class added to ``workbench.api`` but not to ``WIRE_TYPES`` could not travel."""
    import importlib
    import pkgutil

    import workbench.api as api

    found = set()
    for info in pkgutil.iter_modules(api.__path__):
        module = importlib.import_module(f"workbench.api.{info.name}")
        for obj in vars(module).values():
            if (isinstance(obj, type) and dataclasses.is_dataclass(obj)
                    and obj.__module__ == module.__name__ and not obj.__name__.startswith("_")):
                found.add(obj)
    not_wire = {p.Request, p.Reply, p.Event, *_local_only()}
    assert found - not_wire <= set(codec.WIRE_TYPES), sorted(
        c.__name__ for c in found - not_wire - set(codec.WIRE_TYPES))


def _local_only() -> tuple[type, ...]:
    """Plain data that never travels: the window's notices, a file as it was read."""
    from workbench.api.limits import OpenedFile
    from workbench.api.state import Notice

    return Notice, OpenedFile
