"""RPSSelfPlay-v0: zero-sum payoffs, mirrored observations, the same dynamics as RPSPopulation-v0, trembles,
refusals, the generator and scenario set, the baseline in self-play, the vector form."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import (
    GeneratorArgumentError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.envs.multiagent.rps import env as env_module
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.baseline import PatternMatchingPolicy
from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv, RPSSelfPlayEnv
from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario, RPSSelfPlayGenerator, RPSSelfPlayScenario
from benchmarkzoo.envs.multiagent.rps.vector_env import RPSSelfPlayVectorEnv
from benchmarkzoo.testing import check_generator, check_parallel_env, check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/RPSSelfPlay-v0"
ROCK, PAPER, SCISSORS = range(3)
PURE = RPSSelfPlayScenario(noise=0.0, seed=0)
AGENTS = ("player_0", "player_1")

registered = pytest.mark.skipif(
    ENV_ID not in {s.id for s in registration.list_envs()}, reason="RPSSelfPlay-v0 is not registered yet"
)


def pure_env(**kwargs) -> RPSSelfPlayEnv:
    env = RPSSelfPlayEnv(**kwargs)
    env.reset(seed=0, options={"scenario": PURE})
    return env


def play(env: RPSSelfPlayEnv, move0: int, move1: int):
    return env.step({"player_0": move0, "player_1": move1})


# ---- the game -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move0", "move1", "reward0"),
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
def test_rewards_are_zero_sum_rps(move0, move1, reward0):
    env = pure_env()
    _, rewards, terminations, truncations, infos = play(env, move0, move1)
    assert rewards == {"player_0": reward0, "player_1": -reward0 + 0.0}
    assert str(rewards["player_1"]) != "-0.0"  # a draw is a plain zero for both
    assert terminations == truncations == {"player_0": False, "player_1": False}
    assert infos["player_0"]["move"] == infos["player_1"]["opponent_move"] == move0
    assert infos["player_1"]["move"] == infos["player_0"]["opponent_move"] == move1


def test_score_and_exploitability_over_a_match():
    env = pure_env()
    moves = [(ROCK, SCISSORS), (ROCK, PAPER), (ROCK, ROCK), (PAPER, ROCK)]  # win, loss, draw, win for player_0
    returns = {"player_0": 0.0, "player_1": 0.0}
    for move0, move1 in moves:
        _, rewards, _, _, infos = play(env, move0, move1)
        for agent, r in rewards.items():
            returns[agent] += r
    assert returns == {"player_0": 1.0, "player_1": -1.0}
    assert env.sim_state.wins[0].tolist() == [2, 1] and env.sim_state.t[0] == 4
    # The follow-the-leader n-gram responder (rock guessed where nothing is known, the first
    # responder on tied scores). player_0 played R, R, R, P: every responder guesses rock each
    # round and wins the three rocks, then draws the paper: 3 / 4.
    assert infos["player_0"]["exploitability"] == 0.75
    # player_1 played S, P, R, R. Round 1: rock guessed, paper loses to S (-1). Round 2: leader
    # own-0 (all tied) guesses S, plays rock, loses to P (-1). Round 3: leader own-1 (its unseen
    # context after S: rock guessed, paper drew P) guesses rock, beats R (+1). Round 4: own-1
    # again, its context after R unseen, guesses rock, beats R (+1). Total 0. Every responder's
    # own total: own-0 -2 (its guesses S, paper, rock), own-1 +1, own-2 0, own-3 -2, pair-1 +1, pair-2 0.
    assert infos["player_1"]["exploitability"] == 0.0
    np.testing.assert_array_equal(sim.responder_returns(env.sim_state, 1)[0], [-0.5, 0.25, 0.0, -0.5, 0.25, 0.0])


def test_observations_mirror_each_other():
    env = pure_env(history=2)
    observations, _ = env.reset(seed=0, options={"scenario": PURE})
    assert observations["player_0"].tolist() == observations["player_1"].tolist() == [0.0] * 12
    play(env, ROCK, PAPER)
    observations, *_ = play(env, SCISSORS, ROCK)
    assert observations["player_0"].tolist() == [0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0]
    assert observations["player_1"].tolist() == [1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0]
    rng = np.random.default_rng(3)
    for _ in range(50):
        observations, *_ = play(env, int(rng.integers(3)), int(rng.integers(3)))
        rounds0 = observations["player_0"].reshape(2, 2, 3)  # (round, own / other, move)
        np.testing.assert_array_equal(observations["player_1"].reshape(2, 2, 3), rounds0[:, ::-1])


@pytest.mark.parametrize("bot", ["cycle_double", "markov_pair", "meta_predictor", "switcher", "regret_matching"])
def test_population_and_self_play_agree_when_player_1_plays_the_bot(bot):
    """Same dynamics: replaying a bot's moves as player_1 reproduces the population env round for round."""
    population = RPSPopulationEnv()
    pop_obs, _ = population.reset(seed=0, options={"scenario": RPSScenario(bot=bot, noise=0.2, seed=11)})
    self_play = pure_env(max_cycles=120)
    rng = np.random.default_rng(7)
    for _ in range(120):
        move = int(rng.integers(3))
        pop_obs, pop_reward, _, _, pop_info = population.step(move)
        observations, rewards, _, _, infos = play(self_play, move, pop_info["bot_move"])
        np.testing.assert_array_equal(observations["player_0"], pop_obs)
        assert rewards["player_0"] == pop_reward and rewards["player_1"] == -pop_reward + 0.0
        assert infos["player_0"]["exploitability"] == pop_info["exploitability"]
    for name in ("counts", "trans", "pair", "two", "wins", "hist"):  # every statistic the bots read
        np.testing.assert_array_equal(getattr(self_play.sim_state, name), getattr(population.state, name), name)


