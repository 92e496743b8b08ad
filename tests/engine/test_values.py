"""evaluate_values / variable_array: every variable's value, computed by JAX, checked against JAX.

Real JAX throughout. The two checks that say the values are right: the top-level
outputs equal calling the function, bit for bit (jitted regions and loops
included), and every plain equation's recorded outputs equal binding that
equation again on its recorded inputs.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core import ClosedJaxpr, Literal

from tests.codec_util import roundtrip
from workbench.api import messages as p
from workbench.api.values import (
    CARRY_TRACE_MAX,
    FULL_ARRAY_MAX,
    HIST_BINS,
    PREVIEW_MAX,
    ArrayValue,
    ValuesResult,
    VarRef,
    eqn_at,
    eqn_values_at,
    node_at,
    steps,
    var_refs,
    var_summary,
)
from workbench.engine.argspec import example_values
from workbench.engine.compile_watch import watch_compiles
from workbench.engine.errors import UsageError
from workbench.engine.jax_internals import bind_equation
from workbench.engine.jaxpr_tree import inner_jaxprs
from workbench.engine.service import Context, Service
from workbench.engine.source import load_source
from workbench.engine.trace import closed_jaxpr, trace_function
from workbench.engine.transforms import prepare
from workbench.engine.values import evaluate_values, summarize, variable_array
from workbench.engine.values import run as values_module
from workbench.examples import bundled_examples

FILENAME = "/lessons/values.py"
SOURCE = """\
def elementwise(x):
    return jnp.sin(x) * 2.0 + jnp.exp(-x)

@jax.jit
def jitted(x, y):
    return jnp.tanh(x @ y).sum(axis=0)

def newton(a):
    target = jnp.abs(a) + 1.0
    def body(state):
        i, x = state
        return i + 1, x - (x * x - target) / (2.0 * x)
    return lax.while_loop(lambda s: s[0] < 20_000, body, (0, target))

@jax.jit
def newton_jitted(a):
    return newton(a)

def count_to(x, n):
    return lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 0.5 + 1.0), (0, x))

def no_iteration(x):
    return lax.while_loop(lambda s: jnp.sum(s[0]) > 1e6, lambda s: (s[0] * 2.0, s[1] + 1), (x, 0))

def nested(xs):
    def scan_body(c, x):
        def wbody(s):
            i, v = s
            v = lax.cond(v > 0, lambda v: v - 1.0, lambda v: v + 0.5, v)
            return i + 1, v
        _, v = lax.while_loop(lambda s: s[0] < 3, wbody, (0, c + x))
        return v, v * 2.0
    return lax.scan(scan_body, 0.0, xs)

def switch3(x, i):
    return lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)

def fori_static(x):
    return lax.fori_loop(0, 5, lambda i, v: v * 1.5 + i, x)

def fori_dynamic(x, n):
    return lax.fori_loop(0, jnp.abs(n) + 3, lambda i, v: v * 1.5 + i, x)

def reversed_scan(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, c), 1.0, xs, reverse=True)

@jax.custom_jvp
def softplus(x):
    return jnp.logaddexp(x, 0.0)

@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return softplus(x), dx * jax.nn.sigmoid(x)

@jax.custom_vjp
def clip_gradient(x):
    return x

def clip_fwd(x):
    return x, None

def clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)

clip_gradient.defvjp(clip_fwd, clip_bwd)

def rules(x):
    y = jax.checkpoint(lambda v: jnp.sin(v) * 2.0)(x)
    return jnp.sum(softplus(clip_gradient(3.0 * y)))

def log_zero(x):
    y = jnp.log(x - x)
    return y * 0.0

def check(v):
    raise ValueError("negative input!")

@jax.jit
def failing(x):
    y = x * 2.0
    z = jax.pure_callback(check, jax.ShapeDtypeStruct(x.shape, x.dtype), y)
    return z + 1.0

def check_step(i):
    if i > 5:
        raise ValueError("too far")
    return i

