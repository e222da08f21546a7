"""RPSPopulation-v0: RPS payoffs, bots, exploitability, the baseline, the generator, the vector form."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.core.errors import InvalidActionError, ScenarioError
from benchmarkzoo.envs.multiagent.rps import env as env_module
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.baseline import (
    PatternMatchingPolicy,
    evaluate_population,
    played_exploitability,
    uniform_policy,
)
from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv
from benchmarkzoo.envs.multiagent.rps.generator import BOTS, OOD_BOTS, TRAIN_BOTS, RPSPopulationGenerator, RPSScenario
from benchmarkzoo.testing import check_env, check_generator, check_pickle, check_vector_matches_single

ENV_ID = "benchmarkzoo/RPSPopulation-v0"
ROCK, PAPER, SCISSORS = range(3)
registered = pytest.mark.skipif(
    ENV_ID not in {s.id for s in registration.list_envs()}, reason="RPSPopulation-v0 is not registered yet"
)


def test_population_has_at_least_20_distinct_bots():
    assert len(BOTS) >= 20 and len(set(BOTS)) == len(BOTS)
    assert set(TRAIN_BOTS) | set(OOD_BOTS) == set(BOTS) and not set(TRAIN_BOTS) & set(OOD_BOTS)


@pytest.mark.parametrize(
    ("mine", "theirs", "reward"),
    [
        (PAPER, ROCK, 1.0),
        (SCISSORS, PAPER, 1.0),
        (ROCK, SCISSORS, 1.0),
        (ROCK, PAPER, -1.0),
        (PAPER, SCISSORS, -1.0),
        (SCISSORS, ROCK, -1.0),
        (ROCK, ROCK, 0.0),
        (PAPER, PAPER, 0.0),
        (SCISSORS, SCISSORS, 0.0),
    ],
)
def test_rewards_follow_rps(mine, theirs, reward):
    bot = ("rock", "paper", "scissors")[theirs]
    env = RPSPopulationEnv()
    env.reset(seed=0, options={"scenario": RPSScenario(bot=bot)})
    _, r, terminated, truncated, info = env.step(mine)
    assert (r, info["bot_move"], terminated, truncated) == (reward, theirs, False, False)


def test_observation_is_one_hot_history():
    env = RPSPopulationEnv(history=2)
    obs, _ = env.reset(seed=0, options={"scenario": RPSScenario(bot="paper")})
    assert obs.tolist() == [0.0] * 12
    env.step(ROCK)
    obs, *_ = env.step(SCISSORS)
    assert obs.tolist() == [0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0]


def test_cycle_and_reactive_bots():
    env = RPSPopulationEnv()
    env.reset(seed=0, options={"scenario": RPSScenario(bot="cycle_up")})
    assert [env.step(ROCK)[4]["bot_move"] for _ in range(6)] == [0, 1, 2, 0, 1, 2]
    env.reset(seed=0, options={"scenario": RPSScenario(bot="beat_last")})
    env.step(ROCK)
    assert [env.step(m)[4]["bot_move"] for m in (SCISSORS, PAPER, PAPER)] == [PAPER, ROCK, SCISSORS]


@pytest.mark.parametrize("bot", ["rock", "paper", "scissors"])
def test_best_responder_beats_constant_bot_every_round_after_a_few(bot):
    env = RPSPopulationEnv()
    env.reset(seed=0, options={"scenario": RPSScenario(bot=bot)})
    policy = PatternMatchingPolicy()
    rewards = [env.step(policy(env))[1] for _ in range(30)]
    assert rewards[2:] == [1.0] * 28


def test_exploitability_uniform_zero_constant_one():
    state = sim.init_state(sim.Params(), 1)
    sim.load(state, 0, RPSScenario(bot="uniform"))
    rng = np.random.default_rng(0)
    for _ in range(5000):
        sim.play(state, rng.integers(3, size=1), sim.bot_moves(state))
    assert abs(sim.exploitability(state)[0]) < 0.03
    assert evaluate_population(lambda s: np.zeros(s.t.shape[0], dtype=np.int64), episodes=2)["exploitability"] == 1.0


def _cycle(state: sim.State) -> np.ndarray:
    return state.t % 3  # R, P, S, R, ...: ignores the opponent


def test_a_deterministic_cycle_is_exploitable_by_a_sequence_aware_opponent():
    """The best response to the cycle's move frequencies gets 0; one that remembers the last move wins every round."""
    result = evaluate_population(_cycle, episodes=4)
    # The follow-the-leader responder loses rounds 1-3 while it learns R -> P -> S -> R, then wins 96 of 97.
    assert result["exploitability"] == pytest.approx(0.96)
    assert result["exploitability_ci"] == pytest.approx((0.96, 0.96))
    by_responder = result["exploitability_by_responder"]
    assert abs(by_responder["own-0"]) < 0.05  # the old, marginal figure: blind to the sequence
    assert by_responder["own-1"] == pytest.approx(0.97)
    assert result["best_responder"][:2] == ("own-1", pytest.approx(0.97))
    # The responder really playing the cycle (it ignores its opponent) gets the same.
    played = played_exploitability(_cycle, episodes=4)
    assert played["exploitability"] == pytest.approx(0.96)


