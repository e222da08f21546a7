"""Plausibility: every env declares honest outcome bounds, and outcomes outside them are refused.

Honest: real episodes (thousands in the committed submissions, and fresh rollouts of the random
policy and the baseline of every registered env) lie inside their env's bounds. Refused: a
forged value just outside each kind of bound, with a message naming task, episode, value and bound.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarkzoo import registration
from benchmarkzoo.core.bounds import OutcomeBounds, Range
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.protocol import _episode_record
from benchmarkzoo.evaluation.results import Episode, Results, TaskResult, recompute
from benchmarkzoo.evaluation.runner import plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import Task, load_suite, suite_path
from benchmarkzoo.leaderboard.plausibility import check_plausible, episode_problem, task_bounds
from benchmarkzoo.leaderboard.validate import SubmissionError, validate
from benchmarkzoo.scenario_sets import load_set

SUBMISSIONS = sorted((Path(__file__).parents[2] / "leaderboard" / "submissions").glob("*/*.json"))
ENVS = registration.list_envs()
#: Step limits of the rollouts of slow envs (SUMO starts a simulation per episode; PyBullet steps slowly).
SHORT = {"traffic": 8, "robotics": 12}


def _load(name: str) -> Results:
    path = next(p for p in SUBMISSIONS if p.parent.name + "/" + p.name.rsplit("-", 1)[0] == name)
    return Results.model_validate(json.loads(path.read_text()))


def _task(results: Results, task_id: str) -> tuple[Task, registration.EnvSpec, TaskResult]:
    suite = load_suite(suite_path(results.suite))
    task = next(t for t in suite.tasks if t.id == task_id)
    result = next(t for t in results.tasks if t.id == task_id)
    return task, registration.spec(task.env), result


def _refusal(task: Task, spec: registration.EnvSpec, result: TaskResult, index: int, **changes) -> str:
    """The refusal of ``result`` with episode ``index`` changed (the other episodes untouched)."""
    episodes = list(result.episodes)
    episodes[index] = episodes[index].model_copy(update=changes)
    with pytest.raises(SubmissionError) as refused:
        check_plausible(f"task {task.id}", task, spec, result.model_copy(update={"episodes": episodes}))
    return str(refused.value)


# ---- every env declares bounds ------------------------------------------------------------------


@pytest.mark.parametrize("spec", ENVS, ids=[s.id for s in ENVS])
def test_every_env_declares_outcome_bounds(spec):
    assert spec.outcome_bounds is not None, f"{spec.id}: register it with outcome_bounds='module:function'"
    bounds = spec.bounds()
    assert isinstance(bounds, OutcomeBounds)
    assert bounds.max_length == (spec.max_episode_steps or bounds.max_length)
    assert bounds.max_length is not None and bounds.max_length >= 1
    assert bounds.objectives, spec.id
    if spec.kind in ("single", "parallel"):
        assert len(bounds.objectives) == 1
    json.dumps(bounds.to_json())  # shown by `benchmarkzoo info --json`
    assert bounds.describe()[0].startswith("length: 1..")


def test_bounds_follow_the_task_kwargs():
    maze = registration.spec("benchmarkzoo/Maze-v0")
    assert maze.bounds().max_length == 200
    assert maze.bounds({"max_episode_steps": 800}).max_length == 800
    assert maze.bounds({"goal_reward": 2.0}).objectives[0].once == Range(0.0, 2.01)
    mapf = registration.spec("benchmarkzoo/MAPF-v0")
    ood = mapf.bounds({"max_cycles": 256, "generator_kwargs": {"height": 24, "width": 24, "num_agents": 16}})
    assert (ood.max_length, ood.agents) == (256, 16)


def test_maze_return_is_below_one():
    objective = registration.spec("benchmarkzoo/Maze-v0").bounds().objectives[0]
    assert objective.episode(1) == Range(-0.01, 1.0)
    assert math.isclose(objective.episode(200).high, 1.0 - 0.01 * 199)  # at best 199 steps, then the goal
    assert math.isclose(objective.episode(200).low, -2.0)


# ---- honest outcomes lie within the bounds -------------------------------------------------------


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[f"{p.parent.name}/{p.stem}" for p in SUBMISSIONS])
def test_committed_submissions_are_plausible(path):
    results = Results.model_validate(json.loads(path.read_text()))
    suite = load_suite(suite_path(results.suite))
    checked = 0
    for task, result in zip(suite.tasks, results.tasks, strict=True):
        spec = registration.spec(task.env)
        bounds = task_bounds(task, spec)
        for episode in result.episodes:
            assert episode_problem(spec, bounds, episode) is None, (task.id, episode.index)
            checked += 1
    assert checked >= 40


def _rollout(spec: registration.EnvSpec, policy: str, episodes: int = 2) -> tuple[OutcomeBounds, list[Episode]]:
    """``episodes`` episodes of ``policy`` on the first scenario set's test split, as the protocol records them."""
    scenario_set = load_set(spec.scenario_sets[0])
    split = "test" if "test" in scenario_set.splits else next(iter(scenario_set.splits))
    limit_key = "max_episode_steps" if spec.kind in ("single", "mo") else "max_cycles"
    kwargs = {limit_key: SHORT[spec.family]} if spec.family in SHORT else {}
    task = Task(
        id="plausibility",
        env=spec.id,
        scenario_set=scenario_set.name,
        split=split,
        episodes=episodes,
        env_kwargs=kwargs,
    )
    source = scenario_set.split(split)
    plans = plan_episodes(task, 0, list(source.seeds))
    outcomes = run_episodes(task, source, plans, load_policy(policy), num_envs=min(episodes, 2))
    return task_bounds(task, spec), [_episode_record(o) for o in outcomes]


