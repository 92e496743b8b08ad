"""Lower a user function to StableHLO, compile it, and read XLA's cost and memory estimates.

Lowering takes milliseconds and compiling tens of milliseconds (docs/architecture.md), so
this sits behind a tab or a debounce, never on every keystroke. Backends differ
in what they report: ``cost_analysis`` may give a dict, a list of dicts or
nothing, and memory sizes may be missing; absent figures are None, never errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workbench.api.choices import HLO_KINDS
from workbench.api.jaxpr import CostEstimate, LoweringResult, MemoryStats
from workbench.engine.argspec import Spec
from workbench.engine.errors import UsageError, UserCodeError, explain
from workbench.engine.source import LoadedSource
from workbench.engine.trace import prepare_cached


def lower_function(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
    hlo: str = "stablehlo",
    cost: bool = False,
) -> LoweringResult:
    """StableHLO text always; compile when ``hlo="compiled"`` or ``cost`` is asked.

    Compiling gives the optimised HLO text, the cost estimate and the memory
    sizes; without it the cost (if asked) comes from the lowered module.
    """
    import jax

    if hlo not in HLO_KINDS:
        raise UsageError(f"unknown HLO kind {hlo!r} (known: {', '.join(HLO_KINDS)})")
    prepared, values = prepare_cached(loaded, name, args, transforms)
    try:
        lowered = jax.jit(prepared.fn).trace(*values).lower()
    except Exception as exc:
        raise UserCodeError(explain(exc, loaded.filename, function=prepared.fn)) from exc
    stablehlo = lowered.as_text()
    if hlo != "compiled" and not cost:
        return LoweringResult(stablehlo, None, None, None)
    # Compile errors (out of memory, unsupported ops) are about the user's program too.
    try:
        compiled = lowered.compile()
    except Exception as exc:
        raise UserCodeError(explain(exc, loaded.filename, function=prepared.fn)) from exc
    estimate = None
    if cost:
        estimate = cost_estimate(_safe(compiled.cost_analysis), "compiled")
        if estimate is None:
            estimate = cost_estimate(_safe(lowered.cost_analysis), "lowered")
    return LoweringResult(
        stablehlo=stablehlo,
        compiled_hlo=compiled.as_text() if hlo == "compiled" else None,
        cost=estimate,
        memory=memory_stats(_safe(compiled.memory_analysis)),
    )


def _safe(call: Any) -> Any:
    """Some backends raise instead of returning nothing; both mean "not available"."""
    try:
        return call()
    except Exception:
        return None


def cost_estimate(raw: Any, source: str = "compiled") -> CostEstimate | None:
    """A CostEstimate from whatever ``cost_analysis`` returned (dict, list of dicts, None)."""
    if isinstance(raw, Sequence) and not isinstance(raw, (str, bytes)):
        raw = raw[0] if raw else None
    if not isinstance(raw, Mapping) or not raw:
        return None

    def number(key: str) -> float | None:
        value = raw.get(key)
        try:
            return None if value is None else float(value)
        except (TypeError, ValueError):
            return None

    found = CostEstimate(number("flops"), number("bytes accessed"), number("transcendentals"),
                         source)
    if found.flops is None and found.bytes_accessed is None and found.transcendentals is None:
        return None
    return found


def memory_stats(raw: Any) -> MemoryStats | None:
    """A MemoryStats from ``memory_analysis()``'s object, or None when there is none."""
    if raw is None:
        return None

    def size(attr: str) -> int | None:
        value = getattr(raw, attr, None)
        return int(value) if isinstance(value, (int, float)) else None

    stats = MemoryStats(
        argument_bytes=size("argument_size_in_bytes"),
        output_bytes=size("output_size_in_bytes"),
        temp_bytes=size("temp_size_in_bytes"),
        generated_code_bytes=size("generated_code_size_in_bytes"),
        alias_bytes=size("alias_size_in_bytes"),
        peak_bytes=size("peak_memory_in_bytes"),
    )
    if all(v is None for v in vars(stats).values()):
        return None
    return stats
