"""The closed jaxpr as a plain-data tree: equations, variables, source lines, sub-jaxprs.

Variable names are the printer's own: the text is printed with JAX's naming
context and the tree reads names from that same context, so ``b`` in the tree
is ``b`` in the text, inside sub-jaxprs too (JAX renames inner variables to
match the outer ones it binds). The printer and the context are private to JAX:
this module reaches them only through ``jax_internals``. Sub-jaxprs are found
with ``jax.extend.core.jaxprs_in_params``, never from a list of primitive names,
and inside a param that is itself a primitive (a ``jax_remat3`` checkpoint).

Lines: an equation takes the innermost editor frame of its traceback; one with
none takes the ``def`` line of the editor function it wraps whole (the ``jit``
of an ``@jax.jit`` function); otherwise it has no line (JAX made it, as the
basis of a Jacobian), except inside a library helper's cached jaxpr, whose
equations all take the line of the call.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.api.jaxpr import Eqn, JaxprNode, JaxprStats, SubJaxpr, Var
from workbench.engine.jax_internals import (
    hidden_params,
    literal_text,
    print_jaxpr,
    shared_jaxpr_name,
    short_type,
    traced_name,
    var_name,
    visible_jit_params,
)
from workbench.engine.source_info import defined_in, editor_location, wrapped_def

PARAM_MAX_CHARS = 80
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_SPACE = re.compile(r"\s+")
_NOWHERE: tuple[str | None, int | None] = (None, None)
_PLAIN = (str, int, float, bool)


@dataclass(frozen=True)
class JaxprDescription:
    text: str
    tree: JaxprNode
    stats: JaxprStats


def describe(closed: Any, filename: str) -> JaxprDescription:
    """Text, tree and stats of a ClosedJaxpr, in one pass over its equations.

    ``filename`` is the editor's file name as the source was compiled; lines
    come from equations' tracebacks (see ``source_info`` and the module's
    docstring).
    """
    jaxpr = getattr(closed, "jaxpr", closed)
    text, context = print_jaxpr(jaxpr)
    builder = _TreeBuilder(context, filename)
    tree, counts = builder.node(jaxpr, own_lines=True, parent=_NOWHERE)
    ordered = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return JaxprDescription(text, tree, JaxprStats(sum(counts.values()), ordered))


def inner_jaxprs(params: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(label, Jaxpr or ClosedJaxpr) of every sub-jaxpr in an equation's ``params``.

    In the printer's order: params sorted by name, a tuple's items in turn
    (``branches[1]``), a param that is itself a primitive looked inside
    (``_prim.jaxpr``). The tree's ``Eqn.subjaxprs`` and the values' ``EqnValues.subs``
    both come from here, so position ``i`` of one is position ``i`` of the other.
    """
    from jax.extend.core import ClosedJaxpr, Jaxpr, jaxprs_in_params

    found: list[tuple[str, Any]] = []
    direct = next(jaxprs_in_params(dict(params)), None) is not None
    for key in sorted(params):
        value = params[key]
        if type(value) in _PLAIN or value is None:
            continue
        hidden = hidden_params(value)
        if hidden is not None:
            found.extend(inner_jaxprs(hidden, f"{prefix}{key}."))
            continue
        if not direct:
            continue
        items = enumerate(value) if isinstance(value, tuple) else ((None, value),)
        for i, item in items:
            if isinstance(item, (Jaxpr, ClosedJaxpr)):
                found.append((f"{prefix}{key}" if i is None else f"{prefix}{key}[{i}]", item))
    return found


