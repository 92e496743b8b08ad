"""`workbench lesson` end to end: a notebook and a percent script listed and checked in-process,
with a real engine, one step per directive verb and the ways a step can fail."""

from __future__ import annotations

import json
from dataclasses import dataclass

import nbformat
import nbformat.v4 as nbf
import pytest

from tests.cli.cli_util import run_cli


@dataclass(frozen=True)
class S:
    """One step of the test lesson and what ``--check`` must say of it."""

    code: str
    text: str | None = None
    directive: str | None = None
    expect: str | None = None  # None: must work; "": any error; else that kind
    status: str = "ok"
    kind: str | None = None  # the error kind reported
    summary: str = ""  # a part of the summary
    line: int | None = None


TRACEBOOL = """\
@jax.jit
def sign(x):
    if x > 0:
        return 1.0
    return -1.0

sign(2.0)"""

STEPS = [
    S("import jax\nimport jax.numpy as jnp\n\n\ndef sq(x):\n    return x * x",
      "# Checked lesson\n\nWe square things.",
      "trace sq --args f32[3]", summary="jaxpr: 1 equation"),
    S("def wave(x):\n    return jnp.sin(x) * 2.0", "## Values", "values wave --args f32[4]",
      summary="values: "),
    S("def soft(x, beta=1.0):\n    return jnp.log1p(jnp.exp(beta * x)) / beta", "## Plot",
      "plot soft --overlay sq --order 1 --range -2 2 --points 21 --param beta=2",
      summary="soft, f' + sq on [-2, 2] (21 points; beta=2)"),
    S("print('timing sq')", "## Time", "time sq --args f32[8] --devices cpu",
      summary="on cpu:0 (measured briefly)"),
    S("centres = 3", "## K-means", "kmeans --blobs 200 --k 3", summary="(200 points, K=3)"),
    S("y = sq(3.0) + centres\nprint('y is', y)", "## Names stay", summary="ran"),
    S(TRACEBOOL, "## Control flow", expect="tracer-bool", status="expected-error",
      kind="tracer-bool", line=3, summary="failed as expected: tracer-bool"),
    S("ratio = 1 / 0", expect="", status="expected-error", kind="exception", line=1,
      summary="failed as expected"),
    S(TRACEBOOL.replace("sign", "sign2"), expect="name", status="failed", kind="tracer-bool",
      line=3, summary="expected an error of kind name, got tracer-bool"),
    S("q = 1", expect="name", status="failed", kind="no-error",
      summary="expected an error of kind name, but the step ran"),
    S("def broken(:\n    pass", "## Typo", status="failed", kind="syntax", line=1,
      summary="syntax: Syntax error"),
    S("z = 1", directive="frobnicate sq", status="failed", kind="directive",
      summary="its code ran"),
    S("w = 2", directive="trace sq --args 'f32[3'", expect="", status="failed", kind="usage",
      summary="unclosed shape"),
    S("v = y * 2", "## Still running", "trace sq --args f32[2] --transform vmap",
      summary="jaxpr: 1 equation"),
]
CODE_STEPS = len(STEPS)
TRAILING = "That is all."


def write_notebook(path, steps=STEPS, trailing=TRAILING):
    """The steps as a notebook: expect-error as cell tags, both forms."""
    cells = []
    for s in steps:
        if s.text is not None:
            cells.append(nbf.new_markdown_cell(s.text))
        code = (f"# workbench: {s.directive}\n" if s.directive else "") + s.code
        tags = [] if s.expect is None else [
            "expect-error" + (f":{s.expect}" if s.expect else "")]
        cells.append(nbf.new_code_cell(code, metadata={"tags": tags} if tags else {}))
    if trailing:
        cells.append(nbf.new_markdown_cell(trailing))
    nbformat.write(nbf.new_notebook(cells=cells), path)
    return str(path)


def write_percent(path, steps=STEPS, trailing=TRAILING):
    """The steps as a percent script: expect-error as directive lines."""
    parts = []
    for s in steps:
        if s.text is not None:
            parts.append("# %% [markdown]\n" + "".join(
                f"# {row}\n" if row else "#\n" for row in s.text.splitlines()))
        head = "".join(f"# workbench: {d}\n" for d in (
            s.directive, None if s.expect is None else f"expect-error {s.expect}".strip())
            if d is not None)
        parts.append(f"# %%\n{head}{s.code}\n")
    if trailing:
        parts.append(f"# %% [markdown]\n# {trailing}\n")
    path.write_text("\n".join(parts), encoding="utf-8")
    return str(path)


