"""Primitive families for the dataflow graph's colours, and the graph's colours per scheme.

The family comes from the primitive's name alone (no jax here): a student reads
"blue boxes do arithmetic, green ones move data, purple ones hold a program".
Names JAX adds later fall back by pattern (``reduce_*``, ``cum*``, ``custom_*``,
``dynamic_*``, ``scatter*``) and then to ``other``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Family = Literal["elementwise", "reduction", "control flow", "data movement", "linear algebra",
                 "other"]
FAMILIES: tuple[Family, ...] = ("elementwise", "reduction", "control flow", "data movement",
                                "linear algebra", "other")
# What a node is filled by: its family, or "io" for inputs, outputs and chunk ports.
STYLE_KEYS: tuple[str, ...] = (*FAMILIES, "io")

_CONTROL = frozenset({
    "cond", "while", "scan", "pjit", "jit", "closed_call", "core_call", "remat", "remat2",
    "checkpoint", "xla_call", "xla_pmap", "pmap", "shard_map", "custom_lin", "run_state",
    "for", "switch", "fori_loop", "platform_index",
})
_REDUCTION = frozenset({
    "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "psum",
    "pmax", "pmin", "pmean", "reduce", "top_k", "reduce_and", "reduce_or", "reduce_xor",
})
_LINALG = frozenset({
    "dot_general", "dot", "conv_general_dilated", "conv", "triangular_solve", "cholesky", "lu",
    "qr", "svd", "eigh", "eig", "schur", "hessenberg", "householder_product", "tridiagonal",
    "tridiagonal_solve", "lu_pivots_to_permutation", "ragged_dot", "ragged_dot_general",
    "cholesky_update", "geqrf", "geqp3", "orgqr",
})
_DATA = frozenset({
    "reshape", "broadcast_in_dim", "transpose", "slice", "gather", "concatenate", "pad",
    "squeeze", "expand_dims", "convert_element_type", "select_n", "rev", "copy", "copy_p",
    "device_put", "sort", "split", "bitcast_convert_type", "iota", "reduce_precision",
    "select_and_gather_add", "select_and_scatter_add", "clamp", "broadcast", "tile",
    "sharding_constraint", "mesh_cast", "reshard", "squeeze_p",
})
_ELEMENTWISE = frozenset({
    "add", "sub", "mul", "div", "rem", "neg", "sign", "floor", "ceil", "round", "is_finite",
    "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "sqrt", "rsqrt", "cbrt",
    "pow", "integer_pow", "abs", "max", "min", "square", "reciprocal", "erf", "erfc", "erf_inv",
    "lgamma", "digamma", "igamma", "igammac", "bessel_i0e", "bessel_i1e", "nextafter", "real",
    "imag", "conj", "complex", "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "xor",
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "population_count", "clz",
    "add_any", "mul_add", "stop_gradient", "polygamma", "zeta", "regularized_incomplete_beta",
    "random_gamma_grad", "logaddexp", "select", "integer_pow_p", "exp2_p", "tan_p",
})


def family_of(primitive: str) -> Family:
    """The colour family of a primitive by name, with pattern fallbacks for unknown ones."""
    name = primitive.strip()
    if name in _CONTROL or name.startswith(("custom_", "checkpoint", "remat")):
        return "control flow"
    if name in _LINALG:
        return "linear algebra"
    if name in _REDUCTION or name.startswith(("reduce_", "cum", "arg")):
        return "reduction"
    if name in _DATA or name.startswith(("dynamic_", "scatter", "gather", "broadcast",
                                         "convert_", "reshape", "transpose", "slice")):
        return "data movement"
    if name in _ELEMENTWISE:
        return "elementwise"
    return "other"


# Okabe & Ito, colour-blind safe: palette.OKABE_ITO's hues (not imported: palette loads Qt,
# and the layout needs none).
FAMILY_COLOURS: dict[Family, str] = {
    "elementwise": "#0072B2",      # blue
    "reduction": "#D55E00",        # vermillion
    "control flow": "#CC79A7",     # reddish purple
    "data movement": "#009E73",    # bluish green
    "linear algebra": "#E69F00",   # orange
    "other": "#8C8C8C",            # grey
}


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def mix(a: str, b: str, t: float) -> str:
    """``a`` moved a fraction ``t`` towards ``b`` (``#rrggbb`` strings)."""
    ra, rb = _rgb(a), _rgb(b)
    return "#" + "".join(f"{round((x + (y - x) * t) * 255):02x}" for x, y in zip(ra, rb,
                                                                             strict=True))


@dataclass(frozen=True)
class GraphColours:
    """Every colour the graph draws with in one scheme, as ``#rrggbb``."""

    background: str
    foreground: str
    muted: str           # dimmed text and outlines
    edge: str
    edge_hover: str
    fills: dict[str, str]     # by family, plus "io"
    borders: dict[str, str]
    dim_fill: str
    box_fill: tuple[str, str]  # alternating by depth
    box_border: str
    error_fill: str
    error: str
    selected: str
    current: str
    line_highlight: str
    badge: str
    sparkline: str


def graph_colours(scheme: str) -> GraphColours:
    """Colours for ``"light"`` or ``"dark"``: family hues blended into the background so text
    on every node keeps its contrast."""
    dark = scheme != "light"
    bg = "#1e1e20" if dark else "#ffffff"
    fg = "#dcdcdc" if dark else "#202020"
    fills: dict[str, str] = {}
    borders: dict[str, str] = {}
    for fam, hue in FAMILY_COLOURS.items():
        fills[fam] = mix(hue, bg, 0.62 if dark else 0.78)
        borders[fam] = mix(hue, "#ffffff", 0.15) if dark else hue
    fills["io"] = mix(fg, bg, 0.8)
    borders["io"] = mix(fg, bg, 0.35)
    return GraphColours(
        background=bg,
        foreground=fg,
        muted=mix(fg, bg, 0.55),
        edge=mix(fg, bg, 0.5 if dark else 0.45),
        edge_hover="#56B4E9" if dark else "#0072B2",
        fills=fills,
        borders=borders,
        dim_fill=mix(fg, bg, 0.9),
        box_fill=(mix(fg, bg, 0.96), mix(fg, bg, 0.91)),
        box_border=mix(fg, bg, 0.6),
        error_fill="#5c1f1f" if dark else "#ffd6d6",
        error="#ff6b6b" if dark else "#c81e1e",
        selected="#56B4E9" if dark else "#0060c0",
        current="#E69F00" if dark else "#d55e00",
        line_highlight="#F0E442" if dark else "#e6b800",
        badge="#ff6b6b" if dark else "#c81e1e",
        sparkline=mix(fg, bg, 0.2),
    )
