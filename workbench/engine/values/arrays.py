"""One variable's whole array (``array_value``) and the check that a ``VarRef`` names one."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.api.values import FULL_ARRAY_MAX, ArrayValue, VarRef
from workbench.engine.errors import UsageError
from workbench.engine.jaxpr_tree import inner_jaxprs
from workbench.engine.values.summaries import dtype_name, has_numbers


def check_ref(closed: Any, ref: VarRef) -> None:
    """A UsageError saying what is wrong with ``ref``, if it names no variable of the jaxpr."""
    from jax.extend.core import ClosedJaxpr

    jaxpr = closed.jaxpr
    node = ref.node
    if len(node) % 2:
        raise UsageError(f"{ref_text(ref)}: a node path has an even length "
                         "(equation, sub-jaxpr pairs)")
    for i in range(0, len(node), 2):
        e, s = node[i], node[i + 1]
        if not 0 <= e < len(jaxpr.eqns):
            raise UsageError(f"{ref_text(ref)}: no equation {e} at {node[:i]} "
                             f"(it has {len(jaxpr.eqns)})")
        inner = inner_jaxprs(jaxpr.eqns[e].params)
        if not 0 <= s < len(inner):
            raise UsageError(f"{ref_text(ref)}: equation {node[:i + 1]} has no sub-jaxpr {s} "
                             f"(it has {len(inner)})")
        sub = inner[s][1]
        jaxpr = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
    if ref.eqn is None:
        atoms = jaxpr.constvars if ref.const else jaxpr.invars
        what = "constvars" if ref.const else "invars"
    else:
        if not 0 <= ref.eqn < len(jaxpr.eqns):
            raise UsageError(f"{ref_text(ref)}: no equation {ref.eqn} "
                             f"(the jaxpr has {len(jaxpr.eqns)})")
        atoms = jaxpr.eqns[ref.eqn].outvars
        what = "outputs"
    if not 0 <= ref.index < len(atoms):
        raise UsageError(f"{ref_text(ref)}: index {ref.index} out of range "
                         f"({len(atoms)} {what})")


def ref_text(ref: VarRef) -> str:
    """``ref`` in words, for an error message."""
    where = f"node {list(ref.node)}"
    if ref.eqn is None:
        return f"{'constvar' if ref.const else 'invar'} {ref.index} of {where}"
    return f"output {ref.index} of equation {ref.eqn} of {where}"


def array_value(ref: VarRef, x: Any) -> ArrayValue:
    """``x`` as the wire's ``ArrayValue``, thinned on the device past ``FULL_ARRAY_MAX``."""
    import jax
    import jax.numpy as jnp

    dtype = x.dtype
    shape = tuple(int(d) for d in np.shape(x))
    name = dtype_name(dtype)
    if dtype == jax.dtypes.float0:
        return ArrayValue(ref, shape, name, np.zeros(shape, dtype=bool))
    if not has_numbers(dtype):
        raise UsageError(f"{ref_text(ref)} is a {name} array: it holds no numbers to show "
                         "(jax.random.key_data gives a key's raw bits)")
    size = math.prod(shape)
    stride = 1
    if size > FULL_ARRAY_MAX:
        stride = -(-size // FULL_ARRAY_MAX)
        data = np.asarray(jnp.ravel(x)[::stride])  # thinned on the device
    else:
        data = np.asarray(x)
    if name == "bfloat16":  # exactly representable; a plot reads float32 without ml_dtypes
        data = data.astype(np.float32)
    return ArrayValue(ref, shape, name, data, stride)
