"""`workbench plot` end to end through ``main``: formats, analytic values, and every bad input."""

from __future__ import annotations

import csv
import io
import json
import textwrap

import numpy as np
import pytest

from tests.cli.cli_util import run_cli

SOURCE = textwrap.dedent(
    """\
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    def sigmoid(x):
        return 1 / (1 + jnp.exp(-x))

    def log(x):
        return jnp.log(x)

    def vector(x):
        return jnp.stack([x, 2 * x, 3 * x])

    def count(x):
        return jnp.round(x).astype(jnp.int32)

    def boom(x):
        raise ValueError("cannot plot this")
    """
)


def test_json_matches_analytic_sigmoid(capsys, prog):
    code, out, err = run_cli(capsys, "plot", prog, "sigmoid", "--order", "2", "--points", "101",
                             "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["function"] == "sigmoid" and data["params"] == {}
    x = np.array(data["x"])
    assert len(x) == 101 and x[0] == -5 and x[-1] == 5
    s = 1 / (1 + np.exp(-x))
    ys = {c["order"]: np.array(c["y"]) for c in data["curves"]}
    np.testing.assert_allclose(ys[0], s, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ys[1], s * (1 - s), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ys[2], s * (1 - s) * (1 - 2 * s), rtol=1e-5, atol=1e-6)
    assert data["nonfinite"] == []


def test_json_params_and_null_for_nonfinite(capsys, prog):
    code, out, _ = run_cli(capsys, "plot", prog, "selu", "--param", "alpha=2", "--format", "json",
                           "--points", "11")
    assert code == 0
    data = json.loads(out)
    assert data["params"] == {"alpha": 2.0, "lmbda": 1.05}
    assert data["curves"][0]["y"][0] == pytest.approx(1.05 * 2 * np.expm1(-5), rel=1e-6)

    code, out, _ = run_cli(capsys, "plot", prog, "log", "--range", "-1", "1", "--points", "5",
                           "--order", "1", "--format", "json")
    data = json.loads(out)
    assert data["curves"][0]["y"][:3] == [None, None, None]
    assert data["nonfinite"][0] == {"order": 0, "indices": [0, 1, 2]}


def test_csv(capsys, prog):
    code, out, _ = run_cli(capsys, "plot", prog, "log", "--range", "-1", "1", "--points", "5",
                           "--order", "1", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["x", "d0", "d1"]
    assert len(rows) == 6
    assert rows[1][1] == "" and float(rows[5][2]) == pytest.approx(1.0)


def test_text_with_check(capsys, prog):
    code, out, _ = run_cli(capsys, "plot", prog, "selu", "--check", "--order", "2")
    assert code == 0
    assert out.startswith("selu: 1000 points of x in [-5, 5], order 2 (alpha=1.67, lmbda=1.05)")
    assert "check f'':" in out and len(out.splitlines()) == 2 + 11 + 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["selu", "--range", "1", "1"], "empty or reversed range"),
        (["selu", "--range", "2", "-2"], "empty or reversed range"),
        (["selu", "--points", "1"], "points must be 2"),
        (["selu", "--order", "5"], "order must be 0 to 4"),
        (["selu", "--order", "-1"], "order must be 0 to 4"),
        (["selu", "--param", "beta=1"], "unknown parameter 'beta'"),
        (["selu", "--param", "alpha"], "bad --param 'alpha'"),
        (["selu", "--wrt", "y"], "no argument 'y'"),
        (["nope"], "unknown function 'nope'"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, prog, argv, message):
    code, out, err = run_cli(capsys, "plot", prog, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_missing_file_is_a_usage_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, "plot", str(tmp_path / "absent.py"), "f")
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize(
    "func, message",
    [
        ("vector", "vector returns f32[3] for a scalar x; a plot needs f: R -> R"),
        ("count", "count returns i32[] (not a real float)"),
        ("boom", "cannot plot this"),
    ],
)
def test_user_code_errors_exit_1(capsys, prog, func, message):
    code, out, err = run_cli(capsys, "plot", prog, func)
    assert code == 1 and out == ""
    first = err.splitlines()[0]
    assert message in first and "prog.py" in first


# -------------------------------------------------------------------- -o FILE.png / .svg


def test_output_png_is_a_valid_image(capsys, prog, tmp_path):
    from PIL import Image

    out = tmp_path / "selu.png"
    code, stdout, err = run_cli(capsys, "plot", prog, "selu", "--order", "2", "-o", str(out),
                                "--size", "640x400")
    assert code == 0 and err == "" and stdout.strip() == f"wrote {out}"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(out) as image:
        image.load()
        assert image.size == (640, 400)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 10  # curves drawn, not a blank page


def test_output_svg_with_overlays(capsys, prog, tmp_path):
    import xml.etree.ElementTree as ET

    out = tmp_path / "three.svg"
    code, _, err = run_cli(capsys, "plot", prog, "selu", "--overlay", "sigmoid", "--overlay", "log",
                           "--order", "1", "--range", "-2", "2", "-o", str(out))
    assert code == 0 and err == ""
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    texts = ["".join(e.itertext()).strip() for e in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"selu", "selu′", "sigmoid′", "log", "log′"} <= set(texts)  # the legend
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polyline"))) > 100  # vector curves


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-o", "plot.pdf"], "must end in .png or .svg"),
        (["-o", "p.png", "--size", "wide"], "bad --size"),
        (["--overlay", "sigmoid"], "--overlay draws into an image"),
    ],
)
def test_output_bad_options_exit_2(capsys, prog, tmp_path, extra, message):
    code, out, err = run_cli(capsys, "plot", prog, "selu", *extra)
    assert code == 2 and out == "" and message in err


def test_output_for_a_vector_function_explains_and_writes_nothing(capsys, prog, tmp_path):
    out = tmp_path / "v.png"
    code, _, err = run_cli(capsys, "plot", prog, "vector", "-o", str(out))
    assert code == 1 and "f32[3]" in err and not out.exists()


def test_at_gives_the_values_at_exactly_x_and_says_where_no_derivative(capsys, prog):
    code, out, _ = run_cli(capsys, "plot", prog, "selu", "--param", "alpha=2", "--order", "1",
                           "--at", "0", "--format", "json")
    assert code == 0
    at = json.loads(out)["at"]
    assert at["x"] == 0.0 and at["differentiable"] is False
    assert at["defined"] == [True, False] and "not differentiable at x = 0" in at["note"]
    code, out, _ = run_cli(capsys, "plot", prog, "sigmoid", "--order", "1", "--at", "0")
    assert code == 0
    assert out.splitlines()[-1] == "at x = 0: sigmoid = 0.5, sigmoid' = 0.25"
