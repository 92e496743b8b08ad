"""How fast does a plot follow a parameter slider? Target: median under 2 ms.

Recomputes selu, selu' and selu'' at 1000 points after changing ``alpha``
(cached, no recompile; the compile counter proves it), in-process, and prints
the median beside the first call that had to compile.

    .venv/bin/python benchmarks/curves_latency.py
"""

from __future__ import annotations

import statistics
import time

SOURCE = '''
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
'''

CALLS = 500
TARGET_S = 2e-3


def main() -> None:
    from workbench.engine.compile_watch import watch_compiles
    from workbench.engine.curves import sample_curves
    from workbench.engine.source import load_source

    loaded = load_source(SOURCE, "latency.py")
    start = time.perf_counter()
    sample_curves(loaded, "selu", order=2, points=1000)
    first = time.perf_counter() - start
    times = []
    with watch_compiles() as log:
        for i in range(CALLS):
            alpha = 1.0 + (i % 100) / 50
            start = time.perf_counter()
            sample_curves(loaded, "selu", order=2, points=1000, params={"alpha": alpha})
            times.append(time.perf_counter() - start)
    median = statistics.median(times)
    p90 = statistics.quantiles(times, n=10)[-1]
    print(f"selu, f' and f'' at 1000 points after a parameter change, {CALLS} calls")
    print("| measure | time | vs target 2 ms |")
    print("| --- | ---: | ---: |")
    print(f"| median, cached | {median * 1e3:.3f} ms | {median / TARGET_S:.2f} |")
    print(f"| 90th percentile, cached | {p90 * 1e3:.3f} ms | {p90 / TARGET_S:.2f} |")
    print(f"| first call (trace + compile) | {first * 1e3:.1f} ms | {first / TARGET_S:.1f} |")
    print(f"compilations during the {CALLS} parameter changes: {log.count()}")


if __name__ == "__main__":
    main()
