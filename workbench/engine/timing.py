"""Honest jit-vs-eager timings of a user function on every device JAX sees.

What is measured, per device (every device of every backend by default, see
``devices.select_devices``): host-to-device transfer of the inputs
(``jax.device_put`` to that device); the first jit call split into trace,
lower, compile and first run (``jit(f).trace(...).lower().compile()``);
steady-state time per call jitted and eager (the
un-jitted function, where every ``jnp`` op dispatches its own small compiled
computation); and the time a jitted call takes to *return* (asynchronous
dispatch) beside the time until its result is ready. Inputs are committed to
the device first and every timed call ends in ``block_until_ready``. Loop
counts follow IPython's ``%timeit``: batches of at least ``min_batch_s``,
``repeats`` of them, mean/std/min/median per loop.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.api.choices import MODES, Mode
from workbench.api.timing import (
    CompileSplit,
    DeviceTiming,
    LoopStats,
    ModeResult,
    SweepPoint,
    TimingConfig,
    TimingReport,
)
from workbench.engine.argspec import (
    LiteralSpec,
    Spec,
    format_args,
    parse_args,
    placeholders,
    substitute,
)
from workbench.engine.compile_watch import explain_cache_misses, watch_compiles
from workbench.engine.devices import device_name, select_devices
from workbench.engine.errors import UsageError, UserCodeError, explain
from workbench.engine.source import LoadedSource
from workbench.engine.transforms import bind_static, check_call_arity

DEFAULT_CONFIG = TimingConfig()


@dataclass(frozen=True)
class ProgressEvent:
    """One measurement done; ``point`` is set during a sweep."""

    done: int
    total: int
    label: str
    point: SweepPoint | None = None


@dataclass(frozen=True)
class Sweep:
    """Sizes for one placeholder dimension, log-spaced."""

    name: str
    sizes: tuple[int, ...]


# --------------------------------------------------------------------------- loops


def timed_call(fn: Callable[..., Any], args: tuple[Any, ...],
               one_array: bool) -> Callable[[], Any]:
    """The call a person times: ``f(x).block_until_ready()``, the arguments bound, nothing
    between. ``jax.block_until_ready(f(*args))`` flattens the result's tree on every call:
    6 µs more on a 14 µs dispatch-bound call (f32[100]), 40% that plain Python never pays.
    Only a result of several arrays takes that route, as it would in a notebook."""
    import jax

    if not one_array:
        return lambda: jax.block_until_ready(fn(*args))
    if len(args) == 1:
        (a,) = args
        return lambda: fn(a).block_until_ready()
    if len(args) == 2:
        a, b = args
        return lambda: fn(a, b).block_until_ready()
    return lambda: fn(*args).block_until_ready()


def _batch(call: Callable[[], Any], loops: int) -> float:
    """Seconds for ``loops`` calls with the garbage collector off, as ``timeit`` does."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(loops):
            call()
        return time.perf_counter() - start
    finally:
        if gc_was_on:
            gc.enable()


def measure(call: Callable[[], Any], config: TimingConfig = DEFAULT_CONFIG) -> LoopStats:
    """Time an already warmed-up ``call`` like ``%timeit``.

    Loops grow 1, 2, 5, 10, 20, ... until one batch lasts ``min_batch_s``; that
    batch counts as the first repeat. More repeats follow while the budget lasts.
    Where the budget stops the loops growing or the repeats coming, the stats
    say ``budget_limited`` (their ``loops`` and ``repeats`` are what ran).
    """
    started = time.perf_counter()
    loops, batch = 1, _batch(call, 1)
    steps = (2, 5, 10)
    decade = 1
    short_batches = False
    while batch < config.min_batch_s and loops < config.max_loops:
        if time.perf_counter() - started > config.max_measure_s:
            short_batches = True
            break
        for step in steps:
            candidate = step * decade
            if candidate > loops:
                loops = min(candidate, config.max_loops)
                break
        else:
            decade *= 10
            continue
        batch = _batch(call, loops)
    batches = [batch]
    while len(batches) < config.repeats:
        if time.perf_counter() - started + batch > config.max_measure_s:
            break
        batches.append(_batch(call, loops))
    limited = short_batches or len(batches) < config.repeats
    return LoopStats.from_batches(batches, loops, budget_limited=limited)