def check_report(doc_steps):
    assert len(doc_steps) == CODE_STEPS + 1
    for number, (s, got) in enumerate(zip(STEPS, doc_steps, strict=False), start=1):
        assert got["number"] == number
        assert got["status"] == s.status, (number, got)
        assert s.summary in got["summary"], (number, got)
        assert got["directive"] == s.directive
        assert got["expect_error"] == s.expect
        if s.kind is None:
            assert got["error"] is None, (number, got)
        else:
            assert got["error"]["kind"] == s.kind, (number, got)
            assert set(got["error"]) == {"kind", "title", "file", "line", "hint", "message"}
            assert got["error"]["line"] == s.line
        assert got["seconds"] >= 0
    last = doc_steps[-1]
    assert (last["number"], last["status"], last["title"], last["error"]) == (
        CODE_STEPS + 1, "text", TRAILING, None)


def test_check_notebook_json(capsys, tmp_path):
    path = write_notebook(tmp_path / "lesson.ipynb")
    code, out, err = run_cli(capsys, "lesson", path, "--check", "--format", "json")
    assert code == 1  # some steps fail
    doc = json.loads(out)
    assert set(doc) == {"lesson", "title", "format", "checked", "ok", "seconds", "steps",
                        "output", "output_dropped", "handout"}
    assert (doc["lesson"], doc["title"], doc["format"], doc["checked"], doc["ok"]) == (
        path, "Checked lesson", "ipynb", True, False)
    assert set(doc["steps"][0]) == {"number", "title", "status", "directive", "summary",
                                    "error", "expect_error", "seconds", "outputs",
                                    "may_raise"}
    assert [s["title"] for s in doc["steps"][:3]] == ["Checked lesson", "Values", "Plot"]
    check_report(doc["steps"])
    # what the code printed is in the document, in step order, and not on stderr
    assert doc["output"].index("timing sq") < doc["output"].index("y is 12.0")
    assert doc["output_dropped"] == 0
    assert "y is" not in err and "timing sq" not in err
    syntax = doc["steps"][10]["error"]
    assert syntax["hint"] and syntax["title"].startswith("Syntax error")
    usage = doc["steps"][12]["error"]
    assert "unclosed shape" in usage["message"]


def test_check_percent_text(capsys, tmp_path):
    path = write_percent(tmp_path / "lesson.py")
    code, out, err = run_cli(capsys, "lesson", path, "--check")
    assert code == 1
    lines = out.splitlines()
    steps = [row for row in lines if row.startswith("step ")]
    assert len(steps) == CODE_STEPS + 1
    assert steps[0].startswith(f"step 1/{CODE_STEPS + 1}   ok      Checked lesson — jaxpr: ")
    for s, row in zip(STEPS, steps, strict=False):
        label = {"ok": "ok", "expected-error": "ok", "failed": "FAILED"}[s.status]
        assert row.split()[2] == label, row
        assert s.summary in row, row
    assert "(line 3)" in steps[6] and "(line 1)" in steps[10]
    # a failed step's hint is on the line below it; the directive's problem too
    below_syntax = lines[lines.index(steps[10]) + 1]
    assert below_syntax.strip().startswith("hint: Python could not read this line")
    below_bad = lines[lines.index(steps[11]) + 1]
    assert below_bad.strip().startswith("problem: 'frobnicate sq': unknown directive")
    assert steps[-1].split()[2] == "text" and steps[-1].endswith(TRAILING + " — text")
    assert lines[-1].startswith(f"{CODE_STEPS + 1} steps: 7 ok, 2 expected errors, 5 failed, "
                                "1 text (")
    # the code's prints go on stderr, never into the report
    assert "y is 12.0" in err and "timing sq" in err
    assert "y is" not in out