def test_truncation_after_max_cycles_then_reset_needed():
    env = RPSSelfPlayEnv(max_cycles=3)
    env.reset(seed=0)
    for _ in range(2):
        _, _, _, truncations, _ = play(env, ROCK, ROCK)
        assert truncations == {"player_0": False, "player_1": False}
    _, _, terminations, truncations, _ = play(env, ROCK, ROCK)
    assert truncations == {"player_0": True, "player_1": True} and not any(terminations.values())
    assert env.agents == []
    with pytest.raises(ResetNeededError, match="call reset"):
        play(env, ROCK, ROCK)
    assert benchmarkzoo.make_parallel(ENV_ID).max_cycles == 100


# ---- trembles -----------------------------------------------------------------------------------


def test_trembles_replace_moves_at_the_scenario_rate_and_replay_exactly():
    def played(noise: float, seed: int, rounds: int = 100) -> np.ndarray:
        """``(rounds, 2)`` moves as played when player_0 always chooses rock and player_1 paper."""
        env = RPSSelfPlayEnv(max_cycles=rounds)
        env.reset(options={"scenario": RPSSelfPlayScenario(noise=noise, seed=seed)})
        infos = [play(env, ROCK, PAPER)[4] for _ in range(rounds)]
        return np.array([[info["player_0"]["move"], info["player_1"]["move"]] for info in infos])

    assert (played(0.0, 5) == [ROCK, PAPER]).all()
    # noise 0.3: a tremble draws a uniform move, so 0.3 * 2/3 = 0.2 of the moves change
    moves = played(0.3, 5, 3000)
    changed = (moves != [ROCK, PAPER]).mean(axis=0)
    assert np.all(np.abs(changed - 0.2) < 0.03), changed
    changed_together = ((moves[:, 0] != ROCK) & (moves[:, 1] != PAPER)).mean()
    assert abs(changed_together - 0.04) < 0.015  # the players' hands tremble independently
    np.testing.assert_array_equal(played(0.5, 9), played(0.5, 9))  # the scenario fixes the trembles
    assert (played(0.5, 9) != played(0.5, 10)).any()


