"""`workbench time` end to end through ``main``, with tiny budgets."""

from __future__ import annotations

import json
import textwrap

import jax
import pytest

from tests.cli.cli_util import run_cli
from workbench.cli.time_cmd import fmt_time

SOURCE = textwrap.dedent(
    """\
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    def selu_np(x, alpha=1.67, lmbda=1.05):
        return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)

    def boom(x):
        raise ValueError("too slow to time")
    """
)
TINY = ["--min-batch", "0.0002", "--repeats", "2", "--budget", "0.03", "--quiet"]
# The keys of every result of `time --format json`, as the README lists them.
RESULT_KEYS = {
    "device", "mode", "function", "mean_s", "std_s", "min_s", "median_s", "max_s", "loops",
    "repeats", "unstable", "per_repeat_s", "budget_limited", "compile",
}


def test_json_shape(capsys, prog):
    code, out, err = run_cli(capsys, "time", prog, "selu", "--args", "f32[1000]", "--baseline",
                             "selu_np", "--format", "json", *TINY)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["function"] == "selu" and data["args"] == ["f32[1000]"]
    rows = {(r["device"], r["mode"]): r for r in data["results"]}
    cpu = "cpu:0" if jax.default_backend() == "cpu" else None
    if cpu:
        assert set(rows) == {("cpu:0", "eager"), ("cpu:0", "jit"), ("host", "numpy")}
    jit = next(r for (d, m), r in rows.items() if m == "jit")
    for row in rows.values():  # every result has every key the README lists
        assert set(row) == RESULT_KEYS, row["mode"]
    assert set(jit["compile"]) >= {"trace_s", "lower_s", "compile_s", "first_run_s"}
    assert all(v > 0 for v in jit["compile"].values())
    assert all(r["compile"] is None for (d, m), r in rows.items() if m != "jit")
    assert data["transfer_s"] > 0 and data["dispatch_s"] > 0
    assert data["sweep"] is None and data["sweep_name"] is None
    assert data["baseline"] == "selu_np"


def test_budget_limited_measurements_say_so_in_json_and_text(capsys, prog):
    cramped = ["--min-batch", "5", "--repeats", "3", "--budget", "0.01", "--quiet",
               "--devices", "cpu", "--modes", "jit"]
    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[100]", *cramped,
                           "--format", "json")
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["budget_limited"] is True and row["repeats"] == len(row["per_repeat_s"])
    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[100]", *cramped)
    assert code == 0
    (note,) = [ln.strip() for ln in out.splitlines() if "budget-limited" in ln]
    assert note.startswith("! budget-limited: ") and "under --min-batch 5 s" in note
    assert note.endswith("budget (--budget)")

    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[100]", "--modes", "jit",
                           "--min-batch", "0.0001", "--repeats", "2", "--budget", "30",
                           "--quiet", "--format", "json")
    assert json.loads(out)["results"][0]["budget_limited"] is False


def test_text_reads_like_timeit(capsys, prog):
    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[1000]", "--modes", "jit",
                           *TINY)
    assert code == 0
    assert out.splitlines()[0] == "selu(f32[1000])"
    assert "per loop (mean" in out and "std. dev. of" in out
    assert "first jit call" in out and "compile" in out
    assert "eager" not in out


def test_sweep_json_and_text(capsys, prog):
    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[N]", "--sweep", "N=10:1000",
                           "--modes", "jit", "--devices", "cpu", "--format", "json", *TINY)
    assert code == 0
    data = json.loads(out)
    assert [p["size"] for p in data["sweep"]] == [10, 100, 1000]
    assert {p["mode"] for p in data["sweep"]} == {"jit"}
    assert all(p["median_s"] > 0 for p in data["sweep"])
    assert data["recompilations"] == 2 and len(data["cache_misses"]) == 2

    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[N]", "--sweep", "N=10:100",
                           "--modes", "jit", *TINY)
    assert code == 0
    assert "median per call:" in out and "1 for new shapes" in out
    assert "TRACING CACHE MISS" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--args", "f32[100]", "--sweep", "N=10:100"], "needs a placeholder"),
        (["--args", "f32[N]"], "placeholder N"),
        (["--args", "f32[N]", "--sweep", "N=100:10"], "bad sweep"),
        (["--args", "f32[10]", "--modes", "fast"], "unknown mode"),
        (["--args", "f32[10]", "--repeats", "0"], "--repeats must be at least 1"),
        (["--args", "f32[10]", "--budget", "-1"], "--budget must be a positive"),
        (["--args", "q32[10]"], "unknown dtype"),
        (["--args", "f32[10]", "--baseline", "nope"], "unknown function 'nope'"),
    ],
)
def test_usage_errors_exit_2(capsys, prog, argv, message):
    code, out, err = run_cli(capsys, "time", prog, "selu", *TINY, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(any(d.platform == "gpu" for d in jax.devices()), reason="has a GPU")
def test_an_absent_platform_is_one_line_naming_what_is_there_exit_1(capsys, prog):
    code, out, err = run_cli(capsys, "time", prog, "selu", "--args", "f32[10]", "--devices",
                             "gpu", *TINY)
    assert code == 1 and out == ""
    assert err == ("workbench time: error: no gpu device here; JAX sees cpu:0 "
                   "(platforms present: cpu)\n")


def test_a_device_name_times_that_device(capsys, prog):
    code, out, _ = run_cli(capsys, "time", prog, "selu", "--args", "f32[10]", "--devices",
                           "cpu:0", "--format", "json", *TINY)
    assert code == 0
    doc = json.loads(out)
    assert {r["device"] for r in doc["results"]} == {"cpu:0"}
    assert [d["device"] for d in doc["devices"]] == ["cpu:0"]


@pytest.mark.parametrize("spec", ["abacus", "cpu:x", "cpu,", ""])
def test_a_devices_word_that_names_nothing_is_a_usage_error(capsys, prog, spec):
    code, out, err = run_cli(capsys, "time", prog, "selu", "--args", "f32[10]", "--devices",
                             spec, *TINY)
    assert code == 2 and out == ""
    assert "--devices" in err or "unknown device" in err
    assert len(err.strip().splitlines()) == 1


def test_raising_function_exit_1(capsys, prog):
    code, out, err = run_cli(capsys, "time", prog, "boom", "--args", "f32[10]", *TINY)
    assert code == 1 and out == ""
    assert "too slow to time" in err.splitlines()[0] and "prog.py:8" in err.splitlines()[0]


def test_fmt_time_units():
    assert fmt_time(2.5) == "2.5 s"
    assert fmt_time(0.00123) == "1.23 ms"
    assert fmt_time(4.2e-8) == "42 ns"
    assert fmt_time(float("nan")) == "n/a"