def test_a_lesson_that_passes_exits_0(capsys, tmp_path):
    passing = [s for s in STEPS if s.status != "failed"]
    path = write_percent(tmp_path / "good.py", passing, trailing="")
    code, out, err = run_cli(capsys, "lesson", path, "--check", "--format", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["ok"] is True
    assert [s["status"] for s in doc["steps"]] == [s.status for s in passing]


def test_listing_runs_nothing(capsys, tmp_path):
    marker = tmp_path / "ran.txt"
    steps = [S(f"open({str(marker)!r}, 'w').write('ran')\nprint('side effect')",
               "# Listed", "trace sq --args f32[3]"),
             S("def sq(x):\n    return x * x", expect="tracer-bool")]
    path = write_notebook(tmp_path / "l.ipynb", steps)
    code, out, err = run_cli(capsys, "lesson", path)
    assert code == 0
    assert not marker.exists()
    assert "side effect" not in out + err
    lines = out.splitlines()
    assert lines == ["step 1/3  code    Listed — trace sq --args f32[3]",
                     "step 2/3  code    def sq(x): — runs its code  [expect-error tracer-bool]",
                     f"step 3/3  text    {TRAILING} — text",
                     "3 steps: 2 with code, 1 text; nothing ran (--check runs them)"]
    code, out, _ = run_cli(capsys, "lesson", path, "--format", "json")
    assert code == 0 and not marker.exists()
    doc = json.loads(out)
    assert doc["checked"] is False and doc["ok"] is True and doc["output"] == ""
    assert [s["status"] for s in doc["steps"]] == ["listed", "listed", "text"]
    assert [s["summary"] for s in doc["steps"]] == ["trace sq --args f32[3]", "runs its code",
                                                    "text"]
    assert doc["steps"][1]["expect_error"] == "tracer-bool"


def test_listing_a_bad_directive_fails_without_running(capsys, tmp_path):
    path = write_percent(tmp_path / "l.py", [S("x = 1", "# Bad", "trace sq"),
                                            S("y = 2", directive="plot f --order two")],
                         trailing="")
    code, out, _ = run_cli(capsys, "lesson", path, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    errors = [s["error"] for s in doc["steps"]]
    assert [s["status"] for s in doc["steps"]] == ["failed", "failed"]
    assert [s["directive"] for s in doc["steps"]] == ["trace sq", "plot f --order two"]
    assert {e["kind"] for e in errors} == {"directive"}
    assert "the following arguments are required: --args" in errors[0]["message"]
    assert "invalid int value: 'two'" in errors[1]["message"]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.ipynb", '{"cells": [\n}', "bad.ipynb is not a notebook: invalid JSON at line 2"),
    ("future.ipynb", '{"nbformat": 9, "cells": []}',
     "future.ipynb: unknown notebook format version 9 (the workbench reads nbformat 4)"),
    ("old.ipynb", '{"nbformat": 3, "worksheets": []}',
     "old.ipynb: nbformat 3 notebooks are not supported: convert with `jupyter nbconvert "
     "--to notebook --nbformat 4`"),
    ("list.ipynb", "[1, 2]", "list.ipynb is not a notebook: its JSON is a list, not an object"),
    ("image.ipynb", b"\x89PNG\r\n\x1a\n", "image.ipynb is not UTF-8 text: byte 0x89 at offset 0"),
    ("huge.py", 50_300_000,
     "huge.py is too large: 50.3 MB (text notebooks are read up to 4 MB)"),
    ("notes.txt", "# %%\nx = 1\n", "notes.txt is not a lesson"),
    ("gone.py", None, "no such lesson: "),
])
def test_a_lesson_that_cannot_be_read_is_a_usage_error(capsys, tmp_path, name, content,
                                                      message):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, int):
        with open(path, "wb") as fh:  # sparse: refused by its size, never read
            fh.truncate(content)
    for extra in ((), ("--check",), ("--check", "--format", "json")):
        code, out, err = run_cli(capsys, "lesson", str(path), *extra)
        assert code == 2
        assert out == ""
        assert err.startswith("workbench lesson: error: ") and message in err
        assert err.count("\n") == 1


def test_help_says_what_the_check_proves(capsys):
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "lesson", "--help")
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "the check proves the step works, its numbers mean nothing" in text
    assert "expect-error" in text and "raises-exception" in text and "skip-execution" in text
    assert '"status" (ok|failed|expected-error|skipped|text|listed)' in text
    assert "--existing" in text


def skip_lesson(tmp_path):
    """A notebook whose second step is tagged skip-execution (with a directive that would
    fail) and whose third is tagged raises-exception; a marker file shows if step 2 ran."""
    marker = tmp_path / "ran.txt"
    cells = [
        nbf.new_markdown_cell("# Skipping"),
        nbf.new_code_cell("def sq(x):\n    return x * x"),
        nbf.new_markdown_cell("## Too slow for class"),
        nbf.new_code_cell(f"# workbench: trace nowhere --args f32[3]\n"
                          f"open({str(marker)!r}, 'w').write('ran')\nprint('side effect')",
                          metadata={"tags": ["skip-execution"]}),
        nbf.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]}),
    ]
    path = tmp_path / "skip.ipynb"
    nbformat.write(nbf.new_notebook(cells=cells), path)
    return str(path), marker


