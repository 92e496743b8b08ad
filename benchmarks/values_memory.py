"""What the values of every variable cost in memory beside running the function op by op.

Each run is a fresh Python: the function once to compile, then the run measured, its
peak resident memory (VmHWM, reset through ``/proc/self/clear_refs`` where the kernel
allows it) less the resident memory before it. "op by op" calls the function with
``jax.disable_jit()`` (a jitted function's body too: values runs it that way), "jitted"
calls ``jax.jit`` of it, "values" is ``evaluate_values``. The example arguments are made
before the measured run: by the first run for values, which keeps them within
``KEEP_BYTES`` (past it, values makes them again in every run, and making a normal
sample peaks at about four times its size: ``argspec.example_values``). Target: values
<= op by op + 48 MB when every variable together is past ``KEEP_BYTES``, so none is kept
for ``VarArray``; a loop may add two of its carries (the carry entering its last
iteration, replayed to show that iteration, beside the loop's outputs, kept bit for bit
from the loop run).

    .venv/bin/python benchmarks/values_memory.py [--size 16000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

from workbench.engine.values.run import KEEP_BYTES

MB = 2**20
MARGIN = 48 * MB

SOURCE = """\
import jax
import jax.numpy as jnp
from jax import lax


def chain(x):
    a = jnp.sin(x)
    b = a * 2.0
    c = jnp.exp(-b)
    d = c + a
    return d, jnp.tanh(d) * x


@jax.jit
def chain_jit(x):
    return chain(x)


def loop(x):
    return lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 0.5 + x, x)
"""
FUNCTIONS = [("chain", "four elementwise steps, two outputs", 0),
             ("chain_jit", "the same inside @jax.jit", 0),
             ("loop", "a fori_loop carrying the array", 2)]
"""(name, title, carries a loop may add)"""

CHILD = textwrap.dedent("""\
    import gc, json, sys
    import jax
    from workbench.engine.argspec import example_values
    from workbench.engine.source import load_source
    from workbench.engine.transforms import prepare
    from workbench.engine.values import evaluate_values
    from workbench.engine.values import run as values_run

    def status(key):
        with open("/proc/self/status") as fh:
            return next(int(r.split()[1]) * 1024 for r in fh if r.startswith(key + ":"))

    mode, name, spec, source = sys.argv[1:5]
    loaded = load_source(source, "values_memory.py")
    prepared = prepare(loaded, name, spec)
    if mode == "values":
        def work():
            assert evaluate_values(loaded, name, spec).error is None
    else:
        args = example_values(prepared.dynamic_specs)
        fn = jax.jit(prepared.fn) if mode == "jitted" else prepared.fn

        def work():
            with jax.disable_jit(mode == "op by op"):
                jax.block_until_ready(fn(*args))
    work()
    gc.collect()
    start = status("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    work()
    kept = mode == "values" and values_run._last.arrays is not None
    print(json.dumps({"peak": status("VmHWM") - start, "kept": kept}))
""")


def peak(mode: str, name: str, spec: str) -> dict:
    """The measured run's peak (bytes above its start) in a fresh Python."""
    done = subprocess.run([sys.executable, "-c", CHILD, mode, name, spec, SOURCE],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16_000_000, help="float32 elements")
    opts = parser.parse_args()
    spec = f"f32[{opts.size}]"
    print(f"{spec}: {opts.size * 4 / MB:.0f} MB an array; peaks above the run's start")
    if opts.size * 4 > KEEP_BYTES:
        print(f"past KEEP_BYTES ({KEEP_BYTES // MB} MB): values makes the argument in its run")
    header = (f"{'function':<40} {'op by op':>9} {'jitted':>9} {'values':>9} "
              f"{'ratio':>6} {'target':>9} {'ok':>3}")
    print(header)
    print("-" * len(header))
    met = 0
    for name, title, carries in FUNCTIONS:
        eager = peak("op by op", name, spec)["peak"]
        jitted = peak("jitted", name, spec)["peak"]
        values = peak("values", name, spec)
        target = eager + carries * opts.size * 4 + MARGIN
        ok = values["peak"] <= target
        met += ok
        kept = " (kept)" if values["kept"] else ""
        print(f"{title:<40} {eager / MB:>6.0f} MB {jitted / MB:>6.0f} MB "
              f"{values['peak'] / MB:>6.0f} MB {values['peak'] / eager:>6.2f} "
              f"{target / MB:>6.0f} MB {'yes' if ok else 'NO':>3}{kept}")
    print(f"within target: {met} of {len(FUNCTIONS)}")
    return 0 if met == len(FUNCTIONS) else 1


if __name__ == "__main__":
    sys.exit(main())
