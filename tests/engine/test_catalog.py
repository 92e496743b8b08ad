"""The error catalog, each case triggered for real through load_source + prepare + JAX.

Every source marks the line where the mistake is with ``# mistake``; the
explanation must point there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from workbench.engine.argspec import example_values
from workbench.engine.errors import Explanation, UserCodeError, catalog_entries, explain
from workbench.engine.source import load_source
from workbench.engine.transforms import prepare

ROOT = Path(__file__).resolve().parents[2]
FILE = "editor.py"
ERRORS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
API = "https://docs.jax.dev/en/latest/_autosummary/"


def mistake_line(source: str) -> int:
    (line,) = [i for i, text in enumerate(source.splitlines(), 1) if "# mistake" in text]
    return line


def trigger(
    source: str, func: str, args: str, transforms=(), *, call: bool = False
) -> Explanation:
    """Load, prepare and trace (or call) ``func``; return the catalog's explanation."""
    loaded = load_source(source, FILE)
    prepared = prepare(loaded, func, args, transforms)
    values = example_values(prepared.dynamic_specs)
    with pytest.raises(Exception) as info:  # noqa: B017 - any user-code error is the point
        if call:
            prepared.fn(*values)
        else:
            jax.make_jaxpr(prepared.fn)(*values)
    return explain(info.value, FILE, function=prepared.fn)


def check(ex: Explanation, kind: str, line: int, doc_url: str | None = None) -> None:
    assert ex.kind == kind, (ex.kind, ex.message)
    assert ex.line == line, (ex.line, ex.traceback)
    assert ex.file == FILE
    assert ex.title.strip() and "\n" not in ex.title
    assert ex.hint.strip()
    assert ex.message.strip()
    if doc_url is not None:
        assert ex.doc_url == doc_url
    for row in ex.traceback.splitlines():
        if row.startswith("  File "):
            assert row.startswith(f'  File "{FILE}"'), ex.traceback


# (id, source, function, args, transforms, call instead of trace, kind, doc url)
CASES = [
    (
        "tracer-bool",
        "def f(x):\n    if x > 0:  # mistake\n        return x\n    return -x\n",
        "f", "f32[]", ["jit"], False, "tracer-bool", ERRORS + "TracerBoolConversionError",
    ),
    (
        "float-of-tracer",
        "def f(x):\n    y = float(x)  # mistake\n    return y\n",
        "f", "f32[]", ["jit"], False, "concretization", ERRORS + "ConcretizationTypeError",
    ),
    (
        "traced-shape",
        "def f(x, n):\n    z = jnp.zeros(n)  # mistake\n    return z + x\n",
        "f", "f32[], i32[]", ["jit"], False, "traced-shape",
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#dynamic-shapes",
    ),
    (
        "range-of-tracer",
        "def f(x, n):\n    s = x\n    for _ in range(n):  # mistake\n        s = s * 2\n"
        "    return s\n",
        "f", "f32[], i32[]", ["jit"], False, "tracer-int", ERRORS + "TracerIntegerConversionError",
    ),
    (
        "numpy-on-tracer",
        "def f(x):\n    return np.sin(x)  # mistake\n",
        "f", "f32[3]", ["jit"], False, "tracer-to-numpy", ERRORS + "TracerArrayConversionError",
    ),
    (
        "boolean-mask",
        "def f(x):\n    pos = x[x > 0]  # mistake\n    return pos.sum()\n",
        "f", "f32[4]", ["jit"], False, "boolean-mask", ERRORS + "NonConcreteBooleanIndexError",
    ),
    (
        "in-place",
        "def f(x):\n    x[0] = 1.0  # mistake\n    return x\n",
        "f", "f32[3]", [], True, "in-place-update",
        API + "jax.numpy.ndarray.at",  # prefix: JAX's own link, reused
    ),
    (
        "grad-non-scalar",
        "def f(x):\n    y = jnp.sin(x)\n    return y * 2  # mistake\n",
        "f", "f32[3]", ["grad"], False, "grad-non-scalar", API + "jax.grad.html",
    ),
    (
        "grad-int-input",
        "def f(n):  # mistake\n    return n * 2.0\n",
        "f", "i32[]", ["grad"], False, "grad-int-input", API + "jax.grad.html",
    ),
    (
        "grad-int-output",
        "def f(x):\n    y = jnp.round(x)\n    return y.astype(jnp.int32)  # mistake\n",
        "f", "f32[]", ["grad"], False, "grad-int-output", API + "jax.grad.html",
    ),
    (
        "dot-shape",
        "def f(a, b):\n    return jnp.dot(a, b)  # mistake\n",
        "f", "f32[3], f32[4]", [], True, "dot-shape", API + "jax.numpy.dot.html",
    ),
    (
        "broadcast-shape",
        "def f(a, b):\n    return a * b  # mistake\n",
        "f", "f32[3], f32[4]", ["jit"], False, "broadcast-shape", None,
    ),
    (
        "list-argument",
        "def f(x):\n    return x + jnp.sum([1.0, 2.0])  # mistake\n",
        "f", "f32[]", [], True, "list-argument", None,
    ),
    (
        "vmap-in-code",
        "def add(a, b):\n    return a + b\n\n"
        "def f(x, y):\n    return jax.vmap(add)(x, y)  # mistake\n",
        "f", "f32[3], f32[4]", [], False, "vmap-axis-size", API + "jax.vmap.html",
    ),
    (
        "vmap-transform",
        "def f(x, y):  # mistake\n    return x + y\n",
        "f", "f32[3], f32[4]", ["vmap"], False, "vmap-axis-size", API + "jax.vmap.html",
    ),
    (
        "cond-branches",
        "def f(x):\n    return lax.cond(x > 0, lambda v: v,  # mistake\n"
        "                    lambda v: jnp.stack([v, v]), x)\n",
        "f", "f32[]", [], False, "cond-branch-types", API + "jax.lax.cond.html",
    ),
    (
        "scan-carry",
        "def f(xs):\n    def step(c, x):\n        return c + x, x\n"
        "    return lax.scan(step, jnp.int32(0), xs)  # mistake\n",
        "f", "f32[3]", [], False, "scan-carry-type", API + "jax.lax.scan.html",
    ),
    (
        "while-carry",
        "def f(x):\n    return lax.while_loop(lambda c: c < 10, lambda c: c + x,  # mistake\n"
        "                          jnp.int32(0))\n",
        "f", "f32[]", [], False, "while-carry-type", API + "jax.lax.while_loop.html",
    ),
    (
        "generic",
        "def f(x):\n    table = {'a': x}\n    return table['b']  # mistake\n",
        "f", "f32[]", ["jit"], False, "exception", None,
    ),
]