def loop_fails(x):
    def body(s):
        i, v = s
        j = jax.pure_callback(check_step, jax.ShapeDtypeStruct((), jnp.int32), i)
        return j + 1, v * 2.0
    return lax.while_loop(lambda s: s[0] < 10, body, (0, x))

def odd_carries(x):
    def body(s):
        i, k, v, flag, z, h = s
        k, sub = jax.random.split(k)
        return i + 1, k, v + jax.random.normal(sub, v.shape), ~flag, z * (1 + 1j), h * 1.5
    init = (0, jax.random.key(1), x, True, jnp.complex64(1.0), jnp.bfloat16(1.0))
    return lax.while_loop(lambda s: s[0] < 5, body, init)

def literal_nan(x):
    return x + jnp.nan

def keyed(x):
    k = jax.random.key(0)
    return x + jax.random.normal(k, x.shape)
"""
CALLBACK_LINE = SOURCE.splitlines().index(
    "    z = jax.pure_callback(check, jax.ShapeDtypeStruct(x.shape, x.dtype), y)") + 1


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, FILENAME)


# --------------------------------------------------------------------------- checks


def call(loaded, name, args, transforms=()):
    """What calling the (transformed) function on the example arguments gives, flattened."""
    prepared = prepare(loaded, name, args, transforms)
    out = prepared.fn(*example_values(prepared.dynamic_specs))
    return [np.asarray(jax.random.key_data(x) if jnp.issubdtype(x.dtype, jax.dtypes.prng_key)
                       else x) for x in jax.tree_util.tree_leaves(out)]


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def run(loaded, name, args, transforms=()):
    trace = trace_function(loaded, name, args, transforms)
    result = evaluate_values(loaded, name, args, transforms)
    return trace.jaxpr, result


def check_outputs(loaded, name, args, transforms=()):
    """The recorded top-level outputs are calling the function, bit for bit."""
    tree, result = run(loaded, name, args, transforms)
    assert result.error is None, result.error
    want = call(loaded, name, args, transforms)
    refs = var_refs(tree)
    got = []
    for var, s in zip(tree.outvars, result.outputs, strict=True):
        assert s is not None
        if var.literal is not None or s.dtype.startswith("key"):  # a key has no array to show
            got.append(None)
            continue
        got.append(variable_array(loaded, name, args, transforms, refs[var.name]).data)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if g is not None:
            assert same_bits(g, w.astype(g.dtype)), (g, w)
    return tree, result


def closed_eqn(closed, path):
    jaxpr = closed.jaxpr
    for i in range(0, len(path) - 1, 2):
        sub = inner_jaxprs(jaxpr.eqns[path[i]].params)[path[i + 1]][1]
        jaxpr = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
    return jaxpr.eqns[path[-1]]


def check_equations(loaded, name, args, transforms=()) -> int:
    """Every plain equation that ran: binding it on its recorded inputs gives its recorded
    outputs, bit for bit. Returns how many were checked."""
    tree, result = run(loaded, name, args, transforms)
    closed, _ = closed_jaxpr(loaded, name, args, transforms)
    checked = 0
    for path in steps(tree, result.root):
        eqn = closed_eqn(closed, path)
        if inner_jaxprs(eqn.params):
            continue
        node_path, e = path[:-1], path[-1]
        found = node_at(tree, result.root, node_path)
        assert found is not None
        node, vals = found
        ev = vals.eqns[e]
        if any(s is None or s.dtype.startswith("key") or s.size > FULL_ARRAY_MAX
               for s in ev.outs):
            continue
        refs = var_refs(node, node_path)
        ins = []
        for atom, var in zip(eqn.invars, node.eqns[e].invars, strict=True):
            if isinstance(atom, Literal):
                ins.append(atom.val)
                continue
            s = var_summary(node, vals, var)
            if s is None or s.dtype.startswith("key") or s.size > FULL_ARRAY_MAX:
                break
            ins.append(variable_array(loaded, name, args, transforms, refs[var.name]).data)
        else:
            outs = bind_equation(eqn, ins)
            for j, out in enumerate(outs):
                got = variable_array(loaded, name, args, transforms, VarRef(node_path, e, j))
                want = np.asarray(out)
                if got.dtype == "bfloat16":
                    want = want.astype(np.float32)
                assert same_bits(got.data, want), (path, eqn.primitive, got.data, want)
            checked += 1
    return checked


# --------------------------------------------------------------------------- results


CALLS = [
    ("elementwise", "f32[6]", ()),
    ("elementwise", "f32[4,6]", ("vmap",)),
    ("jitted", "f32[4,3], f32[3,5]", ()),
    ("jitted", "f32[4,3], f32[3,5]", ("jit",)),
    ("newton", "f32[]", ()),
    ("newton_jitted", "f32[]", ()),
    ("nested", "f32[4]", ()),
    ("switch3", "f32[3], i32[]", ()),
    ("fori_static", "f32[]", ()),
    ("fori_dynamic", "f32[], i32[]", ()),
    ("reversed_scan", "f32[6]", ()),
    ("rules", "f32[8]", ()),
    ("rules", "f32[8]", ("grad",)),
    ("rules", "f32[8]", ("grad", "vmap")),
    ("fori_static", "f32[]", ("grad",)),
    ("odd_carries", "f32[3]", ()),
]


@pytest.mark.parametrize(("name", "args", "transforms"), CALLS,
                         ids=[f"{n}-{'-'.join(t) or 'plain'}" for n, _, t in CALLS])
def test_outputs_equal_calling_the_function_bit_for_bit(loaded, name, args, transforms):
    check_outputs(loaded, name, args, transforms)


@pytest.mark.parametrize(("name", "args", "transforms"), [
    ("nested", "f32[4]", ()),
    ("rules", "f32[8]", ("grad",)),
    ("jitted", "f32[4,3], f32[3,5]", ()),
    ("fori_dynamic", "f32[], i32[]", ()),
])
def test_every_plain_equation_equals_binding_it_on_its_inputs(loaded, name, args, transforms):
    assert check_equations(loaded, name, args, transforms) >= 3


def test_summaries_describe_the_array(loaded):
    tree, result = run(loaded, "elementwise", "f32[6]")
    (x,) = example_values(prepare(loaded, "elementwise", "f32[6]").dynamic_specs)
    x = np.asarray(x)
    s = result.root.invars[0]
    assert (s.shape, s.dtype, s.type_text) == ((6,), "float32", "f32[6]")
    assert s.min == float(x.min()) and s.max == float(x.max())
    assert s.mean == pytest.approx(float(x.astype(np.float64).mean()))
    assert s.std == pytest.approx(float(x.astype(np.float64).std()))
    assert s.preview == tuple(float(v) for v in x) and len(s.preview) <= PREVIEW_MAX
    assert len(s.hist) == HIST_BINS and sum(s.hist) == 6
    assert (s.hist_lo, s.hist_hi) == (s.min, s.max)
    assert s.nan == s.inf == 0
    # the output of sin is there too, by name
    sin = next(e for e in tree.eqns if e.primitive == "sin")
    got = var_summary(tree, result.root, sin.outvars[0])
    assert got is not None and got.max == pytest.approx(float(np.sin(x).max()))


def test_summaries_of_every_kind_of_dtype():
    b = summarize(jnp.array([True, False, True]))
    assert b.dtype == "bool" and b.preview == (1.0, 0.0, 1.0) and b.mean == pytest.approx(2 / 3)
    i = summarize(jnp.arange(5, dtype=jnp.int32))
    assert (i.dtype, i.min, i.max, i.nan) == ("int32", 0.0, 4.0, 0)
    c = summarize(jnp.array([3 + 4j, 0j]))
    assert c.dtype == "complex64" and (c.min, c.max) == (0.0, 5.0)  # by magnitude
    bf = summarize(jnp.array([1.5, -2.0], dtype=jnp.bfloat16))
    assert bf.dtype == "bfloat16" and (bf.min, bf.max) == (-2.0, 1.5)
    k = summarize(jax.random.split(jax.random.key(0), 3))
    assert k.dtype == "key<fry>" and k.shape == (3,)
    assert k.min is None and k.preview == () and k.hist == ()
    one = summarize(jnp.float32(2.5))
    assert (one.min, one.max, one.mean, one.std, one.shape) == (2.5, 2.5, 2.5, 0.0, ())
    assert sum(one.hist) == 1 and one.hist_lo < 2.5 < one.hist_hi
    bad = summarize(jnp.array([1.0, jnp.nan, jnp.inf, -jnp.inf, 3.0]))
    assert (bad.nan, bad.inf, bad.min, bad.max, bad.mean) == (1, 2, 1.0, 3.0, 2.0)
    assert sum(bad.hist) == 2
    empty = summarize(jnp.zeros((0, 3)))
    assert empty.shape == (0, 3) and empty.min is None and empty.range_text() == "empty"


def test_large_arrays_are_summarised_on_the_device():
    n = 1_100_000
    host = np.asarray(jax.random.normal(jax.random.key(1), (n,)), dtype=np.float32) * 3 + 1
    host[[5, 70_000]] = np.nan
    host[[9, 10, 11]] = [np.inf, -np.inf, np.inf]
    x = jnp.asarray(host)
    finite = host[np.isfinite(host)].astype(np.float64)
    # On an accelerator an implicit copy to the host would raise here (on the CPU the
    # array is in host memory already); the summary's own compilation shows where it ran.
    with jax.transfer_guard_device_to_host("disallow"), watch_compiles() as log:
        s = summarize(x)
    assert log.count("_device_stats") >= 1, log.names
    assert s.size == n and (s.nan, s.inf) == (2, 3)
    assert s.min == float(finite.min()) and s.max == float(finite.max())
    assert s.mean == pytest.approx(finite.mean(), rel=1e-4)
    assert s.std == pytest.approx(finite.std(), rel=1e-4)
    want, _ = np.histogram(finite, bins=HIST_BINS, range=(s.hist_lo, s.hist_hi))
    assert sum(s.hist) == finite.size
    assert np.abs(np.asarray(s.hist) - want).sum() <= 4  # float32 rounding at bin edges
    assert s.preview[:5] == pytest.approx([float(v) for v in host[:5]], nan_ok=True)
    clean = summarize(jnp.asarray(np.nan_to_num(host, posinf=0.0, neginf=0.0, nan=0.0)))
    assert clean.nan == clean.inf == 0 and sum(clean.hist) == n


def test_a_large_program_runs_without_copying_its_arrays(loaded):
    with jax.transfer_guard_device_to_host("disallow"), watch_compiles() as log:
        result = evaluate_values(loaded, "elementwise", "f32[1100001]")
    assert result.error is None
    assert all(ev is not None and ev.outs[0].size == 1_100_001 for ev in result.root.eqns)
    assert result.outputs[0].mean is not None
    assert log.count("_device_stats") >= 1, log.names  # summarised where the arrays are


# --------------------------------------------------------------------------- control flow


def test_nested_control_flow_iterations_and_taken_branches(loaded):
    tree, result = run(loaded, "nested", "f32[4]")
    (xs,) = example_values(prepare(loaded, "nested", "f32[4]").dynamic_specs)
    # The same program in NumPy float32: the scan's last iteration, its while's last one.
    c = np.float32(0.0)
    for x in np.asarray(xs):
        v = np.float32(c + x)
        for _ in range(3):
            entering = v
            v = np.float32(v - 1.0) if v > 0 else np.float32(v + 0.5)
        c = v
    (scan_path,) = [(e,) for e, q in enumerate(tree.eqns) if q.primitive == "scan"]
    scan = eqn_values_at(result.root, scan_path)
    assert scan.iterations == 4 and scan.subs[0].iteration == 3
    body = eqn_at(tree, scan_path).subjaxprs[0].jaxpr
    (w,) = [e for e, q in enumerate(body.eqns) if q.primitive == "while"]
    loop = eqn_values_at(result.root, (*scan_path, 0, w))
    assert loop.iterations == 3
    labels = [s.param for s in eqn_at(tree, (*scan_path, 0, w)).subjaxprs]
    assert labels == ["body_jaxpr", "cond_jaxpr"]
    assert loop.subs[0].iteration == 2 and loop.subs[1].iteration == 3
    wbody = eqn_at(tree, (*scan_path, 0, w)).subjaxprs[0].jaxpr
    (k,) = [e for e, q in enumerate(wbody.eqns) if q.primitive == "cond"]
    cond_path = (*scan_path, 0, w, 0, k)
    cond = eqn_values_at(result.root, cond_path)
    taken = 1 if entering > 0 else 0  # branches are (false, true)
    assert cond.taken == taken
    assert cond.subs[taken] is not None and cond.subs[1 - taken] is None
    assert cond.outs[0].min == float(v)
    assert result.outputs[0].min == float(c)
    # evaluation order: inside before outside, so the cond comes before its while and scan
    order = list(steps(tree, result.root))
    assert order.index(cond_path) < order.index((*scan_path, 0, w)) < order.index(scan_path)


def test_switch_of_three_runs_the_clamped_branch(loaded):
    tree, result = run(loaded, "switch3", "f32[3], i32[]")
    _, i = example_values(prepare(loaded, "switch3", "f32[3], i32[]").dynamic_specs)
    (c,) = [e for e, q in enumerate(tree.eqns) if q.primitive == "cond"]
    ev = result.root.eqns[c]
    want = min(max(int(i), 0), 2)
    assert ev.taken == want
    assert [s is not None for s in ev.subs] == [b == want for b in range(3)]


def test_fori_loop_both_lowerings(loaded):
    tree, result = run(loaded, "fori_static", "f32[]")
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "scan"]
    assert ev.iterations == 5 and ev.subs[0].iteration == 4
    counter = ev.carry_traces[0]
    assert counter.steps.tolist() == list(range(6)) and counter.values.tolist() == list(range(6))

    tree, result = run(loaded, "fori_dynamic", "f32[], i32[]")
    _, n = example_values(prepare(loaded, "fori_dynamic", "f32[], i32[]").dynamic_specs)
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "while"]
    assert ev.iterations == abs(int(n)) + 3
    assert ev.carry_traces[0].values.tolist() == list(range(ev.iterations + 1))


def test_a_while_loop_that_never_iterates(loaded):
    tree, result = run(loaded, "no_iteration", "f32[3]")
    (w,) = [e for e, q in enumerate(tree.eqns) if q.primitive == "while"]
    ev = result.root.eqns[w]
    assert ev.iterations == 0
    assert ev.subs[0] is None  # no body ran
    assert ev.subs[1] is not None and ev.subs[1].iteration == 0  # the cond ran once
    assert ev.subs[1].eqns[-1].outs[0].max == 0.0  # and said no
    (counter,) = ev.carry_traces  # the vector carry has none
    assert (counter.position, counter.steps.tolist(), counter.values.tolist()) == (1, [0], [0.0])
    with pytest.raises(UsageError, match="did not run"):
        variable_array(loaded, "no_iteration", "f32[3]", (), VarRef((w, 0), 0, 0))


def test_a_newton_iterations_carry_trace_is_thinned_evenly(loaded):
    tree, result = run(loaded, "newton", "f32[]")
    (w,) = [e for e, q in enumerate(tree.eqns) if q.primitive == "while"]
    ev = result.root.eqns[w]
    assert ev.iterations == 20_000 and ev.subs[0].iteration == 19_999
    counter, x = ev.carry_traces
    assert (counter.position, x.position) == (0, 1)
    assert x.stride >= 2 and len(x.steps) <= CARRY_TRACE_MAX
    assert x.steps[-1] == 20_000 and np.all(np.diff(x.steps[:-1]) == x.stride)
    assert x.steps[0] == 0 and x.steps[-2] + x.stride >= 20_000
    assert np.array_equal(counter.values, x.steps.astype(np.float64))
    # The same iteration in NumPy float32, at the recorded iterations.
    (a,) = example_values(prepare(loaded, "newton", "f32[]").dynamic_specs)
    target = np.float32(abs(float(a)) + 1.0)
    v, history = target, []
    for _ in range(20_000):
        history.append(v)
        v = np.float32(v - (v * v - target) / (np.float32(2.0) * v))
    history.append(v)
    np.testing.assert_allclose(x.values, np.asarray(history)[x.steps], rtol=1e-6)
    assert x.values[-1] == pytest.approx(math.sqrt(target), rel=1e-6)
    # the last iteration's body ran on the carry entering iteration 19,999
    body = ev.subs[0]
    assert body.invars[1].min == 19_999
    assert body.invars[2].min == pytest.approx(float(history[19_999]), rel=1e-6)


@pytest.mark.parametrize("n", [1, 1023, 1024, 1025, 2048, 3000])
def test_the_last_iteration_is_the_last_at_any_count(loaded, n):
    """The carry entering the last iteration is replayed from a copy kept every 1,024."""
    tree, result = run(loaded, "count_to", f"f32[], {n}")
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "while"]
    assert ev.iterations == n
    body, cond = ev.subs
    assert body.iteration == n - 1 and cond.iteration == n
    assert body.invars[0].min == n - 1  # the counter entering it
    assert cond.invars[0].min == n
    assert body.eqns[0].outs[0].min == n  # its i + 1 is the loop's output
    assert result.outputs[0].min == n


def test_a_stride_past_the_checkpoints_still_records_every_due_iteration(loaded):
    """25 million iterations: the stride (4,096) outgrows the copies kept every 1,024."""
    n = 25_000_000
    tree, result = run(loaded, "count_to", f"f32[], {n}")
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "while"]
    assert ev.iterations == n and ev.subs[0].invars[0].min == n - 1
    counter = ev.carry_traces[0]
    assert counter.stride > values_module.CHECKPOINT_EVERY
    assert len(counter.steps) <= CARRY_TRACE_MAX and counter.steps[-1] == n
    assert np.all(np.diff(counter.steps[:-1]) == counter.stride)
    assert np.array_equal(counter.values, counter.steps.astype(np.float64))


def test_a_repeated_request_compiles_nothing(loaded):
    evaluate_values(loaded, "newton", "f32[]")
    with watch_compiles() as log:
        again = evaluate_values(loaded, "newton", "f32[]")
    assert log.count() == 0, log.names
    assert again.root.eqns[-1].iterations == 20_000


def test_reversed_scan_shows_its_last_iteration(loaded):
    tree, result = run(loaded, "reversed_scan", "f32[6]")
    (xs,) = example_values(prepare(loaded, "reversed_scan", "f32[6]").dynamic_specs)
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "scan"]
    body = ev.subs[0]
    # reverse: the last iteration reads xs[0]
    assert body.iteration == 5 and body.invars[1].min == float(np.asarray(xs)[0])


def test_custom_rules_and_checkpoint_show_their_insides(loaded):
    tree, result = run(loaded, "rules", "f32[8]")
    seen = {}
    for path in steps(tree, result.root):
        eqn = eqn_at(tree, path)
        if eqn.subjaxprs:
            ev = eqn_values_at(result.root, path)
            seen[eqn.primitive] = [s is not None and all(e is not None for e in s.eqns)
                                   for s in ev.subs]
    assert seen.get("custom_jvp_call") == [True]
    assert seen.get("custom_vjp_call") == [True]
    remat = [k for k in seen if k.startswith(("remat", "checkpoint"))]
    assert remat and all(seen[k] == [True] for k in remat), seen


# --------------------------------------------------------------------------- bad values


def test_the_first_inf_and_nan_are_flagged_where_they_appear(loaded):
    tree, result = run(loaded, "log_zero", "f32[3]")
    prims = [e.primitive for e in tree.eqns]
    log, mul = prims.index("log"), prims.index("mul")
    assert result.first_inf == (log,) and result.first_nan == (mul,)
    assert result.root.eqns[log].new_inf and not result.root.eqns[log].new_nan
    assert result.root.eqns[mul].new_nan and not result.root.eqns[mul].new_inf  # Inf came in
    assert result.root.eqns[mul].outs[0].nan == 3 and result.root.eqns[mul].outs[0].min is None


def test_a_nan_written_in_the_code_is_not_a_new_one(loaded):
    tree, result = run(loaded, "literal_nan", "f32[3]")
    (ev,) = result.root.eqns
    assert ev.outs[0].nan == 3 and not ev.new_nan and result.first_nan is None


def test_a_loop_carries_keys_flags_complex_and_bfloat16(loaded):
    tree, result = run(loaded, "odd_carries", "f32[3]")
    (ev,) = [v for q, v in zip(tree.eqns, result.root.eqns, strict=True) if q.primitive == "while"]
    assert ev.iterations == 5
    # the scalars with real numbers: the counter, the flag, the bfloat16; not the key,
    # the vector or the complex number
    assert [t.position for t in ev.carry_traces] == [0, 3, 5]
    counter, flag, half = ev.carry_traces
    assert flag.values.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert half.values.tolist() == [1.5 ** i for i in range(6)]
    assert result.outputs[1].dtype == "key<fry>" and result.outputs[4].dtype == "complex64"


def test_a_run_time_error_keeps_the_values_up_to_it(loaded):
    tree, result = run(loaded, "failing", "f32[3]")
    assert result.error is not None and result.error_path == (0, 0, 1)
    assert result.error.line == CALLBACK_LINE
    assert "negative input!" in result.error.message
    jit = result.root.eqns[0]
    assert jit.error is not None and "negative input!" in jit.error
    assert jit.outs == (None,) and result.outputs == (None,)
    inner = jit.subs[0]
    assert inner.eqns[0].outs[0] is not None  # y = x * 2.0 ran
    assert inner.eqns[1].error is not None and inner.eqns[1].outs == (None,)
    assert inner.eqns[2] is None  # nothing after it
    assert [s for s in steps(tree, result.root)][-1] == (0,)


def test_a_loop_that_fails_on_a_later_iteration_is_marked(loaded):
    tree, result = run(loaded, "loop_fails", "f32[]")
    (w,) = [e for e, q in enumerate(tree.eqns) if q.primitive == "while"]
    loop_line = SOURCE.splitlines().index(
        "    return lax.while_loop(lambda s: s[0] < 10, body, (0, x))") + 1
    assert result.error_path == (w,) and result.error.line == loop_line
    assert "too far" in result.error.message and "too far" in result.root.eqns[w].error
    assert result.root.eqns[w].outs == (None, None) and result.outputs == (None, None)
    # the first test and iteration, run again to look for the failure there, did not fail
    body, cond = result.root.eqns[w].subs
    assert body.iteration == 0 and cond.iteration == 0
    assert all(ev is not None and ev.error is None for ev in body.eqns)


def test_the_service_answers_a_run_time_error_with_a_result(loaded):
    service = Service()
    service.handle(p.LoadSource(source=SOURCE, filename=FILENAME))
    reply = service.handle(p.Values(name="failing", args="f32[3]"))
    value = p.result_value(reply, ValuesResult)
    assert value is not None and value.error is not None and value.error_path == (0, 0, 1)


def test_stop_between_equations(loaded):
    asked = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(KeyboardInterrupt):
        evaluate_values(loaded, "nested", "f32[4]", should_stop=should_stop)
    assert len(asked) == 3
    service = Service()
    service.handle(p.LoadSource(source=SOURCE, filename=FILENAME))
    reply = service.handle(p.Values(name="nested", args="f32[4]"),
                           Context(should_stop=lambda: True))
    assert isinstance(reply, p.Cancelled)


def test_trace_time_errors_and_bad_input_fail_the_request(loaded):
    service = Service()
    service.handle(p.LoadSource(source=SOURCE + "\ndef bad(x):\n    return x @ x.T[:2]\n",
                                filename=FILENAME))
    assert isinstance(service.handle(p.Values(name="bad", args="f32[3,4]")), p.UserCodeFailure)
    assert isinstance(service.handle(p.Values(name="nope", args="f32[3]")), p.UsageFailure)
    reply = service.handle(p.Values(name="elementwise", args="f32[3"))
    assert isinstance(reply, p.UsageFailure) and reply.field == "args"


# --------------------------------------------------------------------------- one array


def test_variable_array_full_strided_and_refused(loaded):
    tree, result = run(loaded, "elementwise", "f32[2500000]")
    (x,) = example_values(prepare(loaded, "elementwise", "f32[2500000]").dynamic_specs)
    got = variable_array(loaded, "elementwise", "f32[2500000]", (), VarRef((), None, 0))
    assert got.shape == (2_500_000,) and got.dtype == "float32" and got.stride == 3
    assert same_bits(got.data, np.asarray(x)[::3])
    small = variable_array(loaded, "elementwise", "f32[10]", (), VarRef((), 0, 0))
    assert small.stride == 1 and small.data.shape == (10,)
    for ref, words in [(VarRef((0,), 0, 0), "even length"),
                       (VarRef((), 99, 0), "no equation 99"),
                       (VarRef((), 0, 5), "index 5 out of range"),
                       (VarRef((), None, 3), "index 3 out of range"),
                       (VarRef((0, 0), 0, 0), "no sub-jaxpr 0")]:
        with pytest.raises(UsageError, match=words):
            variable_array(loaded, "elementwise", "f32[10]", (), ref)


def test_a_key_has_a_summary_but_no_array(loaded):
    tree, result = run(loaded, "keyed", "f32[3]")
    keys = [(e, q) for e, q in enumerate(tree.eqns) if q.outvars[0].type.startswith("key")]
    assert keys
    e, _ = keys[0]
    assert result.root.eqns[e].outs[0].dtype == "key<fry>"
    with pytest.raises(UsageError, match="no numbers"):
        variable_array(loaded, "keyed", "f32[3]", (), VarRef((), e, 0))
    assert check_outputs(loaded, "keyed", "f32[3]")


def test_past_the_memory_budget_the_array_is_computed_again(loaded, monkeypatch):
    kept = variable_array(loaded, "elementwise", "f32[1000]", (), VarRef((), 1, 0))
    monkeypatch.setattr(values_module, "KEEP_BYTES", 1000)
    evaluate_values(loaded, "elementwise", "f32[1000]")
    assert values_module._last is not None and values_module._last.arrays is None
    again = variable_array(loaded, "elementwise", "f32[1000]", (), VarRef((), 1, 0))
    assert same_bits(again.data, kept.data)


# --------------------------------------------------------------------------- the wire


def same(a, b) -> bool:
    """Equality through dataclasses, tuples and numpy arrays (dtype included)."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(same(getattr(a, f), getattr(b, f))
                                          for f in a.__dataclass_fields__)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(a == b)


