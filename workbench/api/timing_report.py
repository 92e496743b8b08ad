"""A timing report as plain JSON and as table rows, without importing JAX.

``workbench time --format json`` and the GUI's timing panel (which may never
import JAX, not even lazily) both turn a ``timing.TimingReport`` into the same
JSON and the same per-row figures here. The report is read by attribute only,
so this module imports nothing from ``timing.py``.
"""

from __future__ import annotations

import math
from typing import Any

from workbench.api.timing import TimingReport

# The columns of one table row (``table_rows``), in CSV order.
ROW_FIELDS: tuple[str, ...] = (
    "device", "mode", "function", "mean_s", "std_s", "min_s", "median_s", "max_s", "loops",
    "repeats", "unstable", "budget_limited", "trace_s", "lower_s", "compile_s", "first_run_s",
    "speedup_vs_eager", "speedup_vs_baseline", "dispatch_s", "dispatch_wait_s", "transfer_s",
)


def json_safe(value: Any) -> Any:
    """NaN (a measurement that was not made) becomes null, as JSON has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def report_json(report: TimingReport) -> dict[str, Any]:
    """The dict ``workbench time --format json`` prints for ``report``."""
    return json_safe(report.to_dict())


def ratio(num: float | None, den: float | None) -> float:
    """``num / den``, NaN when either is missing or not a positive finite figure."""
    if num is None or den is None or not (den > 0) or not math.isfinite(num):
        return math.nan
    return num / den


def table_rows(report: TimingReport) -> list[dict[str, Any]]:
    """One row per (device, mode) result: the figures of ``ROW_FIELDS``, NaN where none.

    ``speedup_vs_eager`` is the eager median over this row's median on the same
    device (eager itself is 1); ``speedup_vs_baseline`` the NumPy baseline's
    median over this row's. Dispatch times belong to the jitted call; the
    transfer of the inputs to the row's device shows on each of its rows.
    """
    eager = {r.device: r.stats.median_s for r in report.results if r.mode == "eager"}
    base = next((r.stats.median_s for r in report.results if r.mode == "numpy"), None)
    devices = {d.device: d for d in report.devices}
    rows = []
    for r in report.results:
        s, c, dev = r.stats, r.compile, devices.get(r.device)
        rows.append({
            "device": r.device,
            "mode": r.mode,
            "function": r.function or (report.baseline if r.mode == "numpy" else report.function),
            "mean_s": s.mean_s,
            "std_s": s.std_s,
            "min_s": s.min_s,
            "median_s": s.median_s,
            "max_s": s.max_s,
            "loops": s.loops,
            "repeats": s.repeats,
            "unstable": bool(s.unstable),
            "budget_limited": bool(s.budget_limited),
            "trace_s": c.trace_s if c is not None else math.nan,
            "lower_s": c.lower_s if c is not None else math.nan,
            "compile_s": c.compile_s if c is not None else math.nan,
            "first_run_s": c.first_run_s if c is not None else math.nan,
            "speedup_vs_eager": ratio(eager.get(r.device), s.median_s),
            "speedup_vs_baseline": ratio(base, s.median_s),
            "dispatch_s": dev.dispatch_s if dev is not None and r.mode == "jit" else math.nan,
            "dispatch_wait_s": (dev.dispatch_wait_s if dev is not None and r.mode == "jit"
                                else math.nan),
            "transfer_s": dev.transfer_s if dev is not None else math.nan,
        })
    return rows


def recompilation_notes(report: TimingReport) -> list[str]:
    """What the sweep cost in compilations, with JAX's own explanation of each cache miss."""
    if getattr(report, "sweep_name", None) is None:
        return []
    notes = [f"{report.function} compiled {report.compilations} time(s); "
             f"{report.recompilations} of them because the shape changed "
             f"({report.sweep_name} took {len(set(p.size for p in report.sweep))} sizes): "
             "jit compiles once per new shape, then reuses the compiled code."]
    notes.extend(report.cache_misses)
    return notes


def fmt_time(seconds: float, micro: str = "µs") -> str:
    """Three significant digits in s/ms/µs/ns, as IPython prints them (``micro`` is "us"
    where the terminal cannot print µ)."""
    if not math.isfinite(seconds):
        return "n/a"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, micro), (1e-9, "ns")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def protocol_note(report: TimingReport) -> str:
    """How the figures were measured, in ``%timeit``'s own terms, with the lines that give
    the same figures in Jupyter: a teacher can reproduce any of them there."""
    rows = [r for r in report.results if r.device != "host" and r.stats.repeats]
    if not rows:
        return ""
    first = rows[0].device
    args = ", ".join(report.args)
    passed = {1: "x", 2: "x, y"}.get(len(report.args), "*args")
    lines = [f"Measured as %timeit measures: loops per run by timeit's autorange (1, 2, 5, "
             f"10, 20, ... until a run lasts 0.2 s), then {rows[0].stats.repeats} runs, the "
             "garbage collector off; per call the mean ± std (what %timeit prints), the "
             f"median and the best (min). The same in Jupyter, with {passed} the inputs "
             f"({args}) on {first}:"]
    for r in (r for r in rows if r.device == first):
        call = f"jf({passed})" if r.mode == "jit" else f"{report.function}({passed})"
        setup = f"jf = jax.jit({report.function}); " if r.mode == "jit" else ""
        lines.append(f"  {r.mode}: {setup}%timeit -n {r.stats.loops} -r {r.stats.repeats} "
                     f"{call}.block_until_ready()   # median {fmt_time(r.stats.median_s)}, "
                     f"best {fmt_time(r.stats.min_s)}")
    return "\n".join(lines)


__all__ = ["ROW_FIELDS", "json_safe", "protocol_note", "recompilation_notes", "report_json",
           "table_rows"]
