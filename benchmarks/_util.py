"""Small helpers the benchmark scripts share: repeat a call and take medians."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeats: int = 30, warmup: int = 3) -> float:
    """Median wall time of ``fn()`` in seconds, after a few warm-up calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def interleaved_medians(
    fns: dict[str, Callable[[], object]], repeats: int = 30, warmup: int = 3
) -> dict[str, float]:
    """Medians of several calls measured in turn, so machine noise hits them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}


def spin_until(app, cond: Callable[[], bool], timeout: float = 60.0) -> None:
    """Run ``app``'s event loop until ``cond()`` holds (a window's answer); raise past
    ``timeout`` seconds."""
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise TimeoutError("no answer from the window")
        app.processEvents()
        time.sleep(0.0005)