@pytest.mark.parametrize("policy", ["random", "baseline"])
@pytest.mark.parametrize("spec", ENVS, ids=[s.id for s in ENVS])
def test_rollouts_are_plausible(spec, policy):
    if spec.missing_extras:
        pytest.skip(f"{spec.id} needs the {spec.missing_extras[0]!r} extra")
    if policy == "baseline" and spec.baseline is None:
        pytest.skip(f"{spec.id} has no baseline")
    episodes = 1 if spec.family in SHORT else 4
    bounds, recorded = _rollout(spec, policy, episodes)
    assert len(recorded) == episodes
    for episode in recorded:
        assert episode_problem(spec, bounds, episode) is None, (episode.index, episode)


# ---- forged outcomes are refused, naming task, episode, value and bound ---------------------------


@pytest.fixture(scope="module")
def maze():
    return _task(_load("quickstart-v0/baseline"), "maze-test")


def test_maze_return_of_a_million_is_refused(maze):
    message = _refusal(*maze, 3, episode_return=1e6)
    assert message.startswith("task maze-test, episode 3: return 1000000.0 is outside [")
    assert "benchmarkzoo/Maze-v0's episode of" in message


def test_maze_return_just_above_the_goal_is_refused(maze):
    task, spec, result = maze
    episode = next(e for e in result.episodes if e.success)
    exact = 1.0 - 0.01 * (episode.length - 1)
    message = _refusal(task, spec, result, episode.index, episode_return=exact + 0.01)
    assert f"episode {episode.index}: return {exact + 0.01!r} is outside [" in message
    # Inside the bound but not what this length and success pay: the rule refuses it.
    message = _refusal(task, spec, result, episode.index, episode_return=exact - 0.005)
    assert f"episode {episode.index}: return {exact - 0.005!r} with success=True" in message
    assert f"should be {exact!r}" in message


def test_length_over_the_limit_is_refused(maze):
    message = _refusal(*maze, 0, length=201)
    assert message.startswith("task maze-test, episode 0: length 201 is outside [1, 200]")
    assert "length 0 is outside [1, 200]" in _refusal(*maze, 0, length=0)
    assert "length 10000000000000000000 is outside" in _refusal(*maze, 0, length=10**19)
    assert "length 100000000000... (401 digits) is outside [1, 200]" in _refusal(*maze, 0, length=10**400)


def test_ood_limit_is_the_task_s():
    task, spec, result = _task(_load("quickstart-v0/baseline"), "maze-ood")
    limit = task.env_kwargs["max_episode_steps"]
    assert f"length {limit + 1} is outside [1, {limit}]" in _refusal(task, spec, result, 1, length=limit + 1)


def test_success_contradicting_the_return_is_refused():
    task, spec, result = _task(_load("quickstart-v0/random"), "maze-test")
    failed = next(e for e in result.episodes if not e.success)
    message = _refusal(task, spec, result, failed.index, success=True)
    assert f"episode {failed.index}: return" in message and "with success=True" in message
    succeeded = next(e for e in result.episodes if e.success and e.length < 200)
    message = _refusal(task, spec, result, succeeded.index, success=False)
    assert "the episode failed but ended after" in message
    assert "success is missing" in _refusal(task, spec, result, 0, success=None)


def test_unknown_metrics_are_refused(maze):
    assert "metric 'bonus' is not one benchmarkzoo/Maze-v0 reports" in _refusal(*maze, 0, metrics={"bonus": 1.0})


