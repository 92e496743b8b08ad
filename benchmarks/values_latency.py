"""What the values of every variable cost beside calling the function.

For each bundled example at its default spec: the median of a plain call of the
prepared function (eager: op by op, unless the example's own transforms jit it),
of the jitted call, and of the engine's trace + values (``trace_function`` then
``evaluate_values``: every equation bound, every variable summarised), measured
interleaved in one run with the arguments made once. Target: values <= 3x the
eager call + 20 ms.

Then ``while_loop``s of 100,000 iterations, values beside the jitted call
(target <= 2x): Newton's method for the cube roots of 1,000 numbers (a scalar
residual and a counter carried beside the vector, both recorded), and the
scalar Newton iteration alone, whose iteration costs a few nanoseconds, so the
fixed cost of showing its last iteration equation by equation (about a
millisecond) is most of what it shows. The scalar loop inside ``@jax.jit`` is
shown too: its ``jit`` equation is bound whole (the call, once), then the loop
inside runs again for its values, so it costs one call more.

    .venv/bin/python benchmarks/values_latency.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
from _util import interleaved_medians  # noqa: E402

from workbench.api.values import EqnValues, NodeValues  # noqa: E402
from workbench.engine.argspec import example_values  # noqa: E402
from workbench.engine.source import load_source  # noqa: E402
from workbench.engine.trace import trace_function  # noqa: E402
from workbench.engine.transforms import prepare  # noqa: E402
from workbench.engine.values import evaluate_values  # noqa: E402
from workbench.examples import bundled_examples  # noqa: E402

LOOP_SOURCE = """\
import jax
import jax.numpy as jnp
from jax import lax


def newton(a):
    def body(state):
        i, x = state
        return i + 1, x - (x * x - a) / (2.0 * x)

    return lax.while_loop(lambda s: s[0] < 100_000, body, (0, a + 1.0))


@jax.jit
def newton_jitted(a):
    return newton(a)


def cube_roots(a):
    a = jnp.abs(a) + 1.0

    def body(state):
        i, x, _ = state
        x = x - (x ** 3 - a) / (3.0 * x * x)
        return i + 1, x, jnp.max(jnp.abs(x ** 3 - a))

    return lax.while_loop(lambda s: s[0] < 100_000, body, (0, a, jnp.inf))
"""
LOOPS = [("cube_roots", "f32[1000]", "Newton, cube roots of 1,000 numbers"),
         ("newton", "f32[]", "Newton, one scalar"),
         ("newton_jitted", "f32[]", "the same inside @jax.jit")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    opts = parser.parse_args()

    print(f"jax {jax.__version__} on {jax.default_backend()}; medians of {opts.repeats} runs")
    header = (f"{'example':<20} {'eager':>9} {'jitted':>9} {'trace+values':>13} "
              f"{'values/eager':>13} {'target':>9} {'ok':>3}")
    print(header)
    print("-" * len(header))
    met = 0
    examples = bundled_examples()
    for ex in examples:
        loaded = load_source(ex.path.read_text(), ex.path.name)
        prepared = prepare(loaded, ex.function, ex.args, ex.transforms)
        args = example_values(prepared.dynamic_specs)
        jitted = jax.jit(prepared.fn)

        def eager(prepared=prepared, args=args):
            return jax.block_until_ready(prepared.fn(*args))

        def jit_call(jitted=jitted, args=args):
            return jax.block_until_ready(jitted(*args))

        def values(ex=ex, loaded=loaded):
            trace_function(loaded, ex.function, ex.args, ex.transforms)
            return evaluate_values(loaded, ex.function, ex.args, ex.transforms)

        t = interleaved_medians({"eager": eager, "jit": jit_call, "values": values},
                                repeats=opts.repeats)
        target = 3 * t["eager"] + 0.020
        ok = t["values"] <= target
        met += ok
        print(f"{ex.name:<20} {t['eager'] * 1e3:>6.2f} ms {t['jit'] * 1e3:>6.2f} ms "
              f"{t['values'] * 1e3:>10.2f} ms {t['values'] / t['eager']:>13.2f} "
              f"{target * 1e3:>6.1f} ms {'yes' if ok else 'NO':>3}")
    print(f"examples within 3x eager + 20 ms: {met} of {len(examples)}")

    print()
    print(f"while_loop of 100,000 iterations {'':<24} {'jitted':>9} {'values':>9} "
          f"{'ratio':>6} {'<= 2x':>6}")
    loaded = load_source(LOOP_SOURCE, "loops.py")
    for name, args, title in LOOPS:
        prepared = prepare(loaded, name, args)
        example = example_values(prepared.dynamic_specs)
        jitted = jax.jit(prepared.fn)

        def loop_call(jitted=jitted, example=example):
            return jax.block_until_ready(jitted(*example))

        def loop_values(name=name, args=args):
            return evaluate_values(loaded, name, args)

        t = interleaved_medians({"jit": loop_call, "values": loop_values},
                                repeats=opts.repeats)
        result = loop_values()
        loops = [ev for _, ev in _equations(result.root) if ev.iterations is not None]
        traces = loops[0].carry_traces
        ratio = t["values"] / t["jit"]
        print(f"  {title:<54} {t['jit'] * 1e3:>6.2f} ms {t['values'] * 1e3:>6.2f} ms "
              f"{ratio:>6.2f} {'yes' if ratio <= 2 else 'no':>6}")
        print(f"    {loops[0].iterations:,} iterations; {len(traces)} scalar carries recorded, "
              f"{len(traces[0].steps):,} points each (stride {traces[0].stride})")
    return 0


def _equations(values: NodeValues) -> list[tuple[int, EqnValues]]:
    """Every equation's values at every depth."""
    out = []
    for e, ev in enumerate(values.eqns):
        if ev is not None:
            out.append((e, ev))
            for sub in ev.subs:
                if sub is not None:
                    out.extend(_equations(sub))
    return out


if __name__ == "__main__":
    sys.exit(main())