def test_trembles_do_not_touch_a_population_world_and_rewards_follow_moves_as_played():
    state = sim.init_state(sim.Params(), 2)
    sim.load(state, 0, RPSScenario(bot="rock", noise=1.0, seed=1))  # the bot's own noise lives in bot_moves
    sim.load(state, 1, RPSSelfPlayScenario(noise=1.0, seed=1))
    chosen = np.array([[ROCK, ROCK], [ROCK, ROCK]])
    trembled = sim.tremble(state, chosen)
    assert trembled[0].tolist() == [ROCK, ROCK]
    env = RPSSelfPlayEnv()
    env.reset(options={"scenario": RPSSelfPlayScenario(noise=1.0, seed=1)})
    _, rewards, _, _, infos = play(env, ROCK, ROCK)
    assert [infos["player_0"]["move"], infos["player_1"]["move"]] == trembled[1].tolist()
    assert rewards["player_0"] == float(sim.payoff(trembled[1, 0], trembled[1, 1]))


# ---- refusals -----------------------------------------------------------------------------------


def test_refusals():
    env = RPSSelfPlayEnv()
    with pytest.raises(ResetNeededError, match="call reset"):
        play(env, ROCK, ROCK)
    env.reset(seed=0)
    for bad in (3, -1, 1.0, None, "rock", np.array([1, 2])):
        with pytest.raises(InvalidActionError, match="player_1"):
            env.step({"player_0": ROCK, "player_1": bad})
    with pytest.raises(InvalidAgentError, match="no action for live agent"):
        env.step({"player_0": ROCK})
    with pytest.raises(InvalidAgentError, match="unknown agent 'player_2'"):
        env.step({"player_0": ROCK, "player_1": ROCK, "player_2": ROCK})
    with pytest.raises(InvalidAgentError, match="dict of actions"):
        env.step([ROCK, ROCK])
    with pytest.raises(ScenarioError, match="RPSSelfPlayScenario"):
        env.reset(options={"scenario": RPSScenario(bot="rock")})
    with pytest.raises(ScenarioError):
        RPSSelfPlayScenario(noise=1.5)
    with pytest.raises(ScenarioError):
        RPSSelfPlayScenario(seed=-1)
    with pytest.raises(GeneratorArgumentError, match="max_noise"):
        RPSSelfPlayGenerator(max_noise=2.0)
    with pytest.raises(ScenarioError, match=r"self-play generator .* or an RPS population generator"):
        RPSSelfPlayEnv(generator="maze/dfs")
    for kwargs, match in (
        ({"history": 0}, "history"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"render_mode": "ansi"}, "render_mode"),
    ):
        with pytest.raises(ValueError, match=match):
            RPSSelfPlayEnv(**kwargs)
    assert play(env, ROCK, PAPER)[1]["player_1"] == 1.0  # the refusals left the env usable


def test_vector_refusals():
    vec = RPSSelfPlayVectorEnv(num_envs=2)
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"shape \(2, 2\)"):
        vec.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(InvalidActionError, match="world 1, agent 'player_0' sent 3"):
        vec.step(np.array([[0, 0], [3, 0]]))
    with pytest.raises(InvalidActionError, match="integer array"):
        vec.step(np.zeros((2, 2)))


# ---- generator, scenario set, baseline, vector form, docs ----------------------------------------


def test_generator():
    hashes = check_generator(RPSSelfPlayGenerator(max_noise=0.1))
    assert len(set(hashes.values())) == 20
    noises = [RPSSelfPlayGenerator(max_noise=0.3).sample(s).noise for s in range(200)]
    assert 0.0 <= min(noises) < 0.02 and 0.28 < max(noises) <= 0.3
    assert {RPSSelfPlayGenerator().sample(s).noise for s in range(20)} == {0.0}


@registered
def test_scenario_set_verifies_and_plays():
    scenario_set = scenario_sets.load_set("multiagent/rps-self-play")
    assert scenario_set.env == ENV_ID and set(scenario_set.splits) >= {"train", "test", "ood"}
    assert scenario_sets.verify(scenario_set) == []
    test = scenario_set.split("test")
    env = benchmarkzoo.make_parallel(ENV_ID)
    env.reset(seed=test.seeds[0])
    assert env.scenario.content_hash == test.hashes[test.seeds[0]]


