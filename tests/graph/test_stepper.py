"""Stepping order and position: plain Python, the graph panel's model of a step."""

from workbench.graph.stepper import Stepper

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