class _TreeBuilder:
    """Walks the jaxpr once; nodes are reused where a jaxpr recurs under the same call line."""

    def __init__(self, context: Any, filename: str):
        from jax.extend.core import ClosedJaxpr, Jaxpr, Literal

        self.context = context
        self.filename = filename
        self.jaxpr_types = (Jaxpr, ClosedJaxpr)
        self.closed_type = ClosedJaxpr
        self.literal_type = Literal
        # Keyed by id: atoms and avals live as long as the jaxpr being walked.
        self.types: dict[int, str] = {}
        self.vars: dict[int, Var] = {}
        self.memo: dict[tuple[int, bool, tuple[str | None, int | None]],
                        tuple[JaxprNode, Counter[str]]] = {}

    def node(self, jaxpr: Any, own_lines: bool,
             parent: tuple[str | None, int | None]) -> tuple[JaxprNode, Counter[str]]:
        """Tree of ``jaxpr``; with ``own_lines`` False every equation takes ``parent``'s line."""
        key = (id(jaxpr), own_lines, parent if not own_lines else _NOWHERE)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        counts: Counter[str] = Counter()
        eqns = []
        for eqn in jaxpr.eqns:
            inner = [(label, j.jaxpr if isinstance(j, self.closed_type) else j)
                     for label, j in inner_jaxprs(eqn.params)]
            where = parent
            if own_lines:
                where = editor_location(eqn.source_info, self.filename)
                if where[1] is None:
                    where = next((w for _, j in inner
                                  if (w := wrapped_def(j, self.filename))[1] is not None),
                                 _NOWHERE)
            subs: tuple[SubJaxpr, ...] = ()
            if inner:
                subs = self._subjaxprs(inner, where, counts)
            prim = eqn.primitive.name
            counts[prim] += 1
            eqns.append(Eqn(
                primitive=prim,
                params=self._params(prim, eqn.params),
                invars=self._vars(eqn.invars),
                outvars=self._vars(eqn.outvars),
                file=where[0],
                line=where[1],
                subjaxprs=subs,
            ))
        node = JaxprNode(
            invars=self._vars(jaxpr.invars),
            constvars=self._vars(jaxpr.constvars),
            outvars=self._vars(jaxpr.outvars),
            eqns=tuple(eqns),
            shared=shared_jaxpr_name(jaxpr, self.context),
        )
        self.memo[key] = (node, counts)
        return node, counts

    def _subjaxprs(self, inner: list[tuple[str, Any]], where: tuple[str | None, int | None],
                   counts: Counter[str]) -> tuple[SubJaxpr, ...]:
        subs = []
        for label, jaxpr in inner:
            # A library helper's jaxpr is cached with the lines of its first call.
            node, inner_counts = self.node(jaxpr, defined_in(jaxpr, self.filename), where)
            counts.update(inner_counts)
            subs.append(SubJaxpr(label, node))
        return tuple(subs)

    def _vars(self, atoms: Any) -> tuple[Var, ...]:
        out = []
        memo = self.vars
        for v in atoms:
            var = memo.get(id(v))
            if var is None:
                aval = v.aval
                t = self.types.get(id(aval))
                if t is None:
                    t = self.types[id(aval)] = short_type(aval)
                if isinstance(v, self.literal_type):
                    var = Var(type=t, literal=literal_text(v, self.context))
                else:
                    var = Var(var_name(v, self.context), t)
                memo[id(v)] = var
            out.append(var)
        return tuple(out)

    def _params(self, primitive: str, params: dict[str, Any]) -> dict[str, str]:
        if primitive in ("jit", "pjit"):
            params = visible_jit_params(params)
        return {k: self._param_text(params[k]) for k in sorted(params) if params[k] is not None}

    def _param_text(self, value: Any) -> str:
        """One line, whatever the value prints as: the tree shows one equation per line."""
        if isinstance(value, self.jaxpr_types):
            return self._jaxpr_summary(value)
        hidden = hidden_params(value)
        if hidden is not None:
            inside = ", ".join(f"{k}={self._param_text(hidden[k])}" for k in sorted(hidden))
            return f"{type(value).__name__}[{inside}]"
        if isinstance(value, tuple) and value and all(
                isinstance(v, self.jaxpr_types) for v in value):
            return "(" + ", ".join(self._jaxpr_summary(v) for v in value) + ")"
        if type(value) in _PLAIN:
            text = str(value)
        else:
            name = traced_name(value) or getattr(value, "__name__", None)
            text = name if isinstance(name, str) else _ADDRESS.sub("", str(value))
        text = _SPACE.sub(" ", text).strip()
        if len(text) > PARAM_MAX_CHARS:
            text = text[: PARAM_MAX_CHARS - 1] + "\u2026"
        return text

    def _jaxpr_summary(self, value: Any) -> str:
        inner = value.jaxpr if isinstance(value, self.closed_type) else value
        n = len(inner.eqns)
        body = f"{{ {n} eqn{'' if n == 1 else 's'} }}"
        name = shared_jaxpr_name(inner, self.context)
        return f"{name} {body}" if name else body


def node_to_json(node: JaxprNode) -> dict[str, Any]:
    """NODE of the issue's JSON shape (plus ``shared``), expanded at every use."""
    out: dict[str, Any] = {
        "invars": [v.to_json() for v in node.invars],
        "constvars": [v.to_json() for v in node.constvars],
        "outvars": [v.to_json() for v in node.outvars],
        "eqns": [eqn_to_json(e) for e in node.eqns],
    }
    if node.shared:
        out["shared"] = node.shared
    return out


def eqn_to_json(eqn: Eqn) -> dict[str, Any]:
    return {
        "primitive": eqn.primitive,
        "params": dict(eqn.params),
        "invars": [v.to_json() for v in eqn.invars],
        "outvars": [v.to_json() for v in eqn.outvars],
        "file": eqn.file,
        "line": eqn.line,
        "subjaxprs": [{"param": s.param, "jaxpr": node_to_json(s.jaxpr)} for s in eqn.subjaxprs],
    }


def format_node(node: JaxprNode, indent: int = 0, label: str = "") -> list[str]:
    """Indented lines, ``L3    b:f32[5] = mul a 2.0:f32[]``; sub-jaxprs under their equation."""
    pad = "  " * indent
    consts = " ".join(f"{v}:{v.type}" for v in node.constvars)
    invars = " ".join(f"{v}:{v.type}" for v in node.invars)
    shared = f"{node.shared}: " if node.shared else ""
    lines = [f"{pad}{label}{shared}{{ lambda {consts}{' ' if consts else ''}; {invars}. let"]
    for eqn in node.eqns:
        where = f"L{eqn.line}" if eqn.line is not None else "-"
        lhs = " ".join(f"{v}:{v.type}" for v in eqn.outvars)
        inner = {s.param.split("[")[0] for s in eqn.subjaxprs}
        params = " ".join(f"{k}={v}" for k, v in eqn.params.items() if k not in inner)
        rhs = eqn.primitive + (f"[{params}]" if params else "")
        args = " ".join(str(v) for v in eqn.invars)
        eq = f"{lhs} = {rhs}" if lhs else rhs
        lines.append(f"{pad}  {where:<5} {eq} {args}".rstrip())
        for sub in eqn.subjaxprs:
            lines.extend(format_node(sub.jaxpr, indent + 4, label=f"{sub.param} = "))
    outs = " ".join(str(v) for v in node.outvars)
    lines.append(f"{pad}  in ({outs}) }}")
    return lines
