"""The k-means fast paths give the general path's run: the label packed into the distance
(K <= PACK_LIMIT) and rows of several points in the scatter (a small D and K).

Each case runs to the fixed point with the fast paths on and off (monkeypatched limits,
shapes no other test compiles) and against the float64 NumPy Lloyd, ties included.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.kmeans_reference import lloyd_reference, nearest
from workbench.engine.kmeans import blobs, init_centroids, lloyd, run_kmeans
from workbench.engine.kmeans import run as kmeans_run


def grid_with_ties(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer points (exact float32 distances) and centroids they are equidistant from."""
    rng = np.random.default_rng(7)
    x = rng.integers(-20, 21, size=(n, 2)).astype(np.float32)
    c0 = np.array([[-4, 0], [4, 0], [0, 6], [0, -6], [-4, 0.5]], np.float32)
    return x, c0


CASES = {
    # name: (points, centroids); N odd or not a multiple of 3, so rows end in padding
    "blobs-k8": lambda: (lambda x: (x, init_centroids(x, 8, "random", seed=3)))(
        blobs(20_001, 8, spread=1.0, seed=11)),
    "offset-k3": lambda: (lambda x: (x, init_centroids(x, 3, "random", seed=1)))(
        blobs(7_003, 3, spread=2.0, seed=12) + np.float32(500)),
    "d3-k5": lambda: (lambda x: (x, init_centroids(x, 5, "kmeans++", seed=2)))(
        np.concatenate([blobs(4_001, 5, seed=13), blobs(4_001, 5, seed=14)[:, :1]], axis=1)),
    "k16": lambda: (lambda x: (x, init_centroids(x, 16, "random", seed=4)))(
        blobs(9_999, 16, spread=0.7, seed=15)),
    "ties": lambda: grid_with_ties(6_001),
}


def general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels and distances from two arrays; one point a scatter row; a separate changed count
    (and no executable compiled before)."""
    monkeypatch.setattr(kmeans_run, "_EXECUTABLES", {})
    monkeypatch.setattr(lloyd, "PACK_LIMIT", 0)
    monkeypatch.setattr(lloyd, "ROW_LIMIT", 0)
    monkeypatch.setattr(lloyd, "PAIR_LIMIT", 0)


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_paths_give_the_general_run(case, monkeypatch):
    x, c0 = CASES[case]()
    n, d = x.shape
    k = len(c0)
    lay = lloyd.Layout.of(n, k, d)
    assert lay.flags and k <= lloyd.PACK_LIMIT
    assert lay.group == (2 if 2 * k * 2 * k <= lloyd.COMBO_LIMIT else 1)
    fast = run_kmeans(x, c0, tol=0.0, max_iter=300)
    with monkeypatch.context() as m:
        general(m)
        assert lloyd.Layout.of(n, k, d).group == 1 and not lloyd.Layout.of(n, k, d).flags
        slow = run_kmeans(x, c0, tol=0.0, max_iter=300)
    assert fast.converged and slow.converged
    # Labels are computed the same way: identical frame by frame while the centroids
    # agree; the sums only differ in the order of float32 additions.
    assert fast.iterations == slow.iterations
    np.testing.assert_array_equal(fast.labels, slow.labels)
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_array_equal(fast.changed, slow.changed)
    # Each sums float32 in its order: both within float32 noise of the float64 means.
    x64 = x.astype(np.float64)
    for r in (fast, slow):
        for f in range(r.iterations):
            cnt = np.bincount(r.labels[f], minlength=k)
            sums = np.stack([np.bincount(r.labels[f], x64[:, j], minlength=k) for j in range(d)], 1)
            mean = np.where(cnt[:, None] > 0, sums / np.maximum(cnt, 1)[:, None], r.centroids[f])
            np.testing.assert_allclose(r.centroids[f + 1], mean, rtol=0, atol=1e-4)
    # The mean squared distance comes from the cluster sums (Q - 2 c.S + n |c|^2), which
    # cancel: summed in another order they differ in the fifth digit.
    for r in (fast, slow):
        true = [((x64 - r.centroids[f].astype(np.float64)[r.labels[f]]) ** 2).sum(1).mean()
                for f in range(r.iterations + 1)]
        np.testing.assert_allclose(r.inertia_mean, true, rtol=1e-4)
    # The packed distance keeps all but the digit's bits: within 2**-18 of the plain one.
    np.testing.assert_allclose(fast.mean_distance, slow.mean_distance, rtol=4e-6)
    # And the fast run ends at the float64 Lloyd's fixed point.
    ref_c, ref_lab = lloyd_reference(x, c0, 1000, until_fixed=True)
    np.testing.assert_array_equal(fast.final_labels, ref_lab)
    np.testing.assert_allclose(fast.final_centroids, ref_c, atol=1e-4)
    for f in range(fast.iterations + 1):
        np.testing.assert_array_equal(fast.counts[f], np.bincount(fast.labels[f], minlength=k))
        if f:
            assert fast.changed[f] == np.count_nonzero(fast.labels[f] != fast.labels[f - 1])


def test_ties_go_to_the_lower_index():
    x, c0 = grid_with_ties(6_001)
    first = run_kmeans(x, c0, tol=0.0, max_iter=0).labels[0]
    # Exact ties: (-4, 0) vs (-4, 0.5) never, but (+-4, 0) and (0, +-6) share many points.
    d = ((x[:, None, :].astype(np.float64) - c0[None].astype(np.float64)) ** 2).sum(-1)
    tied = (np.sort(d, axis=1)[:, 1] == d.min(axis=1)).sum()
    assert tied > 20
    np.testing.assert_array_equal(first, nearest(x, c0))


def test_packed_distance_keeps_the_label_and_the_distance():
    import jax.numpy as jnp

    x = blobs(1_001, 16, seed=5)
    c = init_centroids(x, 16, "random", seed=5)
    cols = lloyd.columns(jnp.asarray(x))
    lab, best = lloyd.assign(cols, jnp.asarray(c))
    prev = (np.asarray(lab) + np.arange(1_001) % 2) % 16  # every other label changed
    packed = lloyd.assign_packed(cols, jnp.asarray(c), jnp.asarray(prev, np.int8))
    np.testing.assert_array_equal(np.asarray(lloyd.unpack_labels(packed, 16)), np.asarray(lab))
    np.testing.assert_array_equal(np.asarray(lloyd.packed_digits(packed, 16)),
                                  2 * np.asarray(lab) + (np.asarray(lab) != prev))
    dist = np.sqrt(np.asarray(best))
    np.testing.assert_allclose(np.asarray(packed), dist, rtol=2.0**-18, atol=1e-37)
    assert lloyd.label_bits(16) == 4 and lloyd.label_bits(1) == 1


def test_layouts():
    two = lloyd.Layout.of(1_000_000, 8, 2)
    assert (two.flags, two.group, two.combos, two.lanes) == (True, 2, 256, 4)  # 1024 cells
    assert two.blocks == 16 and two.cells == 16 * 256 * 4
    assert lloyd.Layout.of(10, 8, 5).group == 2  # 8 floats a point, 16 a row
    assert lloyd.Layout.of(10, 8, 7).group == 1  # 16 floats a point
    big = lloyd.Layout.of(10, 200, 2)
    assert not big.flags and big.group == 1 and big.lanes == 4
