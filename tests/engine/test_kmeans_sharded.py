"""Sharded k-means gives the one-device run: on four virtual CPU devices (a child process, as
``XLA_FLAGS`` only counts before JAX starts its backend) and on this process's one device."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from tests.four_devices import NAMES, run_four
from workbench.engine.errors import DeviceUnavailable
from workbench.engine.kmeans import blobs, init_centroids, run_kmeans, tutorial_points
from workbench.engine.kmeans.sharded import padded_rows

# Each case: (N, D, K, max_iter, tol, record_labels). Up to K=16 the label and its
# change ride in the distance, up to K=128 the change in the scatter cell, a plain
# count above; rows of 2 points at small D and K; N not a multiple of 4 pads; N=3
# leaves a device with padding only.
CASES = [
    (800, 2, 4, 100, 0.0, True),
    (10_001, 3, 6, 100, 1e-5, True),
    (3, 2, 2, 10, 0.0, True),
    (4_097, 7, 40, 30, 0.0, True),
    (100_003, 2, 8, 20, -1.0, False),
    (1_000, 2, 3, 0, 0.0, True),
    (2_001, 2, 130, 5, 0.0, True),
]

SCRIPT = """
import json, sys
import numpy as np
from workbench.api import messages as p
from workbench.engine.kmeans import blobs, init_centroids, run_kmeans, tutorial_points
from workbench.engine.service import Service

out = []
for n, d, k, max_iter, tol, record in json.loads(sys.argv[1]):
    x = tutorial_points() if n == 800 else blobs(n, k, spread=0.5, seed=3)
    if d > 2:  # more columns: blobs of another seed
        x = np.concatenate([x, blobs(n, k, spread=0.5, seed=4)[:, :1].repeat(d - 2, 1)
                            + np.arange(d - 2, dtype=np.float32)], axis=1)
    c0 = init_centroids(x, k, "kmeans++", seed=0)
    one = run_kmeans(x, c0, max_iter=max_iter, tol=tol, record_labels=record)
    many = run_kmeans(x, c0, max_iter=max_iter, tol=tol, record_labels=record, devices="all")
    again = run_kmeans(x, c0, max_iter=max_iter, tol=tol, record_labels=record, devices="all")
    same_shape = one.labels.shape == many.labels.shape
    out.append({
        "devices": [list(one.devices), list(many.devices)],
        "iterations": [one.iterations, many.iterations],
        "converged": [one.converged, many.converged],
        "dc": float(np.abs(one.centroids - many.centroids).max()),
        "labels_shape": [list(one.labels.shape), list(many.labels.shape)],
        "labels_differ": int((one.labels != many.labels).sum()) if same_shape else -1,
        "changed": [one.changed.tolist(), many.changed.tolist()],
        "counts_equal": bool((one.counts == many.counts).all()),
        "inertia_rel": float(np.abs(one.inertia_mean - many.inertia_mean).max()
                             / max(float(np.abs(one.inertia_mean).max()), 1e-30)),
        "distance_rel": float(np.abs(one.mean_distance - many.mean_distance).max()
                              / max(float(np.abs(one.mean_distance).max()), 1e-30)),
        "compile_again": again.compile_s,
    })
service = Service()
demo = service.handle(p.KMeans(id="k", dataset="blobs", n=5001, k=4, devices="all")).value
alone = service.handle(p.KMeans(id="l", dataset="blobs", n=5001, k=4)).value
print(json.dumps({"cases": out, "service": {
    "devices": [list(alone.run.devices), list(demo.run.devices)],
    "dc": float(np.abs(alone.run.centroids - demo.run.centroids).max()),
    "labels_equal": bool((alone.run.labels == demo.run.labels).all())}}))
"""


@pytest.fixture(scope="module")
def four_device_runs():
    proc = run_four("-c", SCRIPT, json.dumps(CASES))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sharded_over_four_devices_is_the_one_device_run(four_device_runs, case):
    got = four_device_runs["cases"][case]
    assert got["devices"] == [["cpu:0"], NAMES]
    assert got["iterations"][0] == got["iterations"][1]
    assert got["converged"][0] == got["converged"][1]
    assert got["dc"] <= 1e-5
    assert got["labels_shape"][0] == got["labels_shape"][1]
    assert got["labels_differ"] == 0
    assert got["changed"][0] == got["changed"][1] and got["counts_equal"]
    assert got["inertia_rel"] <= 1e-4 and got["distance_rel"] <= 1e-5
    assert got["compile_again"] == 0.0  # the sharded executable is cached


def test_the_kmeans_request_shards_when_asked(four_device_runs):
    got = four_device_runs["service"]
    assert got["devices"] == [["cpu:0"], NAMES]
    assert got["dc"] <= 1e-5 and got["labels_equal"]


def test_on_one_device_the_sharded_path_gives_the_same_run():
    x = tutorial_points()
    c0 = init_centroids(x, 4, "kmeans++", seed=0)
    one = run_kmeans(x, c0)
    sharded = run_kmeans(x, c0, devices="all")
    assert one.devices == (f"{jax.devices()[0].platform}:{jax.devices()[0].id}",)
    assert sharded.devices == tuple(f"{d.platform}:{d.id}" for d in jax.devices())
    np.testing.assert_allclose(sharded.centroids, one.centroids, atol=1e-5)
    np.testing.assert_array_equal(sharded.labels, one.labels)


@pytest.mark.skipif(any(d.platform == "gpu" for d in jax.devices()), reason="has a GPU")
def test_an_absent_platform_is_said_before_any_work():
    x = blobs(100, 2, seed=0)
    with pytest.raises(DeviceUnavailable, match="no gpu device here"):
        run_kmeans(x, x[:2], devices="gpu")


def test_points_pad_to_a_multiple_of_the_devices():
    assert [padded_rows(n, 4) for n in (1, 3, 4, 5, 800, 20_003)] == [4, 4, 4, 8, 800, 20_004]
