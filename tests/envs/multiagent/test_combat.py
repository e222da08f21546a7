"""MicroCombat-v0: attacks, cooldowns, masks, deaths, moves, wins and rewards on hand-written scenarios; the
scripted enemy; refusals; observations and state; the generators; the vector form; baseline; evaluation."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import yaml

import benchmarkzoo
from benchmarkzoo.core.errors import (
    GeneratorArgumentError,
    IllegalActionError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.multiagent.combat import env as env_module
from benchmarkzoo.envs.multiagent.combat import sim
from benchmarkzoo.envs.multiagent.combat.baseline import FocusFirePolicy
from benchmarkzoo.envs.multiagent.combat.env import MicroCombatEnv
from benchmarkzoo.envs.multiagent.combat.generator import (
    LINEUPS,
    CombatScenario,
    LineupGenerator,
    RandomCombatGenerator,
)
from benchmarkzoo.envs.multiagent.combat.units import TYPE_INDEX, parse_army
from benchmarkzoo.envs.multiagent.combat.vector_env import MicroCombatVectorEnv
from benchmarkzoo.testing import check_generator, check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/MicroCombat-v0"
NOOP, STOP, NORTH, SOUTH, EAST, WEST, ATTACK = range(7)
M, R, S, Z = (TYPE_INDEX[t] for t in ("marine", "marauder", "stalker", "zealot"))


def scenario(
    ours: list[tuple[int, float, float]], theirs: list[tuple[int, float, float]], strategy: str = "closest"
) -> CombatScenario:
    """Armies as ``(type, x, y)`` on a 32 x 32 map."""
    return CombatScenario(
        map_size=32.0,
        ally_types=[u[0] for u in ours],
        ally_pos=[u[1:] for u in ours],
        enemy_types=[u[0] for u in theirs],
        enemy_pos=[u[1:] for u in theirs],
        enemy_strategy=strategy,
    )


def env_for(s: CombatScenario, enemies: int | None = None, cls=MicroCombatEnv, **kwargs):
    gen = RandomCombatGenerator(num_allies=s.num_allies, num_enemies=enemies or s.num_enemies)
    env = cls(generator=gen, **kwargs)
    out = env.reset(seed=0, options={"scenario": s})
    return (env, out) if cls is not MicroCombatEnv else env


def health(env) -> list[float]:
    return env.sim_state.health[0].tolist()


# ---- attacks, cooldown, range -------------------------------------------------------------------


def test_an_attack_reduces_the_targets_health_by_exactly_the_damage():
    env = env_for(scenario([(R, 10, 16)], [(M, 14, 16)]))  # 4 apart: in range of both
    _, rewards, _, _, _ = env.step({"agent_0": ATTACK})
    assert health(env) == [125.0 - 6.0, 45.0 - 10.0]  # the marine's 6 and the marauder's 10, simultaneously
    assert rewards["agent_0"] == 10.0 * 20 / (45 + 10 + 200)  # SMAC: damage dealt * 20 / max_reward


def test_cooldown_prevents_attacking_again_until_it_elapses():
    env = env_for(scenario([(R, 10, 16)], [(R, 14, 16)]))  # marauders: cooldown 2 steps
    enemy = []
    for _ in range(5):
        env.step({"agent_0": ATTACK})  # attacking while cooling down is legal but fires nothing
        enemy.append(env.sim_state.health[0, 1])
    assert enemy == [115.0, 115.0, 105.0, 105.0, 95.0]
    assert env.sim_state.cooldown[0].tolist() == [1, 1]  # both fired on the fifth step: one step to wait


def test_killing_every_enemy_wins_and_the_rewards_of_a_win_sum_to_20():
    env = env_for(scenario([(S, 10, 16)], [(M, 15, 16)]))  # stalker 13 damage every 3 steps, marine 45 health
    total = 0.0
    for _ in range(10):
        _, rewards, terminations, _, infos = env.step({"agent_0": ATTACK})
        total += rewards["agent_0"]
    # the stalker fired on steps 0, 3, 6, 9: 13 * 3 = 39, then the last 6 health (not 13) counted
    assert terminations == {"agent_0": True} and env.agents == []
    assert infos["agent_0"]["won"] is True and infos["agent_0"]["enemies_killed"] == 1.0
    assert total == pytest.approx(20.0)  # 45 damage + 10 kill + 200 win = max_reward; damage taken costs nothing
    assert health(env) == [160.0 - 6.0 * 10, 0.0]  # the marine fired on every step, its last one included


def test_out_of_range_attacks_are_masked_and_refused_or_stopped():
    s = scenario([(M, 10, 16)], [(Z, 15.5, 16)])  # 5.5 apart: beyond the marine's range 5
    strict = env_for(s, illegal_actions="raise")
    _, infos = strict.reset(seed=0, options={"scenario": s})
    assert infos["agent_0"]["action_mask"].tolist() == [0, 1, 1, 1, 1, 1, 0]
    assert infos["agent_0"]["action_mask"].dtype == np.int8
    with pytest.raises(IllegalActionError, match=r"enemy 0 is 5.50 away, beyond this unit's attack range 5"):
        strict.step({"agent_0": ATTACK})
    with pytest.raises(IllegalActionError, match="no-op is legal only for dead units"):
        strict.step({"agent_0": NOOP})
    lenient = env_for(s)
    lenient.step({"agent_0": ATTACK})  # executed as stop: the marine stays, the zealot walks in
    assert lenient.sim_state.pos[0, 0].tolist() == [10.0, 16.0]
    assert lenient.sim_state.pos[0, 1].tolist() == [14.0, 16.0]
    assert lenient.sim_state.masked[0] == 1


def test_an_attack_on_a_padding_or_dead_enemy_is_masked():
    env = env_for(scenario([(M, 10, 16)], [(M, 14, 16)]), enemies=3, illegal_actions="raise")
    _, infos = env.reset(seed=0, options={"scenario": scenario([(M, 10, 16)], [(M, 14, 16)])})
    assert infos["agent_0"]["action_mask"].tolist() == [0, 1, 1, 1, 1, 1, 1, 0, 0]
    with pytest.raises(IllegalActionError, match="only 1 enemy units"):
        env.step({"agent_0": ATTACK + 2})


# ---- deaths, moves, episode end -----------------------------------------------------------------


def test_a_unit_whose_health_reaches_zero_leaves_agents():
    # agent_1 (a marine) stands 4 from an enemy marauder (10 damage every 2 steps); agent_0 is far away
    env = env_for(scenario([(M, 2, 2), (M, 10, 16)], [(R, 14, 16)]))
    for t in range(20):  # noqa: B007 (t is read after the loop)
        _, _, terminations, _, infos = env.step({agent: STOP for agent in env.agents})
        if terminations["agent_1"]:
            break
    assert t == 8  # hit on steps 0, 2, 4, 6, 8: 5 * 10 >= 45
    assert terminations == {"agent_0": False, "agent_1": True}
    assert infos["agent_1"]["action_mask"].tolist() == [1, 0, 0, 0, 0, 0, 0]  # the dead may only no-op
    assert env.agents == ["agent_0"] and not env.sim_state.alive[0, 1]
    with pytest.raises(InvalidAgentError, match="'agent_1' is dead"):
        env.step({"agent_0": STOP, "agent_1": STOP})
    obs, _, _, _, _ = env.step({"agent_0": STOP})
    assert list(obs) == ["agent_0"]


def test_moves_by_the_units_speed_and_the_map_edge_is_a_wall():
    env = env_for(scenario([(M, 10, 16), (S, 4, 31.0)], [(M, 30, 2)]))
    env.step({"agent_0": EAST, "agent_1": NORTH})
    assert env.sim_state.pos[0, 0].tolist() == [11.5, 16.0]  # marine speed 1.5
    assert env.sim_state.pos[0, 1].tolist() == [4.0, 32.0]  # stalker speed 2.0, stopped by the edge
    env.step({"agent_0": SOUTH, "agent_1": WEST})
    assert env.sim_state.pos[0, :2].tolist() == [[11.5, 14.5], [2.0, 32.0]]


def test_losing_every_unit_ends_the_episode_without_a_win():
    env = env_for(scenario([(M, 10, 16)], [(Z, 11, 16), (Z, 11, 17)]))
    total = 0.0
    while env.agents:
        _, rewards, terminations, truncations, infos = env.step({"agent_0": ATTACK})
        total += rewards["agent_0"]
    assert terminations == {"agent_0": True} and truncations == {"agent_0": False}
    assert infos["agent_0"]["won"] is False and infos["agent_0"]["allies_alive"] == 0.0
    assert 0.0 < total < 20.0 * 150 / (300 + 20 + 200)  # only damage dealt, no kill


def test_truncation_after_max_cycles_is_not_a_win():
    env = env_for(scenario([(M, 2, 2)], [(M, 30, 30)]), max_cycles=3)
    for _ in range(3):
        _, _, terminations, truncations, infos = env.step({"agent_0": WEST})
    assert truncations == {"agent_0": True} and terminations == {"agent_0": False}
    assert infos["agent_0"]["won"] is False and env.agents == []
    with pytest.raises(ResetNeededError):
        env.step({})


# ---- the scripted enemy -------------------------------------------------------------------------


@pytest.mark.parametrize(("strategy", "victim"), [("closest", 0), ("focus", 1)])
def test_enemy_strategies_pick_the_closest_or_the_weakest_in_range(strategy, victim):
    s = scenario([(M, 10, 16), (M, 10, 19)], [(M, 13, 16)], strategy)  # agent_1 is 4.24 away: in range
    env = env_for(s)
    env.sim_state.health[0, 1] = 20.0  # agent_1 is the weaker
    env.step({"agent_0": STOP, "agent_1": STOP})
    expected = [45.0, 20.0]
    expected[victim] -= 6.0
    assert health(env)[:2] == expected


def test_the_enemy_walks_towards_the_closest_unit_along_the_longer_axis():
    env = env_for(scenario([(M, 4, 10)], [(Z, 20, 14)]))
    env.step({"agent_0": STOP})
    assert env.sim_state.pos[0, 1].tolist() == [18.5, 14.0]


# ---- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [7, -1, 1.0, float("nan"), None, np.array([1, 1]), "1"])
def test_actions_outside_the_space_are_refused(bad):
    env = env_for(scenario([(M, 10, 16), (M, 10, 18)], [(M, 20, 16)]))
    with pytest.raises(InvalidActionError, match="agent 'agent_1' sent"):
        env.step({"agent_0": STOP, "agent_1": bad})
    env.step({"agent_0": STOP, "agent_1": STOP})  # still usable


def test_unknown_and_missing_agents_are_refused():
    env = env_for(scenario([(M, 10, 16), (M, 10, 18)], [(M, 20, 16)]))
    with pytest.raises(InvalidAgentError, match="unknown agent 'agent_9'"):
        env.step({"agent_0": STOP, "agent_1": STOP, "agent_9": STOP})
    with pytest.raises(InvalidAgentError, match="no action for live agent"):
        env.step({"agent_0": STOP})
    with pytest.raises(InvalidAgentError, match="dict of actions"):
        env.step([STOP, STOP])


def test_scenarios_and_arguments_are_checked():
    with pytest.raises(ScenarioError, match="inside"):
        scenario([(M, 40, 16)], [(M, 20, 16)])
    with pytest.raises(ScenarioError, match="enemy_strategy"):
        scenario([(M, 4, 16)], [(M, 20, 16)], "kite")
    env = MicroCombatEnv(generator=RandomCombatGenerator(num_allies=2, num_enemies=2))
    with pytest.raises(ScenarioError, match="2 units of ours against at most 2"):
        env.reset(options={"scenario": scenario([(M, 4, 16)], [(M, 20, 16)])})
    with pytest.raises(ValueError, match="illegal_actions must be one of"):
        MicroCombatEnv(illegal_actions="clip")
    with pytest.raises(ResetNeededError):
        MicroCombatEnv().step({})


# ---- observations and state ---------------------------------------------------------------------


def test_observation_layout_and_sight():
    s = scenario([(M, 10, 16), (S, 10, 26)], [(Z, 13, 20), (M, 25, 16)])  # agent_1 is 10 from agent_0: unseen
    env = env_for(s)
    obs, _ = env.reset(seed=0, options={"scenario": s})
    o = obs["agent_0"]
    assert env.observation_space("agent_0").shape == (8 + 9 + 2 * 10,) and o.shape == (37,)
    assert o[:8].tolist() == [1.0, 0.0, 10 / 32, 0.5, 1.0, 0.0, 0.0, 0.0]  # own: full health, ready, marine
    assert o[8:17].tolist() == [0.0] * 9  # the stalker is 10 away, beyond sight 9
    zealot = o[17:27]  # dx 3, dy 4, distance 5: visible and attackable (range 5)
    assert zealot.tolist() == pytest.approx([1, 1, 3 / 9, 4 / 9, 5 / 9, 1, 0, 0, 0, 1])
    assert o[27:].tolist() == [0.0] * 10  # 15 away
    assert env.observation_space("agent_0").contains(o)
    state = env.state()
    assert state.shape == (4 * 9,) and env.state_space.contains(state)
    assert state[:9].tolist() == pytest.approx([1, 1, 0, (10 - 16) / 16, 0, 1, 0, 0, 0])


def test_a_dead_agents_last_observation_is_zeros():
    env = env_for(scenario([(M, 2, 2), (M, 10, 16)], [(R, 14, 16)]))
    while "agent_1" in env.agents:
        obs, _, _, _, _ = env.step({agent: STOP for agent in env.agents})
    assert not obs["agent_1"].any() and obs["agent_0"].any()


# ---- generators ---------------------------------------------------------------------------------


def test_lineups_and_armies():
    assert parse_army("2s3z") == ("stalker",) * 2 + ("zealot",) * 3
    for name, (ours, theirs) in LINEUPS.items():
        gen = LineupGenerator(name)
        s = gen.sample(3)
        assert (s.num_allies, s.num_enemies) == (len(parse_army(ours)), len(parse_army(theirs)))
        assert s.ally_pos[:, 0].max() < s.enemy_pos[:, 0].min()  # the armies face each other
    s = LineupGenerator("5m_vs_6m", enemy_strategy="focus", gap=10.0).sample(0)
    assert s.enemy_strategy == "focus"
    assert s.enemy_pos[:, 0].min() - s.ally_pos[:, 0].max() == pytest.approx(10, abs=0.5)
    check_generator(LineupGenerator("2s3z"), seeds=range(10))
    check_generator(
        RandomCombatGenerator(num_allies=3, num_enemies=4, unit_types=["marine", "zealot"]), seeds=range(10)
    )
    r = RandomCombatGenerator(num_allies=8, num_enemies=9, unit_types=["stalker"]).sample(5)
    assert set(r.ally_types.tolist()) == {S} and r.num_enemies == 9


@pytest.mark.parametrize("kwargs", [{"lineup": "4m"}, {"enemy_strategy": "kite"}, {"map_size": 8}, {"gap": 40.0}])
def test_lineup_generator_arguments_are_checked(kwargs):
    with pytest.raises(GeneratorArgumentError):
        LineupGenerator(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"num_allies": 0}, {"num_enemies": 33}, {"unit_types": ["ghost"]}, {"unit_types": []}, {"unit_types": "marine"}],
)
def test_random_generator_arguments_are_checked(kwargs):
    with pytest.raises(GeneratorArgumentError):
        RandomCombatGenerator(**kwargs)


# ---- vector form --------------------------------------------------------------------------------


def masked_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """Uniformly random legal actions, ``(B, N)`` from ``(B, N, A)`` masks."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=2).astype(np.int64)


