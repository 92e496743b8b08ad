"""`workbench lesson`: a lesson's steps listed, or, with ``--check``, all run before class.

workbench lesson assets/lessons/01_quick_peek.ipynb
workbench lesson my_lesson.py --check
workbench lesson my_lesson.ipynb --check --format json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from workbench.api import messages as m
from workbench.api.cells import CellOutput
from workbench.api.curves import Curves, PointValues
from workbench.api.errors import Explanation
from workbench.api.jaxpr import TraceResult
from workbench.api.kmeans import KMeansDemo
from workbench.api.printed import Printed
from workbench.api.timing import TimingConfig, TimingReport
from workbench.api.values import NodeValues, ValuesResult
from workbench.api.writer import atomic_write_bytes
from workbench.cli.common import UserOutput
from workbench.cli.plot_cmd import point_text
from workbench.cli.runner import Engine, add_engine_options, open_engine
from workbench.engine.errors import UsageError, UserCodeError, WorkbenchError
from workbench.lessons import (
    CallDirective,
    Directive,
    Lesson,
    LessonError,
    PlotDirective,
    Step,
    TimeDirective,
    read_lesson,
)
from workbench.lessons.directives import EXPECT_ERROR, directive_text
from workbench.lessons.handout import (
    HANDOUT_SUFFIXES,
    PDF_NEEDS,
    HandoutError,
    StepShown,
    handout_notebook,
    pdf_route,
    write_handout,
)
from workbench.lessons.plan import (
    curve_requests,
    judge,
    kmeans_request,
    point_request,
    time_request,
    trace_request,
    values_request,
)

# Enough to prove a timing step runs, not to measure it: the check is about the lesson.
CHECK_TIMING = TimingConfig(min_batch_s=0.001, repeats=2, max_measure_s=0.5, dispatch_samples=3)

Status = Literal["ok", "failed", "expected-error", "skipped", "text", "listed"]
LABELS: dict[str, str] = {"ok": "ok", "failed": "FAILED", "expected-error": "ok",
                          "skipped": "skip", "text": "text", "listed": "code"}

EPILOG = """\
Without --check nothing runs: each step is listed with its title and what it would do
(its directive, or "runs its code"). A step with a bad directive is listed as FAILED.

