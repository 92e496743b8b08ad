"""`workbench kmeans` end to end, in-process through ``main`` (and once as a real process)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from workbench.cli import main
from workbench.engine.kmeans import TUTORIAL_BAD_INIT, init_centroids, tutorial_points

JSON_KEYS = {
    "n",
    "k",
    "d",
    "iterations",
    "converged",
    "inertia_mean",
    "mean_distance",
    "centroids",
    "changed",
    "empty_clusters",
    "final",
    "timing",
    "devices",
}
FINAL_KEYS = {"inertia_mean", "mean_distance", "centroids", "sizes", "changed", "empty_clusters"}


def run_json(capsys, *argv):
    assert main(["kmeans", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_tutorial_json_keys_and_shapes(capsys):
    doc = run_json(capsys, "--tutorial")
    assert set(doc) == JSON_KEYS
    assert set(doc["timing"]) == {"compile_s", "per_iter_s"}
    assert doc["devices"] == ["cpu:0"]  # one device unless --devices shards the points
    assert (doc["n"], doc["k"], doc["d"]) == (800, 4, 2)
    frames = doc["iterations"] + 1
    assert doc["converged"] is True
    histories = ("inertia_mean", "mean_distance", "changed", "empty_clusters")
    assert [len(doc[h]) for h in histories] == [frames] * 4
    assert np.asarray(doc["centroids"]).shape == (frames, 4, 2)
    # entry 0: the initial centroids and every point's first assignment
    x = tutorial_points()
    np.testing.assert_allclose(doc["centroids"][0], init_centroids(x, 4, "kmeans++", seed=0))
    assert doc["changed"][0] == 800 and doc["empty_clusters"][0] == []


def test_final_values_and_both_distortions_match_numpy(capsys, tmp_path):
    """`final` repeats the last entry; inertia_mean and mean_distance are what NumPy finds."""
    out = tmp_path / "labels.npy"
    doc = run_json(capsys, "--tutorial", "--labels-out", str(out))
    final = doc["final"]
    assert set(final) == FINAL_KEYS
    for key in ("inertia_mean", "mean_distance", "centroids", "changed", "empty_clusters"):
        assert final[key] == doc[key][-1], key
    labels = np.load(out)
    assert final["sizes"] == np.bincount(labels, minlength=4).tolist()
    x = tutorial_points().astype(np.float64)
    dist = np.linalg.norm(x - np.asarray(final["centroids"])[labels], axis=1)
    assert final["mean_distance"] == pytest.approx(dist.mean(), rel=1e-5)
    assert final["inertia_mean"] == pytest.approx((dist**2).mean(), rel=1e-5)
    assert final["mean_distance"] != pytest.approx(final["inertia_mean"], rel=1e-2)


def test_tutorial_reproduces_the_clustering(capsys, tmp_path):
    """Same points, K=4 and stopping rule as the notebook; sklearn from the same start agrees."""
    out = tmp_path / "labels.npy"
    doc = run_json(capsys, "--tutorial", "--labels-out", str(out))
    x = tutorial_points()
    c0 = init_centroids(x, 4, "kmeans++", seed=0)
    from sklearn.cluster import KMeans  # here: its import costs every worker 2.5 s

    km = KMeans(4, init=c0, n_init=1, algorithm="lloyd", tol=0.0, max_iter=300).fit(x)
    labels = np.load(out)
    assert labels.shape == (800,) and labels.dtype == np.int8
    np.testing.assert_array_equal(labels, km.labels_)
    np.testing.assert_allclose(doc["centroids"][-1], km.cluster_centers_, atol=1e-4)
    assert doc["converged"]
    assert doc["changed"][-1] == 0 or doc["inertia_mean"][-2] - doc["inertia_mean"][-1] <= 1e-5


def test_text_output(capsys):
    assert main(["kmeans", "--blobs", "600", "--k", "3", "--seed", "2", "--init", "farthest"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("k-means on 600 points in 3 blobs")
    assert out[1].split() == ["iter", "inertia_mean", "mean_distance", "changed", "empty"]
    rows = [ln.split() for ln in out[2:-1]]
    assert [int(r[0]) for r in rows] == list(range(len(rows)))
    assert rows[0][3] == "600"
    assert all(float(r[1]) > float(r[2]) ** 2 for r in rows)  # mean of squares > squared mean
    assert out[-1].startswith("converged after") and "ms per iteration" in out[-1]
    assert f"inertia_mean {rows[-1][1]}, mean_distance {rows[-1][2]};" in out[-1]


def test_data_file_and_init_file(capsys, tmp_path):
    x = tutorial_points()
    np.savetxt(tmp_path / "p.csv", x, delimiter=",", header="x,y", comments="")
    np.save(tmp_path / "c.npy", np.array(TUTORIAL_BAD_INIT, np.float32))
    doc = run_json(capsys, "--data", str(tmp_path / "p.csv"), "--init", str(tmp_path / "c.npy"))
    assert doc["k"] == 4 and doc["n"] == 800
    assert all(e == [3] for e in doc["empty_clusters"])  # the bad init's far centroid
    assert doc["centroids"][-1][3] == [15.0, 15.0]


def test_max_iter_and_negative_tol(capsys):
    doc = run_json(
        capsys, "--blobs", "2000", "--k", "5", "--spread", "4", "--tol", "-1", "--max-iter", "4"
    )
    assert doc["iterations"] == 4 and doc["converged"] is False


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--blobs", "100"], "--blobs needs --k"),
        (["--blobs", "10", "--k", "11"], "larger than the number of points"),
        (["--tutorial", "--k", "0"], "at least 1"),
        (["--blobs", "0", "--k", "1"], "at least 1 point"),
        (["--data", "/no/such/file.csv", "--k", "2"], "not found"),
        (["--tutorial", "--init", "bogus"], "must be one of"),
        (["--tutorial", "--labels-out", "labels.txt"], "must name a .npy"),
        (["--tutorial", "--max-iter", "-3"], "max-iter"),
        (["--tutorial", "--tol", "nan"], "tol"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    assert main(["kmeans", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("workbench kmeans: error:")


def test_nan_data_file(capsys, tmp_path):
    np.save(tmp_path / "bad.npy", np.array([[0, 1], [np.nan, 1], [2, np.inf]]))
    assert main(["kmeans", "--data", str(tmp_path / "bad.npy"), "--k", "1"]) == 2
    assert "2 of 3 rows have NaN or infinite values" in capsys.readouterr().err


def test_real_process(tmp_path):
    out = tmp_path / "l.npy"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench.cli",
            "kmeans",
            "--blobs",
            "500",
            "--k",
            "2",
            "--format",
            "json",
            "--labels-out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)) == JSON_KEYS
    assert np.load(out).shape == (500,)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench.cli",
            "kmeans",
            "--data",
            str(tmp_path / "none.npy"),
            "--k",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_output_gif_and_png_frames(capsys, tmp_path):
    from PIL import Image

    gif = tmp_path / "run.gif"
    assert main(["kmeans", "--tutorial", "--format", "json", "-o", str(gif)]) == 0
    iterations = json.loads(capsys.readouterr().out)["iterations"]
    with Image.open(gif) as image:
        assert image.n_frames == iterations + 1
        assert image.size == (800, 600)
    folder = tmp_path / "frames"
    assert main(["kmeans", "--tutorial", "-o", str(folder)]) == 0
    capsys.readouterr()
    pngs = sorted(folder.glob("frame_*.png"))
    assert len(pngs) == iterations + 1
    assert pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["kmeans", "--tutorial", "-o", str(tmp_path / "run.mp4")]) == 2
    assert "-o takes a .gif file or a folder" in capsys.readouterr().err
