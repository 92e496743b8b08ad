"""Every bundled lesson passes ``workbench lesson --check``: the lessons a teacher opens from
Help > Lessons run, step by step, with the engine of this build (the issue's "done when")."""

from __future__ import annotations

import json

import pytest

from tests.cli.cli_util import run_cli
from workbench.lessons import bundled_lessons, read_lesson

LESSONS = bundled_lessons()


def test_five_lessons_ship_in_both_formats():
    assert len(LESSONS) == 5, [p.name for p in LESSONS]
    formats = {read_lesson(p).format for p in LESSONS}
    assert formats == {"ipynb", "percent"}


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_bundled_lesson_passes_check(capsys, path):
    code, out, err = run_cli(capsys, "lesson", str(path), "--check", "--format", "json")
    report = json.loads(out)
    failed = [(s["number"], s["title"], s["error"]) for s in report["steps"]
              if s["status"] == "failed"]
    assert code == 0 and report["ok"], failed
    statuses = {s["status"] for s in report["steps"]}
    assert "ok" in statuses
    lesson = read_lesson(path)
    assert [s["title"] for s in report["steps"]] == [s.title for s in lesson.steps]
    # A lesson teaches with its directives: most code steps show something beyond running.
    coded = [s for s in lesson.steps if s.has_code]
    assert sum(s.directive is not None for s in coded) >= len(coded) // 2


def test_sharp_bits_lesson_has_steps_meant_to_fail(capsys):
    path = next(p for p in LESSONS if "sharp" in p.stem)
    code, out, _ = run_cli(capsys, "lesson", str(path), "--check", "--format", "json")
    expected = [s for s in json.loads(out)["steps"] if s["status"] == "expected-error"]
    assert code == 0 and len(expected) >= 2
    assert all(s["error"]["kind"] for s in expected)
