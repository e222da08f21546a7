"""core/bounds.py: the arithmetic every env's declared outcome bounds rest on."""

from __future__ import annotations

import math

import numpy as np

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, constructor_kwargs, fixed_length


def test_range_is_closed_with_float32_slack():
    r = Range(-2.0, 1.0)
    assert r.contains(-2.0) and r.contains(1.0) and r.contains(1.0 + 1e-7)
    assert not r.contains(1.0 + 1e-4) and not r.contains(-2.0 - 1e-4)
    assert Range().contains(1e308) and str(Range()) == "[-inf, inf]"
    assert Range(0.0, math.inf).to_json() == [0.0, None]


def test_empty_range_contains_nothing():
    empty = Range(1.0, 0.0)
    assert not empty.contains(0.5) and not empty.contains(1.0) and str(empty) == "[] (empty)"


def test_episode_range_is_length_times_step_plus_once_within_total():
    maze = Objective("return", step=Range(-0.01, -0.01), once=Range(0.0, 1.01))
    assert maze.episode(1) == Range(-0.01, 1.0)
    assert all(
        math.isclose(a, b) for a, b in zip((maze.episode(50).low, maze.episode(50).high), (-0.5, 0.51), strict=True)
    )
    capped = Objective("return", step=Range(0.0, 20.0), total=Range(0.0, 20.0))
    assert capped.episode(100) == Range(0.0, 20.0)
    assert Objective("x", step=Range(1.0, 1.0), total=Range(-5.0, 0.0)).episode(3).contains(0.0) is False
    unbounded = Objective("return", step=Range(), total=Range(-math.inf, 0.0))
    assert unbounded.episode(360) == Range(-math.inf, 0.0) == unbounded.episode(1)


def test_constructor_kwargs_reads_the_defaults_declared_once():
    def env(generator="maze/dfs", step_reward=-0.01, goal_reward=1.0, render_mode=None):
        return None

    assert constructor_kwargs(env, {"goal_reward": 2.0}) == {
        "generator": "maze/dfs",
        "step_reward": -0.01,
        "goal_reward": 2.0,
        "render_mode": None,
    }


def test_fixed_length_rule_and_description():
    rule = fixed_length("never terminates")
    outcome = Outcome(returns=np.zeros((1, 1)), length=99, success=None, metrics={}, max_length=100)
    assert rule.broken(outcome) == "length 99 is not the step limit 100 (never terminates)"
    assert rule.broken(Outcome(np.zeros((1, 1)), 100, None, {}, 100)) is None
    bounds = OutcomeBounds(max_length=100, objectives=(Objective("return", step=Range(-1.0, 1.0)),), rules=(rule,))
    assert bounds.describe()[0] == "length: 1..100 steps"
    assert bounds.to_json()["rules"] == ["every episode lasts the step limit (never terminates)"]
