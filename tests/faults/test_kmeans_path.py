"""A k-means points file: errors name the line, never quote it; special and huge files refused.

``KMeans(path="/etc/shadow")`` used to answer with the file's second line.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from workbench.api import messages as p
from workbench.engine.errors import UsageError
from workbench.engine.kmeans import load_points
from workbench.engine.kmeans.data import MAX_POINTS_FILE_BYTES
from workbench.engine.service import Service

SECRET = "root:$6$Xy7Qz1Secret9Hash:19000:0:99999:7:::"


def test_service_names_the_line_but_never_quotes_it(tmp_path):
    f = tmp_path / "shadow"
    f.write_text(f"daemon:*:19000:0:99999:7:::\n{SECRET}\n")
    reply = Service().handle(p.KMeans(dataset="file", path=str(f)))
    assert isinstance(reply, p.UsageFailure), reply
    assert "line 2" in reply.message and "expected numbers" in reply.message
    assert "Xy7Qz1Secret9Hash" not in reply.message and "daemon" not in reply.message


def test_bad_line_in_a_space_separated_file(tmp_path):
    f = tmp_path / "pts.txt"
    f.write_text(f"1 2\n3 4\n{SECRET}\n")
    with pytest.raises(UsageError) as err:
        load_points(f)
    assert str(err.value) == f"{f}: line 3: expected numbers separated by spaces"
    f.write_text(f"1,2\n3,{SECRET}\n")
    with pytest.raises(UsageError) as err:
        load_points(f)
    assert str(err.value) == f"{f}: line 2: expected numbers separated by commas"


def test_fifo_is_refused(tmp_path):
    fifo = tmp_path / "pts.csv"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"is a named pipe \(FIFO\), not a regular file"):
        load_points(fifo)


def test_link_to_a_device_is_refused(tmp_path):
    link = tmp_path / "pts.npy"
    link.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match=r"\(a link to /dev/zero\) is a device"):
        load_points(link)


def test_file_past_the_size_limit_is_refused(tmp_path):
    f = tmp_path / "pts.csv"
    with open(f, "wb") as out:
        out.write(b"1,2\n")
        out.truncate(MAX_POINTS_FILE_BYTES + 1)  # sparse: no disk used
    with pytest.raises(UsageError, match=r"is 50\.0 MB; points files may be at most 50 MB"):
        load_points(f)


def test_files_up_to_the_limit_still_load(tmp_path):
    pts = np.arange(20, dtype=np.float64).reshape(10, 2)
    np.save(tmp_path / "p.npy", pts)
    np.testing.assert_array_equal(load_points(tmp_path / "p.npy"), pts.astype(np.float32))
    (tmp_path / "p.csv").write_bytes(b"\xef\xbb\xbf1,2\r\n3,4\r\n")  # BOM, CRLF
    np.testing.assert_array_equal(load_points(tmp_path / "p.csv"), [[1, 2], [3, 4]])


def test_given_centroids_file_must_be_a_small_regular_file(tmp_path):
    from workbench.engine.kmeans.inits import load_centroids

    fifo = tmp_path / "centroids.npy"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="named pipe"):
        load_centroids(fifo)
    big = tmp_path / "big.npy"
    with open(big, "wb") as fh:
        fh.truncate(2_000_000)
    with pytest.raises(UsageError, match="read up to 1 MB"):
        load_centroids(big)
