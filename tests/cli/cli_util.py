"""Run the ``workbench`` command in process, as the CLI tests do."""

from __future__ import annotations

from workbench.cli import main


def run_cli(capsys, *argv):
    """``workbench ARGV`` through ``main``: (exit status, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
