"""The CLI on four virtual CPU devices (``XLA_FLAGS=--xla_force_host_platform_device_count=4``,
so the commands run in a child process, one for the module): listed, timed one by one, and
k-means sharded."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.four_devices import NAMES, FourDeviceCli

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""
TINY = ["--min-batch", "0.0002", "--repeats", "2", "--budget", "0.03", "--quiet"]


@pytest.fixture(scope="module")
def workbench_four():
    cli = FourDeviceCli()
    yield cli
    cli.close()


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_devices_lists_four_cpu_devices(workbench_four):
    doc = json.loads(ok(workbench_four("devices", "--format", "json")))
    assert [d["name"] for d in doc["devices"]] == NAMES
    assert {d["platform"] for d in doc["devices"]} == {"cpu"}
    text = ok(workbench_four("devices"))
    assert "cpu: 4 devices" in text
    assert all(f"  {name} " in text for name in NAMES)


def test_time_all_measures_every_device_with_its_own_transfer(prog, workbench_four):
    doc = json.loads(ok(workbench_four("time", prog, "selu", "--args", "f32[1000]",
                                       "--devices", "all", "--format", "json", *TINY)))
    assert [(r["device"], r["mode"]) for r in doc["results"]] == [
        (name, mode) for name in NAMES for mode in ("eager", "jit")]
    assert [d["device"] for d in doc["devices"]] == NAMES
    for d in doc["devices"]:
        assert math.isfinite(d["transfer_s"]) and d["transfer_s"] > 0
        assert 0 < d["dispatch_s"] <= d["dispatch_wait_s"]
    assert all(r["compile"] is not None for r in doc["results"] if r["mode"] == "jit")


def test_time_text_groups_by_device_with_a_table_of_all(prog, workbench_four):
    text = ok(workbench_four("time", prog, "selu", "--args", "f32[1000]", *TINY))
    lines = text.splitlines()
    starts = [lines.index(f"on {name}:") for name in NAMES]
    assert starts == sorted(starts)
    for name, start in zip(NAMES, starts, strict=True):
        assert lines[start + 1].startswith(f"  inputs host -> {name}: ")
    table = lines[lines.index("per device:") + 1:]
    table = table[:table.index("")]  # then how to reproduce the figures with %timeit
    assert table[0].split()[:2] == ["device", "transfer"]
    assert [row.split()[0] for row in table[1:]] == NAMES


def test_time_takes_devices_by_name(prog, workbench_four):
    doc = json.loads(ok(workbench_four("time", prog, "selu", "--args", "f32[100]", "--devices",
                                       "cpu:1,cpu:3", "--modes", "jit", "--format", "json",
                                       *TINY)))
    assert [r["device"] for r in doc["results"]] == ["cpu:1", "cpu:3"]
    assert [d["device"] for d in doc["devices"]] == ["cpu:1", "cpu:3"]


def test_an_absent_platform_names_the_four_devices_there(prog, workbench_four):
    proc = workbench_four("time", prog, "selu", "--args", "f32[10]", "--devices", "tpu", *TINY)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("workbench time: error: no tpu device here; JAX sees cpu:0, cpu:1, "
                           "cpu:2, cpu:3 (platforms present: cpu)\n")


@pytest.mark.parametrize("n, k", [(20_003, 5), (6, 3)])  # padded: N is no multiple of 4
def test_kmeans_sharded_over_all_devices_is_the_one_device_run(tmp_path, n, k, workbench_four):
    runs = {}
    for devices in ([], ["--devices", "all"]):
        labels = tmp_path / f"labels{len(devices)}.npy"
        out = ok(workbench_four("kmeans", "--blobs", str(n), "--k", str(k), "--tol", "0",
                                "--seed", "3", "--format", "json", "--labels-out", str(labels),
                                *devices))
        runs[bool(devices)] = (json.loads(out), np.load(labels))
    (one, one_labels), (sharded, sharded_labels) = runs[False], runs[True]
    assert one["devices"] == ["cpu:0"] and sharded["devices"] == NAMES
    assert sharded["iterations"] == one["iterations"]
    np.testing.assert_allclose(sharded["centroids"], one["centroids"], atol=1e-5)
    np.testing.assert_array_equal(sharded_labels, one_labels)
    assert sharded["changed"] == one["changed"]
    assert sharded["final"]["sizes"] == one["final"]["sizes"]
    np.testing.assert_allclose(sharded["inertia_mean"], one["inertia_mean"], rtol=1e-4)


def test_kmeans_text_says_it_was_sharded(workbench_four):
    text = ok(workbench_four("kmeans", "--devices", "all"))
    assert text.splitlines()[1] == f"points sharded over 4 devices: {', '.join(NAMES)}"