def test_vector_matches_parallel_envs_with_legal_actions_in_raise_mode():
    num_envs, rng = 5, np.random.default_rng(3)
    vec = benchmarkzoo.make_vec(ENV_ID, num_envs, illegal_actions="raise")
    pars = [benchmarkzoo.make_parallel(ENV_ID, illegal_actions="raise") for _ in range(num_envs)]
    _, infos = vec.reset(seed=7)
    for i, par in enumerate(pars):
        _, p_infos = par.reset(seed=7 + i)
        assert (infos["action_mask"][i] == np.stack([p_infos[a]["action_mask"] for a in par.possible_agents])).all()
    ended, episodes = np.zeros(num_envs, bool), 0
    for _ in range(300):
        actions = masked_actions(rng, infos["action_mask"])
        obs, rewards, terminations, _, infos = vec.step(actions)
        for i, par in enumerate(pars):
            if ended[i]:
                p_obs, _ = par.reset()
            else:
                p_obs, p_rewards, p_terms, _, _ = par.step(
                    {a: int(actions[i, par.possible_agents.index(a)]) for a in par.agents}
                )
                for a in p_obs:
                    k = par.possible_agents.index(a)
                    assert rewards[i, k] == p_rewards[a] and terminations[i, k] == p_terms[a]
            for a in p_obs:
                assert (obs[i, par.possible_agents.index(a)] == p_obs[a]).all()
        ended = ~infos["active"].any(axis=1)
        episodes += int(ended.sum())
    assert episodes > 5
    with pytest.raises(IllegalActionError, match=r"sent 0 \(no-op\), which its action mask forbids"):
        vec.step(np.zeros((num_envs, 5), dtype=np.int64))