def test_a_skip_execution_step_is_reported_skipped_and_never_runs(capsys, tmp_path):
    path, marker = skip_lesson(tmp_path)
    code, out, err = run_cli(capsys, "lesson", path, "--check", "--format", "json")
    assert code == 0, out
    assert not marker.exists() and "side effect" not in out + err
    doc = json.loads(out)
    assert doc["ok"] is True
    steps = doc["steps"]
    assert [s["status"] for s in steps] == ["ok", "skipped", "expected-error"]
    skipped = steps[1]
    assert skipped["title"] == "Too slow for class" and skipped["error"] is None
    assert skipped["directive"] == "trace nowhere --args f32[3]"
    assert skipped["summary"].startswith("skipped (skip-execution tag)")
    assert steps[2]["expect_error"] is None and steps[2]["may_raise"] is True
    assert steps[2]["error"]["kind"] == "exception"
    code, out, _ = run_cli(capsys, "lesson", path, "--check")
    assert code == 0 and not marker.exists()
    lines = out.splitlines()
    assert lines[1] == ("step 2/3  skip    Too slow for class — skipped (skip-execution tag): "
                        "shown, never run")
    assert lines[-1].startswith("3 steps: 1 ok, 1 expected error, 0 failed, 1 skipped, 0 text (")


def test_listing_shows_a_skipped_step(capsys, tmp_path):
    path, marker = skip_lesson(tmp_path)
    code, out, _ = run_cli(capsys, "lesson", path)
    assert code == 0 and not marker.exists()
    assert out.splitlines() == [
        "step 1/3  code    Skipping — runs its code",
        "step 2/3  skip    Too slow for class — skipped (skip-execution tag): shown, never run",
        "step 3/3  code    1 / 0 — runs its code  [raises-exception]",
        "3 steps: 2 with code, 1 skipped, 0 text; nothing ran (--check runs them)"]
    code, out, _ = run_cli(capsys, "lesson", path, "--format", "json")
    assert [s["status"] for s in json.loads(out)["steps"]] == ["listed", "skipped", "listed"]


def test_raises_exception_allows_an_error_and_requires_none(capsys, tmp_path):
    """Jupyter's tag, as nbclient reads it: the cell may raise."""
    cells = [nbf.new_code_cell("x = 1", metadata={"tags": ["raises-exception"]}),
             nbf.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]})]
    path = tmp_path / "may.ipynb"
    nbformat.write(nbf.new_notebook(cells=cells), path)
    code, out, _ = run_cli(capsys, "lesson", str(path), "--check", "--format", "json")
    assert code == 0
    assert [s["status"] for s in json.loads(out)["steps"]] == ["ok", "expected-error"]


def test_check_reports_each_steps_outputs_and_writes_its_figures(capsys, tmp_path):
    cells = [nbf.new_code_cell("import matplotlib.pyplot as plt\nprint('drawing')\n"
                               "plt.plot([1, 2, 3])\nplt.show()\n21 * 2"),
             nbf.new_code_cell("%time total = sum(range(10))\ntotal")]
    path = tmp_path / "outputs.ipynb"
    nbformat.write(nbf.new_notebook(cells=cells), path)
    folder = tmp_path / "figures"
    code, out, _ = run_cli(capsys, "lesson", str(path), "--check", "--format", "json",
                           "--outputs", str(folder))
    assert code == 0
    first, second = json.loads(out)["steps"]
    assert [(o["kind"], o["has_figure"]) for o in first["outputs"]] == [
        ("stream", False), ("display", True), ("result", False)]
    assert first["outputs"][2]["text"] == "42"
    figure = first["outputs"][1]["figure"]
    assert figure == str(folder / "step-01-1.png")
    assert (folder / "step-01-1.png").read_bytes().startswith(b"\x89PNG")
    assert second["outputs"][-1]["text"] == "45" and "Wall time" in second["outputs"][0]["text"]
    code, out, err = run_cli(capsys, "lesson", str(path), "--check")
    assert code == 0
    assert "Out[" in err and ": 42" in err and "[figure: <Figure" in err