# --------------------------------------------------------------------------- setup


def parse_sweep(text: str) -> Sweep:
    """``N=100:10000000`` (one size per decade) or ``N=100:10000000:8`` (8 sizes)."""
    name, sep, rest = text.partition("=")
    parts = rest.split(":")
    if not sep or not name.strip().isidentifier() or len(parts) not in (2, 3):
        raise UsageError(f"bad sweep {text!r}: write NAME=LO:HI or NAME=LO:HI:COUNT, "
                         "for example N=100:10000000")
    try:
        lo, hi = (float(p) for p in parts[:2])
        count = int(parts[2]) if len(parts) == 3 else None
    except ValueError:
        raise UsageError(f"bad sweep {text!r}: LO, HI and COUNT must be numbers") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo < 1 or hi < lo:
        raise UsageError(f"bad sweep {text!r}: need 1 <= LO <= HI")
    if count is None:
        count = max(2, round(math.log10(hi / lo)) + 1) if hi > lo else 1
    if count < 1:
        raise UsageError(f"bad sweep {text!r}: COUNT must be at least 1")
    sizes = np.unique(np.round(np.logspace(math.log10(lo), math.log10(hi), count)).astype(int))
    return Sweep(name.strip(), tuple(int(s) for s in sizes))


def _stopper(should_stop: Any) -> Callable[[], bool]:
    if should_stop is None:
        return lambda: False
    if hasattr(should_stop, "is_set"):
        return should_stop.is_set
    return should_stop


def _eager_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The Python function under an editor-level ``@jax.jit``: eager must not be jitted."""
    inner = getattr(fn, "__wrapped__", None)
    if inner is not None and hasattr(fn, "lower"):
        return inner
    return fn


@dataclass
class _Target:
    name: str
    eager: Callable[..., Any]  # dynamic args only
    baseline: Callable[..., Any] | None
    specs: tuple[Spec, ...]
    dynamic: tuple[Spec, ...]


def _target(loaded: LoadedSource, name: str, specs: tuple[Spec, ...],
            baseline: str | None) -> _Target:
    fn = _eager_function(loaded.function(name))
    check_call_arity(fn, specs, name)
    bound, dynamic, _ = bind_static(fn, specs)
    bound_base = None
    if baseline is not None:
        base = _eager_function(loaded.function(baseline))
        check_call_arity(base, specs, baseline)
        bound_base, _, _ = bind_static(base, specs)
    return _Target(name, bound, bound_base, specs, dynamic)


def _fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object with ``fn``'s code: JAX's trace caches are keyed on the
    object, so the first-call split measures a real first call, while source info
    still names the editor's lines."""
    if isinstance(fn, types.FunctionType):
        copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        copy.__kwdefaults__ = fn.__kwdefaults__
        copy.__qualname__ = fn.__qualname__
        return copy

    def wrapper(*args: Any) -> Any:
        return fn(*args)

    wrapper.__name__ = wrapper.__qualname__ = getattr(fn, "__name__", "f")
    return wrapper