# What each case's explanation must name beyond its kind's title: the specifics.
SPECIFICS = {
    "tracer-bool": ["the condition `x > 0` is a traced bool[]", "x: traced f32[]"],
    "float-of-tracer": ["traced value: f32[] in `float(x)`", "depends on the argument x"],
    "traced-shape": ["shape: (traced i32[],) in `jnp.zeros(n)`", "depends on the argument n"],
    "range-of-tracer": ["traced value: i32[] in `range(n)`", "depends on the argument n"],
    "numpy-on-tracer": ["traced value: f32[3] in `np.sin(x)`", "depends on the argument x"],
    "boolean-mask": ["mask: traced bool[4] in `x[x > 0]`", "x: traced f32[4]"],
    "in-place": ["assignment to `x[0]`", "x: f32[3]"],
    "grad-non-scalar": ["output shape: (3,)"],
    "grad-int-input": ["input dtype: i32"],
    "grad-int-output": ["output dtype: i32"],
    "dot-shape": ["contracted axes: (3,) vs (4,)", "a: f32[3], b: f32[4]"],
    "broadcast-shape": ["shapes: (3,) and (4,) (in mul)", "a: traced f32[3], b: traced f32[4]"],
    "list-argument": ["sum() got a Python list as argument 0 in `jnp.sum([1.0, 2.0])`"],
    "vmap-in-code": ["a: size 3 (axis 0 of f32[3])", "b: size 4 (axis 0 of f32[4])"],
    "vmap-transform": ["x: size 3 (axis 0 of f32[3])", "y: size 4 (axis 0 of f32[4])"],
    "cond-branches": ["true_fun returns f32[], false_fun returns f32[2] (shapes differ)"],
    "scan-carry": ["carry c: i32[] in, f32[] out (dtypes differ)"],
    "while-carry": ["carry c: i32[] in, f32[] out (dtypes differ)"],
    "generic": [],  # the fallback has none: its title already quotes the message
}


