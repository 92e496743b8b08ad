"""``workbench lesson NOTEBOOK --check`` beside Jupyter (nbclient) executing the same notebook.

Both run every code cell in order, as a notebook's kernel does, from a fresh
process: the workbench in its own process (``--check`` runs in-process), nbclient
with a fresh IPython kernel it starts. Each is timed wall-clock from the command
to its end, over several interleaved rounds; the figure is the ratio of the
medians. Target: at most 1.2.

The default notebook is ``benchmarks/data/autodiff_cookbook.ipynb`` (JAX's
documentation, Apache-2.0; its ``%timeit`` cells dominate both runs). Cells that
Jupyter expects to raise (tag ``raises-exception``) are allowed to in both.

    .venv/bin/python benchmarks/lesson_check_vs_nbclient.py [NOTEBOOK] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "data" / "autodiff_cookbook.ipynb"
TARGET = 1.2

NBCLIENT = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False).execute()
"""


def run_workbench(path: Path) -> tuple[float, dict]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "lesson", str(path), "--check",
                           "--format", "json"], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"workbench lesson --check failed:\n{done.stderr[-3000:]}") from None
    return seconds, report


def run_nbclient(path: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", NBCLIENT, str(path)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"nbclient failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    ours: list[float] = []
    theirs: list[float] = []
    report: dict = {}
    for _ in range(args.rounds):  # interleaved: the machine's noise hits both alike
        seconds, report = run_workbench(args.notebook)
        ours.append(seconds)
        theirs.append(run_nbclient(args.notebook))
    steps = report.get("steps", [])
    statuses = [s["status"] for s in steps]
    failed = [s for s in steps if s["status"] == "failed"]
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"notebook: {args.notebook.name}, {len(steps)} steps "
          f"({statuses.count('ok')} ok, {statuses.count('expected-error')} expected errors, "
          f"{len(failed)} failed)")
    for step in failed:
        print(f"  failed: step {step['number']}: {step['summary']}")
    print(f"workbench lesson --check: median {statistics.median(ours):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in ours)})")
    print(f"nbclient execute:         median {statistics.median(theirs):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in theirs)})")
    print(f"ratio workbench / nbclient: {ratio:.2f} (target <= {TARGET})")
    return 0 if ratio <= TARGET and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
