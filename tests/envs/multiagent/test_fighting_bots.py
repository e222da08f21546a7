"""The FightingDuel ladder: bots play legal actions, work as policies, and are ordered by measurement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.envs.multiagent.fighting import bots, ladder, sim
from benchmarkzoo.envs.multiagent.fighting.generator import FightingGenerator

ENV_ID = "benchmarkzoo/FightingDuel-v0"


def test_each_bot_beats_the_one_below_it_in_at_least_60_percent_of_matches():
    order = ladder.ladder_order(matches=40, seed=0)
    assert list(order) == [f"{upper}>{lower}" for lower, upper in itertools.pairwise(bots.BOTS)]
    assert min(order.values()) >= 0.6, order


def test_bots_send_only_legal_actions():
    params = ladder.PARAMS
    generator = FightingGenerator(pairs="all", max_meter=1000)
    state = sim.init_state(params, len(bots.BOTS))
    for i in range(len(bots.BOTS)):
        sim.load(state, i, generator.sample(i), params)
    for _ in range(150):
        actions = np.stack([bots.act(name, state, p)[i] for i, name in enumerate(bots.BOTS) for p in (0, 1)])
        actions = actions.reshape(len(bots.BOTS), 2)
        masks = sim.action_masks(state)
        assert np.take_along_axis(masks, actions[..., None], axis=2).all()
        sim.step(state, actions, params)


def test_bot_policy_plays_both_forms():
    policy = bots.BotPolicy("champion")
    env = benchmarkzoo.make_parallel(ENV_ID, generator_kwargs={"opponents": ["passive"]})
    env.reset(seed=0)
    total = 0.0
    while env.agents:
        total += env.step(policy(env))[1]["player_0"]
    assert total > 2.0  # two rounds won and damage dealt against a bot that stands still
    vec = benchmarkzoo.make_vec(ENV_ID, num_envs=3)
    vec.reset(seed=0)
    actions = policy(vec)
    assert actions.shape == (3, 2) and actions.dtype == np.int64
    with pytest.raises(ValueError, match="one of"):
        bots.BotPolicy("grandmaster")