With --check every code step runs in order in one engine, as Jupyter runs a notebook's
cells: through IPython (magics such as %timeit, ! shell lines, a real __main__), names a
step defines staying for the steps after it, and what it shows kept: its printed text,
its last expression's value (Out[n], IPython's formatting) and its matplotlib figures
(the inline backend; PNG files under --outputs DIR). Then its directive runs: trace
(the jaxpr), values (every variable's value; a run-time error is the step's error),
plot (FUNC and each --overlay sampled), time (jit vs eager, measured only briefly:
the check proves the step works, its numbers mean nothing; the directive's
--repeats, --min-batch and --budget are not used), kmeans (the animated demo's run).

A step passes when it runs without an error, or, marked to fail (a cell tag
expect-error or expect-error:KIND, or a line # workbench: expect-error [KIND]), when
it fails with that error kind (any kind when none is given; the kinds are the error
catalog's, e.g. tracer-bool, name, syntax). A cell tagged raises-exception (Jupyter's
tag) passes either way, as in Jupyter: the error is allowed, not required. A step
fails on any other error, when an expected error does not come, or on a bad directive
(kind "directive"). Errors that are the lesson's own mistakes (an unknown function, a
bad argument spec: kind "usage") fail a step even when it expects an error. An engine
that is lost (an attached kernel that died, a network gone: kind "engine") fails the
step it was running, and the steps after it are failed unrun. Text-only
steps are listed as text. A step whose cell is tagged skip-execution (Jupyter Book's
and nbclient's tag) is listed and reported as
skipped: neither its code nor its directive runs, and it never fails the check.

Text format: one line per step as it finishes (a failed step's hint on a second line)
and a summary line; what the lesson's code prints goes on stderr. JSON: one document,
{"lesson", "title", "format" (ipynb|percent|light|myst|markdown|text), "checked", "ok",
"seconds", "steps": [{"number", "title",
"status" (ok|failed|expected-error|skipped|text|listed), "directive" (as written, or
null), "summary", "error", "expect_error" (null, "" for any kind, or the kind),
"may_raise" (tagged raises-exception: an error allowed), "seconds",
"outputs": [{"kind" (stream|result|display), "text" (text/plain), "execution_count",
"has_figure", "figure" (its file under --outputs, else null)}]}],
"output" (what the lesson's code printed), "output_dropped", "handout" (the
--export file, else null)}.
"error" is null or {"kind", "title", "file", "line", "hint", "message"}: for an
expected-error step the error it raised; kind "no-error" when an expected error did
not come; "line" counts within the step's code, and "file" is null unless the error
is in another step's code (a function defined there).

With --export OUT the lesson runs as with --check, then OUT is written: a handout of
every cell in order, each step with what it showed (printed text, Out[n], figures,
its error and hint). OUT.html is one page with its images inside; OUT.ipynb is the
executed notebook (it opens in Jupyter); OUT.pdf needs nbconvert's webpdf (Playwright's
Chromium) or xelatex, and says what to install otherwise. Cells tagged remove-cell,
remove-input or remove-output are hidden in HTML and PDF, as Jupyter Book hides them.
JSON names the file ("handout").

Exit status: 0 when every step passes (or, listing, no directive is bad), 1 when a
step fails (a handout is written all the same), 2 when the lesson cannot be read or
the handout cannot be written (one line on stderr says why: not JSON, not nbformat 4,
not UTF-8 text, past a size limit, not a notebook format, missing, a broken front
matter, a notebook of another language, no PDF route).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lesson",
        help="list a lesson's steps, or run them all (--check) before class",
        description="Read a lesson (a Jupyter notebook, a MyST or Markdown notebook, or a "
        "Jupytext .py script) and list its steps; with --check run every step in one engine "
        "and report, per step, ok or the error and what its directive showed; with --export "
        "write the run as a handout.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE",
                   help="a lesson: .ipynb, .md (MyST or Markdown) or .py (Jupytext's percent "
                   "or light script)")
    p.add_argument("--check", action="store_true",
                   help="run every step in order and report each (exit 1 if one fails)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--outputs", metavar="DIR", type=Path,
                   help="with --check: write each step's figures there as PNG files "
                   "(step-03-1.png, ...); JSON names them")
    p.add_argument("--export", metavar="OUT", type=Path,
                   help="run the lesson as --check does, then write a handout with every "
                   "step's outputs and figures: OUT.html (one page, images inside), "
                   "OUT.ipynb (the executed notebook) or OUT.pdf (needs nbconvert's webpdf "
                   "or xelatex)")
    add_engine_options(p)
    p.set_defaults(func=run)


@dataclass
class StepReport:
    """One step's line of the report."""

    number: int
    title: str
    status: Status
    directive: str | None
    summary: str
    error: dict[str, Any] | None
    expect_error: str | None
    seconds: float = 0.0
    outputs: list[dict[str, Any]] = field(default_factory=list)
    """What the step showed, as a notebook shows a cell's outputs: {"kind" (stream|result|
    display), "text" (its text/plain), "execution_count" (a result's Out[n]), "figure"
    (the PNG's path under --outputs, else null; "has_figure" says whether it had one)}."""
    may_raise: bool = False
    """Tagged raises-exception (Jupyter's): an error is allowed, not required."""


@dataclass
class _Outcome:
    """What running a step's code and directive gave: a summary, or the error it raised."""

    summary: str = ""
    error: Explanation | None = None
    usage: str | None = None  # the lesson's own mistake (unknown function, bad spec)
    lost: str | None = None  # the engine failed (its kernel died): not the lesson's doing
    outputs: tuple[CellOutput, ...] = ()


class _StepOutput(UserOutput):
    """UserOutput that, for JSON, keeps even a failing step's text for the document."""

    def __init__(self, echo: bool):
        super().__init__()
        self._echo = echo

    def to_stderr(self) -> None:
        if self._echo:
            super().to_stderr()


def run(args: argparse.Namespace) -> int:
    try:
        lesson = read_lesson(args.file)
    except LessonError as exc:
        raise UsageError(str(exc)) from None
    export: Path | None = getattr(args, "export", None)
    if export is not None:
        _check_export(export)
        args.check = True
    as_json = args.format == "json"
    started = time.perf_counter()
    shown: dict[int, StepShown] = {}
    if not args.check:
        reports = [_skipped(step) or _listed(step) for step in lesson.steps]
        printed = Printed()
        if not as_json:
            for report in reports:
                _print_step(report, len(lesson.steps))
    else:
        reports, printed = _check(args, lesson, as_json, shown)
    seconds = time.perf_counter() - started
    ok = all(r.status != "failed" for r in reports)
    handout = None if export is None else _write_export(lesson, shown, export)
    if as_json:
        doc = {"lesson": str(lesson.path), "title": lesson.title, "format": lesson.format,
               "checked": bool(args.check), "ok": ok, "seconds": seconds,
               "steps": [asdict(r) for r in reports],
               "output": printed.shown(), "output_dropped": printed.dropped,
               "handout": handout}
        json.dump(doc, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        _emit(_summary_line(reports, bool(args.check), seconds))
        if handout is not None:
            _emit(f"handout written: {handout}")
    return 0 if ok else 1


# ---------------------------------------------------------------------------- handouts


def _check_export(export: Path) -> None:
    """A handout that cannot be written is said before anything runs."""
    if export.suffix.lower() not in HANDOUT_SUFFIXES:
        raise UsageError(f"--export {export.name}: a handout is OUT.html, OUT.ipynb or OUT.pdf")
    if export.suffix.lower() == ".pdf" and pdf_route() is None:
        raise UsageError(PDF_NEEDS)
    if not export.parent.is_dir():
        raise UsageError(f"--export {export}: no such folder: {export.parent}")


def _write_export(lesson: Lesson, shown: dict[int, StepShown], export: Path) -> str:
    try:
        return str(write_handout(handout_notebook(lesson, {}, shown), export))
    except HandoutError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"could not write the handout {export}: {exc.strerror or exc}") \
            from None


# ---------------------------------------------------------------------------- listing


def _directive_text(step: Step) -> str | None:
    """The directive as written, a bad one too (``expect-error`` lines are not directives)."""
    if step.directive is not None:
        return step.directive.text
    for line in step.directive_lines:
        text = directive_text(line)
        if text is not None and text.partition(" ")[0] != EXPECT_ERROR:
            return text
    return None


def _what(step: Step) -> str:
    if not step.has_code:
        return "text"
    return _directive_text(step) or "runs its code"


def _problem_error(problem: str) -> dict[str, Any]:
    return {"kind": "directive", "title": f"bad directive: {problem}", "file": None,
            "line": None, "message": problem,
            "hint": "a directive takes what the sub-command of its verb takes, without FILE "
                    "(workbench trace --help, ...); the step's code still runs"}


def _listed(step: Step) -> StepReport:
    directive = _directive_text(step)
    if not step.has_code:
        return StepReport(step.number, step.title, "text", None, "text", None, None)
    if step.problem is not None:
        return StepReport(step.number, step.title, "failed", directive, _what(step),
                          _problem_error(step.problem), step.expect_error)
    return StepReport(step.number, step.title, "listed", directive, _what(step), None,
                      step.expect_error, may_raise=step.may_raise)


# ---------------------------------------------------------------------------- skipping


SKIPPED = "skipped (skip-execution tag): shown, never run"


def _skipped(step: Step) -> StepReport | None:
    """The report of a step tagged skip-execution, which nothing runs; None for the others."""
    if not (step.has_code and step.skip):
        return None
    return StepReport(step.number, step.title, "skipped", _directive_text(step), SKIPPED,
                      None, step.expect_error)


def _skipped_part(reports: list[StepReport]) -> list[str]:
    """The summary line's "N skipped", when a step was."""
    skipped = sum(1 for r in reports if r.status == "skipped")
    return [f"{skipped} skipped"] if skipped else []


# ---------------------------------------------------------------------------- checking


def _check(args: argparse.Namespace, lesson: Lesson, as_json: bool,
           shown: dict[int, StepShown]) -> tuple[list[StepReport], Printed]:
    shared = _StepOutput(echo=False) if as_json else None
    reports: list[StepReport] = []
    lost_at: int | None = None  # the step at which the engine was lost
    with open_engine(args, shared_namespace=True) as engine:
        for step in lesson.steps:
            output = shared or _StepOutput(echo=True)
            report = _skipped(step) or (
                _not_run(step, lost_at) if lost_at is not None and step.has_code
                else _check_step(engine, lesson, step, output, args.outputs, as_json, shown))
            if lost_at is None and report.error is not None and report.error["kind"] == "engine":
                lost_at = step.number
            reports.append(report)
            if not as_json:
                output.to_stderr()
                _print_step(report, len(lesson.steps))
    return reports, shared.result() if shared is not None else Printed()


def _check_step(engine: Engine, lesson: Lesson, step: Step, output: UserOutput,
                outputs_dir: Path | None = None, as_json: bool = True,
                shown_steps: dict[int, StepShown] | None = None) -> StepReport:
    if not step.has_code:
        return StepReport(step.number, step.title, "text", None, "text", None, None)
    started = time.perf_counter()
    outcome = _run_step(engine, lesson, step, output)
    seconds = time.perf_counter() - started
    if shown_steps is not None:
        shown_steps[step.number] = StepShown(outcome.outputs, outcome.error,
                                             len(shown_steps) + 1)
    directive = _directive_text(step)
    filename = lesson.step_filename(step.number)

    shown = _outputs(outcome.outputs, step.number, outputs_dir)
    if not as_json:
        _print_outputs(outcome.outputs, shown, output)

    def report(status: Status, summary: str, error: dict[str, Any] | None) -> StepReport:
        return StepReport(step.number, step.title, status, directive, summary, error,
                          step.expect_error, seconds, shown, step.may_raise)

    if step.problem is not None and outcome.lost is None:
        ran = ("its code ran" if outcome.error is None and outcome.usage is None
               else f"its code failed too: {_short(outcome, filename)}")
        return report("failed", ran, _problem_error(step.problem))
    if outcome.lost is not None:
        return report("failed", f"the engine failed: {outcome.lost}", _lost_error(outcome.lost))
    if outcome.usage is not None:
        return report("failed", _short(outcome, filename), _usage_error(outcome.usage))
    judged = judge(step.expect_error, outcome.error.kind if outcome.error else None,
                   step.may_raise)
    if outcome.error is None:
        if judged.verdict == "ok":
            return report("ok", outcome.summary, None)
        return report("failed", f"expected {judged.wanted}, but the step ran",
                      {"kind": "no-error", "title": f"expected {judged.wanted}, but the step ran",
                       "file": None, "line": None, "message": "",
                       "hint": "the step must fail to show its sharp bit: check its code, or "
                               "remove its expect-error tag"})
    error = _error_dict(outcome.error, filename)
    if judged.verdict == "failed":
        return report("failed", _short(outcome, filename), error)
    if judged.verdict == "expected-error":
        return report("expected-error", f"failed as expected: {_short(outcome, filename)}", error)
    return report("failed", f"expected {judged.wanted}, got {_short(outcome, filename)}", error)


def _run_step(engine: Engine, lesson: Lesson, step: Step, output: UserOutput) -> _Outcome:
    """Load the step's code into the shared namespace, then do what its directive asks."""
    try:
        loaded = engine.call(
            m.LoadSource(source=step.code, filename=lesson.step_filename(step.number),
                         keep_names=True, cell=True),
            m.Functions, output=output)
        if step.directive is None or step.problem is not None:
            names = ", ".join(f.name for f in loaded.functions)
            return _Outcome(f"ran; defines {names}" if names else "ran",
                            outputs=loaded.outputs)
        return replace(_directive(engine, step.directive, output), outputs=loaded.outputs)
    except UserCodeError as exc:
        return _Outcome(error=exc.explanation, outputs=exc.outputs)
    except UsageError as exc:
        return _Outcome(usage=exc.message)
    except WorkbenchError as exc:  # the engine itself failed (an attached kernel died)
        return _Outcome(lost=exc.message)


def _directive(engine: Engine, d: Directive, output: UserOutput) -> _Outcome:
    if isinstance(d, CallDirective) and d.verb == "trace":
        traced = engine.call(trace_request(d), TraceResult, output=output)
        return _Outcome(f"jaxpr: {_count(traced.stats.eqns, 'equation')}")
    if isinstance(d, CallDirective):
        values = engine.call(values_request(d), ValuesResult, output=output)
        if values.error is not None:
            return _Outcome(error=values.error)
        return _Outcome(_values_summary(values))
    if isinstance(d, PlotDirective):
        curves = [engine.call(r, Curves, output=output) for r in curve_requests(d)]
        at = point_request(d)
        point = "" if at is None else "; " + point_text(engine.call(at, PointValues,
                                                                    output=output))
        return _Outcome(_plot_summary(curves) + point)
    if isinstance(d, TimeDirective):
        report = engine.call(time_request(d, CHECK_TIMING), TimingReport, output=output)
        return _Outcome(_time_summary(report))
    return _Outcome(_kmeans_summary(engine.call(kmeans_request(d), KMeansDemo, output=output)))


# ---------------------------------------------------------------------------- outputs


def _outputs(outputs: tuple[CellOutput, ...], number: int,
             folder: Path | None) -> list[dict[str, Any]]:
    """The step's outputs for the report; its figures written under ``folder``, if given."""
    shown: list[dict[str, Any]] = []
    figures = 0
    for output in outputs:
        path = None
        if output.png:
            figures += 1
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / f"step-{number:02d}-{figures}.png"
                atomic_write_bytes(target, output.png)
                path = str(target)
        shown.append({"kind": output.kind, "text": output.text,
                      "execution_count": output.execution_count,
                      "has_figure": bool(output.png), "figure": path})
    return shown


def _print_outputs(outputs: tuple[CellOutput, ...], shown: list[dict[str, Any]],
                   output: UserOutput) -> None:
    """Text format: a result's value and a figure's place among what the step printed."""
    for cell_output, entry in zip(outputs, shown, strict=True):
        if cell_output.kind == "result":
            output.write(f"Out[{cell_output.execution_count}]: {cell_output.text}\n")
        elif entry["has_figure"]:
            output.write(f"[figure: {entry['figure'] or cell_output.text}]\n")
        elif cell_output.kind == "display" and cell_output.text:
            output.write(cell_output.text + "\n")


# ---------------------------------------------------------------------------- summaries


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _walk(node: NodeValues) -> Iterator[object]:
    """Every variable of a values run that has a value, nested jaxprs included."""
    yield from (s for s in (*node.invars, *node.constvars) if s is not None)
    for ev in node.eqns:
        if ev is None:
            continue
        yield from (s for s in ev.outs if s is not None)
        for sub in ev.subs:
            if sub is not None:
                yield from _walk(sub)


def _values_summary(values: ValuesResult) -> str:
    found = [("NaN", values.first_nan), ("Inf", values.first_inf)]
    bad = [name for name, path in found if path is not None]
    tail = f"{' and '.join(bad)} found" if bad else "no NaN or Inf"
    return f"values: {_count(sum(1 for _ in _walk(values.root)), 'variable')}, {tail}"


def _label(order: int) -> str:
    return "f" + "'" * order if order <= 3 else f"f({order})"


def _plot_summary(curves: list[Curves]) -> str:
    first = curves[0]
    names = [first.function, *(_label(k) for k in range(1, len(first.values)))]
    overlays = f" + {', '.join(c.function for c in curves[1:])}" if len(curves) > 1 else ""
    params = ", ".join(f"{p.name}={p.value:g}" for p in first.params)
    lo, hi = float(first.x[0]), float(first.x[-1])
    text = (f"{', '.join(names)}{overlays} on [{lo:g}, {hi:g}] ({_count(len(first.x), 'point')}"
            f"{'; ' + params if params else ''})")
    holes = sum(int(mask.any()) for c in curves for mask in c.nonfinite)
    return text + (f"; {_count(holes, 'curve')} not finite somewhere" if holes else "")


def _time_summary(report: TimingReport) -> str:
    from workbench.cli.time_cmd import fmt_time

    device = next((r.device for r in report.results if r.device != "host"), None)
    rows = [r for r in report.results if r.device == device]
    text = " vs ".join(f"{r.mode} {fmt_time(r.stats.median_s)}" for r in rows)
    text += f" on {device}" if device else ""
    others = len({r.device for r in report.results} - {device, "host"})
    if others:
        text += f" (+{_count(others, 'device')})"
    if report.baseline:
        text += f", NumPy {report.baseline} too"
    if report.sweep_name is not None:
        sizes = len({p.size for p in report.sweep})
        text += f"; {report.sweep_name} swept over {_count(sizes, 'size')}"
    return text + " (measured briefly)"


def _kmeans_summary(demo: KMeansDemo) -> str:
    r = demo.run
    state = (f"converged in {_count(r.iterations, 'iteration')}" if r.converged
             else f"not converged after {_count(r.iterations, 'iteration')}")
    return f"k-means: {state} ({r.n:,} points, K={r.k})"


# ---------------------------------------------------------------------------- errors


def _error_dict(ex: Explanation, filename: str) -> dict[str, Any]:
    return {"kind": ex.kind, "title": ex.title, "file": ex.file if ex.file != filename else None,
            "line": ex.line, "hint": ex.hint, "message": ex.message}


def _lost_error(message: str) -> dict[str, Any]:
    return {"kind": "engine", "title": f"the engine failed: {message}", "file": None,
            "line": None, "message": message,
            "hint": "not the lesson's doing: start the kernel again, then check the lesson "
                    "again (the steps after this one were not run)"}


def _not_run(step: Step, lost_at: int) -> StepReport:
    """A step after the engine was lost: failed, never run (each would fail the same way)."""
    why = f"not run: the engine was lost at step {lost_at}"
    return StepReport(step.number, step.title, "failed", _directive_text(step), why,
                      {"kind": "engine", "title": why, "file": None, "line": None,
                       "message": why, "hint": ""}, step.expect_error, 0.0, [],
                      step.may_raise)


def _usage_error(message: str) -> dict[str, Any]:
    return {"kind": "usage", "title": message, "file": None, "line": None, "message": message,
            "hint": "the directive asks for something the step does not give: check the "
                    "function's name and the --args spec"}


def _short(outcome: _Outcome, filename: str) -> str:
    """``kind: title (line N)``; the line is in the step's code, or names the step it is in."""
    if outcome.usage is not None:
        return f"usage: {outcome.usage}"
    ex = outcome.error
    assert ex is not None
    where = ""
    if ex.line is not None:
        where = (f" (line {ex.line})" if ex.file in (None, filename)
                 else f" ({ex.file}, line {ex.line})")
    return f"{ex.kind}: {ex.title}{where}"


# ---------------------------------------------------------------------------- text output


def _encodable(text: str) -> bool:
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _emit(line: str) -> None:
    """One line on stdout, at once (steps print as they finish), whatever its encoding."""
    if not _encodable(line):
        enc = getattr(sys.stdout, "encoding", None) or "ascii"
        line = line.encode(enc, "replace").decode(enc, "replace")
    print(line, flush=True)


def _print_step(r: StepReport, total: int) -> None:
    dash = "\u2014" if _encodable("\u2014") else "-"
    head = f"step {r.number}/{total}".ljust(len(f"step {total}/{total}"))
    expect = ""
    if r.status == "listed" and r.expect_error is not None:
        expect = f"  [expect-error{' ' + r.expect_error if r.expect_error else ''}]"
    elif r.status == "listed" and r.may_raise:
        expect = "  [raises-exception]"
    _emit(f"{head}  {LABELS[r.status]:<6}  {r.title} {dash} {r.summary}{expect}")
    if r.error is not None and r.status == "failed":
        pad = " " * (len(head) + 2)
        if r.error["kind"] == "directive":
            _emit(f"{pad}problem: {r.error['message']}")
        if r.error["hint"]:
            _emit(f"{pad}hint: {r.error['hint']}")


def _summary_line(reports: list[StepReport], checked: bool, seconds: float) -> str:
    counts = {s: sum(1 for r in reports if r.status == s)
              for s in ("ok", "expected-error", "failed", "text", "listed")}
    if not checked:
        parts = [f"{counts['listed'] + counts['failed']} with code",
                 *_skipped_part(reports), f"{counts['text']} text"]
        if counts["failed"]:
            parts.append(f"{counts['failed']} with a bad directive")
        return (f"{_count(len(reports), 'step')}: {', '.join(parts)}; nothing ran "
                "(--check runs them)")
    parts = [f"{counts['ok']} ok", _count(counts["expected-error"], "expected error"),
             f"{counts['failed']} failed", *_skipped_part(reports), f"{counts['text']} text"]
    return f"{_count(len(reports), 'step')}: {', '.join(parts)} ({seconds:.1f} s)"
