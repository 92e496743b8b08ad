"""Every use of JAX that JAX does not promise to keep: private modules, attributes, formats.

The workbench shows the jaxpr as JAX prints it and points each equation at an
editor line; JAX has no public API for either, so this is the one module that
reaches inside. A JAX upgrade that changes one of these breaks one function
here, and ``tests/engine/test_jax_internals.py`` names it. Nothing else in the
workbench imports ``jax._src`` (that test checks it). What is wrapped:

- ``jax._src.core``: ``JaxprPpContext``, ``JaxprPpSettings``, ``_dropvars``,
  ``pp_shared_jaxpr``, ``pp_jaxpr`` and the shared-jaxpr heuristic of
  ``pp_toplevel_jaxpr`` (:func:`print_jaxpr`), and the context's
  ``shared_jaxprs`` map (:func:`shared_jaxpr_name`);
- ``jax._src.pretty_printer``: ``concat`` and ``Doc.format(use_color=False)``,
  colour off whatever ``CAN_USE_COLOR`` says (:func:`print_jaxpr`);
- ``Var.pretty_print(context)`` and ``Literal.pretty_print(context,
  print_dtype=False)`` (:func:`var_name`, :func:`literal_text`);
- ``AbstractValue.str_short(short_dtypes=True)`` (:func:`short_type`);
- the params ``jax._src.pjit._pjit_pp_rule`` hides, ``UnspecifiedValue`` among
  them (:func:`visible_jit_params`);
- ``SourceInfo.traceback``, ``Traceback.raw_frames()`` and
  ``Traceback.code_addr2location`` (:func:`innermost_line`);
- ``DebugInfo.func_src_info``'s ``"name at file:line"`` format
  (:func:`traced_file`, :func:`traced_location`) and ``debug_info.func_name``
  on callable params (:func:`traced_name`);
- ``jax._src.hijax.VJPHiPrimitive`` and its ``params``, where ``jax_remat3``
  keeps a checkpoint's jaxpr out of ``jaxprs_in_params``' sight (:func:`hidden_params`);
- ``ad.primitive_transposes[ad.custom_lin_p]``, ``source_info_util.SourceInfo``
  and the thread-local ``source_info_util._source_info_context``: a
  ``custom_vjp`` backward rule's equations are recorded under the forward
  call's traceback (:func:`rule_frames`);
- the monitoring event ``jax._src.dispatch.BACKEND_COMPILE_EVENT`` and its
  ``fun_name`` keyword (:func:`compiled_function_name`);
- ``Primitive.get_bind_params`` and ``JaxprEqn.ctx.manager``, the way
  ``jax._src.core.eval_jaxpr`` binds one equation (:func:`bind_equation`).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

# What the printer fills in and the tree reads names from: an opaque
# ``jax._src.core.JaxprPpContext``; only the functions below look inside.
PrinterContext = Any

# ``jax._src.dispatch.BACKEND_COMPILE_EVENT``: the event every XLA compilation records.
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


def print_jaxpr(jaxpr: Any) -> tuple[str, PrinterContext]:
    """``str(jaxpr)`` without colour, and the naming context the printer filled in.

    Mirrors ``jax._src.core.pp_toplevel_jaxpr`` with default settings: it builds
    the same context but does not return it, and the tree needs it to name
    variables as the text does. ``Doc.format(use_color=False)`` keeps escape
    codes out even where JAX would colour (a kernel's terminal-like stdout).
    """
    from collections import defaultdict, deque

    from jax._src import core
    from jax._src import pretty_printer as pp

    context = core.JaxprPpContext(core._dropvars(jaxpr))
    settings = core.JaxprPpSettings()
    names: defaultdict[Any, str] = defaultdict(lambda: "jaxpr")
    counts: Counter[Any] = Counter()
    queue = deque([jaxpr])
    while queue:
        j = queue.popleft()
        counts[j] += 1
        if j is not jaxpr and len(j.eqns) > 10:
            counts[j] += 1
        for eqn in j.eqns:
            name = eqn.params.get("name")
            if name is None:
                queue.extend(core.jaxprs_in_params(eqn.params))
                continue
            name = name.strip("<>")
            for sub in core.jaxprs_in_params(eqn.params):
                queue.append(sub)
                names.setdefault(sub, name)
    name_counts: Counter[str] = Counter()
    shared = []
    for j, c in counts.items():
        if c == 1:
            continue
        name = names[j]
        if (n := name_counts[name]) > 0:
            name_counts[name] += 1
            name += str(n)
        name_counts[name] += 1
        context.shared_jaxpr_names.add(name)
        context.shared_jaxprs[j] = name
        shared.append((name, j))
    docs = [core.pp_shared_jaxpr(name, j, context, settings) for name, j in shared]
    docs.append(core.pp_jaxpr(jaxpr, context, settings))
    return pp.concat(docs).format(use_color=False), context


def shared_jaxpr_name(jaxpr: Any, context: PrinterContext) -> str | None:
    """The name the text gives ``jaxpr`` when it is printed once at the top and shared.

    Read from ``JaxprPpContext.shared_jaxprs``, filled in by :func:`print_jaxpr`.
    """
    return context.shared_jaxprs.get(jaxpr)


def var_name(var: Any, context: PrinterContext) -> str:
    """A variable's name in the text (``b``, ``_`` for a dropped output).

    ``Var.pretty_print(context)``: names are handed out as the printer meets
    variables, so only the context that printed the text knows them.
    """
    return var.pretty_print(context)


def literal_text(literal: Any, context: PrinterContext) -> str:
    """A literal as the text shows it, without its dtype (``2.0``).

    ``Literal.pretty_print(context, print_dtype=False)``; the dtype goes in the
    tree's type field instead.
    """
    return literal.pretty_print(context, print_dtype=False)


def short_type(aval: Any) -> str:
    """An abstract value as the text types it (``f32[5]``).

    ``str_short(short_dtypes=True)`` is what the printer calls; the public
    ``str(aval)`` spells dtypes out (``float32[5]``).
    """
    return aval.str_short(short_dtypes=True)


def visible_jit_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The jit params the printer shows: those not at their defaults.

    Mirrors ``jax._src.pjit._pjit_pp_rule``, which hides ``inline`` and any of
    the others left at their defaults (shardings of type ``UnspecifiedValue``,
    no layouts, an empty mesh). It is a private print rule with no public twin.
    """
    hidden = {"inline"}

    def all_are(key: str, test: Any) -> bool:
        return key in params and all(test(v) for v in params[key])

    if all_are("donated_invars", lambda v: not v):
        hidden.add("donated_invars")
    for key in ("in_shardings", "out_shardings"):
        if all_are(key, lambda s: type(s).__name__ == "UnspecifiedValue"):
            hidden.add(key)
    for key in ("in_layouts", "out_layouts"):
        if all_are(key, lambda v: v is None):
            hidden.add(key)
    if not params.get("keep_unused", True):
        hidden.add("keep_unused")
    if getattr(params.get("ctx_mesh"), "empty", False):
        hidden.add("ctx_mesh")
    if not params.get("compiler_options_kvs", True):
        hidden.add("compiler_options_kvs")
    return {k: v for k, v in params.items() if k not in hidden}


def innermost_line(source_info: Any, filename: str) -> int | None:
    """Line of the innermost frame of code compiled under ``filename`` in an equation's traceback.

    JAX keeps the traceback on ``eqn.source_info.traceback`` (a jaxlib
    ``Traceback``); ``raw_frames()`` gives code objects and instruction offsets
    innermost first, and ``code_addr2location`` turns one into a line; only the matching
    frame is resolved. (``source_info_util.summarize`` is private too, and
    resolves every frame.) None when there is no traceback or no such frame.
    """
    traceback = getattr(source_info, "traceback", None)
    if traceback is None:
        return None
    codes, lastis = traceback.raw_frames()
    for i, code in enumerate(codes):
        if code.co_filename == filename:
            return traceback.code_addr2location(code, lastis[i])[0]
    return None


def traced_file(jaxpr: Any) -> str | None:
    """The file of the function that was traced into ``jaxpr``, or None when unknown.

    ``jaxpr.debug_info.func_src_info`` is a string, ``"name at /path/file.py:12"``,
    whose format JAX does not document.
    """
    return traced_location(jaxpr)[0]


def traced_location(traced: Any) -> tuple[str | None, int | None]:
    """(file, first line) of the function traced into ``traced`` (a jaxpr or a rule's thunk).

    The line is the code object's first line: for a decorated function, its
    first decorator. Read from ``debug_info.func_src_info``, ``"name at file:12"``.
    """
    info = getattr(traced, "debug_info", None)
    src = getattr(info, "func_src_info", None)
    if not isinstance(src, str):
        return None, None
    where, _, line = src.partition(" at ")[2].rpartition(":")
    if not where:
        return None, None
    return where, int(line) if line.isdigit() else None


def hidden_params(value: Any) -> Mapping[str, Any] | None:
    """The params inside a param that is itself a primitive (``call_hi_primitive``'s ``_prim``).

    With ``jax_remat3`` a checkpoint is ``call_hi_primitive[_prim=RematTraced[...]]``:
    its jaxpr sits in ``_prim.params``, where ``jaxprs_in_params`` does not look.
    None for any other value.
    """
    from jax._src import hijax

    # Named VJPHiPrimitive up to JAX 0.10; where it is gone, a primitive param with its
    # own params dict is the same thing.
    kind = getattr(hijax, "VJPHiPrimitive", None) or getattr(hijax, "HiPrimitive", None)
    if kind is not None and isinstance(value, kind):
        params = getattr(value, "params", None)
        if isinstance(params, Mapping):
            return params
    return None


_rule_file: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "workbench_rule_file", default=None)
_hook_lock = threading.Lock()
_hook_installed = False


