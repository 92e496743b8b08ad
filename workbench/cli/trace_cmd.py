"""`workbench trace`: the jaxpr of a function as text, an indented tree, or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from workbench.api import messages as m
from workbench.api.choices import HLO_KINDS, TRANSFORMS
from workbench.api.jaxpr import TraceResult
from workbench.api.lowering import LoweringResult
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
    p.add_argument("function", metavar="FUNC")
    p.add_argument("--args", required=True, metavar="SPEC",
                   help="argument spec, e.g. 'f32[1000]' or '(f32[3], f32[3]), i32[], 3'")
    p.add_argument("--transform", action="append", default=[], metavar="T",
                   help=", ".join(TRANSFORMS))
    p.add_argument("--format", choices=("text", "tree", "json"), default="text")
    p.add_argument("--hlo", choices=HLO_KINDS,
                   help="also print the StableHLO or the compiled HLO")
    p.add_argument("--cost", action="store_true",
                   help="also print XLA's cost and memory estimates")
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
        lowering = None
        if args.hlo or args.cost:
            lowering = engine.call(
                m.Lower(name=args.function, args=args.args, transforms=transforms,
                        hlo=args.hlo or "stablehlo", cost=args.cost),
                LoweringResult, output=output)

    if args.format == "json":
        out = trace_to_json(result)
        if lowering is not None:
            out.update(lowering_to_json(lowering, args.hlo, args.cost))
        out.update(output.json_fields())
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    output.to_stderr()
    print(format_tree(result) if args.format == "tree" else result.text)
    if lowering is not None:
        print(format_lowering(lowering, args.hlo, args.cost))
    return 0


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