def test_a_uniform_random_player_is_not_exploitable():
    result = evaluate_population(uniform_policy(0), episodes=20)
    low, high = result["exploitability_ci"]
    assert low < 0.0 < high and high - low < 0.03
    assert abs(result["exploitability"]) < 0.01
    assert result["best_responder"][1] < 0.02  # max over six responders of means over 500 matches
    played = played_exploitability(uniform_policy(1), episodes=100)
    assert played["exploitability_ci"][0] < 0.0 < played["exploitability_ci"][1]


def test_baseline_exploitability_is_reported():
    """The pattern matcher is deterministic given the history: the responders learn it, shadowed or played."""
    result = evaluate_population(PatternMatchingPolicy().act, episodes=20)
    assert result["exploitability"] == pytest.approx(0.645, abs=0.005)
    low, high = result["exploitability_ci"]
    assert 0.60 < low < result["exploitability"] < high < 0.70
    played = played_exploitability(PatternMatchingPolicy().act, episodes=4)
    assert played["exploitability"] == pytest.approx(0.21)


def test_the_trained_best_response_within_its_budget():
    from benchmarkzoo.envs.multiagent.rps.best_response import (
        ROUNDS,
        TEST_MATCHES,
        TRAIN_MATCHES,
        trained_exploitability,
    )

    assert (TRAIN_MATCHES, TEST_MATCHES, ROUNDS) == (20, 20, 100)  # the recorded budget
    cycle = trained_exploitability(_cycle)
    assert cycle["exploitability"] == 1.0 and cycle["responder"] == "own-1"  # known from the first test round
    assert cycle["train"] == pytest.approx(0.96)
    uniform = trained_exploitability(uniform_policy(0))
    low, high = uniform["exploitability_ci"]
    assert low < 0.0 < high and abs(uniform["exploitability"]) < 0.05
    baseline = trained_exploitability(PatternMatchingPolicy().act)
    assert baseline["exploitability"] == pytest.approx(-0.01)  # it re-learns its opponent every match


def test_responders_learn_period_two_and_reactions():
    """R R P P S S ... needs two own moves; copying the bot's last move needs the last round."""
    double = evaluate_population(lambda s: (s.t // 2) % 3, bots=("rock",), episodes=2)["exploitability_by_responder"]
    assert double["own-1"] < 0.25 and double["own-2"] > 0.9
    copy = evaluate_population(lambda s: np.maximum(s.last[:, 1], 0), bots=("uniform",), episodes=20)
    assert copy["exploitability_by_responder"]["pair-1"] > 0.85 and copy["exploitability"] > 0.85


def test_baseline_figures():
    result = evaluate_population(PatternMatchingPolicy().act, episodes=20)
    assert result["mean_return"] > 0.4
    assert all(result["per_bot"][b] > 0.95 for b in ("rock", "paper", "scissors"))
    uniform = evaluate_population(uniform_policy(0), episodes=20)
    assert abs(uniform["mean_return"]) < 0.05


def test_bot_streams_do_not_depend_on_the_batch():
    """A world plays the same alone and in a batch with other bots."""
    scenarios = [RPSScenario(bot=b, noise=0.2, seed=i) for i, b in enumerate(BOTS)]
    batch = sim.init_state(sim.Params(), len(scenarios))
    alone = [sim.init_state(sim.Params(), 1) for _ in scenarios]
    for i, s in enumerate(scenarios):
        sim.load(batch, i, s)
        sim.load(alone[i], 0, s)
    rng = np.random.default_rng(1)
    for _ in range(60):
        moves = rng.integers(3, size=len(scenarios))
        bots = sim.bot_moves(batch)
        sim.play(batch, moves, bots)
        for i, state in enumerate(alone):
            bot = sim.bot_moves(state)
            assert bot[0] == bots[i], BOTS[i]
            sim.play(state, moves[i : i + 1], bot)


def test_refusals():
    env = RPSPopulationEnv()
    env.reset(seed=0)
    for bad in (3, -1, 1.0, None, np.array([1, 2])):
        with pytest.raises(InvalidActionError):
            env.step(bad)
    with pytest.raises(ScenarioError):
        RPSScenario(bot="nobody")
    with pytest.raises(ScenarioError):
        env.reset(options={"scenario": "rock"})


def test_generator():
    check_generator(RPSPopulationGenerator(max_noise=0.1))
    assert {RPSPopulationGenerator(bots=list(OOD_BOTS)).sample(s).bot for s in range(50)} == set(OOD_BOTS)


def test_docstring_example():
    assert doctest.testmod(env_module, raise_on_error=True).failed == 0


@registered
def test_conformance():
    check_env(ENV_ID, steps=300, strict=True)
    check_vector_matches_single(ENV_ID, num_envs=8, steps=300)
    check_vector_matches_single(ENV_ID, num_envs=4, steps=150, autoreset_mode=AutoresetMode.SAME_STEP)
    import gymnasium as gym

    check_pickle(gym.make(ENV_ID), strict=True)
