"""`workbench plot`: a function and its derivatives sampled on an interval, as text, JSON or CSV."""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from workbench.api import commands
from workbench.api import messages as m
from workbench.api.commands import add_plot_arguments
from workbench.api.curves import Curves, PointValues
from workbench.cli.common import UserOutput, read_user_file
from workbench.cli.runner import add_engine_options, open_engine
from workbench.engine.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="sample a scalar function and its derivatives (vmap of repeated grad)",
        description="Sample FUNC and its derivatives of order 1..ORDER at POINTS evenly spaced "
        "x in [L, R]. Numeric keyword parameters (selu's alpha) are set with --param.",
    )
    p.add_argument("file", metavar="FILE", help="a Python file, as the editor would hold it")
    add_plot_arguments(p)
    p.add_argument("--check", action="store_true",
                   help="compare each derivative with a central difference")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("-o", "--output", metavar="FILE.png|FILE.svg",
                   help="draw the curves into a PNG or SVG file (headless) instead of printing")
    p.add_argument("--size", default="900x600", metavar="WxH",
                   help="with -o: the image size in pixels (default 900x600)")
    add_engine_options(p)
    p.set_defaults(func=run)


def parse_params(items: list[str]) -> dict[str, float]:
    try:
        return commands.parse_params(items)
    except commands.CommandError as exc:
        raise UsageError(str(exc)) from None


def _finite_or_none(values: np.ndarray) -> list[float | None]:
    return [float(v) if math.isfinite(v) else None for v in values.tolist()]


def _label(order: int) -> str:
    return "f" + "'" * order if order <= 3 else f"f({order})"


def to_dict(curves: Any, checks: tuple = ()) -> dict[str, Any]:
    out: dict[str, Any] = {
        "function": curves.function,
        "wrt": curves.wrt,
        "params": curves.param_values(),
        "x": [float(v) for v in curves.x.tolist()],
        "curves": [{"order": k, "y": _finite_or_none(y)} for k, y in enumerate(curves.values)],
        "nonfinite": [
            {"order": k, "indices": np.flatnonzero(m).tolist()}
            for k, m in enumerate(curves.nonfinite) if m.any()
        ],
    }
    if checks:
        out["check"] = [
            {"order": c.order, "step": c.step, "max_abs_error": _nan_none(c.max_abs_error),
             "max_rel_error": _nan_none(c.max_rel_error), "worst_x": _nan_none(c.worst_x),
             "compared": c.compared}
            for c in checks
        ]
    return out


