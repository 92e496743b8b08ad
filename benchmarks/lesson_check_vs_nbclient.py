"""``workbench lesson NOTEBOOK --check`` beside Jupyter (nbclient) executing the same notebook.

Both run every code cell in order, as a notebook's kernel does, from a fresh
process: the workbench in its own process (``--check`` runs in-process), nbclient
with a fresh IPython kernel it starts. Each is timed wall-clock from the command
to its end, over several interleaved rounds; the figure is the ratio of the
medians. Target: at most 1.2.

The default notebooks are ``benchmarks/data/autodiff_cookbook.ipynb`` (JAX's
documentation, Apache-2.0; its ``%timeit`` cells dominate both runs) and two of JAX's
current MyST tutorials (``tests/lessons/data/jax_docs``: key-concepts.md, arrays.md),
which nbclient runs as jupytext converts them (converted before the clock starts).
Cells that Jupyter expects to raise (tag ``raises-exception``) are allowed to in both;
the steps that raised must be the same cells in both.

    .venv/bin/python benchmarks/lesson_check_vs_nbclient.py [NOTEBOOK ...] [--rounds 3]
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
DOCS = HERE.parent / "tests" / "lessons" / "data" / "jax_docs"
DEFAULT = [HERE / "data" / "autodiff_cookbook.ipynb", DOCS / "key-concepts.md",
           DOCS / "arrays.md"]
TARGET = 1.2

NBCLIENT = """
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False).execute()
code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
print(json.dumps([i + 1 for i, c in enumerate(code)
                  if any(o.output_type == "error" for o in c.outputs)]))
"""


def for_nbclient(path: Path, folder: Path) -> Path:
    """The notebook nbclient runs: a text notebook converted by jupytext, as Jupyter opens
    it (``jupytext --to ipynb``)."""
    if path.suffix == ".ipynb":
        return path
    import jupytext

    converted = folder / (path.stem + ".ipynb")
    jupytext.write(jupytext.read(path), converted)
    return converted


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


def run_nbclient(path: Path) -> tuple[float, list[int]]:
    """Seconds, and the code cells (counted from 1, as steps are) that raised."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", NBCLIENT, str(path)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"nbclient failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start, json.loads(done.stdout.strip().splitlines()[-1])


def compare(notebook: Path, rounds: int, folder: Path) -> tuple[float, bool]:
    """One notebook's ratio of medians, printed with its steps; whether the same cells
    raised in both and no step failed."""
    ours: list[float] = []
    theirs: list[float] = []
    report: dict = {}
    raised: list[int] = []
    converted = for_nbclient(notebook, folder)
    for _ in range(rounds):  # interleaved: the machine's noise hits both alike
        seconds, report = run_workbench(notebook)
        ours.append(seconds)
        seconds, raised = run_nbclient(converted)
        theirs.append(seconds)
    steps = report.get("steps", [])
    code = [s for s in steps if s["status"] not in ("text",)]
    statuses = [s["status"] for s in steps]
    failed = [s for s in steps if s["status"] == "failed"]
    ours_raised = [i + 1 for i, s in enumerate(code) if s["error"] is not None]
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"notebook: {notebook.name}, {len(steps)} steps "
          f"({statuses.count('ok')} ok, {statuses.count('expected-error')} expected errors, "
          f"{len(failed)} failed); code cells that raised: workbench {ours_raised}, "
          f"nbclient {raised}")
    for step in failed:
        print(f"  failed: step {step['number']}: {step['summary']}")
    print(f"  workbench lesson --check: median {statistics.median(ours):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in ours)})")
    print(f"  nbclient execute:         median {statistics.median(theirs):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in theirs)})")
    print(f"  ratio workbench / nbclient: {ratio:.2f} (target <= {TARGET})", flush=True)
    return ratio, not failed and ours_raised == raised


def main() -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        for notebook in args.notebooks:
            ratio, agreed = compare(notebook, args.rounds, Path(folder))
            ok = ok and agreed and ratio <= TARGET
    print("every notebook within the target, the same cells raising: "
          f"{'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
