"""jit-vs-eager timings as plain data: one report per run, one row per (device, mode)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

UNSTABLE_RATIO = 4.0

@dataclass(frozen=True)
class TimingConfig:
    """How long to measure: batches of >= ``min_batch_s``, ``repeats`` batches, capped.

    ``max_measure_s`` caps one measurement (calibration and repeats); a very
    slow call gets fewer repeats rather than a run that never ends.
    """

    min_batch_s: float = 0.2
    repeats: int = 7
    max_measure_s: float = 3.0
    max_loops: int = 10_000_000
    dispatch_samples: int = 100


@dataclass(frozen=True)
class LoopStats:
    """Per-loop seconds over the repeats; ``unstable`` when slowest > 4x fastest.

    ``loops`` and ``repeats`` are what ran; ``budget_limited`` says the budget
    (``max_measure_s``) cut them short: fewer repeats than asked, or batches
    shorter than ``min_batch_s``.
    """

    mean_s: float
    std_s: float
    min_s: float
    median_s: float
    max_s: float
    loops: int
    repeats: int
    unstable: bool
    per_repeat_s: tuple[float, ...] = ()
    budget_limited: bool = False

    @classmethod
    def from_batches(
        cls, batch_s: Sequence[float], loops: int, budget_limited: bool = False
    ) -> LoopStats:
        per = [b / loops for b in batch_s]
        return cls(
            mean_s=statistics.fmean(per),
            std_s=statistics.pstdev(per) if len(per) > 1 else 0.0,
            min_s=min(per),
            median_s=statistics.median(per),
            max_s=max(per),
            loops=loops,
            repeats=len(per),
            unstable=len(per) > 1 and max(per) > UNSTABLE_RATIO * min(per),
            per_repeat_s=tuple(per),
            budget_limited=budget_limited,
        )


@dataclass(frozen=True)
class CompileSplit:
    """The first jit call, stage by stage."""

    trace_s: float
    lower_s: float
    compile_s: float
    first_run_s: float

    @property
    def total_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s + self.first_run_s


@dataclass(frozen=True)
class ModeResult:
    device: str  # "cpu:0", "gpu:0", or "host" for the NumPy baseline
    mode: str  # "jit", "eager" or "numpy"
    stats: LoopStats
    compile: CompileSplit | None = None
    function: str = ""  # the function timed (the baseline's own name for numpy)


@dataclass(frozen=True)
class DeviceTiming:
    """Per device: inputs host -> device, and a jitted call returning vs finishing."""

    device: str
    transfer_s: float
    dispatch_s: float
    dispatch_wait_s: float


@dataclass(frozen=True)
class SweepPoint:
    size: int
    device: str
    mode: str
    median_s: float
    min_s: float
    mean_s: float
    loops: int
    repeats: int
    budget_limited: bool = False


@dataclass(frozen=True)
class TimingReport:
    function: str
    args: tuple[str, ...]
    results: tuple[ModeResult, ...]
    devices: tuple[DeviceTiming, ...]
    baseline: str | None = None
    sweep: tuple[SweepPoint, ...] = ()
    sweep_name: str | None = None
    compilations: int = 0  # XLA compilations of the function in this run (first calls too)
    recompilations: int = 0  # of those, the ones caused by a new shape in the sweep
    cache_misses: tuple[str, ...] = field(default_factory=tuple)
    cancelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``workbench time --format json``: every key always there.

        A key that does not apply is None (``compile`` of an eager or NumPy row,
        ``baseline`` without one, ``sweep`` and ``sweep_name`` without a sweep).
        """
        results = []
        for r in self.results:
            row: dict[str, Any] = {
                "device": r.device,
                "mode": r.mode,
                "function": r.function or (self.baseline if r.mode == "numpy" else self.function),
            }
            stats = asdict(r.stats)
            stats["per_repeat_s"] = list(r.stats.per_repeat_s)
            row.update(stats)
            row["compile"] = (
                {**asdict(r.compile), "total_s": r.compile.total_s} if r.compile else None
            )
            results.append(row)
        first = self.devices[0] if self.devices else None
        sweep = self.sweep_name is not None
        return {
            "function": self.function,
            "args": list(self.args),
            "results": results,
            "transfer_s": first.transfer_s if first else None,
            "dispatch_s": first.dispatch_s if first else None,
            "dispatch_wait_s": first.dispatch_wait_s if first else None,
            "devices": [asdict(d) for d in self.devices],
            "baseline": self.baseline,
            "sweep": [asdict(p) for p in self.sweep] if sweep else None,
            "sweep_name": self.sweep_name,
            "compilations": self.compilations,
            "recompilations": self.recompilations,
            "cache_misses": list(self.cache_misses),
            "cancelled": self.cancelled,
        }