def test_values_and_arrays_through_the_codec():
    service = Service()
    service.handle(p.LoadSource(source=SOURCE, filename=FILENAME))
    for name, args in [("newton", "f32[]"), ("log_zero", "f32[3]"), ("failing", "f32[3]")]:
        reply = service.handle(p.Values(name=name, args=args))
        assert isinstance(reply, p.Result) and isinstance(reply.value, ValuesResult)
        back = roundtrip(reply)
        assert same(back, reply)
    reply = service.handle(p.VarArray(name="log_zero", args="f32[3]", ref=VarRef((), 1, 0)))
    assert isinstance(reply, p.Result) and isinstance(reply.value, ArrayValue)
    assert np.isneginf(reply.value.data).all()
    assert same(roundtrip(reply), reply)
    bad = service.handle(p.VarArray(name="log_zero", args="f32[3]", ref=VarRef((), 7, 0)))
    assert isinstance(bad, p.UsageFailure) and "no equation 7" in bad.message


# --------------------------------------------------------------------------- examples


@pytest.mark.parametrize("example", bundled_examples(), ids=lambda ex: ex.name)
def test_every_bundled_example(example):
    loaded = load_source(example.path.read_text(), example.path.name)
    check_outputs(loaded, example.function, example.args, example.transforms)
    assert check_equations(loaded, example.function, example.args, example.transforms) >= 1
