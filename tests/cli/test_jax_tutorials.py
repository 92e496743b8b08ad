"""Two of JAX's current MyST tutorials checked as they are: every step passes, and the
steps that raise are exactly the cells tagged raises-exception, as under nbclient."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.cli_util import run_cli
from workbench.lessons import read_lesson

JAX_DOCS = Path(__file__).resolve().parents[1] / "lessons" / "data" / "jax_docs"


@pytest.mark.parametrize("name", ["key-concepts.md", "arrays.md"])
def test_a_jax_tutorial_checks_as_jupyter_runs_it(capsys, name):
    path = JAX_DOCS / name
    lesson = read_lesson(path)
    tagged = [s.number for s in lesson.steps if s.may_raise]
    assert tagged  # each has cells that fail on purpose
    code, out, _ = run_cli(capsys, "lesson", str(path), "--check", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["format"] == "myst"
    steps = doc["steps"]
    assert sum(s["status"] != "text" for s in steps) == sum(s.has_code for s in lesson.steps)
    raised = [s["number"] for s in steps if s["error"] is not None]
    assert raised == tagged
    assert all(s["status"] == "expected-error" for s in steps if s["number"] in raised)
