"""MO-MicroCombat-v0: damage dealt and units kept, as values on hand-written engagements."""

from __future__ import annotations

import numpy as np

import benchmarkzoo
from benchmarkzoo.envs.multiagent.combat.generator import CombatScenario, RandomCombatGenerator
from benchmarkzoo.envs.multiagent.combat.mo import MOMicroCombatEnv, MOMicroCombatVectorEnv

ATTACK_0, WEST = 6, 5


def duel() -> CombatScenario:
    """A marine each, 4 apart (within the marines' range 5); the enemy attacks the closest unit."""
    return CombatScenario(
        map_size=32.0,
        ally_types=[0],
        ally_pos=[[10.0, 16.0]],
        enemy_types=[0],
        enemy_pos=[[14.0, 16.0]],
        enemy_strategy="closest",
    )


def test_a_duel_to_the_death_deals_the_whole_enemy_health_and_loses_the_unit():
    env = MOMicroCombatEnv(generator=RandomCombatGenerator(num_allies=1, num_enemies=1))
    env.reset(seed=0, options={"scenario": duel()})
    got = []
    while env.agents:
        _, rewards, terminations, truncations, infos = env.step({"agent_0": ATTACK_0})
        got.append(rewards["agent_0"])
    # 6 damage a step (cooldown 1) against 45 health: 7 full hits, then the last 3 health (damage is capped);
    # both marines fire on step 8 and die together: a draw.
    expected = [[np.float32(6 / 45), 0.0]] * 7 + [[np.float32(3 / 45), -1.0]]
    assert np.array_equal(np.array(got), np.array(expected, dtype=np.float32))
    assert np.isclose(np.sum(got, axis=0, dtype=np.float64), [1.0, -1.0]).all()
    assert terminations["agent_0"] and not truncations["agent_0"] and infos["agent_0"]["won"] is False
    assert infos["agent_0"]["allies_alive"] == 0.0 and infos["agent_0"]["enemies_killed"] == 1.0


def test_a_unit_that_walks_away_keeps_itself_and_deals_nothing():
    env = MOMicroCombatEnv(generator=RandomCombatGenerator(num_allies=1, num_enemies=1), max_cycles=3)
    env.reset(seed=0, options={"scenario": duel()})
    total = np.zeros(2)
    while env.agents:
        _, rewards, *_ = env.step({"agent_0": WEST})
        total += rewards["agent_0"]
    assert total.tolist() == [0.0, 0.0]  # hit while walking (the enemy chases), but alive at the limit


def test_the_vector_form_matches_and_the_team_units_kept_counts_the_units_lost():
    kwargs = {"generator": "combat/random", "generator_kwargs": {"num_allies": 5, "num_enemies": 5}}
    vector = MOMicroCombatVectorEnv(num_envs=3, **kwargs)
    vector.reset(seed=7)
    rng = np.random.default_rng(0)
    team, lost, ended = np.zeros((3, 2)), np.zeros(3), np.zeros(3, dtype=bool)
    while not ended.all():  # each world's first episode (NEXT_STEP autoreset restarts the others)
        actions = rng.integers(1, 6, size=(3, 5))  # moves and stops only: always legal
        _, rewards, _, _, infos = vector.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (3, 5, 2)
        team[~ended] += rewards.sum(axis=1)[~ended]
        if "allies_alive" in infos:  # some world's episode ended on this step
            now = infos["_allies_alive"] & ~ended
            lost[now] = (1.0 - infos["allies_alive"][now]) * 5
            ended |= now
    assert (team[:, 0] >= 0).all() and (lost > 0).any()
    assert np.allclose(team[:, 1], -lost)  # every unit lost paid -1 exactly once
    parallel = benchmarkzoo.make_parallel("benchmarkzoo/MO-MicroCombat-v0")
    assert vector.single_reward_space == parallel.reward_space("agent_0")
