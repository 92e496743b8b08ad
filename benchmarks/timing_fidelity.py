"""Does `workbench time` report what a bare `timeit` reports? Target ratio 0.9-1.1.

For selu, sigmoid and add on f32[1000000]: the engine's jit steady-state median
per call, beside a bare ``timeit`` of the same jitted function in a separate
plain Python process (no workbench imported), interleaved, 3 rounds; medians
over the rounds and their ratio.

    .venv/bin/python benchmarks/timing_fidelity.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys

SOURCE = '''
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))

def add(x, y):
    return jnp.add(x, y) * jnp.exp(x) - 2.05 + y * 0.56
'''

ARGS = {"selu": "f32[1000000]", "sigmoid": "f32[1000000]", "add": "f32[1000000], f32[1000000]"}

BARE = '''
import statistics, sys, timeit
import jax, jax.numpy as jnp
ns = {"jnp": jnp}
exec(sys.argv[1], ns)
name, nargs = sys.argv[2], int(sys.argv[3])
f = jax.jit(ns[name])
args = [jax.random.normal(jax.random.key(i), (1000000,), jnp.float32) for i in range(nargs)]
f(*args).block_until_ready()
timer = timeit.Timer(lambda: f(*args).block_until_ready())
loops, _ = timer.autorange()
print(statistics.median(timer.repeat(7, loops)) / loops)
'''

ROUNDS = 3


def bare(name: str) -> float:
    nargs = ARGS[name].count("f32")
    out = subprocess.run([sys.executable, "-c", BARE, SOURCE, name, str(nargs)],
                         check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    import jax

    from workbench.engine.source import load_source
    from workbench.engine.timing import TimingConfig, time_function

    loaded = load_source(SOURCE, "fidelity.py")
    config = TimingConfig()  # the CLI's defaults: 0.2 s batches, 7 repeats
    engine: dict[str, list[float]] = {n: [] for n in ARGS}
    plain: dict[str, list[float]] = {n: [] for n in ARGS}
    for _ in range(ROUNDS):
        for name, spec in ARGS.items():
            report = time_function(loaded, name, spec, modes=["jit"],
                                   devices=jax.default_backend(), config=config)
            engine[name].append(report.results[0].stats.median_s)
            plain[name].append(bare(name))
    device = jax.devices()[0]
    print(f"jit steady state per call, f32[1000000], {device.platform}:{device.id} "
          f"({device.device_kind}), median of {ROUNDS} interleaved rounds")
    print("| function | workbench time | bare timeit (own process) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name in ARGS:
        e, b = statistics.median(engine[name]), statistics.median(plain[name])
        print(f"| {name} | {e * 1e6:.1f} us | {b * 1e6:.1f} us | {e / b:.3f} |")
    print("target: ratio 0.9-1.1")


if __name__ == "__main__":
    main()
