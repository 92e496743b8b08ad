"""`workbench time`: jit vs eager per device, like ``%timeit``, with the first call split."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from workbench.api import messages as m
from workbench.api.commands import add_time_arguments
from workbench.api.timing import TimingReport
from workbench.api.timing_report import fmt_time as report_fmt_time
from workbench.api.timing_report import protocol_note, report_json
from workbench.cli.common import UserOutput, read_user_file
from workbench.cli.runner import add_engine_options, open_engine
from workbench.engine.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "time",
        help="time a function jitted and eager on each device",
        description="Time FUNC called with --args on every device JAX sees: steady-state "
        "jit and eager per call, the first jit call split into trace/lower/compile/run, "
        "dispatch vs dispatch+wait and the input transfer.",
    )
    p.add_argument("file", metavar="FILE")
    add_time_arguments(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_engine_options(p)
    p.set_defaults(func=run)


def _unit() -> str:
    enc = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "\u00b5".encode(enc)
    except (UnicodeEncodeError, LookupError):
        return "us"
    return "\u00b5s"


def fmt_time(seconds: float) -> str:
    """``timing_report.fmt_time`` in the units this terminal can print."""
    return report_fmt_time(seconds, _unit())


def timeit_line(stats: Any) -> str:
    """``222 µs ± 3.1 µs per loop (mean ± std. dev. of 7 runs, 1,000 loops each)``."""
    pm = "\u00b1" if _unit() != "us" else "+-"
    runs = "run" if stats.repeats == 1 else "runs"
    loops = "loop" if stats.loops == 1 else "loops"
    return (f"{fmt_time(stats.mean_s)} {pm} {fmt_time(stats.std_s)} per loop "
            f"(mean {pm} std. dev. of {stats.repeats} {runs}, {stats.loops:,} {loops} each)")


def budget_note(stats: Any, config: Any = None) -> str:
    """What the time budget cut from a measurement, for a ``budget_limited`` one."""
    if config is None:
        return (f"! budget-limited: only {stats.repeats} run(s) of {stats.loops:,} loop(s) fitted "
                "in the time budget")
    cut = []
    if stats.repeats < config.repeats:
        cut.append(f"{stats.repeats} of {config.repeats} runs")
    # the first run is the batch the loop count was calibrated on
    batch = (stats.per_repeat_s[0] if stats.per_repeat_s else stats.min_s) * stats.loops
    if batch < config.min_batch_s:
        cut.append(f"{stats.loops:,} loop(s) per run ({fmt_time(batch)} batches, "
                   f"under --min-batch {fmt_time(config.min_batch_s)})")
    what = " and ".join(cut) or f"{stats.repeats} runs of {stats.loops:,} loop(s)"
    return (f"! budget-limited: {what} fitted in the {fmt_time(config.max_measure_s)} "
            "budget (--budget)")


def format_report(report: Any, config: Any = None) -> str:
    """The text of ``workbench time``; ``config`` (the TimingConfig used) details budget cuts."""
    lines = [f"{report.function}({', '.join(report.args)})"]
    by_device = {d.device: d for d in report.devices}
    devices = list(dict.fromkeys(r.device for r in report.results))
    for dev in devices:
        lines.append(f"on {dev}:" if dev != "host" else f"NumPy baseline {report.baseline}:")
        timing = by_device.get(dev)
        if timing is not None:
            lines.append(f"  inputs host -> {dev}: {fmt_time(timing.transfer_s)} (device_put)")
        for r in (r for r in report.results if r.device == dev):
            s = r.stats
            lines.append(f"  {r.mode:<6} {timeit_line(s)}")
            lines.append(f"         median {fmt_time(s.median_s)}, min {fmt_time(s.min_s)}")
            if s.budget_limited:
                lines.append(f"         {budget_note(s, config)}")
            if s.unstable:
                lines.append(f"         ! the slowest run took {s.max_s / s.min_s:.1f} times "
                             "longer than the fastest: the machine is busy or something is "
                             "being cached")
            if r.compile is not None:
                c = r.compile
                lines.append(
                    f"  first jit call {fmt_time(c.total_s)}: trace {fmt_time(c.trace_s)}, "
                    f"lower {fmt_time(c.lower_s)}, compile {fmt_time(c.compile_s)}, "
                    f"first run {fmt_time(c.first_run_s)}")
        if timing is not None and math.isfinite(timing.dispatch_s):
            lines.append(
                f"  a jitted call returns after {fmt_time(timing.dispatch_s)} "
                f"(asynchronous dispatch); its result is ready after "
                f"{fmt_time(timing.dispatch_wait_s)}")
    modes = {r.mode: r.stats.median_s for r in report.results if r.device == devices[0]} \
        if devices else {}
    if "jit" in modes and "eager" in modes and modes["jit"] > 0:
        lines.append(f"jit is {modes['eager'] / modes['jit']:.1f}x faster than eager "
                     f"on {devices[0]} (medians)")
    measured = [d for d in devices if d != "host"]
    if len(measured) > 1:
        lines.append("")
        lines.extend(_device_table(report, measured))
    if report.sweep_name is not None:
        lines.append("")
        lines.extend(_sweep_table(report))
    if report.cancelled:
        lines.append("(cancelled: partial results)")
    protocol = protocol_note(report)
    if protocol:
        lines.extend(["", protocol])
    return "\n".join(lines)


def _device_table(report: Any, devices: list[str]) -> list[str]:
    """One row per device: its input transfer and median per call in each mode."""
    by_device = {d.device: d for d in report.devices}
    modes = list(dict.fromkeys(r.mode for r in report.results if r.device in devices))
    median = {(r.device, r.mode): r.stats.median_s for r in report.results}
    head = [f"{'device':<10}", f"{'transfer':>10}"] + [f"{m + ' median':>14}" for m in modes]
    if "jit" in modes and "eager" in modes:
        head.append(f"{'jit vs eager':>13}")
    out = ["per device:", "  ".join(head)]
    for dev in devices:
        timing = by_device.get(dev)
        row = [f"{dev:<10}", f"{fmt_time(timing.transfer_s if timing else math.nan):>10}"]
        row += [f"{fmt_time(median.get((dev, m), math.nan)):>14}" for m in modes]
        if "jit" in modes and "eager" in modes:
            jit, eager = median.get((dev, "jit"), math.nan), median.get((dev, "eager"), math.nan)
            row.append(f"{f'{eager / jit:.1f}x' if jit > 0 else 'n/a':>13}")
        out.append("  ".join(row))
    return out


def _sweep_table(report: Any) -> list[str]:
    cols = list(dict.fromkeys((p.device, p.mode) for p in report.sweep))
    cell = {(p.size, p.device, p.mode): p.median_s for p in report.sweep}
    sizes = list(dict.fromkeys(p.size for p in report.sweep))
    head = [f"{report.sweep_name:>10}"] + [f"{f'{m} {d}':>16}" for d, m in cols]
    out = ["median per call:", "  ".join(head)]
    for n in sizes:
        row = [f"{n:>10}"] + [f"{fmt_time(cell.get((n, d, m), math.nan)):>16}" for d, m in cols]
        out.append("  ".join(row))
    out.append(f"compilations of {report.function}: {report.compilations}, "
               f"of which {report.recompilations} for new shapes")
    for msg in report.cache_misses[:3]:
        out.append("  " + msg.replace("\n", "\n  "))
    if len(report.cache_misses) > 3:
        out.append(f"  ... and {len(report.cache_misses) - 3} more cache misses")
    return out


def _progress_bar(quiet: bool) -> Any:
    """A tqdm bar on stderr, or None when quiet or stderr is not a terminal."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=0, file=sys.stderr, unit="measure", leave=False, dynamic_ncols=True)


