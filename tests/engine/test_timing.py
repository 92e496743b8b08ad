"""Timing: loop statistics, per-device results, compile split, sweeps, cancel, recompiles."""

from __future__ import annotations

import threading

import jax
import pytest

from workbench.engine import timing
from workbench.engine.errors import UsageError, UserCodeError

SRC = '''
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def selu_np(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)

def add(x, y):
    return jnp.add(x, y) * jnp.exp(x) - 2.05 + y * 0.56

@jax.jit
def already_jitted(x):
    return jnp.sin(x) * 2

def boom(x):
    raise RuntimeError("timing this is a bad idea")
'''

TINY = timing.TimingConfig(min_batch_s=2e-4, repeats=3, max_measure_s=0.05,
                           dispatch_samples=10)


def test_measure_grows_loops_until_the_batch_is_long_enough():
    stats = timing.measure(lambda: sum(range(200)), timing.TimingConfig(
        min_batch_s=1e-3, repeats=4, max_measure_s=1.0))
    assert stats.loops > 1 and stats.repeats == 4
    assert 0 < stats.min_s <= stats.median_s <= stats.max_s
    # The batch reached (about) min_batch_s when calibrated: its slowest repeat shows it (a
    # loaded machine can make the calibration run 2-3x slower than the fastest repeat).
    assert stats.loops * stats.max_s >= 1e-3 * 0.5
    assert len(stats.per_repeat_s) == 4


def test_budget_caps_the_repeats():
    slow = timing.TimingConfig(min_batch_s=0.02, repeats=50, max_measure_s=0.1)
    stats = timing.measure(lambda: sum(range(2000)), slow)
    assert 1 <= stats.repeats < 50
    assert stats.budget_limited and len(stats.per_repeat_s) == stats.repeats


def test_budget_that_stops_the_loops_growing_says_so():
    short = timing.TimingConfig(min_batch_s=10.0, repeats=1, max_measure_s=0.02)
    stats = timing.measure(lambda: sum(range(2000)), short)
    assert stats.repeats == 1  # as asked: only the loops were cut
    assert stats.budget_limited
    assert stats.per_repeat_s[0] * stats.loops < 10.0  # the batch that ran, under min_batch_s


def test_a_measurement_within_its_budget_is_not_budget_limited():
    roomy = timing.TimingConfig(min_batch_s=1e-3, repeats=3, max_measure_s=30.0)
    stats = timing.measure(lambda: sum(range(200)), roomy)
    assert stats.repeats == 3 and not stats.budget_limited


def test_unstable_flag_when_slowest_is_over_four_times_fastest():
    assert timing.LoopStats.from_batches([1.0, 5.0, 1.1], loops=10).unstable
    stable = timing.LoopStats.from_batches([1.0, 3.9], loops=10)
    assert not stable.unstable and stable.min_s == 0.1 and stable.median_s == pytest.approx(0.245)


def test_time_selu_per_device_with_compile_split_and_baseline(load):
    events = []
    report = timing.time_function(load(SRC), "selu", "f32[2000]", baseline="selu_np",
                                  config=TINY, on_progress=events.append)
    cpu = [r for r in report.results if r.device == "cpu:0"]
    assert {r.mode for r in cpu} == {"eager", "jit"}
    for r in report.results:
        assert 0 < r.stats.min_s <= r.stats.median_s < 1.0
        assert r.stats.loops >= 1 and r.stats.repeats >= 1
    jit = next(r for r in cpu if r.mode == "jit")
    split = jit.compile
    assert split is not None
    assert min(split.trace_s, split.lower_s, split.compile_s, split.first_run_s) > 0
    assert next(r for r in cpu if r.mode == "eager").compile is None
    numpy_row = next(r for r in report.results if r.mode == "numpy")
    assert numpy_row.device == "host"
    dev = report.devices[0]
    assert dev.device == jax.devices()[0].platform + ":0"
    assert dev.transfer_s > 0 and 0 < dev.dispatch_s <= dev.dispatch_wait_s
    assert [e.done for e in events] == list(range(1, len(events) + 1))
    assert events[-1].total == len(events) == len(report.results)
    d = report.to_dict()
    assert d["function"] == "selu" and d["args"] == ["f32[2000]"]
    assert d["results"][1]["compile"]["compile_s"] == split.compile_s
    assert d["transfer_s"] == dev.transfer_s and d["dispatch_s"] == dev.dispatch_s