@pytest.fixture(scope="module")
def mapf():
    return _task(_load("marl-v0/baseline"), "mapf-test")


def test_parallel_per_agent_return_over_its_bound_is_refused(mapf):
    task, spec, result = mapf
    episode = result.episodes[5]
    returns = list(episode.episode_return)
    returns[2] = 1.02  # an agent earns at most goal_reward (1.0): arriving costs no step
    message = _refusal(task, spec, result, 5, episode_return=returns, team_return=math.fsum(returns))
    assert message.startswith("task mapf-test, episode 5: agent 2's return 1.02 is outside [")
    assert "[-0.25, 1]" in message  # 25 steps: never arriving, or arriving at once


def test_parallel_team_return_must_match_the_metrics(mapf):
    task, spec, result = mapf
    episode = result.episodes[0]
    returns = list(episode.episode_return)
    returns[0] -= 0.005  # inside agent 0's bound, but no arrival time pays it
    message = _refusal(task, spec, result, 0, episode_return=returns, team_return=math.fsum(returns))
    assert "the team return" in message and "sum_of_costs" in message


def test_mapf_metrics_out_of_range_are_refused(mapf):
    task, spec, result = mapf
    episode = result.episodes[0]
    message = _refusal(task, spec, result, 0, metrics={**episode.metrics, "success_rate": 1.5})
    assert "metric success_rate 1.5 is outside [0, 1]" in message
    message = _refusal(task, spec, result, 0, metrics={**episode.metrics, "makespan": 12.5})
    assert "metric makespan 12.5 is not a whole number" in message
    assert "the return has 7 agents" in _refusal(
        task,
        spec,
        result,
        0,
        episode_return=episode.episode_return[:7],
        team_return=math.fsum(episode.episode_return[:7]),
    )


@pytest.fixture(scope="module")
def treasure():
    return _task(_load("mo-v0/baseline"), "treasure-test")


def test_mo_objective_outside_its_bound_is_refused(treasure):
    task, spec, result = treasure
    episode = result.episodes[0]
    message = _refusal(task, spec, result, 0, episode_return=[124.5, episode.episode_return[1]])
    assert message.startswith("task treasure-test, episode 0: treasure return 124.5 is outside [0, 124]")
    message = _refusal(task, spec, result, 0, episode_return=[episode.episode_return[0], -episode.length + 1.0])
    assert "time return" in message or "the time objective" in message
    assert "success is True, but" in _refusal(task, spec, result, 0, success=True)


def test_quadrotor_crash_flags_are_checked():
    task, spec, result = _task(_load("core-v0/random"), "quadrotor-hover-test")
    crashed = next(e for e in result.episodes if e.metrics["crashed"])
    metrics = {**crashed.metrics, "crashed": 0.0}
    message = _refusal(task, spec, result, crashed.index, metrics=metrics)
    assert f"episode {crashed.index}: the episode ended after" in message and "without crashing" in message
    assert "metric crashed 2.0 is outside [0, 1]" in _refusal(
        task, spec, result, 0, metrics={**crashed.metrics, "crashed": 2.0}
    )
    missing = {k: v for k, v in crashed.metrics.items() if k != "out_of_bounds"}
    assert "metric 'out_of_bounds' is missing" in _refusal(task, spec, result, 0, metrics=missing)


def test_traffic_return_is_tied_to_the_waiting_time():
    task, spec, result = _task(_load("traffic-v0/baseline"), "signal-test")
    episode = result.episodes[0]
    message = _refusal(task, spec, result, 0, episode_return=episode.episode_return - 0.5)
    assert "should be -waiting_time / 100" in message
    message = _refusal(task, spec, result, 0, episode_return=0.5)
    assert "return 0.5 is outside [-inf, 0]" in message
    assert "length 359 is not the step limit 360" in _refusal(task, spec, result, 0, length=359)


def test_panda_dense_return_is_bounded_by_the_threshold():
    task, spec, result = _task(_load("robotics-v0/baseline"), "push-test")
    failed = next(e for e in result.episodes if not e.success)
    # A failed episode missed the goal (d >= 5 cm) on every step: at best -0.05 per step.
    message = _refusal(task, spec, result, failed.index, episode_return=-0.049 * failed.length)
    assert f"episode {failed.index}: return" in message and "lies outside" in message


def _forged_problem(spec_id: str, policy: str = "baseline", **changes) -> str:
    spec = registration.spec(spec_id)
    bounds, recorded = _rollout(spec, policy, episodes=1)
    problem = episode_problem(spec, bounds, recorded[0].model_copy(update=changes))
    assert problem is not None
    return problem


