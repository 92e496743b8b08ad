"""How much the engine's trace (jaxpr tree + text) costs over a bare warm ``make_jaxpr``.

For each bundled example: the median of ``jax.make_jaxpr(f)(*args)`` (warm),
of ``make_jaxpr`` plus ``str()`` of the result (what a notebook shows), and of
the engine's ``trace_function`` (spec parsing, transforms, jaxpr, tree, text),
measured interleaved in one run. Target: engine / make_jaxpr <= 1.25.

A warm ``make_jaxpr`` is largely JAX's trace cache answering; while a person
types, every keystroke re-runs the source and makes new function objects. The
last columns measure that case too: load the source afresh, then trace, for
``make_jaxpr`` + ``str()`` and for the engine.

    .venv/bin/python benchmarks/trace_latency.py [--repeats 50]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
from _util import interleaved_medians  # noqa: E402

from workbench.engine.argspec import abstract_values  # noqa: E402
from workbench.engine.source import load_source  # noqa: E402
from workbench.engine.trace import trace_function  # noqa: E402
from workbench.engine.transforms import prepare  # noqa: E402
from workbench.examples import bundled_examples  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    opts = parser.parse_args()

    print(f"jax {jax.__version__} on {jax.default_backend()}; medians of {opts.repeats} runs")
    header = (f"{'example':<20} {'make_jaxpr':>11} {'+ str()':>9} {'engine':>9} "
              f"{'engine/make_jaxpr':>18} {'engine/(+str)':>14} "
              f"{'edit: +str()':>13} {'edit: engine':>13} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    ratios = []
    for ex in bundled_examples():
        loaded = load_source(ex.path.read_text(), ex.path.name)
        prepared = prepare(loaded, ex.function, ex.args, ex.transforms)
        args = abstract_values(prepared.dynamic_specs)

        def bare(prepared=prepared, args=args):
            return jax.make_jaxpr(prepared.fn)(*args)

        def bare_text(prepared=prepared, args=args):
            return str(jax.make_jaxpr(prepared.fn)(*args))

        def engine(ex=ex, loaded=loaded):
            return trace_function(loaded, ex.function, ex.args, ex.transforms)

        source = ex.path.read_text()

        def edit_bare(ex=ex, source=source):
            fresh = load_source(source, ex.path.name)
            p = prepare(fresh, ex.function, ex.args, ex.transforms)
            return str(jax.make_jaxpr(p.fn)(*abstract_values(p.dynamic_specs)))

        def edit_engine(ex=ex, source=source):
            fresh = load_source(source, ex.path.name)
            return trace_function(fresh, ex.function, ex.args, ex.transforms)

        t = interleaved_medians(
            {"bare": bare, "text": bare_text, "engine": engine,
             "edit_bare": edit_bare, "edit_engine": edit_engine},
            repeats=opts.repeats,
        )
        ratio = t["engine"] / t["bare"]
        ratios.append(ratio)
        print(f"{ex.name:<20} {t['bare'] * 1e3:>8.2f} ms {t['text'] * 1e3:>6.2f} ms "
              f"{t['engine'] * 1e3:>6.2f} ms {ratio:>18.2f} {t['engine'] / t['text']:>14.2f} "
              f"{t['edit_bare'] * 1e3:>10.2f} ms {t['edit_engine'] * 1e3:>10.2f} ms "
              f"{t['edit_engine'] / t['edit_bare']:>6.2f}")
    ratios.sort()
    print(f"median engine/make_jaxpr over the examples: {ratios[len(ratios) // 2]:.2f} "
          "(target <= 1.25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
