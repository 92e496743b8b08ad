"""The KMeans request through the service and the wire: data and every frame, as numpy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from workbench.api import codec
from workbench.api import messages as p
from workbench.engine.kmeans import init_centroids, run_kmeans, tutorial_points
from workbench.engine.service import Service


def test_kmeans_request_round_trips_as_buffers():
    service = Service({})
    reply = service.handle(p.KMeans(dataset="tutorial", k=3, seed=1))
    assert isinstance(reply, p.Result)
    demo = reply.value
    points = tutorial_points()
    expected = run_kmeans(points, init_centroids(points, 3, "kmeans++", 1))
    np.testing.assert_array_equal(demo.run.labels, expected.labels)
    data, buffers = codec.encode(reply)
    assert len(buffers) >= 5  # points, init, centroids, labels, distortion ... as bytes
    back = codec.decode(data, buffers)
    np.testing.assert_array_equal(back.value.points, demo.points)
    np.testing.assert_array_equal(back.value.run.labels, demo.run.labels)


def test_bad_kmeans_request_is_a_usage_failure():
    reply = Service({}).handle(p.KMeans(dataset="blobs", n=2, k=5))
    assert isinstance(reply, p.UsageFailure)
    assert "larger than the number of points" in reply.message


def test_the_gui_decodes_a_run_without_importing_jax():
    data, buffers = codec.encode(Service({}).handle(p.KMeans(dataset="tutorial")))
    code = (
        "import sys, pickle\n"
        "from workbench.api import codec, messages as p\n"
        "data, buffers = pickle.loads(sys.stdin.buffer.read())\n"
        "demo = codec.decode(data, buffers).value\n"
        "assert demo.run.iterations > 0, demo\n"
        "print('jax' in sys.modules)\n"
    )
    import pickle

    payload = pickle.dumps((data, [bytes(b) for b in buffers]))
    out = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                         timeout=60, check=True).stdout.decode().strip()
    assert out == "False"


def test_a_run_of_minutes_is_refused_before_any_work():
    """Found by the wire fuzz test: a million blobs into a million clusters kept the engine
    computing k-means++ seeding for minutes (the request's 60 s passed, the kernel busy)."""
    import time

    start = time.monotonic()
    reply = Service({}).handle(p.RunKMeans(dataset="blobs", n=1_000_000, k=1_000_000,
                                           max_iter=1))
    assert isinstance(reply, p.UsageFailure), reply
    assert "distance terms" in reply.message and "use fewer points" in reply.message
    assert time.monotonic() - start < 30  # blobs are drawn, nothing else
    reply = Service({}).handle(p.KMeans(dataset="blobs", n=2_000_000, k=1_000_000,
                                        max_iter=5))
    assert isinstance(reply, p.UsageFailure) and "distance terms" in reply.message