def test_moma_objective_outside_its_bound_is_refused():
    spec = registration.spec("benchmarkzoo/MO-Navigation-v0")
    bounds, recorded = _rollout(spec, "baseline", episodes=1)
    returns = [list(r) for r in recorded[0].episode_return]
    returns[1][1] = 0.5  # energy is never positive
    problem = episode_problem(spec, bounds, recorded[0].model_copy(update={"episode_return": returns}))
    assert problem.startswith("agent 1's energy return 0.5 is outside [")
    returns = [list(r) for r in recorded[0].episode_return]
    returns[0][2] = -1.0  # a collision the collisions metric does not count
    problem = episode_problem(spec, bounds, recorded[0].model_copy(update={"episode_return": returns}))
    assert "the collision objective sums to -1.0" in problem


def test_zero_sum_team_return_is_checked():
    problem = _forged_problem("benchmarkzoo/RPSSelfPlay-v0", "random", episode_return=[3.0, -2.0], team_return=1.0)
    assert problem.startswith("the team's return return 1.0 is outside [0, 0]")


def test_combat_win_needs_every_enemy_killed():
    spec = registration.spec("benchmarkzoo/MicroCombat-v0")
    bounds, recorded = _rollout(spec, "random", episodes=1)
    episode = recorded[0]
    forged = episode.model_copy(update={"success": True, "metrics": {**episode.metrics, "won": 1.0}})
    assert "a win kills every enemy" in episode_problem(spec, bounds, forged)
    over = [21.0, *episode.episode_return[1:]]
    forged = episode.model_copy(update={"episode_return": over, "team_return": math.fsum(over)})
    assert episode_problem(spec, bounds, forged).startswith("agent 0's return 21.0 is outside [0, 20]")


def test_a_recomputed_forgery_is_refused_by_validate():
    """The issue's forgery: Maze returns of 1e6 with the aggregates recomputed to match."""
    results = _load("quickstart-v0/random")
    tasks = [
        t.model_copy(update={"episodes": [e.model_copy(update={"episode_return": 1e6}) for e in t.episodes]})
        for t in results.tasks
    ]
    forged = recompute(results.model_copy(update={"tasks": tasks}))
    with pytest.raises(SubmissionError, match=r"^task maze-test, episode 0: return 1000000.0 is outside \["):
        validate(forged)


# ---- users see the bounds ------------------------------------------------------------------------


def test_info_shows_the_outcome_bounds():
    from click.testing import CliRunner

    from benchmarkzoo.cli import cli

    runner = CliRunner()
    table = runner.invoke(cli, ["info", "MAPF-v0"])
    assert table.exit_code == 0, table.output
    assert "outcome_bounds" in table.stdout and "length: 1..128 steps" in table.stdout
    assert "sum_of_costs" in table.stdout and "agents: 8" in table.stdout
    data = json.loads(runner.invoke(cli, ["info", "Maze-v0", "--json"]).stdout)["outcome_bounds"]
    assert data["max_length"] == 200 and data["success"] is True
    assert data["objectives"] == [
        {"name": "return", "step": [-0.01, -0.01], "once": [0.0, 1.01], "total": [None, None]}
    ]
    assert data["rules"][0].startswith("success iff the episode terminated at the goal")


def test_the_submission_s_own_env_spec_loosens_nothing(maze):
    """Bounds come from the suite's task and the registry, never from what the file says it ran."""
    task, spec, result = maze
    claimed = {
        **result.env_spec,
        "max_episode_steps": 10**6,
        "kwargs": {**result.env_spec["kwargs"], "goal_reward": 1e6},
    }
    forged = result.model_copy(update={"env_spec": claimed})
    message = _refusal(task, spec, forged, 0, episode_return=1e6 - 0.01 * (result.episodes[0].length - 1))
    assert "is outside [" in message and "benchmarkzoo/Maze-v0's episode of" in message


def test_wrong_number_of_objectives_is_refused(treasure):
    assert "the return has 3 objectives; benchmarkzoo/MO-Treasure-v0 has 2" in _refusal(
        *treasure, 0, episode_return=[1.0, -1.0, 0.0]
    )


def test_an_env_without_bounds_is_refused_not_crashed(maze):
    import dataclasses

    task, spec, result = maze
    with pytest.raises(SubmissionError, match=r"^task maze-test: benchmarkzoo/Maze-v0 declares no outcome_bounds"):
        check_plausible("task maze-test", task, dataclasses.replace(spec, outcome_bounds=None), result)
