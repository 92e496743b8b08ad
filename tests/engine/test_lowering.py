"""Lowering: StableHLO and compiled HLO text, XLA's cost and memory estimates as plain data."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.engine.errors import UsageError, UserCodeError
from workbench.engine.lowering import (
    CostEstimate,
    LoweringResult,
    cost_estimate,
    lower_function,
    memory_stats,
)
from workbench.engine.source import load_source

SOURCE = """\
def matmul(a, b):
    return jnp.tanh(a @ b)

def bad(x):
    return x @ jnp.ones((3, 5))

def pair(p, n):
    a, b = p
    return (a * b).sum() * n
"""


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, "lower.py")


def test_stablehlo_only_by_default(loaded):
    result = lower_function(loaded, "matmul", "f32[4,8], f32[8,2]")
    assert isinstance(result, LoweringResult)
    assert "stablehlo.dot_general" in result.stablehlo
    assert "tensor<4x8xf32>" in result.stablehlo
    assert (result.compiled_hlo, result.cost, result.memory) == (None, None, None)


def test_compiled_hlo_cost_and_memory(loaded):
    result = lower_function(loaded, "matmul", "f32[4,8], f32[8,2]", hlo="compiled", cost=True)
    assert result.stablehlo and "HloModule" in result.compiled_hlo
    cost = result.cost
    assert cost is not None and cost.label == "XLA estimate"
    for value in (cost.flops, cost.bytes_accessed, cost.transcendentals):
        assert value is None or (isinstance(value, float) and value >= 0)
    if cost.flops is not None:
        assert cost.flops >= 2 * 4 * 8 * 2  # the matmul alone
    memory = result.memory
    assert memory is not None
    for value in dataclasses.astuple(memory):
        assert value is None or (isinstance(value, int) and value >= 0)
    if memory.argument_bytes is not None:
        assert memory.argument_bytes == (4 * 8 + 8 * 2) * 4


def test_transforms_pytrees_and_statics(loaded):
    result = lower_function(loaded, "pair", "(f32[3], f32[3]), 2.0", ["grad"], cost=True)
    assert "func.func public @main" in result.stablehlo
    assert result.compiled_hlo is None and result.cost is not None


def test_errors(loaded):
    with pytest.raises(UserCodeError) as info:
        lower_function(loaded, "bad", "f32[2,4]")
    assert info.value.explanation.line == 5
    with pytest.raises(UsageError):
        lower_function(loaded, "matmul", "f32[4,8], f32[8,2]", hlo="llvm")
    with pytest.raises(UsageError):
        lower_function(loaded, "missing", "f32[2]")


def test_cost_estimate_reads_every_shape_backends_return():
    # jaxlib returns a dict on CPU today, a list of per-device dicts on some versions/backends.
    as_dict = {"flops": 10.0, "bytes accessed": 48.0, "utilization0{}": 1.0}
    assert cost_estimate(as_dict) == CostEstimate(10.0, 48.0, None, "compiled")
    assert cost_estimate([as_dict], "lowered") == CostEstimate(10.0, 48.0, None, "lowered")
    assert cost_estimate(None) is None
    assert cost_estimate([]) is None
    assert cost_estimate({}) is None
    assert cost_estimate({"optimal_seconds": 1.0}) is None
    assert cost_estimate({"flops": "n/a", "transcendentals": 3}) == CostEstimate(
        None, None, 3.0, "compiled")


def test_memory_stats_tolerates_missing_fields():
    assert memory_stats(None) is None
    assert memory_stats(object()) is None

    class Partial:
        argument_size_in_bytes = 64
        temp_size_in_bytes = None

    stats = memory_stats(Partial())
    assert stats is not None and stats.argument_bytes == 64
    assert stats.temp_bytes is None and stats.output_bytes is None
