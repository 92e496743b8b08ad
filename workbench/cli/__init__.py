"""The ``workbench`` command: the GUI by default, headless sub-commands for scripts and CI.

Each sub-command lives in its own module with ``register(subparsers)``; the
engine runs in-process here (no kernel), or, with ``--existing FILE [--ssh
HOST]``, in that kernel (``cli.runner``). ``workbench --existing FILE`` opens the
window on that kernel.
"""

from __future__ import annotations

import argparse
import builtins
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from workbench import __version__
from workbench.api.errors import Explanation
from workbench.cli.runner import add_engine_options

SUBCOMMANDS: tuple[str, ...] = ("trace", "devices", "plot", "time", "kmeans", "lesson",
                               "kernelspec")


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and exit 2), not a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="workbench",
        description="A workbench for teaching and exploring JAX array programs. "
        "Without a sub-command it opens the window.",
        # Every option of every sub-command is read here too: a prefix of two of them
        # (kmeans's --k, --kernel-name, --kernel-id) would be ambiguous.
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    parser.add_argument("--open", metavar="FILE",
                        help="open FILE in the window (a .ipynb notebook opens as a lesson)")
    add_engine_options(parser)
    live = parser.add_argument_group("a live class (on the --server)")
    live.add_argument("--teach", metavar="LESSON",
                      help="teach LESSON (a notebook file): it is shared on the server, and "
                      "the students' windows follow your step")
    live.add_argument("--follow", metavar="LESSON",
                      help="follow the teacher of LESSON (its name, as the teacher gave it)")
    live.add_argument("--student-name", metavar="NAME",
                      help="with --follow: the name the teacher sees (default: none)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"workbench.cli.{name}_cmd").register(sub)
    return parser


MESSAGE_LINES = 20
# Kinds whose message Python wrote, not JAX (the fallback only for Python's own exceptions).
PYTHON_KINDS = ("name", "syntax")


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + row if row.strip() else "" for row in text.splitlines())


def original_message(ex: Explanation) -> str:
    """``JAX says:`` (or ``Python says:``) and the exception's own text, at most 20 lines.

    Empty when the title already says all of it (``KeyError: 'b'``, a workbench check).
    """
    rows = ex.message.strip("\n").splitlines()
    if not rows or ex.message.strip() in ex.title:
        return ""
    if len(rows) > MESSAGE_LINES:
        rows = [*rows[:MESSAGE_LINES], f"... ({len(rows) - MESSAGE_LINES} more lines)"]
    builtin = isinstance(getattr(builtins, ex.exception_type, None), type)
    python = ex.kind in PYTHON_KINDS or (ex.kind == "exception" and builtin)
    return f"  {'Python' if python else 'JAX'} says:\n" + _indented("\n".join(rows), "    ")


def report_error(exc: BaseException, prog: str = "workbench") -> int:
    """Print a WorkbenchError as one line and return its exit status.

    A user-code error goes on with its specifics, the hint, the original message,
    the doc link and the editor frames, so a terminal shows what the window shows.
    """
    from workbench.engine.errors import UserCodeError, WorkbenchError

    if isinstance(exc, UserCodeError):
        ex = exc.explanation
        print(f"{prog}: error: {ex.one_line()}", file=sys.stderr)
        if ex.specifics:
            print(_indented(ex.specifics, "  "), file=sys.stderr)
        if ex.hint:
            print(f"  hint: {ex.hint}", file=sys.stderr)
        said = original_message(ex)
        if said:
            print(said, file=sys.stderr)
        if ex.doc_url:
            print(f"  see: {ex.doc_url}", file=sys.stderr)
        if ex.traceback:
            print("  " + ex.traceback.rstrip().replace("\n", "\n  "), file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, WorkbenchError):
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
        fault = getattr(exc, "fault", "")  # an engine's last words, or our own traceback
        if fault:
            print(_indented(fault.rstrip(), "  "), file=sys.stderr)
        return exc.exit_code
    raise exc


def main(argv: Sequence[str] | None = None) -> int:
    from workbench.engine.errors import WorkbenchError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        if getattr(args, "ssh", None) and not getattr(args, "existing", None):
            parser.error("--ssh needs --existing FILE (the kernel's connection file)")
        from workbench.cli.runner import server_options

        try:
            args.server_options = server_options(args, "workbench")
        except WorkbenchError as exc:
            parser.error(exc.message)
        problem = live_class_problem(args)
        if problem:
            parser.error(problem)
        return open_gui(args)
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        return report_error(exc, f"workbench {args.command}")
    except KeyboardInterrupt:
        print(f"workbench {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def live_class_problem(args: argparse.Namespace) -> str:
    """What is wrong with --teach / --follow / --student-name as given ("" if nothing)."""
    from workbench.lessons.live_class import shared_path

    teach, follow = args.teach, args.follow
    if args.student_name is not None and follow is None:
        return "--student-name goes with --follow LESSON"
    if teach is None and follow is None:
        return ""
    if teach is not None and follow is not None:
        return "--teach and --follow: a window teaches or follows, not both"
    if not args.server_options:
        return (f"--{'teach' if teach is not None else 'follow'} needs --server URL (the "
                "class's Jupyter Server)")
    if args.open is not None:
        return "--open and a live class: the class's lesson is what opens"
    if teach is not None and not Path(teach).is_file():
        return f"--teach {teach}: no such lesson file"
    try:
        shared_path(Path(teach).name if teach is not None else follow)
    except ValueError as exc:
        return str(exc)
    return ""


def open_gui(args: argparse.Namespace) -> int:
    from workbench.ui.window.app import run_app

    return int(run_app(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