def check_specifics(ex: Explanation, expected: list[str]) -> None:
    if not expected:
        assert ex.specifics == "", ex.specifics
        return
    for token in expected:
        assert token in ex.specifics, (token, ex.specifics, ex.message)
    assert 1 <= len(ex.specifics.splitlines()) <= 2, ex.specifics


@pytest.mark.parametrize(
    "case,source,func,args,transforms,call,kind,doc_url",
    CASES,
    ids=[c[0] for c in CASES],
)
def test_case_is_explained_at_the_mistake(
    case, source, func, args, transforms, call, kind, doc_url
):
    ex = trigger(source, func, args, transforms, call=call)
    if kind == "in-place-update":
        assert ex.doc_url.startswith(doc_url)
        doc_url = None
    check(ex, kind, mistake_line(source), doc_url)
    check_specifics(ex, SPECIFICS[case])


def test_title_is_one_line_and_message_keeps_jax_text():
    source = CASES[[c[0] for c in CASES].index("cond-branches")][1]
    ex = trigger(source, "f", "f32[]")
    assert "\n" not in ex.title
    assert "\n" in ex.message and "true_fun" in ex.message


def test_generic_title_is_type_and_first_line():
    source = "def f(x):\n    raise ValueError('bad value\\nsecond line')  # mistake\n"
    ex = trigger(source, "f", "f32[]", call=True)
    check(ex, "exception", 2)
    assert ex.title == "ValueError: bad value"
    assert ex.exception_type == "ValueError"
    assert ex.doc_url is None


BRANCHY = "def f(x):\n    if x > 0:  # mistake\n        return x * x\n    return -x\n"


@pytest.mark.parametrize(
    "transforms", [["jit"], ["grad"], ["vmap"], ["grad", "jit"], ["jit", "vmap"], ["jacfwd"]]
)
def test_editor_line_found_under_every_transform(transforms):
    args = "f32[3]" if "vmap" in transforms else "f32[]"
    ex = trigger(BRANCHY, "f", args, transforms)
    check(ex, "tracer-bool", 2, ERRORS + "TracerBoolConversionError")
    assert ex.column == 8  # 1-based column of `x > 0`


@pytest.fixture
def traceback_filtering():
    before = jax.config.jax_traceback_filtering
    yield lambda mode: jax.config.update("jax_traceback_filtering", mode)
    jax.config.update("jax_traceback_filtering", before)


@pytest.mark.parametrize("mode", ["off", "tracebackhide", "remove_frames", "quiet_remove_frames"])
def test_editor_line_found_in_every_traceback_filtering_mode(traceback_filtering, mode):
    traceback_filtering(mode)
    ex = trigger(BRANCHY, "f", "f32[]", ["jit"])
    check(ex, "tracer-bool", 2)
    assert ex.specifics.splitlines() == ["the condition `x > 0` is a traced bool[]",
                                         "x: traced f32[]"]
    # the explanation's traceback holds only editor frames, whatever JAX kept
    assert ex.traceback.count('File "editor.py"') == 1


LEAK = """\
saved = []

def keep(x):
    saved.append(x)
    return x

def use(x):
    return saved[0] + x  # mistake
"""


def test_leaked_tracer():
    loaded = load_source(LEAK, FILE)
    keep = prepare(loaded, "keep", "f32[]", ["jit"])
    keep.fn(*example_values(keep.dynamic_specs))
    use = prepare(loaded, "use", "f32[]")
    with pytest.raises(jax.errors.UnexpectedTracerError) as info:
        use.fn(*example_values(use.dynamic_specs))
    ex = explain(info.value, FILE)
    check(ex, "leaked-tracer", mistake_line(LEAK), ERRORS + "UnexpectedTracerError")
    check_specifics(ex, ["leaked value: f32[], made while tracing keep at editor.py:3",
                         "used again in `saved[0] + x`"])


KEY_REUSE = """\
def f(x):
    key = jax.random.key(0)
    a = jax.random.normal(key)
    b = jax.random.normal(key)  # mistake
    return x + a + b
"""


def test_key_reuse():
    loaded = load_source(KEY_REUSE, FILE)
    prepared = prepare(loaded, "f", "f32[]")
    with jax.debug_key_reuse(True), pytest.raises(jax.errors.KeyReuseError) as info:
        prepared.fn(*example_values(prepared.dynamic_specs))
    ex = explain(info.value, FILE)
    check(ex, "key-reuse", mistake_line(KEY_REUSE), ERRORS + "KeyReuseError")
    check_specifics(ex, ["key used twice: key in `jax.random.normal(key)`"])


