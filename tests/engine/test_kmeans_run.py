"""Lloyd's algorithm in JAX: agreement with scikit-learn and float64, history, stepping."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.kmeans_reference import lloyd_reference
from tests.engine.kmeans_stepper import KMeansStepper
from workbench.engine.errors import UsageError
from workbench.engine.kmeans import (
    TUTORIAL_BAD_INIT,
    blobs,
    init_centroids,
    run_kmeans,
    tutorial_points,
)
from workbench.engine.kmeans.lloyd import label_dtype


def sklearn_lloyd(x, c0):
    from sklearn.cluster import KMeans  # here: its import costs every worker 2.5 s

    return KMeans(len(c0), init=c0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=500).fit(x)


# The points are made when a test runs, not as the module is collected: every worker
# collects every module, and the tutorial's points compile JAX's random draws.
@pytest.mark.parametrize(
    "points, k",
    [
        (tutorial_points, 4),
        (tutorial_points, 3),
        (lambda: blobs(6000, 6, spread=1.5, seed=2), 6),
        (lambda: blobs(3000, 5, spread=1.0, seed=5) + np.float32(1000), 5),  # off the origin
        (lambda: blobs(40000, 4, spread=1.0, seed=3), 4),
    ],
    ids=["tutorial-k4", "tutorial-k3", "blobs", "offset-blobs", "more-blobs"],
)
def test_agrees_with_sklearn_and_float64(points, k):
    x = points()
    c0 = init_centroids(x, k, "random", seed=0)
    r = run_kmeans(x, c0, tol=0.0)
    assert r.converged and r.changed[-1] == 0
    km = sklearn_lloyd(x, c0)
    np.testing.assert_allclose(r.final_centroids, km.cluster_centers_, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, km.labels_)
    ref_c, ref_lab = lloyd_reference(x, c0, 1000, until_fixed=True)
    np.testing.assert_allclose(r.final_centroids, ref_c, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, ref_lab)
    np.testing.assert_allclose(r.inertia_mean[-1], km.inertia_ / len(x), rtol=1e-4)


def test_history_is_consistent_frame_by_frame():
    x = blobs(2000, 4, spread=2.0, seed=1)
    c0 = init_centroids(x, 4, "random", seed=3)
    r = run_kmeans(x, c0, tol=0.0)
    i = r.iterations
    assert r.centroids.shape == (i + 1, 4, 2) and r.labels.shape == (i + 1, 2000)
    assert r.inertia_mean.shape == r.mean_distance.shape == r.changed.shape == (i + 1,)
    assert r.counts.shape == (i + 1, 4)
    assert r.labels.dtype == np.int8
    np.testing.assert_array_equal(r.centroids[0], c0)
    assert r.changed[0] == 2000
    for f in range(i + 1):
        c, lab = lloyd_reference(x, c0, f)
        np.testing.assert_allclose(r.centroids[f], c, atol=1e-4)
        np.testing.assert_array_equal(r.labels[f], lab)
        np.testing.assert_array_equal(r.counts[f], np.bincount(lab, minlength=4))
        if f:
            assert r.changed[f] == np.count_nonzero(r.labels[f] != r.labels[f - 1])
        sq = ((x.astype(np.float64) - r.centroids[f][r.labels[f]]) ** 2).sum(axis=1)
        np.testing.assert_allclose(r.inertia_mean[f], sq.mean(), rtol=1e-4)
        np.testing.assert_allclose(r.mean_distance[f], np.sqrt(sq).mean(), rtol=1e-5)
    assert np.all(np.diff(r.inertia_mean) <= 1e-5 * r.inertia_mean[0])


@pytest.mark.parametrize("method", ["random", "kmeans++", "farthest", "given"])
def test_every_init_mode_runs_to_sklearns_fixed_point(method):
    x = blobs(3000, 3, spread=0.8, seed=4)
    c0 = x[[0, 1000, 2000]] if method == "given" else init_centroids(x, 3, method, seed=0)
    r = run_kmeans(x, c0, tol=0.0)
    assert r.converged and r.changed[-1] == 0
    km = sklearn_lloyd(x, c0)
    np.testing.assert_allclose(r.final_centroids, km.cluster_centers_, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, km.labels_)
    if method != "random":  # the seeded ones find the three blobs
        assert sorted(np.bincount(r.final_labels, minlength=3)) == [1000, 1000, 1000]


def test_empty_cluster_keeps_its_centroid_and_is_reported():
    x = tutorial_points()
    c0 = np.array(TUTORIAL_BAD_INIT, np.float32)
    r = run_kmeans(x, c0)
    assert r.converged
    assert all(e == (3,) for e in r.empty_clusters)
    assert (r.counts[:, 3] == 0).all() and r.empty[:, 3].all()
    np.testing.assert_array_equal(r.centroids[:, 3], np.broadcast_to(c0[3], (r.iterations + 1, 2)))
    assert set(np.unique(r.final_labels)) == {0, 1, 2}


def test_tolerance_and_max_iter():
    x = blobs(4000, 8, spread=3.0, seed=0)
    c0 = init_centroids(x, 8, "random", seed=0)
    full = run_kmeans(x, c0, tol=0.0)
    loose = run_kmeans(x, c0, tol=1e-2)
    assert loose.converged and loose.iterations < full.iterations
    assert loose.inertia_mean[-2] - loose.inertia_mean[-1] <= 1e-2
    capped = run_kmeans(x, c0, tol=0.0, max_iter=3)
    assert capped.iterations == 3 and not capped.converged
    np.testing.assert_array_equal(capped.centroids, full.centroids[:4])
    forced = run_kmeans(x, c0, tol=-1.0, max_iter=full.iterations + 5)
    assert forced.iterations == full.iterations + 5 and not forced.converged
    zero = run_kmeans(x, c0, max_iter=0)
    assert zero.iterations == 0 and zero.centroids.shape == (1, 8, 2)
    assert zero.per_iter_s > 0 and zero.compile_s >= 0


def test_without_recorded_labels_same_result():
    x = blobs(3000, 4, seed=8)
    c0 = init_centroids(x, 4, "kmeans++", seed=8)
    a = run_kmeans(x, c0)
    b = run_kmeans(x, c0, record_labels=False)
    assert b.labels.shape == (1, 3000)
    np.testing.assert_array_equal(a.final_labels, b.final_labels)
    np.testing.assert_array_equal(a.centroids, b.centroids)
    np.testing.assert_array_equal(a.inertia_mean, b.inertia_mean)
    np.testing.assert_array_equal(a.mean_distance, b.mean_distance)


@pytest.mark.parametrize("offset", [0.0, 1000.0], ids=["centred", "far-from-origin"])
def test_both_distortions_match_numpy_at_every_frame(offset):
    """inertia_mean is scikit-learn's inertia / N; mean_distance the tutorial's distortion.

    Checked against plain NumPy in float64 from the run's own labels and centroids,
    and against scikit-learn's inertia at the end.
    """
    x = blobs(20000, 5, spread=1.5, seed=6) + np.float32(offset)
    c0 = init_centroids(x, 5, "random", seed=2)
    r = run_kmeans(x, c0, tol=0.0)
    x64 = x.astype(np.float64)
    for f in range(r.iterations + 1):
        dist = np.linalg.norm(x64 - r.centroids[f].astype(np.float64)[r.labels[f]], axis=1)
        np.testing.assert_allclose(r.mean_distance[f], dist.mean(), rtol=1e-5)
        np.testing.assert_allclose(r.inertia_mean[f], (dist**2).mean(), rtol=1e-4)
        # the two differ: the mean of squares is not the square of the mean
        assert r.inertia_mean[f] > r.mean_distance[f] ** 2
    km = sklearn_lloyd(x, c0)
    np.testing.assert_allclose(r.inertia_mean[-1], km.inertia_ / len(x), rtol=1e-4)


def test_compiled_once_per_shape():
    x = blobs(1234, 3, seed=0)
    c0 = init_centroids(x, 3, "random", seed=0)
    run_kmeans(x, c0, max_iter=7)
    again = run_kmeans(x, c0 + 0.5, max_iter=7, tol=0.1)
    assert again.compile_s == 0.0


def test_label_dtype_fits_k():
    assert label_dtype(1) == np.int8 and label_dtype(128) == np.int8
    assert label_dtype(129) == np.int16 and label_dtype(40000) == np.int32


def test_many_clusters_uses_the_loop_path():
    x = blobs(3000, 150, spread=0.2, seed=0)
    c0 = init_centroids(x, 150, "random", seed=0)
    r = run_kmeans(x, c0, tol=0.0, max_iter=5)
    assert r.labels.dtype == np.int16
    c, lab = lloyd_reference(x, c0, r.iterations)
    np.testing.assert_allclose(r.final_centroids, c, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, lab)
    if r.iterations:
        assert r.changed[-1] == np.count_nonzero(r.labels[-1] != r.labels[-2])


def test_higher_dimensional_data():
    rng = np.random.default_rng(0)
    x = (rng.normal(size=(2000, 5)) + rng.integers(0, 2, (2000, 1)) * 6).astype(np.float32)
    c0 = init_centroids(x, 2, "farthest", seed=0)
    r = run_kmeans(x, c0, tol=0.0)
    km = sklearn_lloyd(x, c0)
    np.testing.assert_allclose(r.final_centroids, km.cluster_centers_, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, km.labels_)


@pytest.mark.parametrize(
    "points, c0", [(tutorial_points, "random"), (lambda: blobs(5000, 5, 2.0, 1), "kmeans++")],
    ids=["tutorial-random", "blobs-kmeans++"],
)
def test_stepper_equals_the_full_run(points, c0):
    x = points()
    k = 4 if len(x) == 800 else 5
    c0 = init_centroids(x, k, c0, seed=1)
    r = run_kmeans(x, c0, tol=0.0)
    s = KMeansStepper(x, c0, tol=0.0)
    assert s.state.phase == "start" and s.state.labels is None
    for f in range(r.iterations + 1):
        st = s.step()
        assert st.iteration == f and st.phase == "assigned"
        np.testing.assert_array_equal(st.centroids, r.centroids[f])
        np.testing.assert_array_equal(st.labels, r.labels[f])
        np.testing.assert_array_equal(st.counts, r.counts[f])
        assert st.changed == r.changed[f]
        assert st.distortion == pytest.approx(float(r.inertia_mean[f]), rel=1e-6)
        assert st.converged == (f == r.iterations)


def test_half_steps():
    x = tutorial_points()
    c0 = init_centroids(x, 4, "random", seed=0)
    r = run_kmeans(x, c0, tol=0.0)
    s = KMeansStepper(x, c0)
    with pytest.raises(UsageError, match="assign first"):
        s.update()
    a = s.assign()
    assert s.assign() is a  # assigning twice changes nothing
    u = s.update()
    assert u.phase == "updated" and u.iteration == 0
    np.testing.assert_array_equal(u.centroids, r.centroids[1])
    np.testing.assert_array_equal(u.labels, r.labels[0])  # the labels it was computed from
    with pytest.raises(UsageError, match="assign first"):
        s.update()
    b = s.assign()
    assert b.iteration == 1
    np.testing.assert_array_equal(b.labels, r.labels[1])


@pytest.mark.parametrize(
    "points, c0, kw, message",
    [
        (np.zeros((0, 2)), np.zeros((1, 2)), {}, "N = 0"),
        (np.zeros((3, 2)), np.zeros((4, 2)), {}, "larger than the number of points"),
        (np.zeros((3, 2)), np.zeros((0, 2)), {}, "at least 1"),
        (np.array([[0, 1], [np.nan, 2]]), np.zeros((1, 2)), {}, "1 of 2 rows have NaN"),
        (np.zeros((3, 1)), np.zeros((1, 1)), {}, "at least 2 columns"),
        (np.zeros((3, 2)), np.zeros((1, 2)), {"max_iter": -1}, "max-iter"),
        (np.zeros((3, 2)), np.zeros((1, 2)), {"tol": float("nan")}, "tol"),
    ],
)
def test_bad_input(points, c0, kw, message):
    with pytest.raises(UsageError, match=message):
        run_kmeans(points, c0, **kw)
    if not kw:
        with pytest.raises(UsageError, match=message):
            KMeansStepper(points, c0)


def test_block_cells_path(monkeypatch):
    """Above 2**20 points the scatter also splits by block; exercised here with tiny blocks."""
    from workbench.engine.kmeans import lloyd

    monkeypatch.setattr(lloyd, "MIN_BLOCK_LOG2", 9)
    x = blobs(5003, 3, spread=1.0, seed=9)  # a size no other test compiles
    assert lloyd.Layout.of(5003, 3).blocks == 10
    c0 = init_centroids(x, 3, "random", seed=2)
    r = run_kmeans(x, c0, tol=0.0)
    ref_c, ref_lab = lloyd_reference(x, c0, 1000, until_fixed=True)
    np.testing.assert_allclose(r.final_centroids, ref_c, atol=1e-4)
    np.testing.assert_array_equal(r.final_labels, ref_lab)
    np.testing.assert_array_equal(r.counts[-1], np.bincount(ref_lab, minlength=3))
