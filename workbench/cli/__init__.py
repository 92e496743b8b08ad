"""The ``workbench`` command: the GUI by default, headless sub-commands for scripts and CI.

Each sub-command lives in its own module with ``register(subparsers)``; the
engine runs in-process here (no kernel).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from workbench import __version__

SUBCOMMANDS: tuple[str, ...] = ("trace", "devices", "plot", "time", "kmeans")


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and exit 2), not a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="workbench",
        description="A workbench for teaching and exploring JAX array programs. "
        "Without a sub-command it opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    parser.add_argument("--open", metavar="FILE", help="open FILE in the window")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"workbench.cli.{name}_cmd").register(sub)
    return parser


def report_error(exc: BaseException, prog: str = "workbench") -> int:
    """Print a WorkbenchError as one line (then hint and editor frames); return its status."""
    from workbench.engine.errors import UserCodeError, WorkbenchError

    if isinstance(exc, UserCodeError):
        ex = exc.explanation
        print(f"{prog}: error: {ex.one_line()}", file=sys.stderr)
        if ex.hint:
            print(f"  hint: {ex.hint}", file=sys.stderr)
        if ex.doc_url:
            print(f"  see: {ex.doc_url}", file=sys.stderr)
        if ex.traceback:
            print("  " + ex.traceback.rstrip().replace("\n", "\n  "), file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, WorkbenchError):
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    raise exc


def main(argv: Sequence[str] | None = None) -> int:
    from workbench.engine.errors import WorkbenchError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
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


def open_gui(args: argparse.Namespace) -> int:
    from workbench.ui.app import run_app

    return int(run_app(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
