"""`workbench trace` end to end, in-process through ``main`` (and once as a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import pytest

from tests.cli.cli_util import run_cli
from workbench.cli import main

NODE_KEYS = {"invars", "constvars", "outvars", "eqns"}
EQN_KEYS = {"primitive", "params", "invars", "outvars", "file", "line", "subjaxprs"}

SOURCE = textwrap.dedent(
    """\
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


    def loop(x):
        def body(i, acc):
            return lax.cond(i % 2 == 0, lambda a: a * 2.0, lambda a: a - 1.0, acc)

        return lax.fori_loop(0, 3, body, x)


    def branchy(x):
        if x > 0:
            return x
        return -x
    """
)


def check_node(node):
    assert set(node) >= NODE_KEYS
    for var in node["invars"] + node["outvars"] + node["constvars"]:
        assert set(var) in ({"name", "type"}, {"literal", "type"})
    for eqn in node["eqns"]:
        assert set(eqn) >= EQN_KEYS
        for sub in eqn["subjaxprs"]:
            assert set(sub) >= {"param", "jaxpr"}
            check_node(sub["jaxpr"])


def test_json_has_exact_shape(capsys, prog):
    code, out, err = run_cli(
        capsys, "trace", prog, "selu", "--args", "f32[1000]",
        "--transform", "grad", "--transform", "vmap", "--format", "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) >= {"function", "args", "transforms", "text", "stats", "jaxpr"}
    assert doc["function"] == "selu"
    assert doc["args"] == ["f32[1000]"]
    assert doc["transforms"] == ["grad", "vmap"]
    assert set(doc["stats"]) >= {"eqns", "by_primitive"}
    check_node(doc["jaxpr"])
    lines = {e["line"] for e in doc["jaxpr"]["eqns"] if e["line"] is not None}
    assert lines == {2}
    assert {e["file"] for e in doc["jaxpr"]["eqns"]} == {"prog.py"}


def test_text_is_what_make_jaxpr_prints(capsys, prog, load):
    code, out, _ = run_cli(capsys, "trace", prog, "loop", "--args", "f32[4]")
    assert code == 0
    loaded = load(Path(prog).read_text(), prog)
    expected = str(jax.make_jaxpr(loaded.function("loop"))(jax.numpy.ones(4)))
    assert out.rstrip("\n") == expected


def test_tree_shows_nested_lines(capsys, prog):
    code, out, _ = run_cli(
        capsys, "trace", prog, "loop", "--args", "f32[4]", "--transform", "jit",
        "--format", "tree",
    )
    assert code == 0
    assert "cond" in out and "scan" in out  # fori_loop with fixed bounds is a scan
    assert "7" in out  # the cond's editor line


def test_hlo_and_cost(capsys, prog):
    code, out, _ = run_cli(
        capsys, "trace", prog, "selu", "--args", "f32[8]", "--hlo", "stablehlo", "--cost",
        "--format", "json",
    )
    assert code == 0
    doc = json.loads(out)
    assert "stablehlo" in doc["hlo"]["text"] or "func.func" in doc["hlo"]["text"]
    assert "cost" in doc and "memory" in doc


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["missing.py", "f", "--args", "f32[3]"], 2, "no such file: missing.py"),
        (["{prog}", "nope", "--args", "f32[3]"], 2, "unknown function 'nope'"),
        (["{prog}", "selu", "--args", "f32[3"], 2, "argument 1"),
        (["{prog}", "selu", "--args", "f32[3], f32[3], f32[3], f32[3]"], 2, "positional"),
        (["{prog}", "selu", "--args", "f32[3]", "--transform", "blur"], 2, "unknown transform"),
        (["{prog}", "branchy", "--args", "f32[]", "--transform", "jit"], 1, "prog.py:13"),
    ],
)
def test_bad_input_is_one_line(capsys, prog, argv, status, fragment):
    argv = [a.replace("{prog}", prog) for a in argv]
    code, out, err = run_cli(capsys, "trace", *argv)
    assert code == status
    assert fragment in err.splitlines()[0]
    assert "Traceback" not in err
    assert out == ""


def test_syntax_error_exit_1(capsys, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return (x +\n")
    code, _, err = run_cli(capsys, "trace", str(bad), "f", "--args", "f32[3]")
    assert code == 1
    assert err.splitlines()[0].startswith("workbench trace: error: bad.py:")
    assert "Syntax error" in err


MISTAKES = """\
scaled_q = 2.0


def typo(x):
    return scaledQ * x


def matmul(x):
    return jnp.ones((3, 4)) @ x
"""


@pytest.mark.parametrize(
    ("function", "first", "specifics", "said"),
    [
        ("typo", "mistakes.py:5: A name is used that is not defined",
         ["  name: scaledQ (did you mean scaled_q?)"],
         ["  Python says:", "    name 'scaledQ' is not defined"]),
        ("matmul", "mistakes.py:9: Shapes do not line up",
         ["  contracted axes: (4,) vs (1000,)", "  x: traced f32[1000]"],
         ["  JAX says:", "    dot_general requires contracting dimensions to have the same "
          "shape, got (4,) and (1000,)."]),
    ],
    ids=["name", "shapes"],
)
def test_user_error_prints_specifics_hint_then_the_original_message(
    capsys, tmp_path, function, first, specifics, said
):
    path = tmp_path / "mistakes.py"
    path.write_text(MISTAKES)
    code, out, err = run_cli(capsys, "trace", str(path), function, "--args", "f32[1000]")
    assert code == 1 and out == ""
    rows = err.splitlines()
    assert first in rows[0]
    hint = next(i for i, row in enumerate(rows) if row.startswith("  hint: "))
    assert rows[1:hint] == specifics
    assert rows[hint + 1 : hint + 1 + len(said)] == said


def test_long_original_message_is_trimmed_to_twenty_lines(capsys, tmp_path):
    path = tmp_path / "long.py"
    path.write_text("def f(x):\n    raise ValueError('\\n'.join(f'row {i}' for i in range(30)))\n")
    code, _, err = run_cli(capsys, "trace", str(path), "f", "--args", "f32[]")
    assert code == 1
    rows = err.splitlines()
    start = rows.index("  Python says:")
    assert rows[start + 1 : start + 21] == [f"    row {i}" for i in range(20)]
    assert rows[start + 21] == "    ... (10 more lines)"
    assert "row 20" not in err


def test_message_the_title_already_quotes_is_not_repeated(capsys, tmp_path):
    path = tmp_path / "key.py"
    path.write_text("def f(x):\n    return {'a': x}['b']\n")
    code, _, err = run_cli(capsys, "trace", str(path), "f", "--args", "f32[]")
    assert code == 1
    assert "key.py:2: KeyError: 'b'" in err.splitlines()[0]
    assert "says:" not in err


def test_missing_required_option_is_usage_error(capsys, prog):
    with pytest.raises(SystemExit) as exit_:
        main(["trace", prog, "selu"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--args" in err


def test_real_process_shows_only_editor_frames(prog):
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "trace", prog, "branchy",
         "--args", "f32[]", "--transform", "jit"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "site-packages" not in proc.stderr and "workbench/engine" not in proc.stderr
    assert "prog.py" in proc.stderr.splitlines()[0]