# Out of memory, for real: a 4 GiB float32 array in a child process whose address
# space is capped at 1 GiB above what it already uses after JAX started, on CPU.
# XLA's allocator fails cleanly with RESOURCE_EXHAUSTED; nothing is ever touched.
OOM_SCRIPT = r'''
import json, resource
import jax.numpy as jnp
from workbench.engine.errors import explain
from workbench.engine.source import load_source
from workbench.engine.transforms import prepare

SOURCE = "def big(n):\n    y = jnp.ones((n,), jnp.float32)  # mistake\n    return y * 2\n"
loaded = load_source(SOURCE, "editor.py")
prepared = prepare(loaded, "big", str(1 << 30))
jnp.zeros(3).block_until_ready()
with open("/proc/self/status") as f:
    used = next(int(r.split()[1]) * 1024 for r in f if r.startswith("VmSize:"))
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
cap = used + (1 << 30)
if hard != resource.RLIM_INFINITY:
    cap = min(cap, hard)
resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
try:
    prepared.fn().block_until_ready()
    result = None
except Exception as exc:
    result = explain(exc, "editor.py", function=prepared.fn).to_dict()
print("RESULT " + json.dumps(result))
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and RLIMIT_AS")
def test_out_of_memory_in_a_capped_child_process():
    env = {"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", OOM_SCRIPT], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )
    rows = [r for r in done.stdout.splitlines() if r.startswith("RESULT ")]
    assert rows, done.stdout + done.stderr
    data = json.loads(rows[-1][len("RESULT "):])
    assert data is not None, "the capped child allocated 4 GiB without error"
    ex = Explanation(**data)
    assert "RESOURCE_EXHAUSTED" in ex.message
    assert ex.exception_type == "JaxRuntimeError"
    check(ex, "out-of-memory", 2, "https://docs.jax.dev/en/latest/gpu_memory_allocation.html")
    check_specifics(ex, ["tried to allocate 4.0 GiB", "in `jnp.ones((n,), jnp.float32)`"])


@pytest.mark.parametrize(
    "source,kind,title,specifics",
    [
        ("import math\n\nx = undefined_name + 1  # mistake\n", "name", None,
         ["name: undefined_name"]),
        ("def f(x):\n    return x\n\ny = 1 / 0  # mistake\n", "exception",
         "ZeroDivisionError: division by zero", []),
    ],
    ids=["name-error", "zero-division"],
)
def test_load_time_errors_point_at_their_line(source, kind, title, specifics):
    with pytest.raises(UserCodeError) as info:
        load_source(source, FILE)
    ex = info.value.explanation
    check(ex, kind, mistake_line(source))
    check_specifics(ex, specifics)
    if title:
        assert ex.title == title


def test_name_error_names_the_typo_and_the_close_name():
    source = "scaled_q = 2.0\n\ndef f(x):\n    return scaledQ * x  # mistake\n"
    ex = trigger(source, "f", "f32[1000]")
    check(ex, "name", mistake_line(source))
    assert ex.specifics == "name: scaledQ (did you mean scaled_q?)"
    assert ex.message == "name 'scaledQ' is not defined"


def test_error_inside_a_helper_points_at_the_innermost_editor_line():
    source = "def helper(v):\n    return v[v > 0]  # mistake\n\ndef f(x):\n    return helper(x)\n"
    ex = trigger(source, "f", "f32[4]", ["jit"])
    check(ex, "boolean-mask", 2)
    assert ex.traceback.count('File "editor.py"') == 2


def test_syntax_error_line_and_column():
    source = "def f(x):\n    return x +* 2  # mistake\n"
    with pytest.raises(UserCodeError) as info:
        load_source(source, FILE)
    ex = info.value.explanation
    assert ex.kind == "syntax" and ex.line == mistake_line(source)
    assert ex.column == 15  # 1-based: the `*` Python could not read
    assert ex.title and ex.hint
    assert ex.specifics == "at `*`, column 15"


def test_syntax_error_raised_by_user_code_is_explained_with_its_spot():
    source = "def f(x):\n    return compile('x +* 2', 'inner', 'eval')  # mistake\n"
    ex = trigger(source, "f", "f32[]", call=True)
    check(ex, "syntax", mistake_line(source))
    assert ex.specifics == "at `*`, column 4"


def test_grad_error_without_the_function_still_classified():
    loaded = load_source("def f(x):\n    return x * 2\n", FILE)
    prepared = prepare(loaded, "f", "f32[3]", ["grad"])
    with pytest.raises(TypeError) as info:
        prepared.fn(*example_values(prepared.dynamic_specs))
    ex = explain(info.value, FILE)
    assert ex.kind == "grad-non-scalar" and ex.line is None and ex.file is None


def test_catalog_lists_every_kind_once_and_each_is_triggered_here():
    entries = catalog_entries()
    kinds = [e.kind for e in entries]
    assert len(kinds) == len(set(kinds))
    assert all(e.title and e.hint for e in entries)
    tested = {c[6] for c in CASES} | {
        "leaked-tracer", "key-reuse", "out-of-memory", "name", "syntax", "exception",
        "exit",  # tests/faults/test_requests_answer.py, through a real kernel
        "callback",  # tests/engine/test_catalog.py below, at run time (values)
    }
    assert set(kinds) == tested
    # and each case of the table has its specifics checked
    assert set(SPECIFICS) == {c[0] for c in CASES}


def test_unprintable_user_exception_still_explained():
    source = (
        "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n\n"
        "def f(x):\n    raise Odd()  # mistake\n"
    )
    ex = trigger(source, "f", "f32[]", call=True)
    check(ex, "exception", mistake_line(source))
    assert ex.title.startswith("Odd: ")


# Finding 3: `if`/`while`/`and`/`or` on a traced array of any shape is a tracing problem,
# not NumPy's "use a.any() or a.all()". The engine traces (make_jaxpr) even without jit.
BRANCH_ON_X = "def f(x):\n    if x > 0:  # mistake\n        return x\n    return -x\n"


def check_tracing_hint(ex: Explanation) -> None:
    for fix in ("jnp.where", "lax.cond", "lax.select"):
        assert fix in ex.hint, ex.hint


@pytest.mark.parametrize("transforms", [[], ["jit"]], ids=["traced", "jit"])
@pytest.mark.parametrize(
    "args,condition",
    [
        ("f32[1000]", "the condition `x > 0` is a traced array with more than one element"),
        ("f32[]", "the condition `x > 0` is a traced bool[]"),
    ],
    ids=["f32[1000]", "f32[]"],
)
def test_if_on_a_traced_array_of_any_shape_is_a_tracing_problem(args, condition, transforms):
    ex = trigger(BRANCH_ON_X, "f", args, transforms)
    check(ex, "tracer-bool", 2, ERRORS + "TracerBoolConversionError")
    check_tracing_hint(ex)
    assert ex.specifics.splitlines() == [condition, f"x: traced {args}"]


@pytest.mark.parametrize(
    "source,condition",
    [
        ("def f(x):\n    while x.sum() > 0:  # mistake\n        x = x - 1\n    return x\n",
         "the condition `x.sum() > 0` is a traced bool[]"),
        ("def f(x):\n    return x > 0 and x < 1  # mistake\n",
         "the condition `x > 0 and x < 1` is a traced array with more than one element"),
        ("def f(x):\n    return (x < 1) or (x > 0)  # mistake\n",
         "the condition `(x < 1) or (x > 0)` is a traced array with more than one element"),
    ],
    ids=["while", "and", "or"],
)
def test_while_and_or_on_a_traced_array_are_tracing_problems(source, condition):
    ex = trigger(source, "f", "f32[1000]")
    check(ex, "tracer-bool", mistake_line(source))
    check_tracing_hint(ex)
    assert ex.specifics.splitlines() == [condition, "x: traced f32[1000]"]


def test_if_on_a_concrete_jax_array_is_explained_the_same_way():
    ex = trigger(BRANCH_ON_X, "f", "f32[1000]", call=True)  # eager: a concrete jax.Array
    check(ex, "tracer-bool", 2)
    check_tracing_hint(ex)
    assert ex.specifics.splitlines() == [
        "the condition `x > 0` is an array with more than one element", "x: f32[1000]",
    ]


def test_numpy_truth_value_outside_jax_stays_generic():
    source = "a = np.ones(3)\nif a > 0:  # mistake\n    pass\n"
    with pytest.raises(UserCodeError) as info:
        load_source(source, FILE)
    ex = info.value.explanation
    check(ex, "exception", mistake_line(source))
    assert ex.title.startswith("ValueError: The truth value of an array")


MATMUL = "def f(x):\n    return jnp.ones((3, 4)) @ x  # mistake\n"


def test_matmul_shape_error_names_the_axes_and_the_operand_without_jax_frames(
    traceback_filtering,
):
    # JAX's default outside IPython drops its own frames: the message's axes and the operand
    traceback_filtering("quiet_remove_frames")
    ex = trigger(MATMUL, "f", "f32[1000]")
    check(ex, "dot-shape", 2)
    assert ex.specifics.splitlines() == [
        "contracted axes: (4,) vs (1000,)", "x: traced f32[1000]",
    ]
    assert ex.message.startswith("dot_general requires contracting dimensions")


@pytest.mark.parametrize("mode", ["off", "tracebackhide", "remove_frames"])
def test_matmul_shape_error_names_both_operands_when_jax_keeps_its_frames(
    traceback_filtering, mode
):
    traceback_filtering(mode)  # the kernel runs under IPython: JAX's mode is tracebackhide
    ex = trigger(MATMUL, "f", "f32[1000]")
    check(ex, "dot-shape", 2)
    assert ex.specifics.splitlines() == [
        "shapes: f32[3,4] @ f32[1000]", "contracted axes: (4,) vs (1000,)",
    ]


# Issue 16, finding 5: hints that mislead.
# (a) A literal argument is static for the workbench's trace (bind_static passes the Python
# value), but a function's own @jax.jit traces every argument its decorator does not mark
# static: the hint must say that, not "make the argument static".
F_IF = """\
@jax.jit
def f_if(x):
    if x > 0:  # mistake
        return x
    return -x
"""


def test_own_jit_tracing_a_literal_argument_says_so_and_names_the_decorator():
    ex = trigger(F_IF, "f_if", "3")
    check(ex, "tracer-bool", 3, ERRORS + "TracerBoolConversionError")
    assert ex.specifics.splitlines() == [
        "the condition `x > 0` is a traced bool[]",
        "x: traced i32[]",
        "f_if has its own @jax.jit: it traces x although the argument spec gives x as the "
        "literal 3",
    ]
    assert "make the argument static" not in ex.hint
    assert "f_if's own @jax.jit traces every argument its decorator does not mark static" in (
        ex.hint)
    assert '@functools.partial(jax.jit, static_argnames="x") above def f_if' in ex.hint
    assert "static_argnums=0" in ex.hint
    for fix in ("jnp.where", "lax.cond"):
        assert fix in ex.hint


def test_the_decorator_the_hint_advises_makes_the_literal_trace():
    fixed = F_IF.replace("@jax.jit", '@functools.partial(jax.jit, static_argnames="x")')
    loaded = load_source("import functools\n" + fixed, FILE)
    closed = jax.make_jaxpr(prepare(loaded, "f_if", "3").fn)()
    assert closed.out_avals[0].shape == ()


@pytest.mark.parametrize(
    "source,args,kind,alternative,literal",
    [
        ("@jax.jit\ndef f(x, n):\n    for i in range(n):  # mistake\n        x = x + i\n"
         "    return x\n", "f32[], 3", "tracer-int", "lax.fori_loop", "n as the literal 3"),
        ("@jax.jit\ndef f(n):\n    return jnp.zeros(n)  # mistake\n", "4", "traced-shape",
         ".shape", "n as the literal 4"),
        ("@jax.jit\ndef f(x, s):\n    return x * float(s)  # mistake\n", "f32[], 2.5",
         "concretization", "stay in jnp", "s as the literal 2.5"),
    ],
    ids=["range", "shape", "float"],
)
def test_own_jit_literal_hint_for_every_row_that_advises_a_static_argument(
    source, args, kind, alternative, literal
):
    ex = trigger(source, "f", args)
    check(ex, kind, mistake_line(source))
    assert ex.specifics.splitlines()[-1].endswith(f"gives {literal}")
    assert "own @jax.jit traces every argument" in ex.hint and "static_argnames=" in ex.hint
    assert alternative in ex.hint


def test_own_jit_with_a_traced_argument_points_at_its_decorator():
    ex = trigger(F_IF, "f_if", "f32[]")
    check(ex, "tracer-bool", 3)
    assert ex.specifics.splitlines()[-1] == "f_if has its own @jax.jit, which traces x"
    assert '@functools.partial(jax.jit, static_argnames="x")' in ex.hint
    assert "give it a literal value in the argument spec" in ex.hint


def test_own_jit_of_an_outer_function_names_the_argument_it_traced():
    source = (
        "def helper(v):\n    if v > 0:  # mistake\n        return v\n    return -v\n\n"
        "@jax.jit\ndef outer(x, y):\n    return helper(y) + x\n"
    )
    ex = trigger(source, "outer", "f32[], 2")
    check(ex, "tracer-bool", 2)
    assert ex.specifics.splitlines()[-1] == (
        "outer has its own @jax.jit: it traces y although the argument spec gives y as the "
        "literal 2")
    assert 'static_argnames="y") above def outer (or static_argnums=1)' in ex.hint


def test_without_own_jit_the_hint_stays_the_rows():
    from workbench.engine.errors import TRACER_BOOL_HINT

    ex = trigger(BRANCH_ON_X, "f", "f32[]")
    assert ex.hint == TRACER_BOOL_HINT
    assert len(ex.specifics.splitlines()) == 2


# (b) `and`/`or`/`not` on a traced comparison: jnp.logical_* and jnp.where, read from the AST.
@pytest.mark.parametrize("args", ["f32[]", "f32[3]"], ids=["TracerBool", "truth-value"])
def test_and_in_an_if_names_logical_and_and_where(args):
    source = (
        "def f(x):\n    if x > 0 and x % 2 == 0:  # mistake\n        return x\n    return -x\n"
    )
    ex = trigger(source, "f", args)
    check(ex, "tracer-bool", 2, ERRORS + "TracerBoolConversionError")
    assert "jnp.logical_and(x > 0, x % 2 == 0)" in ex.hint
    assert "`and` and the branch around it" in ex.hint
    for fix in ("jnp.where", "lax.cond", "jnp.logical_or", "jnp.logical_not"):
        assert fix in ex.hint
    assert "make the argument static" not in ex.hint


@pytest.mark.parametrize(
    "line,rewrite",
    [
        ("return not x > 0", "jnp.logical_not(x > 0)"),
        ("return (x < 1) or (x > 0)", "jnp.logical_or(x < 1, x > 0)"),
        ("return jnp.where(x > 0 and x < 1 or x > 3, x, 0)",
         "jnp.logical_or(jnp.logical_and(x > 0, x < 1), x > 3)"),
        ("return x if not (x > 0) else -x", "jnp.logical_not(x > 0)"),
    ],
    ids=["not", "or", "and-or", "not-in-ifexp"],
)
def test_boolean_operators_are_rewritten_with_jnp_logical(line, rewrite):
    source = f"def f(x):\n    {line}  # mistake\n"
    ex = trigger(source, "f", "f32[3]")
    check(ex, "tracer-bool", 2)
    assert rewrite in ex.hint, ex.hint
    assert "jnp.where" in ex.hint and "lax.cond" in ex.hint


def test_a_lone_comparison_in_an_if_is_not_called_and_or():
    source = (  # the same text as an operand elsewhere, in a lambda never called
        "def f(x):\n    unit = lambda x: x > 0 and x < 1\n    if x > 0:  # mistake\n"
        "        return x\n"
    )
    ex = trigger(source, "f", "f32[]")
    check(ex, "tracer-bool", 3)
    assert "logical_" not in ex.hint


def test_cli_trace_prints_the_own_jit_hint(capsys, tmp_path):
    from workbench.cli import main

    path = tmp_path / "f_if.py"
    path.write_text(F_IF)
    assert main(["trace", str(path), "f_if", "--args", "3"]) == 1
    err = capsys.readouterr().err
    assert "f_if has its own @jax.jit: it traces x although the argument spec gives x as the " \
        "literal 3" in err
    assert 'static_argnames="x"' in err and "make the argument static" not in err


def test_a_callback_that_raises_at_run_time_names_its_exception():
    from workbench.engine.source import load_source
    from workbench.engine.values import evaluate_values

    source = (
        "def check(v):\n    raise ValueError('negative input!')\n\n"
        "def f(x):\n"
        "    return jax.pure_callback(check, jax.ShapeDtypeStruct(x.shape, x.dtype), x)"
        "  # mistake\n"
    )
    result = evaluate_values(load_source(source, "editor.py"), "f", "f32[3]")
    ex = result.error
    check(ex, "callback", mistake_line(source))
    assert ex.specifics == "your callback raised ValueError: negative input!"