RESULT_KEYS = {
    "device", "mode", "function", "mean_s", "std_s", "min_s", "median_s", "max_s", "loops",
    "repeats", "unstable", "per_repeat_s", "budget_limited", "compile",
}
REPORT_KEYS = {
    "function", "args", "results", "transfer_s", "dispatch_s", "dispatch_wait_s", "devices",
    "baseline", "sweep", "sweep_name", "compilations", "recompilations", "cache_misses",
    "cancelled",
}


def test_every_result_has_every_key_with_none_where_it_does_not_apply(load):
    report = timing.time_function(load(SRC), "selu", "f32[200]", baseline="selu_np",
                                  devices="cpu", config=TINY)
    d = report.to_dict()
    assert set(d) == REPORT_KEYS
    assert d["baseline"] == "selu_np" and d["sweep"] is None and d["sweep_name"] is None
    rows = {r["mode"]: r for r in d["results"]}
    assert set(rows) == {"eager", "jit", "numpy"}
    for row in rows.values():
        assert set(row) == RESULT_KEYS, row["mode"]
        assert isinstance(row["budget_limited"], bool)
    assert rows["eager"]["compile"] is None and rows["numpy"]["compile"] is None
    assert set(rows["jit"]["compile"]) == {"trace_s", "lower_s", "compile_s", "first_run_s",
                                           "total_s"}
    assert rows["numpy"]["function"] == "selu_np" and rows["jit"]["function"] == "selu"
    plain = timing.time_function(load(SRC), "selu", "f32[200]", modes=["eager"],
                                 devices="cpu", config=TINY).to_dict()
    assert set(plain) == REPORT_KEYS and plain["baseline"] is None


def test_a_budget_limited_measurement_says_so_in_results_and_sweep(load):
    cramped = timing.TimingConfig(min_batch_s=5.0, repeats=4, max_measure_s=0.01,
                                  dispatch_samples=5)
    report = timing.time_function(load(SRC), "selu", "f32[N]", modes=["jit"], devices="cpu",
                                  sweep="N=10:100", config=cramped)
    (row,) = report.to_dict()["results"]
    assert row["budget_limited"] is True
    assert row["loops"] * row["per_repeat_s"][0] < 5.0 and row["repeats"] == len(
        row["per_repeat_s"])
    assert all(p["budget_limited"] is True for p in report.to_dict()["sweep"])


def test_eager_times_the_python_function_under_an_editor_jit(load):
    loaded = load(SRC)
    fn = loaded.function("already_jitted")
    assert timing._eager_function(fn) is fn.__wrapped__
    report = timing.time_function(loaded, "already_jitted", "f32[100]", modes=["eager"],
                                  config=TINY)
    assert [r.mode for r in report.results] == ["eager"]


def test_sweep_streams_events_and_counts_recompilations(load):
    events = []
    report = timing.time_function(load(SRC), "add", "f32[N], f32[N]", modes=["jit"],
                                  devices="cpu", sweep="N=10:1000", config=TINY,
                                  on_progress=events.append)
    assert [p.size for p in report.sweep] == [10, 100, 1000]
    assert [e.point.size for e in events] == [10, 100, 1000]
    assert all(e.total == 3 for e in events)
    assert report.recompilations == 2  # one per new shape
    assert report.compilations == 4  # + the first call and the compile-split's own
    assert len(report.cache_misses) == 2
    assert "f32[100]" in report.cache_misses[0] and "f32[10]" in report.cache_misses[0]
    assert jax.config.jax_explain_cache_misses is False  # restored
    assert report.to_dict()["sweep"][0]["size"] == 10