def _nan_none(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _text(curves: Any, checks: tuple, rows: int = 11) -> str:
    params = ", ".join(f"{p.name}={p.value:g}" for p in curves.params)
    lo, hi = float(curves.x[0]), float(curves.x[-1])
    lines = [
        f"{curves.function}: {len(curves.x)} points of {curves.wrt} in [{lo:g}, {hi:g}], "
        f"order {curves.order}" + (f" ({params})" if params else ""),
    ]
    head = [curves.wrt] + [_label(k) for k in range(curves.order + 1)]
    lines.append("  ".join(f"{h:>12}" for h in head))
    picks = np.unique(np.linspace(0, len(curves.x) - 1, min(rows, len(curves.x))).round()
                      .astype(int))
    for i in picks:
        cells = [curves.x[i]] + [y[i] for y in curves.values]
        lines.append("  ".join(f"{float(c):>12.6g}" for c in cells))
    for k, mask in enumerate(curves.nonfinite):
        if mask.any():
            xs = curves.x[mask]
            lines.append(f"{_label(k)} is not finite at {int(mask.sum())} point(s), "
                         f"first at {curves.wrt}={float(xs[0]):g}")
    for c in checks:
        lines.append(
            f"check {_label(c.order)}: central difference of {_label(c.order - 1)} "
            f"(h<={c.step:.2g}) differs by at most {c.max_abs_error:.3g} "
            f"(relative {c.max_rel_error:.3g} at {curves.wrt}={c.worst_x:g}), "
            f"{c.compared} points")
    return "\n".join(lines)


def _csv(curves: Any) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([curves.wrt] + [f"d{k}" for k in range(curves.order + 1)])
    columns = np.stack([curves.x.astype(np.float64)] + [y.astype(np.float64)
                                                         for y in curves.values], axis=1)
    for row in columns.tolist():
        writer.writerow(["" if not math.isfinite(v) else repr(v) for v in row])


def _image_options(args: argparse.Namespace) -> tuple[str, tuple[int, int]] | None:
    """(suffix, size) of ``-o``, checked before any sampling; None without ``-o``."""
    if args.output is None:
        if args.overlay:
            raise UsageError("--overlay draws into an image: give -o FILE.png or -o FILE.svg")
        return None
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise UsageError(f"-o {args.output}: the file name must end in .png or .svg")
    width, sep, height = args.size.lower().partition("x")
    try:
        size = (int(width), int(height))
        if not sep or min(size) < 50 or max(size) > 10_000:
            raise ValueError
    except ValueError:
        raise UsageError(f"bad --size {args.size!r}: write WIDTHxHEIGHT in pixels, "
                         "e.g. 900x600") from None
    return suffix, size


def write_image(all_curves: list[Any], path: str, size: tuple[int, int]) -> Path:
    """Draw the curves with the GUI's own FunctionPlot, off screen, into PNG or SVG."""
    from workbench.cli.offscreen import qt_app

    _app = qt_app()  # offscreen when there is no display
    from PySide6.QtCore import Qt

    from workbench.plots.export import export_png, export_svg
    from workbench.plots.function_plot import FunctionPlot

    plot = FunctionPlot()
    try:
        # Shown but never on screen: the layout then fills the requested size.
        plot.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        plot.resize(*size)
        plot.show()
        for c in all_curves:
            plot.set_curves(c.function, c.x, dict(enumerate(c.values)),
                            dict(enumerate(c.nonfinite)))
        first = all_curves[0]
        params = ", ".join(f"{cp.name}={cp.value:g}" for cp in first.params)
        plot.plotItem.setTitle(f"{first.function}({params})" if params else None)
        plot.plotItem.setLabel("bottom", first.wrt)
        plot.set_scheme("light")  # a figure for a page or a slide (after the title: it colours it)
        plot.reset_view()
        out = Path(path)
        if out.suffix.lower() == ".svg":
            return export_svg(plot, out)
        return export_png(plot, out, width=size[0])
    finally:
        plot.close()
        plot.deleteLater()


def run(args: argparse.Namespace) -> int:
    image = _image_options(args)
    lo, hi = args.range_
    output = UserOutput()
    params = parse_params(args.param)
    source, filename = read_user_file(args.file)
    with open_engine(args) as engine:
        engine.call(m.LoadSource(source=source, filename=filename), m.Functions, output=output)
        curves = engine.call(
            m.SampleCurves(name=args.function, order=args.order, lo=lo, hi=hi,
                           points=args.points, params=params, wrt=args.wrt,
                           check=args.check and image is None),
            Curves, output=output)
        overlays = [engine.call(m.SampleCurves(name=name, order=args.order, lo=lo, hi=hi,
                                               points=args.points), Curves, output=output)
                    for name in args.overlay]
        point = None if args.at is None else engine.call(
            m.CurvesAt(name=args.function, x=args.at, order=args.order, params=params or None,
                       wrt=args.wrt), PointValues, output=output)
    checks = curves.checks
    if args.format == "json" and image is None:
        at = {} if point is None else {"at": point_dict(point)}
        json.dump({**to_dict(curves, checks), **at, **output.json_fields()}, sys.stdout,
                  allow_nan=False)
        sys.stdout.write("\n")
        return 0
    output.to_stderr()
    if image is not None:
        written = write_image([curves, *overlays], args.output, image[1])
        print(f"wrote {written}")
    elif args.format == "csv":
        _csv(curves)
    else:
        print(_text(curves, checks))
    if point is not None and args.format != "json":
        print(point_text(point), file=sys.stdout if args.format == "text" else sys.stderr)
    return 0


def point_dict(point: PointValues) -> dict[str, Any]:
    return {"x": point.x, "values": [_nan_none(v) for v in point.values],
            "defined": list(point.defined), "differentiable": point.differentiable,
            "note": point.note}


def point_text(point: PointValues) -> str:
    """One line: each derivative at exactly x, "undefined" where it does not exist there."""
    names = [point.function + "'" * k for k in range(len(point.values))]
    cells = [f"{n} = {v:.6g}" if ok else f"{n} undefined (JAX gives {v:.6g})"
             for n, v, ok in zip(names, point.values, point.defined, strict=True)]
    note = f"; {point.note}" if point.note else ""
    return f"at {point.wrt} = {point.x:g}: {', '.join(cells)}{note}"
