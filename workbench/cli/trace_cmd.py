"""`workbench trace`: the jaxpr of a function as text, an indented tree, or JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from workbench.api import messages as m
from workbench.api.choices import HLO_KINDS, TRANSFORMS
from workbench.api.commands import add_call_arguments
from workbench.api.jaxpr import JaxprNode, LoweringResult, TraceResult
from workbench.api.values import NodeValues, Path, ValuesResult, annotate_json, fmt_number
from workbench.cli.common import UserOutput, read_user_file
from workbench.cli.runner import add_engine_options, open_engine


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace",
        help="print the jaxpr of FUNC in FILE",
        description="Trace FUNC from FILE with arguments made from --args and print its jaxpr. "
        "--transform may repeat; the first given is applied first "
        "(--transform grad --transform vmap is vmap(grad(f))).",
    )
    p.add_argument("file", metavar="FILE")
    add_call_arguments(p)
    p.add_argument("--format", choices=("text", "tree", "json"), default="text")
    p.add_argument("--hlo", choices=HLO_KINDS,
                   help="also print the StableHLO or the compiled HLO")
    p.add_argument("--cost", action="store_true",
                   help="also print XLA's cost and memory estimates")
    p.add_argument("--values", action="store_true",
                   help="also run FUNC on example arguments made from --args (a fixed random "
                   "key) and show every variable's value: json adds \"value\" (shape, dtype, "
                   "min, max, mean, std, nan, inf, preview, hist) to each variable that ran, "
                   "\"taken\" to a cond, \"iterations\" and \"carry_trace\" to a loop, and a "
                   "top-level \"values\" object (NaN and infinities in previews and traces are "
                   "the strings \"NaN\", \"Infinity\", \"-Infinity\"); text and tree add each "
                   "equation's output shape and range. When FUNC fails while running, the "
                   "values up to the failing equation are printed, the error goes on stderr, "
                   "and the exit status is 1")
    add_engine_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.errors import UsageError
    from workbench.engine.trace import format_tree, trace_to_json

    for t in args.transform:
        if t not in TRANSFORMS:
            raise UsageError(f"unknown transform {t!r} (known: {', '.join(TRANSFORMS)})")
    output = UserOutput()
    source, filename = read_user_file(args.file)
    transforms = tuple(args.transform)
    with open_engine(args) as engine:
        engine.call(m.LoadSource(source=source, filename=filename), m.Functions, output=output)
        result = engine.call(m.Trace(name=args.function, args=args.args, transforms=transforms),
                             TraceResult, output=output)
        values = None
        if args.values:
            values = engine.call(m.Values(name=args.function, args=args.args,
                                          transforms=transforms), ValuesResult, output=output)
        lowering = None
        if args.hlo or args.cost:
            lowering = engine.call(
                m.Lower(name=args.function, args=args.args, transforms=transforms,
                        hlo=args.hlo or "stablehlo", cost=args.cost),
                LoweringResult, output=output)

    if args.format == "json":
        out = trace_to_json(result)
        if values is not None:
            annotate_json(out["jaxpr"], result.jaxpr, values.root)
            out["values"] = values_to_json(values)
        if lowering is not None:
            out.update(lowering_to_json(lowering, args.hlo, args.cost))
        out.update(output.json_fields())
        json.dump(strict_json(out), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return _values_status(values)
    output.to_stderr()
    print(format_tree(result) if args.format == "tree" else result.text)
    if values is not None:
        print(format_values(result.jaxpr, values))
    if lowering is not None:
        print(format_lowering(lowering, args.hlo, args.cost))
    return _values_status(values)


def _values_status(values: ValuesResult | None) -> int:
    """0, or 1 after putting a run-time error on stderr as any user-code error is."""
    if values is None or values.error is None:
        return 0
    from workbench.cli import report_error
    from workbench.engine.errors import UserCodeError

    sys.stdout.flush()
    return report_error(UserCodeError(values.error), "workbench trace")


def values_to_json(values: ValuesResult) -> dict[str, Any]:
    """The top-level ``values`` object: timing, the run-time error, the first NaN and Inf."""
    def path(p: Path | None) -> list[int] | None:
        return list(p) if p is not None else None

    return {
        "seconds": values.seconds,
        "error": values.error.to_dict() if values.error is not None else None,
        "error_path": path(values.error_path),
        "first_nan": path(values.first_nan),
        "first_inf": path(values.first_inf),
    }


def strict_json(obj: Any) -> Any:
    """``obj`` with NaN and infinities as the strings JSON has for them (it has no numbers)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [strict_json(v) for v in obj]
    return obj