def test_vector_counts_masked_actions_and_reports_metrics_at_episode_end():
    vec, _ = env_for(scenario([(M, 10, 16)], [(M, 14, 16)]), cls=MicroCombatVectorEnv)
    won = None
    for _ in range(20):
        _, _, _, _, infos = vec.step(np.array([[NOOP]]))  # masked: executed as stop, so we lose
        if "won" in infos:
            won = infos
            break
    assert won is not None and won["_won"].tolist() == [True]
    assert won["won"].tolist() == [False] and won["masked_actions"].tolist() == [8]
    assert vec.state().shape == (1, 2 * 9)


def test_vector_form_matches_parallel_envs_on_a_lineup():
    summary = check_parallel_vector_matches_single(
        ENV_ID, num_envs=3, steps=200, seed=2, generator="combat/lineup", generator_kwargs={"lineup": "3s_vs_3z"}
    )
    assert summary["episodes_ended"] > 0


# ---- baseline, evaluation, registry, rendering --------------------------------------------------


def test_baseline_sends_legal_actions_and_beats_random_legal_play():
    vec = MicroCombatVectorEnv(num_envs=30, generator=RandomCombatGenerator(), illegal_actions="raise")
    policy, rng = FocusFirePolicy(), np.random.default_rng(0)
    wins = {}
    for name in ("baseline", "random"):
        _, infos = vec.reset(seed=100000)
        won, ended = np.zeros(30, bool), np.zeros(30, bool)  # of each world's first episode
        while not ended.all():
            actions = policy(vec) if name == "baseline" else masked_actions(rng, infos["action_mask"])
            _, _, _, _, infos = vec.step(actions)
            if "won" in infos:
                first = infos["_won"] & ~ended
                won |= first & infos["won"]
                ended |= first
        wins[name] = won.mean()
    assert wins["random"] <= 0.1 and wins["baseline"] >= 0.4


