"""A traced function as plain data: the jaxpr text, its tree of equations, its stats; and
the function lowered to StableHLO/HLO, with XLA's cost and memory estimates.

Variable names in the tree are the printer's own, so ``b`` in the tree is ``b``
in the text; every equation names its editor line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.api.choices import Transform
from workbench.api.printed import Printed


@dataclass(frozen=True)
class Var:
    """A variable (``name``) or a literal constant (``literal``), with its type as printed."""

    name: str | None = None
    type: str = ""
    literal: str | None = None

    def to_json(self) -> dict[str, str]:
        if self.literal is not None:
            return {"literal": self.literal, "type": self.type}
        return {"name": self.name or "", "type": self.type}

    def __str__(self) -> str:
        return f"{self.literal}:{self.type}" if self.literal is not None else f"{self.name}"


@dataclass(frozen=True)
class SubJaxpr:
    """A jaxpr held in an equation parameter; ``param`` is e.g. ``branches[1]``."""

    param: str
    jaxpr: JaxprNode


@dataclass(frozen=True)
class Eqn:
    primitive: str
    params: dict[str, str]
    invars: tuple[Var, ...]
    outvars: tuple[Var, ...]
    file: str | None
    line: int | None
    subjaxprs: tuple[SubJaxpr, ...] = ()


@dataclass(frozen=True)
class JaxprNode:
    """One jaxpr; ``shared`` is the name the text gives it when it is printed once as ``let``."""

    invars: tuple[Var, ...]
    constvars: tuple[Var, ...]
    outvars: tuple[Var, ...]
    eqns: tuple[Eqn, ...]
    shared: str | None = None


@dataclass(frozen=True)
class JaxprStats:
    """Equations at every depth (a shared sub-jaxpr counts at each use) and per primitive."""

    eqns: int
    by_primitive: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TraceResult:
    """What ``workbench trace`` shows; ``text`` is exactly ``str()`` of the closed jaxpr.

    ``printed`` is what the user's code printed during this trace (under ``jit``
    only the first trace of a shape runs the Python body; later ones reuse it).
    """

    function: str
    args: tuple[str, ...]
    transforms: tuple[Transform, ...]
    text: str
    stats: JaxprStats
    jaxpr: JaxprNode
    printed: Printed = Printed()


# ---------------------------------------------------------------------- lowered


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