def _check_config(args: argparse.Namespace) -> Any:
    from workbench.engine.timing import TimingConfig

    if args.repeats < 1:
        raise UsageError(f"--repeats must be at least 1, got {args.repeats}")
    for flag, value in (("--min-batch", args.min_batch), ("--budget", args.budget)):
        if not (math.isfinite(value) and value > 0):
            raise UsageError(f"{flag} must be a positive number of seconds, got {value}")
    return TimingConfig(min_batch_s=args.min_batch, repeats=args.repeats,
                        max_measure_s=args.budget)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.timing import check_modes

    config = _check_config(args)
    modes = check_modes(args.modes.split(","))
    output = UserOutput()
    source, filename = read_user_file(args.file)
    with open_engine(args) as engine:
        engine.call(m.LoadSource(source=source, filename=filename), m.Functions, output=output)
        bar = _progress_bar(args.quiet)

        def on_progress(event: m.Progress) -> None:
            if bar is not None:
                bar.total = event.total
                bar.set_description(event.message)
                bar.update(event.done - bar.n)

        try:
            report = engine.call(
                m.Time(name=args.function, args=args.args, devices=args.devices, modes=modes,
                       baseline=args.baseline, sweep=args.sweep, config=config),
                TimingReport, output=output, on_progress=on_progress)
        finally:
            if bar is not None:
                bar.close()
    if args.format == "json":
        print(json.dumps({**report_json(report), **output.json_fields()}))
    else:
        output.to_stderr()
        print(format_report(report, config))
    return 0
