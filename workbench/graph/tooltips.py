"""The words a graph's tooltips show: what a node is, its values, its error (no Qt).

A variable's tooltip is its name and type, then its range, moments and bad
values; a node's adds its line, its group, the equation's outputs, what ran and
its parameters. Each part is a small function so the view only asks for one text.
"""

from __future__ import annotations

from workbench.api.jaxpr import Eqn, JaxprNode
from workbench.api.values import EqnValues, ValuesResult, ValueSummary, eqn_values_at, fmt_number
from workbench.graph.marks import Marks, top_output, var_summary
from workbench.graph.model import DisplayGraph, GraphNode, PortId

IO_KINDS = ("input", "const", "output", "port")
PARAMS_SHOWN = 6
PARAM_CHARS = 70


def summary_text(name: str, type_text: str, s: ValueSummary | None, ran: bool | None) -> str:
    """The tooltip of a variable: name and type, then its range, moments and bad values."""
    head = f"{name}: {s.type_text if s is not None else type_text}"
    if s is None:
        if ran is None:
            return head
        return head + ("\nno value recorded" if ran else "\nnot computed: this did not run")
    lines = [head]
    if s.min is None:
        lines.append("no finite values" if s.size else "empty")
    else:
        lines.append(f"min {fmt_number(s.min)}  max {fmt_number(s.max)}")
        lines.append(f"mean {fmt_number(s.mean)}  std {fmt_number(s.std)}")
    lines.append(f"NaN {s.nan:,}  Inf {s.inf:,}")
    return "\n".join(lines)


def edge_tooltip(g: DisplayGraph, e: int, tree: JaxprNode | None, values: ValuesResult | None,
                 marks: Marks) -> str:
    """Variable name, type, and with values its min/max/mean/std and NaN/Inf counts."""
    ed = g.edges[e]
    s = var_summary(tree, values, ed.ref)
    ran = None if values is None else not marks.dim[ed.src]
    return summary_text(ed.name, ed.type, s, ran)


def node_tooltip(g: DisplayGraph, i: int, tree: JaxprNode | None, values: ValuesResult | None,
                 marks: Marks) -> str:
    """What a node is, its line, its outputs' summaries, its error or NaN badge."""
    nd = g.nodes[i]
    if nd.kind in IO_KINDS:
        return _io_tooltip(nd, tree, values, None if values is None else not marks.dim[i])
    lines = [nd.label + (f"   (line {nd.line})" if nd.line is not None else "")]
    if nd.group is not None:
        lines.append(_group_line(nd))
    if nd.eqn is not None:
        ev = eqn_values_at(values.root, nd.id) if values is not None and isinstance(
            nd.id, tuple) else None
        lines.extend(_eqn_lines(nd.eqn, ev))
    if values is not None and marks.dim[i]:
        lines.append("did not run")
    if marks.error[i] and not any(t.startswith("error: ") for t in lines):
        lines.append(_error_line(nd, values))
    badge = marks.badges.get(i)
    if badge:
        lines.append(badge)
    return "\n".join(lines)


def _io_tooltip(nd: GraphNode, tree: JaxprNode | None, values: ValuesResult | None,
                ran: bool | None) -> str:
    what = {"input": "input", "const": "constant", "output": "output",
            "port": "enters this chunk" if isinstance(nd.id, PortId) and not nd.id.out
            else "leaves this chunk"}[nd.kind]
    s = var_summary(tree, values, nd.ref)
    if s is None:
        s = top_output(values, nd)
    return f"{what}\n" + summary_text(nd.label, nd.detail, s, ran)


def _group_line(nd: GraphNode) -> str:
    state = "expanded" if nd.expanded else "collapsed"
    return (f"{state} group of {nd.size:,} equations · double-click to "
            f"{'collapse' if nd.expanded else 'expand'}")


def _eqn_lines(eqn: Eqn, ev: EqnValues | None) -> list[str]:
    """The outputs (with their ranges once they ran), what the run did, the parameters."""
    lines = []
    for j, v in enumerate(eqn.outvars):
        s = ev.outs[j] if ev is not None and j < len(ev.outs) else None
        lines.append(f"{v.name}: {v.type}" if s is None
                     else f"{v.name}: {s.type_text}  {s.range_text()}")
    if ev is not None:
        lines.extend(_run_lines(ev))
    shown = [f"{k}={v}" for k, v in eqn.params.items() if "jaxpr" not in k
             and k != "branches"][:PARAMS_SHOWN]
    lines.extend(t if len(t) <= PARAM_CHARS else t[:PARAM_CHARS - 1] + "…" for t in shown)
    return lines


def _run_lines(ev: EqnValues) -> list[str]:
    lines = []
    if ev.taken is not None:
        lines.append(f"branch taken: {ev.taken}")
    if ev.iterations is not None:
        lines.append(f"iterations: {ev.iterations:,}")
    if ev.error is not None:
        lines.append(f"error: {ev.error}")
    return lines


def _error_line(nd: GraphNode, values: ValuesResult | None) -> str:
    err = values.error if values is not None else None
    where = "inside" if nd.group is not None and not nd.expanded else "here"
    text = f"{err.title}: {err.message}" if err is not None else "failed"
    return f"error {where}: {text}"
