"""The ``kmeans`` command's request (``RunKMeans``): the same run as calling the engine
directly, and what could not fit refused before any data is drawn."""

from __future__ import annotations

import time

import numpy as np

from workbench.api import messages as p
from workbench.api.kmeans import KMeansDemo
from workbench.engine.kmeans import blobs, init_centroids, run_kmeans
from workbench.engine.service import Service


def test_the_request_runs_what_the_engine_functions_run():
    reply = Service().handle(p.RunKMeans(dataset="blobs", n=300, k=3, seed=2, max_iter=20,
                                         with_points=True))
    demo = p.result_value(reply, KMeansDemo)
    assert demo is not None, reply
    points = blobs(300, 3, seed=2)
    c0 = init_centroids(points, 3, "kmeans++", seed=2)
    direct = run_kmeans(points, c0, max_iter=20)
    np.testing.assert_array_equal(demo.init, c0)
    np.testing.assert_array_equal(demo.run.centroids, direct.centroids)
    np.testing.assert_array_equal(demo.run.final_labels, direct.final_labels)
    np.testing.assert_array_equal(demo.points, points[:, :2])


def test_points_come_back_only_when_asked():
    demo = p.result_value(Service().handle(p.RunKMeans(k=4)), KMeansDemo)
    assert demo is not None and demo.points.shape == (0, 2)
    assert demo.run.n == 800  # the tutorial's points were used all the same


def test_sent_points_are_checked_like_a_file():
    for points, words in ((np.zeros(()), "expected an N x D array"),
                          (np.full((4, 2), np.nan), "NaN or infinite")):
        reply = Service().handle(p.RunKMeans(dataset="file", points=points, k=1))
        assert isinstance(reply, p.UsageFailure) and words in reply.message


def test_a_run_that_could_not_fit_is_refused_before_drawing_its_data():
    start = time.monotonic()
    # max_iter out of range would only be reported after the data: the history counts
    # at least one frame per point, whatever max_iter says.
    for max_iter in (100, -1):
        reply = Service().handle(p.RunKMeans(dataset="blobs", n=2**31, k=2, max_iter=max_iter))
        assert isinstance(reply, p.UsageFailure) and "labels, more than" in reply.message
    assert time.monotonic() - start < 1.0  # 2**31 points were never drawn