def test_baseline_plays_both_seats():
    env = pure_env()
    policy = PatternMatchingPolicy()
    rewards = [env.step(policy(env))[1] for _ in range(50)]
    assert all(r == {"player_0": 0.0, "player_1": 0.0} for r in rewards)  # it mirrors itself: all draws
    # against a constant player_0 the baseline's player_1 wins from the second round on
    env = pure_env()
    rewards = [play(env, ROCK, policy(env)["player_1"])[1]["player_1"] for _ in range(30)]
    assert rewards[1:] == [1.0] * 29


def test_vector_world_equals_parallel_env_with_baseline_actions():
    vec = RPSSelfPlayVectorEnv(num_envs=3, generator_kwargs={"max_noise": 0.3}, max_cycles=40)
    pars = [RPSSelfPlayEnv(generator_kwargs={"max_noise": 0.3}, max_cycles=40) for _ in range(3)]
    obs, _ = vec.reset(seed=5)
    for i, par in enumerate(pars):
        p_obs, _ = par.reset(seed=5 + i)
        np.testing.assert_array_equal(obs[i, 1], p_obs["player_1"])
    policy = PatternMatchingPolicy()
    for _ in range(40):
        actions = policy(vec)
        assert actions.shape == (3, 2)
        obs, rewards, _, truncations, infos = vec.step(actions)
        np.testing.assert_array_equal(rewards.sum(axis=1), 0.0)
        for i, par in enumerate(pars):
            p_obs, p_rewards, _, p_truncs, p_infos = par.step({a: int(actions[i, k]) for k, a in enumerate(AGENTS)})
            assert [p_rewards[a] for a in AGENTS] == rewards[i].tolist()
            assert [p_infos[a]["move"] for a in AGENTS] == infos["move"][i].tolist()
            assert [p_truncs[a] for a in AGENTS] == truncations[i].tolist()
            np.testing.assert_array_equal(obs[i, 0], p_obs["player_0"])
    assert truncations.all()


@registered
def test_registered_env_passes_the_parallel_checks():
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID), seed=1, steps=250, strict=True)
    summary = check_parallel_vector_matches_single(ENV_ID, num_envs=3, steps=250, seed=2)
    assert summary["episodes_ended"] >= 6


