"""A function lowered to StableHLO/HLO, with XLA's cost and memory estimates."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CostEstimate:
    """XLA's static estimates for one call (not measurements); ``source`` says which stage."""

    flops: float | None
    bytes_accessed: float | None
    transcendentals: float | None
    source: str = "compiled"  # "compiled" (after XLA's passes) or "lowered"
    label: str = "XLA estimate"


@dataclass(frozen=True)
class MemoryStats:
    """Buffer sizes of the compiled executable, in bytes, as XLA reports them."""

    argument_bytes: int | None
    output_bytes: int | None
    temp_bytes: int | None
    generated_code_bytes: int | None
    alias_bytes: int | None = None
    peak_bytes: int | None = None


@dataclass(frozen=True)
class LoweringResult:
    stablehlo: str | None
    compiled_hlo: str | None
    cost: CostEstimate | None
    memory: MemoryStats | None