def format_values(tree: JaxprNode, values: ValuesResult) -> str:
    """``--values`` as text: each equation that ran with its outputs' shapes and ranges."""
    lines = [f"\n# values on the example arguments ({values.seconds * 1e3:.1f} ms)"]
    lines.extend(_value_lines(tree, values.root, (), values, 0))
    lines.append("outputs:")
    for i, (var, s) in enumerate(zip(tree.outvars, values.outputs, strict=False)):
        text = f"{s.type_text}  {s.range_text()}" if s is not None else "not computed"
        lines.append(f"  {i}  {var}  {text}")
    return "\n".join(lines)


def _value_lines(node: JaxprNode, vals: NodeValues, path: Path, result: ValuesResult,
                 indent: int) -> list[str]:
    pad = "  " * indent
    lines: list[str] = []
    for e, (eqn, ev) in enumerate(zip(node.eqns, vals.eqns, strict=False)):
        where = f"L{eqn.line}" if eqn.line is not None else "-"
        if ev is None:
            lines.append(f"{pad}{where:<6}{eqn.primitive}  (not run)")
            continue
        here = (*path, e)
        notes = []
        if ev.taken is not None:
            notes.append(f"[branch {ev.taken} taken]")
        if ev.iterations is not None:
            notes.append(f"[{ev.iterations:,} iteration{'' if ev.iterations == 1 else 's'}]")
        if ev.new_nan:
            notes.append("<- first NaN" if here == result.first_nan else "(new NaN)")
        if ev.new_inf:
            notes.append("<- first Inf" if here == result.first_inf else "(new Inf)")
        if ev.error is not None:
            notes.append(f"ERROR: {ev.error}")
        outs = [f"{v}:{s.type_text}  {s.range_text()}" if s is not None else f"{v}: -"
                for v, s in zip(eqn.outvars, ev.outs, strict=False)]
        head = f"{pad}{where:<6}{eqn.primitive}"
        tail = ("  " + "  ".join(notes)) if notes else ""
        if len(outs) == 1:
            lines.append(f"{head}  {outs[0]}{tail}")
        else:
            lines.append(f"{head}{tail}")
            lines.extend(f"{pad}        {o}" for o in outs)
        for t in ev.carry_traces:
            first, last = fmt_number(float(t.values[0])), fmt_number(float(t.values[-1]))
            every = f", every {t.stride:,} iterations" if t.stride > 1 else ""
            lines.append(f"{pad}        carry {t.position}: {first} -> {last} "
                         f"({len(t.steps):,} points{every})")
        for s, (sub, sv) in enumerate(zip(eqn.subjaxprs, ev.subs, strict=False)):
            if sv is None:
                continue
            at = f" (iteration {sv.iteration:,})" if sv.iteration is not None else ""
            lines.append(f"{pad}    {sub.param}{at}:")
            lines.extend(_value_lines(sub.jaxpr, sv, (*here, s), result, indent + 3))
    return lines


def _hlo_text(lowering: LoweringResult, which: str | None) -> str | None:
    if which == "compiled":
        return lowering.compiled_hlo
    if which == "stablehlo":
        return lowering.stablehlo
    return None


def lowering_to_json(lowering: LoweringResult, which: str | None, cost: bool) -> dict:
    from dataclasses import asdict

    out: dict = {}
    text = _hlo_text(lowering, which)
    if which:
        out["hlo"] = {"dialect": which, "text": text}
    if cost:
        out["cost"] = asdict(lowering.cost) if lowering.cost is not None else None
        out["memory"] = asdict(lowering.memory) if lowering.memory is not None else None
    return out


def format_lowering(lowering: LoweringResult, which: str | None, cost: bool) -> str:
    from dataclasses import asdict

    parts: list[str] = []
    text = _hlo_text(lowering, which)
    if which:
        parts.append(f"\n# {which} HLO\n{text}")
    if cost:
        parts.append("\n# XLA cost analysis (estimates)")
        if lowering.cost is None:
            parts.append("  not available on this backend")
        else:
            parts.extend(f"  {k}: {_fmt(v)}" for k, v in asdict(lowering.cost).items())
        parts.append("# memory analysis")
        if lowering.memory is None:
            parts.append("  not available on this backend")
        else:
            parts.extend(f"  {k}: {_fmt(v)}" for k, v in asdict(lowering.memory).items())
    return "\n".join(parts)


def _fmt(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:,.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