def test_docstring_examples():
    failures, tried = doctest.testmod(env_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def _rollout_digests(rounds: int = 200) -> tuple[str, str]:
    """sha256 of a batched rollout (every bot, noiseless and 30% noisy, and self-play worlds with
    trembles): of its moves, rewards and observations, and of its exploitability."""
    import hashlib

    from benchmarkzoo.envs.multiagent.rps.generator import BOTS

    worlds = [RPSScenario(bot=b, noise=0.0, seed=i) for i, b in enumerate(BOTS)]
    worlds += [RPSScenario(bot=b, noise=0.3, seed=100 + i) for i, b in enumerate(BOTS)]
    worlds += [RPSSelfPlayScenario(noise=0.1 * k, seed=7 + k) for k in range(6)]
    state = sim.init_state(sim.Params(), len(worlds))
    for i, scenario in enumerate(worlds):
        sim.load(state, i, scenario)
    bots = np.array([isinstance(s, RPSScenario) for s in worlds])
    rng = np.random.default_rng(0)
    dynamics, exploitability = hashlib.sha256(), hashlib.sha256()
    for _ in range(rounds):
        moves = rng.integers(3, size=(len(worlds), 2))
        moves[bots, 1] = sim.bot_moves(state)[bots]
        moves = sim.tremble(state, moves)
        rewards = sim.play(state, moves[:, 0], moves[:, 1])
        for part in (moves, rewards, sim.observe(state, 0), sim.observe(state, 1)):
            dynamics.update(np.ascontiguousarray(part).tobytes())
        exploitability.update(np.ascontiguousarray(sim.exploitability(state, None)).tobytes())
    return dynamics.hexdigest(), exploitability.hexdigest()


def test_dynamics_are_pinned():
    """Any change to the rules, the bots or the trembles changes the first digest: bump both envs' -vN.

    The second pins the sequence-aware exploitability (``responders.py``), which replaced the
    best response to move frequencies without changing the first.
    """
    dynamics, exploitability = _rollout_digests()
    assert dynamics == "ea709833ed6e5d64f7c3b94d8ef4ab5d0b4fae5a1629591026d9fb9d8eb8cd1b"
    assert exploitability == "05dd12339e34b16cc214de079657ca3fd6c5930611de750f07c9095201765b09"


# ---- the scored form: player_0 against the scenario's bot (a population generator) ----------------


def test_a_population_generator_makes_player_0_the_only_agent():
    env = RPSSelfPlayEnv(generator="rps/population")
    assert env.possible_agents == ["player_0"]
    observations, infos = env.reset(seed=0, options={"scenario": RPSScenario(bot="rock")})
    assert env.agents == ["player_0"] and list(observations) == list(infos) == ["player_0"]
    observations, rewards, terminations, truncations, infos = env.step({"player_0": PAPER})
    assert rewards == {"player_0": 1.0} and list(terminations) == list(truncations) == ["player_0"]
    assert infos == {"player_0": {"move": PAPER, "opponent_move": ROCK, "exploitability": 0.0}}
    with pytest.raises(InvalidAgentError, match="unknown agent 'player_1'"):
        env.step({"player_0": ROCK, "player_1": ROCK})
    with pytest.raises(ScenarioError, match="must be an RPSScenario"):
        env.reset(options={"scenario": PURE})
    with pytest.raises(ScenarioError, match="needs generator='rps/population'"):
        pure_env().reset(options={"scenario": RPSScenario(bot="rock")})


@pytest.mark.parametrize("bot", ["cycle_double", "markov_pair", "meta_predictor", "regret_matching"])
def test_the_scored_form_plays_the_population_env_round_for_round(bot):
    scenario = RPSScenario(bot=bot, noise=0.2, seed=5)
    population, seat = RPSPopulationEnv(), RPSSelfPlayEnv(generator="rps/population", max_cycles=100)
    pop_obs, _ = population.reset(seed=0, options={"scenario": scenario})
    observations, _ = seat.reset(seed=0, options={"scenario": scenario})
    rng = np.random.default_rng(2)
    for _ in range(100):
        move = int(rng.integers(3))
        pop_obs, pop_reward, _, _, pop_info = population.step(move)
        observations, rewards, _, _, infos = seat.step({"player_0": move})
        np.testing.assert_array_equal(observations["player_0"], pop_obs)
        assert rewards == {"player_0": pop_reward}
        assert infos["player_0"]["opponent_move"] == pop_info["bot_move"]
        assert infos["player_0"]["exploitability"] == pop_info["exploitability"]
    assert not seat.agents


def test_the_scored_form_passes_the_parallel_checks_and_its_vector_form_matches():
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, generator="rps/population"), seed=1, steps=250)
    summary = check_parallel_vector_matches_single(ENV_ID, num_envs=3, steps=250, seed=2, generator="rps/population")
    assert summary["episodes_ended"] >= 6
    vec = RPSSelfPlayVectorEnv(4, generator="rps/population")
    observations, _ = vec.reset(seed=0)
    assert observations.shape == (4, 1, 30) and vec.possible_agents == ["player_0"]
    _, rewards, _, _, infos = vec.step(PatternMatchingPolicy()(vec))
    assert rewards.shape == infos["move"].shape == infos["exploitability"].shape == (4, 1)


def test_the_scored_form_has_one_agent_bounds():
    from benchmarkzoo.envs.multiagent.rps.bounds import self_play_bounds

    assert self_play_bounds({"generator": "rps/population"}, 100).agents == 1
    assert self_play_bounds({"generator": "rps/population"}, 100).team is None
    assert self_play_bounds({"generator": "rps/self-play"}, 100).agents == 2
