"""Values needs no more memory than running the function op by op, and a failure keeps none.

Peaks are read in a fresh Python per run (``/proc/self/status``: VmHWM, reset where the
kernel allows it, less VmRSS before the run), after the same run once to compile, so
they are that run's own, the example arguments made before it. A summary once made
whole-array temporaries (four to seven times the array), a jitted region's outputs
waited beside its insides' run, and a failure's exception held the run's arrays in a
reference cycle until ``gc.collect()``. The suite runs with the cyclic collector off
(``tests/conftest.py``), so a cycle stays.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap

import jax
import pytest

from workbench.api import messages as p
from workbench.engine.service import Service
from workbench.engine.source import load_source
from workbench.engine.values import evaluate_values
from workbench.engine.values import run as values_run

MB = 2**20
SIZE = "f32[16000000]"  # 64 MB an array: a few of them past values_run.KEEP_BYTES
MARGIN = 48 * MB
FILENAME = "/lessons/values_memory.py"
SOURCE = """\
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def chain(x):
    a = jnp.sin(x)
    b = a * 2.0
    c = jnp.exp(-b)
    d = c + a
    return d, jnp.tanh(d) * x


@jax.jit
def chain_jit(x):
    return chain(x)


def grow(x, n):
    a = jnp.sin(x)
    return jnp.tile(a, n).sum() + a.sum()


def check(y, limit):
    if np.max(y) > limit:
        raise ValueError("too large")
    return y


@partial(jax.jit, static_argnums=1)
def failing(x, limit):
    a = jnp.exp(jnp.sin(x))
    b = jax.pure_callback(lambda y: check(y, limit), jax.ShapeDtypeStruct(x.shape, x.dtype), a)
    return b + a
"""

CHILD = textwrap.dedent("""\
    import gc, json, resource, sys
    import jax
    from workbench.engine.argspec import example_values
    from workbench.engine.source import load_source
    from workbench.engine.transforms import prepare
    from workbench.engine.values import evaluate_values
    from workbench.engine.values import run as values_run

    def status(key):
        with open("/proc/self/status") as fh:
            return next(int(r.split()[1]) * 1024 for r in fh if r.startswith(key + ":"))

    def live():
        arrays = jax.live_arrays()
        return [len(arrays), sum(a.nbytes for a in arrays)]

    mode, name, spec, source, filename = sys.argv[1:6]
    loaded = load_source(source, filename)
    # The example arguments are made before the measured run: values keeps them (they
    # fit in its budget) from the first run, and the op by op run gets them made.
    if mode == "eager":  # op by op, a jitted function's body too
        prepared = prepare(loaded, name, spec)
        args = example_values(prepared.dynamic_specs)

        def work():
            with jax.disable_jit():
                jax.block_until_ready(prepared.fn(*args))
    else:
        def work():
            assert evaluate_values(loaded, name, spec).error is None

    if mode == "oom":
        # Compiled, and the example argument kept, on a small run of the same argument.
        evaluate_values(loaded, name, spec + ", 2")
        values_run._last = None  # what the engine keeps on purpose, not counted
        gc.collect()
        before = live()
        limit = status("VmSize") + 2048 * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        result = evaluate_values(loaded, name, spec + ", 600")
        kept = values_run._last.arrays
        values_run._last = None
        print(json.dumps({"error": result.error and result.error.message,
                          "kept": kept is not None, "before": before, "after": live()}))
        sys.exit()

    work()  # compiles what the run needs
    gc.collect()
    start = status("VmRSS")
    try:  # the peak so far (VmHWM) back to the current size
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass  # then the peak includes the first run's: the same work
    work()
    peak = status("VmHWM") - start
    kept = values_run._last is not None and values_run._last.arrays is not None
    print(json.dumps({"peak": peak, "kept": kept}))
""")


def _child(mode: str, name: str, spec: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, name, spec, SOURCE, FILENAME],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["chain", "chain_jit"])
def test_values_peak_is_the_op_by_op_peak(name):
    eager = _child("eager", name, SIZE)["peak"]
    values = _child("values", name, SIZE)
    # Every variable together is past the budget: none is kept, so nothing is returned
    # but summaries, and the peak is the op-by-op run's (the jitted region run whole
    # after its insides, not beside them).
    assert not values["kept"]
    assert values["peak"] <= eager + MARGIN, (
        f"values peak {values['peak'] / MB:.0f} MB, op by op {eager / MB:.0f} MB")


def test_out_of_memory_inside_values_frees_every_array():
    got = _child("oom", "grow", "f32[2000000]")
    assert got["error"] and "memory" in got["error"].lower(), got
    assert got["after"] == got["before"], got  # no gc.collect() in between
    assert not got["kept"]  # every variable together is past the budget: none waited


@pytest.fixture
def loaded():
    return load_source(SOURCE, FILENAME)


def _live() -> tuple[int, int]:
    arrays = jax.live_arrays()
    return len(arrays), sum(a.nbytes for a in arrays)


def test_a_failing_callback_leaves_no_array_behind(loaded, monkeypatch):
    # JAX logs the callback's exception; pytest keeps log records, and with them the
    # exception's frames (a test's own holder of the arrays, which a kernel has not).
    monkeypatch.setattr(logging.getLogger("jax._src.callback"), "disabled", True)
    spec = "f32[1000000]"
    assert evaluate_values(loaded, "failing", f"{spec}, 1000").error is None  # compiled
    values_run._last = None
    before = _live()
    result = evaluate_values(loaded, "failing", f"{spec}, 0")
    assert result.error is not None and "too large" in result.error.message
    assert result.error_path == (0, 0, 2)
    values_run._last = None  # the arrays up to the failure, kept on purpose
    assert _live() == before


def test_a_new_source_drops_the_kept_arrays():
    service = Service()
    service.handle(p.LoadSource(source=SOURCE, filename=FILENAME))
    assert isinstance(service.handle(p.Values(name="chain", args="f32[1000]")), p.Result)
    assert values_run._last is not None and values_run._last.arrays  # small: kept
    before = _live()
    service.handle(p.LoadSource(source="def other(x):\n    return x\n", filename=FILENAME))
    assert values_run._last is None  # nothing can ask for them any more
    assert _live()[0] < before[0]
