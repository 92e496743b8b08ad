"""Do the workbench's timings match what plain Python measures for the same code?

A jitted and an eager ``x * 2 + 1`` on f32[100] (dispatch-bound: the call's overhead is
the time) and on f32[1,000,000] (compute- and memory-bound), timed per call by
``timeit`` (autorange loops, 7 runs, the median, as ``%timeit``) in six places:

* plain: a bare Python process, no workbench imported, glibc's malloc as it comes;
* panel: the Timing panel's measurement, a ``Time`` request to the engine kernel the
  window starts (the real kernel process, its environment as the window gives it);
* cli: ``workbench time FILE f --args f32[N] --format json`` (the engine in-process);
* step (kernel): the same ``timeit`` code run as a lesson step in the engine kernel;
* step (--check): the same step under ``workbench lesson FILE --check``;
* jupyter: the same code as a cell in Jupyter's own kernel (ipykernel's ``python3``),
  the yardstick a teacher compares with (not a target row).

Every place is a process started once and asked again each round (the two commands run
by ``workbench.cli.main`` in a worker process, as ``python -m workbench.cli`` runs
them), and every measurement of a place sits between two of plain Python: its ratio is
to their mean. Printed, for timeit's best of 7 runs and for their median: each figure's
median over the rounds and the median of its ratios. Target: every ratio of the best
runs within 0.9-1.1 (the issue asks <= 1.1; faster than plain Python would be a
different figure too), the places in a kernel held to Jupyter's kernel: any kernel
process, Jupyter's own, measured the same code 1.05-1.15x slower than a bare process
here. The best run is the code's cost with the least of the machine's noise in it
(``timeit``'s own advice); the median is what the panel shows, and moves with the load.

Why so careful: this is a shared 2-core machine. The same plain Python process measured a
jitted call on f32[100] at 8-10 us on one core and 12-17 us on the other, and on the
same core 8 us one minute and 14.5 us a few minutes later. Fresh processes per round,
measured a minute apart, put the ratios anywhere in 0.7-1.6x. So all of it runs on one
CPU by default (``--cpus 0``; every process started inherits it); ``--cpus all``
measures unpinned.

    .venv/bin/python benchmarks/timing_fidelity.py [--rounds 3] [--cpus 0|all|0,1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.api import messages as p  # noqa: E402
from workbench.api.timing import TimingReport  # noqa: E402

SIZES = (100, 1_000_000)
MODES = ("jit", "eager")
LOW, HIGH = 0.9, 1.1

SOURCE = "import jax.numpy as jnp\n\n\ndef f(x):\n    return x * 2 + 1\n"

# The code a person times, in plain Python and as a lesson step alike.
TIMEIT = '''\
import json, statistics, timeit
import jax, jax.numpy as jnp
def _per_call(call):
    timer = timeit.Timer(call)
    loops, _ = timer.autorange()
    runs = timer.repeat(7, loops)
    return statistics.median(runs) / loops, min(runs) / loops
_found = {}
for _n in (100, 1000000):
    _x = jnp.ones(_n, jnp.float32)
    _jf = jax.jit(lambda x: x * 2 + 1)
    _jf(_x).block_until_ready()
    _found[f"jit {_n}"] = _per_call(lambda: _jf(_x).block_until_ready())
    (_x * 2 + 1).block_until_ready()
    _found[f"eager {_n}"] = _per_call(lambda: (_x * 2 + 1).block_until_ready())
print("RESULT " + json.dumps(_found))
'''

# The dispatch-bound calls again, with fixed loops and the best of 7 runs: a few seconds a
# place, so the places can take turns many times while the machine stays the same.
TIGHT = '''\
import json, timeit
import jax, jax.numpy as jnp
_x = jnp.ones(100, jnp.float32)
_jf = jax.jit(lambda x: x * 2 + 1)
_jf(_x).block_until_ready()
(_x * 2 + 1).block_until_ready()
_jit = timeit.Timer(lambda: _jf(_x).block_until_ready())
_eager = timeit.Timer(lambda: (_x * 2 + 1).block_until_ready())
print("RESULT " + json.dumps({
    "jit 100": [min(_jit.repeat(7, 5000)) / 5000] * 2,
    "eager 100": [min(_eager.repeat(7, 1000)) / 1000] * 2,
}))
'''

# A process that runs the code it is sent, one JSON line each, and says when it is done.
WORKER = """\
import json, sys
namespace = {"__name__": "__main__"}
for line in sys.stdin:
    exec(json.loads(line), namespace)
    print("DONE", flush=True)
"""

# In a worker: a command run as ``python -m workbench.cli`` runs it, its stdout kept.
CLI = """\
import contextlib, io, json
from workbench.cli import main
def _command(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())
"""


def _parse(text: str) -> dict[str, float]:
    """The RESULT line's figures: "jit 100" (the median of 7 runs), "jit 100 best"."""
    for line in text.splitlines():
        if line.startswith("RESULT "):
            found: dict[str, float] = {}
            for k, (median, best) in json.loads(line[7:]).items():
                found[k], found[f"{k} best"] = median, best
            return found
    raise SystemExit(f"no RESULT line in:\n{text[-3000:]}")


