"""Does a notebook run as a lesson agree with Jupyter, cell by cell?

Each notebook is executed by nbclient (a fresh IPython kernel, errors allowed)
and checked by ``workbench lesson --check --format json``; then, per code cell:

* raised: whether the cell raised in Jupyter, and whether the step failed (or
  failed as expected) in the workbench. Every disagreement is listed.
* value: of the cells whose Jupyter output has an ``execute_result`` (the last
  expression's value), how many show a ``result`` output in the workbench, and
  with the same ``text/plain`` (arrays' reprs are compared as printed, terminal
  colours aside).
* figures: cells with an ``image/png`` in Jupyter, and how many have a figure.

Target (the notebooks issue): no raised-disagreement beyond packages that are
not installed, values shown for at least 90% of the cells Jupyter shows one for.

    .venv/bin/python benchmarks/lesson_agreement.py [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # the workbench shows text without colours
DEFAULT = [HERE / "data" / "autodiff_cookbook.ipynb"]


def jupyter_cells(path: Path) -> list[dict]:
    """Per non-empty code cell: raised, the execute_result text, whether it drew a PNG."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True).execute()
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        outputs = cell.get("outputs", [])
        result = next((o["data"].get("text/plain") for o in outputs
                       if o.get("output_type") == "execute_result"), None)
        cells.append({"raised": any(o.get("output_type") == "error" for o in outputs),
                      "error": next((f"{o['ename']}: {o['evalue']}"[:120] for o in outputs
                                     if o.get("output_type") == "error"), ""),
                      "result": result,
                      "png": any("image/png" in o.get("data", {}) for o in outputs)})
    return cells


def workbench_steps(path: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "lesson", str(path),
                           "--check", "--format", "json"], capture_output=True, text=True,
                          check=False)
    return [s for s in json.loads(done.stdout)["steps"] if s["status"] != "text"]


def compare(path: Path) -> bool:
    jupyter = jupyter_cells(path)
    steps = workbench_steps(path)
    print(f"== {path.name}: {len(jupyter)} code cells, {len(steps)} code steps")
    if len(jupyter) != len(steps):
        print("   cell counts differ: not compared")
        return False
    disagree = values = same = wanted = figures = drew = 0
    for number, (cell, step) in enumerate(zip(jupyter, steps, strict=True), 1):
        raised = step["status"] in ("failed", "expected-error") and step["error"] is not None
        if step["status"] == "skipped":
            continue
        if raised != cell["raised"]:
            disagree += 1
            why = step["error"]["title"] if step["error"] else "ran"
            jupyter = f"raised {cell['error']}" if cell["raised"] else "ran"
            print(f"   step {number}: jupyter {jupyter}; workbench {why}")
        results = [o for o in step.get("outputs", []) if o["kind"] == "result"]
        if cell["result"] is not None:
            wanted += 1
            if results:
                values += 1
                same += results[-1]["text"] == ANSI.sub("", cell["result"])
        if cell["png"]:
            figures += 1
            drew += any(o["has_figure"] for o in step.get("outputs", []))
    share = values / wanted if wanted else 1.0
    print(f"   raised: {disagree} disagreements")
    print(f"   values: {values}/{wanted} shown ({share:.0%}), {same} with Jupyter's exact text")
    print(f"   figures: {drew}/{figures}")
    return disagree == 0 and share >= 0.9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args()
    results = [compare(path) for path in args.notebooks]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
