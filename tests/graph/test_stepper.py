"""Stepping order and position: plain Python, the graph panel's model of a step; the order
of a real ``while_loop`` (cond before body) and the words saying which iteration is shown."""

import pytest

from workbench.graph.model import evaluation_order, run_order
from workbench.graph.stepper import Stepper
from workbench.graph.value_text import iteration_text, loop_phrase

ORDER = [(0,), (1, 0, 0), (1, 0, 1), (1,), (2,)]
LINES = {(0,): 3, (1, 0, 0): 5, (1, 0, 1): 6, (1,): 4, (2,): 5}


def test_next_and_previous_walk_the_order_and_stop_at_both_ends():
    s = Stepper(ORDER)
    assert s.current is None and not s.previous()
    seen = []
    while s.next():
        seen.append(s.current)
    assert seen == ORDER
    assert s.done() == frozenset(ORDER)
    assert s.previous() and s.current == (1,)
    assert s.done() == frozenset(ORDER[:4])


def test_run_to_line_goes_forward_to_the_next_equation_of_that_line():
    s = Stepper(ORDER)
    assert s.run_to_line(5, LINES.get) and s.current == (1, 0, 0)
    assert s.run_to_line(5, LINES.get) and s.current == (2,)
    assert not s.run_to_line(3, LINES.get)  # line 3 ran before this step: no move
    assert s.current == (2,)


def test_follow_keeps_the_equation_when_it_still_runs_else_starts_over():
    s = Stepper(ORDER)
    s.go_to((1, 0, 1))
    s.follow([(0,), (1, 0, 0), (1, 0, 1), (1,)])
    assert s.current == (1, 0, 1) and s.position == 2
    s.follow([(0,), (1,)])
    assert s.current is None and s.position == -1


def test_go_to_refuses_an_equation_that_did_not_run():
    s = Stepper(ORDER)
    assert not s.go_to((1, 1, 0))
    assert s.current is None


# --------------------------------------------------------------------------- a real while loop

COUNTDOWN = """\
def countdown(x):
    def keep_going(state):
        value, steps = state
        return (jnp.max(jnp.abs(value)) > 1.0) & (steps < 50)

    def halve(state):
        value, steps = state
        return value * 0.5, steps + 1

    return lax.while_loop(keep_going, halve, (x * 10.0, 0))
"""


@pytest.fixture(scope="module")
def countdown():
    """The tree and values of a real ``while_loop``, traced and run by the engine."""
    from workbench.engine.source import load_source
    from workbench.engine.trace import trace_function
    from workbench.engine.values import evaluate_values

    loaded = load_source(COUNTDOWN, "countdown.py")
    tree = trace_function(loaded, "countdown", "f32[4]", []).jaxpr
    return tree, evaluate_values(loaded, "countdown", "f32[4]")


def _while(tree):
    (w,) = [e for e, q in enumerate(tree.eqns) if q.primitive == "while"]
    subs = {sub.param.split("_")[0]: s for s, sub in enumerate(tree.eqns[w].subjaxprs)}
    return w, subs["cond"], subs["body"]


def test_a_while_loop_steps_its_cond_before_its_body(countdown):
    tree, values = countdown
    w, cond, body = _while(tree)
    assert [s.param for s in tree.eqns[w].subjaxprs] == ["body_jaxpr", "cond_jaxpr"]
    order = evaluation_order(tree, values.root)
    cond_steps = [k for k, path in enumerate(order) if path[:2] == (w, cond)]
    body_steps = [k for k, path in enumerate(order) if path[:2] == (w, body)]
    assert cond_steps and body_steps
    assert max(cond_steps) < min(body_steps) and max(body_steps) < order.index((w,))
    # Without values (the graph before they arrive) the order is the same.
    assert evaluation_order(tree) == order
    assert run_order(tree.eqns[w]) == [cond, body]


def test_once_the_body_ran_the_cond_is_no_longer_to_come(countdown):
    tree, values = countdown
    w, cond, body = _while(tree)
    s = Stepper(evaluation_order(tree, values.root))
    first_body = next(p for p in s.order if p[:2] == (w, body))
    assert s.go_to(first_body)
    done = s.done()
    cond_eqns = [(w, cond, e) for e in range(len(tree.eqns[w].subjaxprs[cond].jaxpr.eqns))]
    assert cond_eqns and all(p in done for p in cond_eqns)
    assert (w,) not in done  # the loop's own outputs: only once it ended


def test_the_value_view_words_say_which_iteration(countdown):
    tree, values = countdown
    w, cond, body = _while(tree)
    n = values.root.eqns[w].iterations
    assert n is not None and n > 1
    assert iteration_text(tree, values.root, (w, body)) == (
        f"values from the last iteration ({n} of {n}) of the while loop")
    assert iteration_text(tree, values.root, (w, cond)) == (
        f"values from the last test ({n + 1} of {n + 1}) of the while loop's condition, "
        "the one that ended it")
    assert iteration_text(tree, values.root, ()) == ""
    assert loop_phrase("scan", "jaxpr", 2, 10) == "iteration 3 of 10 of the scan"
    assert loop_phrase("while", "body_jaxpr", 0, None) == "iteration 1 of the while loop"