@contextlib.contextmanager
def rule_frames(filename: str) -> Iterator[None]:
    """While tracing, record a ``custom_vjp`` backward rule written in ``filename`` at its lines.

    JAX transposes every equation under the forward equation's traceback
    (``user_context``), so the equations a backward rule makes carry the frames
    of the forward call and none of the rule's own. Inside this block, a
    backward rule defined in ``filename`` runs with the live traceback instead
    (the name stack is kept); rules from other files are left alone, so a
    library's backward pass still points at the user's call.
    """
    _install_custom_lin_hook()
    token = _rule_file.set(filename)
    try:
        yield
    finally:
        _rule_file.reset(token)


def _install_custom_lin_hook() -> None:
    global _hook_installed
    if _hook_installed:
        return
    from jax._src import source_info_util
    from jax._src.interpreters import ad

    with _hook_lock:
        original = ad.primitive_transposes.get(ad.custom_lin_p)
        if original is None or getattr(original, "_workbench_rule_frames", False):
            # None: a JAX (0.11) that transposes custom_lin elsewhere. Backward rules' equations
            # then keep the forward call's frames, as JAX itself gives them.
            _hook_installed = True
            return

        def transpose(*args: Any, bwd: Any, **params: Any) -> Any:
            filename = _rule_file.get()
            if filename is None or traced_location(bwd)[0] != filename:
                return original(*args, bwd=bwd, **params)
            # ``user_context(None)`` keeps the traceback it finds; only clearing
            # the context's own lets ``current()`` take the live stack.
            state = source_info_util._source_info_context
            saved = state.context
            state.context = source_info_util.SourceInfo(None, saved.name_stack)
            try:
                return original(*args, bwd=bwd, **params)
            finally:
                state.context = saved

        transpose._workbench_rule_frames = True  # type: ignore[attr-defined]
        ad.primitive_transposes[ad.custom_lin_p] = transpose
        _hook_installed = True


