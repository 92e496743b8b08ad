"""k-means data and initialisations: the tutorial's points, blobs, files, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.engine.errors import UsageError
from workbench.engine.kmeans import blobs, init_centroids, load_points, tutorial_points


def test_tutorial_points_are_the_notebooks():
    x = tutorial_points()
    assert x.shape == (800, 2) and x.dtype == np.float32
    # The values the notebook printed.
    np.testing.assert_array_equal(x[0], np.float32([4.8073673, 0.69552976]))
    np.testing.assert_allclose(x[-1], [0.5922272, 0.6641729], atol=1e-6)
    np.testing.assert_allclose(x[:400].mean(axis=0), [4, 0], atol=0.15)


def test_blobs_shape_seed_and_spread():
    a = blobs(1001, 4, spread=0.5, seed=3)
    assert a.shape == (1001, 2) and a.dtype == np.float32
    np.testing.assert_array_equal(a, blobs(1001, 4, spread=0.5, seed=3))
    assert not np.array_equal(a, blobs(1001, 4, spread=0.5, seed=4))
    tight = blobs(400, 1, spread=0.0, seed=0)
    assert np.ptp(tight, axis=0).max() == 0


def test_load_npy_and_csv(tmp_path):
    pts = np.arange(12, dtype=np.float64).reshape(4, 3)
    np.save(tmp_path / "p.npy", pts)
    np.testing.assert_array_equal(load_points(tmp_path / "p.npy"), pts.astype(np.float32))
    (tmp_path / "p.csv").write_text("x,y,z\n" + "\n".join(",".join(map(str, r)) for r in pts))
    np.testing.assert_array_equal(load_points(tmp_path / "p.csv"), pts.astype(np.float32))
    (tmp_path / "p.txt").write_text("# comment\n1 2\n3 4\n")
    np.testing.assert_array_equal(load_points(tmp_path / "p.txt"), [[1, 2], [3, 4]])


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "not found"),
        ("", "empty"),
        ("1,2\n3,oops\n", "line 2: expected numbers separated by commas"),
        ("1,2\n3,4,5\n", "line 2: 3 columns, expected 2"),
        ("1\n2\n3\n", "at least 2 columns"),
        ("1,2\nnan,4\n5,inf\n", "2 of 3 rows have NaN or infinite values"),
        ("x,y\n", "header but no rows"),
    ],
)
def test_bad_csv_files(tmp_path, content, message):
    f = tmp_path / "bad.csv"
    if content is not None:
        f.write_text(content)
    with pytest.raises(UsageError, match=message):
        load_points(f)


def test_bad_npy_files(tmp_path):
    (tmp_path / "junk.npy").write_bytes(b"not an npy file at all")
    with pytest.raises(UsageError, match="cannot read"):
        load_points(tmp_path / "junk.npy")
    np.save(tmp_path / "flat.npy", np.zeros(5))
    with pytest.raises(UsageError, match="N x D"):
        load_points(tmp_path / "flat.npy")
    np.save(tmp_path / "none.npy", np.zeros((0, 2)))
    with pytest.raises(UsageError, match="N = 0"):
        load_points(tmp_path / "none.npy")
    np.save(tmp_path / "text.npy", np.array([["a", "b"]]))
    with pytest.raises(UsageError, match="expected numbers"):
        load_points(tmp_path / "text.npy")


@pytest.mark.parametrize("method", ["random", "kmeans++", "farthest"])
def test_init_methods_pick_distinct_data_points(method):
    x = tutorial_points()
    c = init_centroids(x, 5, method, seed=1)
    assert c.shape == (5, 2) and c.dtype == np.float32
    assert len({tuple(r) for r in c}) == 5
    assert all((x == r).all(axis=1).any() for r in c)  # each is one of the points
    np.testing.assert_array_equal(c, init_centroids(x, 5, method, seed=1))


def test_farthest_first_spreads_out():
    x = np.array([[0, 0], [0.1, 0], [10, 0], [10, 0.1], [5, 9]], np.float32)
    c = init_centroids(x, 3, "farthest", seed=0)
    # whichever point it starts from, the three far-apart corners are taken
    assert {tuple(np.round(r)) for r in c} == {(0, 0), (10, 0), (5, 9)}


def test_kmeanspp_with_duplicate_points_still_returns_k():
    x = np.zeros((10, 2), np.float32)
    assert init_centroids(x, 3, "kmeans++", seed=0).shape == (3, 2)


def test_given_centroids_array_and_file(tmp_path):
    x = tutorial_points()
    given = np.array([[0, 0], [4, 0]], np.float64)
    np.testing.assert_array_equal(init_centroids(x, None, given), given.astype(np.float32))
    np.save(tmp_path / "c.npy", given)
    np.testing.assert_array_equal(init_centroids(x, 2, str(tmp_path / "c.npy")), given)


@pytest.mark.parametrize(
    "k, method, message",
    [
        (0, "random", "at least 1"),
        (-2, "kmeans++", "at least 1"),
        (801, "farthest", "larger than the number of points N = 800"),
        (None, "random", "needs --k"),
        (3, "centres.txt", "must be one of"),
        (3, np.zeros((2, 2)), "does not match the 2 initial centroids"),
        (None, np.zeros((2, 3)), "D = 3, the data has D = 2"),
        (None, np.array([[0, np.nan]]), "NaN"),
    ],
)
def test_bad_init(k, method, message):
    with pytest.raises(UsageError, match=message):
        init_centroids(tutorial_points(), k, method)


def test_missing_and_empty_init_files(tmp_path):
    with pytest.raises(UsageError, match="not found"):
        init_centroids(tutorial_points(), None, str(tmp_path / "none.npy"))
    (tmp_path / "e.npy").write_bytes(b"")
    with pytest.raises(UsageError, match="empty"):
        init_centroids(tutorial_points(), None, str(tmp_path / "e.npy"))