def test_evaluate_reports_the_win_rate(tmp_path):
    from benchmarkzoo.evaluation.protocol import evaluate

    suite = {
        "name": "tiny-combat-v0",
        "description": "MicroCombat test split, a few episodes.",
        "tasks": [
            {
                "id": "combat-test",
                "env": ENV_ID,
                "scenario_set": "multiagent/micro-combat",
                "split": "test",
                "episodes": 6,
                "score": {"kind": "metric", "metric": "won"},
            }
        ],
    }
    path = tmp_path / "tiny-combat-v0.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    for policy in ("baseline", "random"):
        task = evaluate(str(path), policy, num_envs=4).tasks[0]
        assert task.status == "ok" and len(task.episodes) == 6
        wins = [e.metrics["won"] for e in task.episodes]
        assert all(set(e.metrics) == {"won", "allies_alive", "enemies_killed", "masked_actions"} for e in task.episodes)
        assert task.aggregates.mean == pytest.approx(np.mean(wins))
        if policy == "baseline":
            assert all(e.metrics["masked_actions"] == 0 for e in task.episodes)
        else:
            assert all(e.metrics["masked_actions"] > 0 for e in task.episodes) and sum(wins) == 0


def test_registry_aec_and_pettingzoo_api():
    from pettingzoo.test import api_test

    spec = benchmarkzoo.spec(ENV_ID)
    assert spec.kind == "parallel" and spec.baseline.endswith("FocusFirePolicy")
    api_test(benchmarkzoo.make_aec(ENV_ID), num_cycles=100)


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frames_show_both_armies(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = benchmarkzoo.make_parallel(ENV_ID, render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (480, 480, 3) and frame.dtype == np.uint8
    colours = {tuple(c) for c in frame.reshape(-1, 3).tolist()}
    assert (52, 101, 164) in colours and (204, 68, 52) in colours
    vec = benchmarkzoo.make_vec(ENV_ID, 2, render_mode="rgb_array")
    vec.reset(seed=1)
    frames = vec.render()
    assert len(frames) == 2 and (frames[0] == frame).all()
    env.close()
    vec.close()


def test_env_docstring_example():
    assert doctest.testmod(env_module, raise_on_error=False).failed == 0


def test_unit_type_table_in_sim_units():
    assert sim.MOVES.shape == (6, 2)
    assert parse_army("1r4m") == ("marauder",) + ("marine",) * 4
    with pytest.raises(ValueError, match="counts followed by type codes"):
        parse_army("3x")