def traced_name(value: Any) -> str | None:
    """The function name JAX recorded for a callable param (a custom rule's thunk).

    Such params are JAX's private wrappers (``lu.WrappedFun`` and kin) whose
    ``debug_info.func_name`` names the user's function; their ``str`` holds an address.
    """
    info = getattr(value, "debug_info", None)
    name = getattr(info, "func_name", None)
    return name if isinstance(name, str) and name else None


def compiled_function_name(event: str, kwargs: Mapping[str, Any]) -> str | None:
    """The ``jit(name)`` label of a backend compilation, or None for any other event.

    ``jax.monitoring`` is public, but the event name is the private
    ``jax._src.dispatch.BACKEND_COMPILE_EVENT`` and the label comes as the
    undocumented ``fun_name`` keyword.
    """
    if event != BACKEND_COMPILE_EVENT:
        return None
    return str(kwargs.get("fun_name", ""))


def bind_equation(eqn: Any, invals: Sequence[Any]) -> list[Any]:
    """Run one jaxpr equation on concrete inputs, as ``jax.core.eval_jaxpr`` runs each of its own.

    Mirrors the loop body of ``jax._src.core.eval_jaxpr``: the bind params come
    from ``Primitive.get_bind_params`` (a custom rule's jaxpr becomes the callable
    its primitive binds), under the equation's own context (``eqn.ctx.manager``:
    compute type, mesh) and its source traceback, so JAX's own errors name the
    user's line. The outputs as a list, one per outvar.
    """
    from jax.extend import source_info_util

    params = eqn.primitive.get_bind_params(eqn.params)
    name_stack = source_info_util.current_name_stack() + eqn.source_info.name_stack
    with (source_info_util.user_context(eqn.source_info.traceback, name_stack=name_stack),
          eqn.ctx.manager):
        out = eqn.primitive.bind(*invals, **params)
    return list(out) if eqn.primitive.multiple_results else [out]