class Worker:
    """A Python process that stays up and runs what it is sent."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-u", "-c", WORKER], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, code: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(code) + "\n")
        self.proc.stdin.flush()
        lines = []
        for line in self.proc.stdout:
            if line == "DONE\n":
                return "".join(lines)
            lines.append(line)
        raise SystemExit(f"the worker died:\n{''.join(lines)[-3000:]}")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def plain(worker: Worker) -> dict[str, float]:
    return _parse(worker.run(TIMEIT))


def cli_time(worker: Worker, folder: Path) -> dict[str, float]:
    path = folder / "fidelity.py"
    path.write_text(SOURCE)
    found: dict[str, float] = {}
    for n in SIZES:
        report = worker.run(
            f"print('RESULT', json.dumps(_command('time', {str(path)!r}, 'f', '--args', "
            f"'f32[{n}]', '--devices', 'cpu', '--format', 'json')))")
        for row in json.loads(report.split("RESULT ", 1)[1])["results"]:
            found[f"{row['mode']} {n}"] = row["median_s"]
            found[f"{row['mode']} {n} best"] = row["min_s"]
    return found


def lesson_check(worker: Worker, folder: Path) -> dict[str, float]:
    path = folder / "fidelity_lesson.py"
    path.write_text("# %%\n" + TIMEIT)
    report = worker.run(f"print('RESULT', json.dumps(_command('lesson', {str(path)!r}, "
                        "'--check', '--format', 'json')))")
    outputs = json.loads(report.split("RESULT ", 1)[1])["steps"][0]["outputs"]
    return _parse("".join(o["text"] for o in outputs))


class Console:
    """A plain Jupyter client of a kernel: code run as a console (or notebook) cell."""

    def __init__(self, connection_file: str) -> None:
        from jupyter_client import BlockingKernelClient

        self.client = BlockingKernelClient(connection_file=connection_file)
        self.client.load_connection_file()
        self.client.start_channels(hb=False)
        self.client.wait_for_ready(120)

    def cell(self, code: str = TIMEIT) -> dict[str, float]:
        text: list[str] = []

        def keep(msg: dict) -> None:
            if msg["msg_type"] == "stream":
                text.append(msg["content"]["text"])

        reply = self.client.execute_interactive(code, output_hook=keep, timeout=300)
        assert reply["content"]["status"] == "ok", reply["content"]
        return _parse("".join(text))

    def close(self) -> None:
        self.client.stop_channels()


class JupyterKernel(Console):
    """Jupyter's own kernel (ipykernel's ``python3`` spec), as a notebook starts it."""

    def __init__(self) -> None:
        from jupyter_client.manager import KernelManager

        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel()
        super().__init__(self.manager.connection_file)

    def close(self) -> None:
        super().close()
        self.manager.shutdown_kernel(now=True)


class Kernel:
    """The engine kernel as the window starts it."""

    def __init__(self) -> None:
        from workbench.client.engine_client import EngineClient

        self.client = EngineClient()
        assert isinstance(self.client.call(p.Ping(), timeout=120), p.Result)
        self.client.call(p.LoadSource(source=SOURCE, filename="fidelity.py"), timeout=120)

    def panel(self) -> dict[str, float]:
        found: dict[str, float] = {}
        for n in SIZES:
            reply = self.client.call(p.Time(name="f", args=f"f32[{n}]", devices="cpu",
                                            modes=MODES), timeout=300)
            report = p.result_value(reply, TimingReport)
            assert report is not None, reply
            for row in report.results:
                found[f"{row.mode} {n}"] = row.stats.median_s
                found[f"{row.mode} {n} best"] = row.stats.min_s
        return found

    def step(self, code: str = TIMEIT) -> dict[str, float]:
        reply = self.client.call(p.LoadSource(source=code, filename="fidelity.ipynb, step 1",
                                              cell=True), timeout=300)
        loaded = p.result_value(reply, p.Functions)
        assert loaded is not None, reply
        return _parse("".join(o.text for o in loaded.outputs if o.kind == "stream"))

    def close(self) -> None:
        self.client.close()


def _tight(rounds: int) -> dict[str, dict[str, float]]:
    """The dispatch-bound calls with fixed loops, the places taking turns ``rounds`` times:
    each place's median and its ratio to plain Python's median, printed and returned."""
    bare, kernel, jupyter = Worker(), Kernel(), JupyterKernel()
    console = Console(str(kernel.client.connection_file))
    places: dict[str, Callable[[], dict[str, float]]] = {
        "plain": lambda: _parse(bare.run(TIGHT)),
        "console cell (engine kernel)": lambda: console.cell(TIGHT),
        "step (kernel)": lambda: kernel.step(TIGHT),
        "jupyter": lambda: jupyter.cell(TIGHT),
    }
    seen: dict[str, list[dict[str, float]]] = {place: [] for place in places}
    try:
        for _ in range(rounds):
            for place, run in places.items():
                seen[place].append(run())
    finally:
        console.close()
        bare.close()
        kernel.close()
        jupyter.close()
    keys = ("jit 100", "eager 100")
    median = {place: {k: statistics.median(r[k] for r in rows) for k in keys}
              for place, rows in seen.items()}
    print(f"\nfixed loops (5,000 jitted, 1,000 eager calls a run, best of 7), the places "
          f"taking turns {rounds} times, medians:")
    print("| where | jit f32[100] | eager f32[100] |\n| --- | ---: | ---: |")
    for place in places:
        print(f"| {place} | " + " | ".join(
            f"{median[place][k] * 1e6:.2f} µs"
            + ("" if place == "plain" else f" ({median[place][k] / median['plain'][k]:.2f}x)")
            for k in keys) + " |")
    return {place: {k: median[place][k] / median["plain"][k] for k in keys}
            for place in places}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tight-rounds", type=int, default=8,
                        help="turns of the fixed-loop dispatch comparison (0: skip it)")
    parser.add_argument("--cpus", default="0",
                        help="CPUs for every process: a list like 0,1, or all (unpinned)")
    args = parser.parse_args()
    if args.cpus != "all":
        os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
    places = ("plain", "panel", "cli", "step (kernel)", "step (--check)", "jupyter")
    figures: dict[str, list[dict[str, float]]] = {place: [] for place in places}
    ratios: dict[str, list[dict[str, float]]] = {place: [] for place in places}
    bare, cli, check = Worker(), Worker(), Worker()
    kernel, jupyter = Kernel(), JupyterKernel()
    try:
        cli.run(CLI)
        check.run(CLI)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            steps: dict[str, Callable[[], dict[str, float]]] = {
                "panel": kernel.panel,
                "cli": lambda: cli_time(cli, folder),
                "step (kernel)": kernel.step,
                "step (--check)": lambda: lesson_check(check, folder),
                "jupyter": jupyter.cell,
            }
            for place in steps.values():  # every place warm (imports, first compiles)
                place()
            before = plain(bare)
            for r in range(args.rounds):
                # Each place between two plain measurements, in a rotated order.
                for i in range(len(steps)):
                    place = list(steps)[(r + i) % len(steps)]
                    found = steps[place]()
                    after = plain(bare)
                    figures[place].append(found)
                    figures["plain"].append(after)
                    ratios[place].append({k: found[k] / ((before[k] + after[k]) / 2)
                                          for k in found})
                    before = after
    finally:
        for worker in (bare, cli, check):
            worker.close()
        kernel.close()
        jupyter.close()
    keys = [f"{mode} {n}" for n in SIZES for mode in MODES]
    median = {place: {k: statistics.median(r[k] for r in rounds) for k in ratios["panel"][0]}
              for place, rounds in figures.items()}
    ratio = {place: {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
             for place, rounds in ratios.items() if rounds}
    targets = [place for place in places if place not in ("plain", "jupyter")]
    cpus = sorted(os.sched_getaffinity(0))
    print(f"per call, {args.rounds} rounds; CPUs {cpus} of {os.cpu_count()}; in brackets the "
          "median ratio to plain Python measured just before and after")
    for title, suffix in (("the best of timeit's 7 runs (its cost, least disturbed by the "
                           "machine; the target)", " best"),
                          ("the median of timeit's 7 runs (the panel's figure)", "")):
        print(f"\n{title}:")
        print("| where | " + " | ".join(k.replace(" 1000000", " f32[1e6]")
                                        .replace(" 100", " f32[100]") for k in keys) + " |")
        print("| --- |" + " ---: |" * len(keys))
        for place in places:
            cells = [f"{median[place][k + suffix] * 1e6:.1f} µs"
                     + ("" if place == "plain" else f" ({ratio[place][k + suffix]:.2f}x)")
                     for k in keys]
            print(f"| {place} | " + " | ".join(cells) + " |")
        worst = max(max(ratio[p][k + suffix], 1 / ratio[p][k + suffix])
                    for p in targets for k in keys)
        print(f"furthest from 1: {worst:.2f}x")
    # For reference, not a target: the places in a kernel beside Jupyter's own kernel.
    in_kernel = ("panel", "step (kernel)")
    print("\nin a kernel, vs Jupyter's kernel (best runs): " + "; ".join(
        f"{place} " + ", ".join(
            f"{median[place][k + ' best'] / median['jupyter'][k + ' best']:.2f}x" for k in keys)
        for place in in_kernel))
    best = [ratio[place][k + " best"] for place in targets for k in keys]
    tight = _tight(args.tight_rounds) if args.tight_rounds else None
    if tight is not None:
        best += [r for place, row in tight.items() if place not in ("plain", "jupyter")
                 for r in row.values()]
    ok = all(LOW <= r <= HIGH for r in best)
    print(f"target: every ratio of the best runs to plain Python within {LOW}-{HIGH}: "
          f"{'met' if ok else 'NOT met'} (furthest from 1: "
          f"{max(max(r, 1 / r) for r in best):.2f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
