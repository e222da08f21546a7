"""The per-kind accounting of the one evaluation loop: what it sums, when an episode ends, what it records."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from benchmarkzoo.evaluation.accounting import ACCOUNTING, KindError, accounting_for
from benchmarkzoo.evaluation.protocol import _episode_record
from benchmarkzoo.evaluation.results import Episode
from benchmarkzoo.evaluation.runner import EpisodeOutcome


def test_the_runner_record_has_the_results_file_fields():
    names = {f.name for f in dataclasses.fields(EpisodeOutcome)}
    assert names == {*Episode.model_fields, "simulator_restarts"}
    outcome = EpisodeOutcome(
        index=3,
        seed=7,
        scenario_seed=100,
        scenario_hash="ab" * 32,
        episode_return=[1.5, -2.0],
        team_return=-0.5,
        length=12,
        success=True,
        metrics={"makespan": 12.0},
        simulator_restarts=2,
    )
    record = _episode_record(outcome)
    assert record.model_dump(by_alias=True) == {
        "index": 3,
        "seed": 7,
        "scenario_seed": 100,
        "scenario_hash": "ab" * 32,
        "return": [1.5, -2.0],
        "team_return": -0.5,
        "length": 12,
        "success": True,
        "metrics": {"makespan": 12.0},
    }


def test_single_agent_episodes_end_on_termination_or_truncation():
    single = accounting_for("single")
    ended = single.ended(np.array([True, False, False]), np.array([False, True, False]), {})
    assert ended.tolist() == [True, True, False]


def test_multi_agent_episodes_end_when_no_agent_is_active():
    parallel = accounting_for("parallel")
    active = np.array([[False, False], [True, False], [False, True]])  # (B, N)
    terminated = np.ones((3, 2), dtype=bool)  # ignored: agents leave one by one
    assert parallel.ended(terminated, terminated, {"active": active}).tolist() == [True, False, False]


def test_single_agent_success_and_metrics_follow_their_masks():
    infos = {
        "is_success": np.array([True, False]),
        "_is_success": np.array([True, False]),
        "steps_to_goal": np.array([4, 9]),
        "_steps_to_goal": np.array([True, True]),
        "final_obs": np.array([0.0, 1.0]),  # Gymnasium's autoreset entries are not metrics
        "_final_obs": np.array([True, True]),
        "position": np.zeros((2, 2)),  # not a scalar
        "_position": np.array([True, True]),
    }
    single = accounting_for("single")
    assert single.end_of_episode(infos, 0) == (True, {"steps_to_goal": 4.0})
    assert single.end_of_episode(infos, 1) == (None, {"steps_to_goal": 9.0})


def test_multi_agent_success_is_the_first_success_metric_reported():
    infos = {
        "active": np.zeros((2, 3), dtype=bool),
        "won": np.array([1, 1]),
        "_won": np.array([True, True]),
        "cooperative_success": np.array([0.0, 0.0]),
        "_cooperative_success": np.array([False, True]),
    }
    parallel = accounting_for("parallel")
    assert parallel.end_of_episode(infos, 0) == (True, {"won": 1.0})  # no cooperative_success: won decides
    assert parallel.end_of_episode(infos, 1) == (False, {"won": 1.0, "cooperative_success": 0.0})


@pytest.mark.parametrize(
    ("kind", "rewards", "world_return", "team_return", "dtype"),
    [
        ("single", np.array([0.5, 1.0], dtype=np.float32), 1.0, None, np.float32),
        ("mo", np.array([[1.0, -1.0], [2.0, -3.0]]), [2.0, -3.0], None, np.float64),
        ("parallel", np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32), [4.0, 5.0, 6.0], 15.0, np.float64),
        ("moma", np.arange(8.0).reshape(2, 2, 2), [[4.0, 5.0], [6.0, 7.0]], None, np.float64),
    ],
)
def test_returns_are_summed_and_recorded_per_kind(kind, rewards, world_return, team_return, dtype):
    accounting = accounting_for(kind)
    returns = accounting.returns("benchmarkzoo/Test-v0", rewards)
    assert returns.shape == rewards.shape and returns.dtype == dtype and not returns.any()
    returns += rewards
    returns += rewards
    recorded, team = accounting.episode_return(returns[1] / 2)
    assert recorded == world_return and team == team_return
    assert type(recorded) is type(world_return)


@pytest.mark.parametrize(
    ("kind", "shape"), [("single", (4, 2)), ("mo", (4,)), ("parallel", (4, 2, 2)), ("moma", (4, 2))]
)
def test_rewards_of_another_kind_are_refused_with_the_shape_expected(kind, shape):
    with pytest.raises(KindError, match=rf"{kind}' env, whose vector form returns rewards of shape \(num_envs"):
        accounting_for(kind).returns("benchmarkzoo/Test-v0", np.zeros(shape))


def test_an_unknown_kind_is_refused():
    with pytest.raises(KindError, match="env kind 'aec'; expected one of"):
        accounting_for("aec")
    assert sorted(ACCOUNTING) == ["mo", "moma", "parallel", "single"]