class _Run:
    """One timing session: shared by the plain run and every size of a sweep."""

    def __init__(self, loaded: LoadedSource, target: _Target, devices: list[Any],
                 modes: Sequence[str], config: TimingConfig,
                 on_progress: Callable[[ProgressEvent], None] | None,
                 stop: Callable[[], bool], total: int):
        import jax

        self.loaded = loaded
        self.target = target
        self.devices = devices
        self.modes = tuple(modes)
        self.config = config
        self.on_progress = on_progress
        self.stop = stop
        self.total = total
        self.done = 0
        self.jitted = jax.jit(target.eager)

    def user(self, thunk: Callable[[], Any]) -> Any:
        try:
            return thunk()
        except (UsageError, UserCodeError):
            raise
        except Exception as exc:
            raise UserCodeError(explain(exc, self.loaded.filename)) from exc

    def progress(self, label: str, point: SweepPoint | None = None) -> None:
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(ProgressEvent(self.done, self.total, label, point))

    def timed(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> LoopStats:
        import jax

        out = self.user(lambda: jax.block_until_ready(fn(*args)))  # warm up: compiles (jit)
        call = timed_call(fn, args, isinstance(out, jax.Array))  # or fills the op caches
        return self.user(lambda: measure(call, self.config))

    def compile_split(self, args: tuple[Any, ...]) -> CompileSplit:
        import jax

        jf = jax.jit(_fresh(self.target.eager))
        t0 = time.perf_counter()
        traced = self.user(lambda: jf.trace(*args))
        t1 = time.perf_counter()
        lowered = self.user(traced.lower)
        t2 = time.perf_counter()
        compiled = self.user(lowered.compile)
        t3 = time.perf_counter()
        self.user(lambda: jax.block_until_ready(compiled(*args)))
        t4 = time.perf_counter()
        return CompileSplit(t1 - t0, t2 - t1, t3 - t2, t4 - t3)

    def transfer(self, host: tuple[Any, ...], device: Any) -> float:
        import jax

        def put() -> Any:
            return jax.block_until_ready(jax.device_put(host, device))

        put()
        return measure(put, self.config).median_s

    def dispatch(self, args: tuple[Any, ...]) -> tuple[float, float]:
        """Median seconds for a jitted call to return, and to return and finish."""
        import jax

        returned, finished = [], []
        started = time.perf_counter()
        for _ in range(max(1, self.config.dispatch_samples)):
            t0 = time.perf_counter()
            out = self.jitted(*args)
            t1 = time.perf_counter()
            jax.block_until_ready(out)
            t2 = time.perf_counter()
            returned.append(t1 - t0)
            finished.append(t2 - t0)
            if t2 - started > self.config.max_measure_s:
                break
        return statistics.median(returned), statistics.median(finished)

    def one_size(self, specs: tuple[Spec, ...], size: int | None, full: bool
                 ) -> tuple[list[ModeResult], list[DeviceTiming], list[SweepPoint], bool]:
        """Every device and mode at one shape; ``full`` adds the compile split and transfers."""
        import jax

        from workbench.engine.argspec import example_values

        dynamic = tuple(s for s in specs if not isinstance(s, LiteralSpec))
        values = self.user(lambda: example_values(dynamic))
        host = tuple(jax.tree.map(np.asarray, values))
        results: list[ModeResult] = []
        timings: list[DeviceTiming] = []
        points: list[SweepPoint] = []

        def record(result: ModeResult) -> None:
            results.append(result)
            point = None
            if size is not None:
                s = result.stats
                point = SweepPoint(size, result.device, result.mode, s.median_s, s.min_s,
                                   s.mean_s, s.loops, s.repeats, s.budget_limited)
                points.append(point)
            where = f" N={size}" if size is not None else ""
            self.progress(f"{result.mode} on {result.device}{where}", point)

        for device in self.devices:
            dev = device_name(device)
            if self.stop():
                return results, timings, points, True
            transfer = self.transfer(host, device) if full else math.nan
            args = tuple(jax.device_put(host, device))
            split = self.compile_split(args) if full and "jit" in self.modes else None
            for mode in self.modes:
                if self.stop():
                    return results, timings, points, True
                fn = self.jitted if mode == "jit" else self.target.eager
                stats = self.timed(fn, args)
                record(ModeResult(dev, mode, stats, split if mode == "jit" else None,
                                  self.target.name))
            if full and "jit" in self.modes:
                timings.append(DeviceTiming(dev, transfer, *self.dispatch(args)))
            elif full:
                timings.append(DeviceTiming(dev, transfer, math.nan, math.nan))
        if self.target.baseline is not None:
            if self.stop():
                return results, timings, points, True
            stats = self.timed(self.target.baseline, host)
            record(ModeResult("host", "numpy", stats, None, ""))
        return results, timings, points, False


def check_modes(modes: Sequence[str]) -> tuple[Mode, ...]:
    """The modes named, each once, in order; a UsageError for an unknown one or none."""
    chosen = tuple(dict.fromkeys(m.strip() for m in modes if m.strip()))
    unknown = [m for m in chosen if m not in MODES]
    if unknown or not chosen:
        raise UsageError(f"unknown mode(s) {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(MODES)}")
    return chosen  # type: ignore[return-value]  # each checked against MODES


def time_function(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    *,
    devices: str = "all",
    modes: Sequence[str] = MODES,
    baseline: str | None = None,
    sweep: Sweep | str | None = None,
    config: TimingConfig = DEFAULT_CONFIG,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    should_stop: Any = None,
) -> TimingReport:
    """Time ``name`` called with ``args`` on each chosen device, in each mode.

    With a ``sweep`` the spec must hold its placeholder (``f32[N]``); ``results``
    then describe the first size and ``sweep`` every size. ``should_stop`` (a
    ``threading.Event`` or a callable) is checked between measurements.
    """
    specs = parse_args(args) if isinstance(args, str) else tuple(args)
    modes = check_modes(modes.split(",") if isinstance(modes, str) else modes)
    if isinstance(sweep, str):
        sweep = parse_sweep(sweep)
    holes = placeholders(specs)
    if sweep is None and holes:
        raise UsageError(f"{format_args(specs)} has placeholder {', '.join(holes)}: "
                         f"give sizes with a sweep, e.g. --sweep {holes[0]}=100:1000000")
    if sweep is not None:
        if not holes:
            raise UsageError(f"a sweep needs a placeholder dimension in the arguments, "
                             f"such as f32[{sweep.name}]; {format_args(specs)} has none")
        if set(holes) != {sweep.name}:
            raise UsageError(f"the sweep sizes {sweep.name} but the arguments use "
                             f"{', '.join(holes)}")
    target = _target(loaded, name, specs, baseline)
    chosen = select_devices(devices)
    sizes: list[int | None] = list(sweep.sizes) if sweep is not None else [None]
    per_size = len(chosen) * len(modes) + (1 if baseline else 0)
    run = _Run(loaded, target, chosen, modes, config, on_progress, _stopper(should_stop),
               per_size * len(sizes))

    results: list[ModeResult] = []
    timings: list[DeviceTiming] = []
    points: list[SweepPoint] = []
    cancelled = False
    recompilations = 0
    misses: list[str] = []
    with watch_compiles() as log:
        for i, size in enumerate(sizes):
            shaped = substitute(specs, {sweep.name: size}) if sweep and size is not None else specs
            if i == 0:
                results, timings, pts, cancelled = run.one_size(shaped, size, full=True)
            else:
                # A new shape: count what it costs in compilations, with JAX's own
                # explanation of each cache miss.
                before = log.count(name)
                with explain_cache_misses(name) as found:
                    _, _, pts, cancelled = run.one_size(shaped, size, full=False)
                recompilations += log.count(name) - before
                misses.extend(found)
            points.extend(pts)
            if cancelled:
                break
    compilations = log.count(name)
    return TimingReport(
        function=name,
        args=tuple(format_args([s]) for s in specs),
        results=tuple(results),
        devices=tuple(timings),
        baseline=baseline,
        sweep=tuple(points),
        sweep_name=sweep.name if sweep else None,
        compilations=compilations,
        recompilations=recompilations,
        cache_misses=tuple(misses),
        cancelled=cancelled,
    )