def test_sweep_can_be_cancelled_between_measurements(load):
    stop = threading.Event()

    def on_progress(event):
        if event.done == 2:
            stop.set()

    report = timing.time_function(load(SRC), "selu", "f32[N]", sweep="N=10:100000",
                                  config=TINY, on_progress=on_progress, should_stop=stop)
    assert report.cancelled
    assert len(report.sweep) == 2 < 5 * 2

    seen = []
    report = timing.time_function(load(SRC), "selu", "f32[N]", sweep="N=10:1000",
                                  modes=["jit"], config=TINY, on_progress=seen.append,
                                  should_stop=lambda: len(seen) >= 1)
    assert report.cancelled and len(report.sweep) == 1


def test_parse_sweep():
    assert timing.parse_sweep("N=100:10000000").sizes == (100, 1000, 10**4, 10**5, 10**6,
                                                          10**7)
    assert timing.parse_sweep("M=1e2:1e3:3").sizes == (100, 316, 1000)
    for bad in ("N", "N=100", "N=a:b", "N=100:10", "N=0:10", "1N=1:10", "N=1:10:0"):
        with pytest.raises(UsageError):
            timing.parse_sweep(bad)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(args="f32[100]", sweep="N=1:10"), "needs a placeholder"),
        (dict(args="f32[N]"), "placeholder N"),
        (dict(args="f32[M]", sweep="N=1:10"), "sweep sizes N"),
        (dict(args="f32[10]", modes=["fast"]), "unknown mode"),
        (dict(args="f32[10]", devices="abacus"), "unknown device"),
        (dict(args="f32[10]", baseline="nope"), "unknown function 'nope'"),
        (dict(args="f32[10], 1.0, 1.0, 1.0"), "takes 1 to 3 positional"),
    ],
)
def test_bad_usage(load, kwargs, match):
    args = kwargs.pop("args")
    with pytest.raises(UsageError, match=match):
        timing.time_function(load(SRC), "selu", args, config=TINY, **kwargs)


@pytest.mark.skipif(any(d.platform == "gpu" for d in jax.devices()), reason="has a GPU")
def test_no_gpu_is_a_usage_error():
    with pytest.raises(UsageError, match="no gpu device here; JAX sees cpu:0"):
        timing.select_devices("gpu")


def test_user_exception_is_explained(load):
    with pytest.raises(UserCodeError) as info:
        timing.time_function(load(SRC, "t.py"), "boom", "f32[10]", config=TINY)
    assert info.value.explanation.line == 16
    assert "bad idea" in info.value.explanation.message


def test_the_report_says_how_to_reproduce_each_figure_with_timeit(load):
    """What the panel and `workbench time` print under the figures: %timeit's protocol and,
    per mode, the line that measures the same in Jupyter (its loops and runs)."""
    from workbench.api.timing_report import protocol_note

    report = timing.time_function(load(SRC), "add", "f32[100], f32[100]", devices="cpu",
                                  config=TINY)
    note = protocol_note(report).splitlines()
    assert note[0].startswith("Measured as %timeit measures: loops per run by timeit's "
                              "autorange")
    assert "with x, y the inputs (f32[100], f32[100]) on cpu:0:" in note[0]
    by_mode = {r.mode: r.stats for r in report.results}
    eager, jit = by_mode["eager"], by_mode["jit"]
    assert note[1].startswith(f"  eager: %timeit -n {eager.loops} -r {eager.repeats} "
                              "add(x, y).block_until_ready()   # median ")
    assert note[2].startswith(f"  jit: jf = jax.jit(add); %timeit -n {jit.loops} -r "
                              f"{jit.repeats} jf(x, y).block_until_ready()   # median ")


def test_a_single_array_result_is_timed_as_a_person_times_it():
    """``f(x).block_until_ready()``: no tree flattening per call (40% of a 14 µs call);
    a result of several arrays waits for all of them."""
    import jax.numpy as jnp

    x = jnp.ones(3)
    seen: list[object] = []

    def one(a):
        seen.append(a)
        return a + 1

    call = timing.timed_call(one, (x,), one_array=True)
    assert call.__code__.co_names == ("block_until_ready",)  # fn(a).block_until_ready()
    call()
    assert seen == [x]
    pair = timing.timed_call(lambda a, b: (a, b), (x, x), one_array=False)
    assert isinstance(pair(), tuple)
