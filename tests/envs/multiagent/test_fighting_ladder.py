"""FightingLadder-v0: the climb (a won match moves up, one not won ends the run), its infos, FightingDuel agreeing."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import benchmarkzoo  # noqa: F401  (registers the ids with Gymnasium)
from benchmarkzoo.core.errors import GeneratorArgumentError, InvalidActionError, ResetNeededError, ScenarioError
from benchmarkzoo.envs.multiagent.fighting import bots, sim
from benchmarkzoo.envs.multiagent.fighting.env import FightingDuelEnv
from benchmarkzoo.envs.multiagent.fighting.generator import (
    FightingGenerator,
    FightingScenario,
    LadderGenerator,
    LadderScenario,
)
from benchmarkzoo.envs.multiagent.fighting.ladder_env import FightingLadderEnv

ENV_ID = "benchmarkzoo/FightingLadder-v0"
CHAMPION = bots.BotPolicy("champion")
#: The longest match of the default settings: 3 rounds of 480 frames, 4 frames a step.
LONGEST_MATCH = 3 * 480 // 4


def ladder(*opponents: str) -> LadderScenario:
    """A ladder of default matches (striker against striker on the dojo), one per bot."""
    return LadderScenario(tuple(FightingScenario(opponent=name, seed=k) for k, name in enumerate(opponents)))


def public(info: dict) -> dict:
    """An info without its action mask (compared apart, as an array)."""
    return {key: value for key, value in info.items() if key != "action_mask"}


def play_match(env: FightingLadderEnv, policy) -> tuple[float, int, bool, dict]:
    """Step ``env`` with ``policy(env)`` until ``matches_won`` changes or the run ends: (return, steps, ended, info)."""
    won_before = env.run.won[0]
    total, steps = 0.0, 0
    while True:
        _, reward, terminated, truncated, info = env.step(policy(env))
        total += reward
        steps += 1
        if terminated or truncated or info["matches_won"] != won_before:
            return total, steps, terminated or truncated, info


def test_reset_starts_on_the_start_rung_with_fighting_duels_first_observation():
    env = FightingLadderEnv(start_rung=2)
    observation, info = env.reset(seed=5)
    assert public(info) == {"rung": 2, "opponent": "jumper", "matches_won": 0, "is_success": False}
    duel = FightingDuelEnv(generator=FightingGenerator(opponents=list(bots.BOTS)))
    duel_obs, duel_infos = duel.reset(options={"scenario": env.scenario.matches[2]})
    np.testing.assert_array_equal(observation, duel_obs["player_0"])
    np.testing.assert_array_equal(info["action_mask"], duel_infos["player_0"]["action_mask"])
    assert env.observation_space == duel.observation_space("player_0")
    assert env.action_space == duel.action_space("player_0")


def test_a_won_match_moves_up_a_rung_and_its_next_match_starts_on_the_same_step():
    env = FightingLadderEnv()
    second = FightingScenario(("grappler", "zoner"), "beach", gap=2400, opponent="masher", seed=7)
    env.reset(options={"scenario": LadderScenario((FightingScenario(opponent="passive"), second))})
    ret, steps, ended, info = play_match(env, CHAMPION)
    assert not ended
    assert public(info) == {"rung": 1, "opponent": "masher", "matches_won": 1, "is_success": False}
    assert ret > 2.0  # two rounds won (+1 each) and damage dealt to a bot that never blocks
    assert steps < LONGEST_MATCH  # by knock-out, not on time
    # the world now holds a fresh match of the second rung
    state = env.state
    assert state.wins[0].tolist() == [0, 0] and state.round[0] == 0 and not state.done[0]
    assert state.opponent[0] == bots.BOTS.index("masher")
    assert state.char[0].tolist() == [2, 1] and state.width[0] == 7200  # grappler, zoner; the beach


def test_a_lost_match_ends_the_run_on_the_step_it_ends():
    env = FightingLadderEnv(start_rung=bots.BOTS.index("champion") - 1)  # the blocker, then the champion
    env.reset(seed=3)
    ret, steps, ended, info = play_match(env, lambda env: 0)  # stands still: the blocker walks in and throws
    assert steps < LONGEST_MATCH  # knocked out twice
    assert ended
    assert public(info) == {"rung": 8, "opponent": "blocker", "matches_won": 0, "is_success": False}
    assert ret < -2.0
    assert env.state.wins[0, 1] == 2
    with pytest.raises(ResetNeededError, match="the episode has ended"):
        env.step(0)


def test_a_drawn_match_ends_the_run():
    # neither fighter moves: every round ends on time with full health, a draw; after three the match is over 0-0
    env = FightingLadderEnv()
    env.reset(options={"scenario": ladder("passive", "masher")})
    ret, steps, ended, info = play_match(env, lambda env: 0)
    assert ended and steps == LONGEST_MATCH and ret == 0.0
    assert public(info) == {"rung": 0, "opponent": "passive", "matches_won": 0, "is_success": False}


def test_winning_the_top_rung_clears_the_ladder():
    env = FightingLadderEnv(generator_kwargs={"bots": ["champion", "passive"]}, start_rung=1)
    _, info = env.reset(seed=0)
    assert public(info) == {"rung": 1, "opponent": "passive", "matches_won": 0, "is_success": False}
    _, _, ended, info = play_match(env, CHAMPION)
    assert ended
    assert public(info) == {"rung": 1, "opponent": "passive", "matches_won": 1, "is_success": True}


def test_the_champion_climbs_rung_by_rung_through_the_registered_ladder():
    env = gym.make(ENV_ID)
    _, info = env.reset(seed=0)
    rungs = [info["rung"]]
    while True:
        _, _, terminated, truncated, info = env.step(CHAMPION(env))
        if info["rung"] != rungs[-1]:
            rungs.append(info["rung"])
        if terminated or truncated:
            break
    # every rung in order; this seed's run is cleared (champion against champion included)
    assert rungs == list(range(len(bots.BOTS)))
    assert info["matches_won"] == len(bots.BOTS) and info["is_success"] and terminated and not truncated


def test_each_match_equals_fighting_duel_with_that_bot_in_seat_1_step_by_step():
    env = FightingLadderEnv(generator_kwargs={"bots": ["masher", "zoner", "rushdown"]})
    observation, info = env.reset(seed=11)
    duel = FightingDuelEnv(generator=FightingGenerator(opponents=list(bots.BOTS)))
    rng = np.random.default_rng(0)
    matches = 0
    ended = False
    while not ended:
        duel_obs, duel_infos = duel.reset(options={"scenario": env.scenario.matches[info["rung"]]})
        np.testing.assert_array_equal(observation, duel_obs["player_0"])
        np.testing.assert_array_equal(info["action_mask"], duel_infos["player_0"]["action_mask"])
        while True:
            # the champion with a random action one step in five: both matches are played, and lost sometimes
            action = int(rng.integers(sim.NUM_ACTIONS)) if rng.random() < 0.2 else CHAMPION(env)
            observation, reward, ended, _, info = env.step(action)
            duel_obs, duel_rewards, duel_terms, _, duel_infos = duel.step({"player_0": action})
            assert reward == duel_rewards["player_0"]
            if duel_terms["player_0"]:
                if ended:  # the run's last observation is the duel's; after a win it is the next match's first
                    np.testing.assert_array_equal(observation, duel_obs["player_0"])
                break
            np.testing.assert_array_equal(observation, duel_obs["player_0"])
            np.testing.assert_array_equal(info["action_mask"], duel_infos["player_0"]["action_mask"])
            assert not ended
        matches += 1
        won = duel_infos["player_0"]["won"] == 1.0
        assert info["matches_won"] == matches - (not won)
        assert ended == (not won or matches == 3)
    assert matches >= 2  # a rung was climbed, so the loaded next match was compared too


def test_a_seed_determines_the_ladder_and_the_run():
    def rollout(seed: int) -> tuple[str, list]:
        env = FightingLadderEnv()
        observation, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        trace = [(observation, public(info))]
        for _ in range(300):
            observation, reward, terminated, _, info = env.step(int(rng.integers(sim.NUM_ACTIONS)))
            trace.append((observation, reward, public(info)))
            if terminated:
                break
        return env.scenario.content_hash, trace

    first, again, other = rollout(4), rollout(4), rollout(5)
    assert first[0] == again[0] == LadderGenerator().sample(4).content_hash
    assert first[0] != other[0]
    for a, b in zip(first[1], again[1], strict=True):
        np.testing.assert_equal(a, b)


def test_the_generator_draws_one_match_per_bot_in_order():
    scenario = LadderGenerator(bots=["zoner", "passive"], characters=["grappler"], stages=["bridge"], pairs="all")
    drawn = scenario.sample(0)
    assert drawn.bots == ("zoner", "passive")
    assert {m.characters for m in drawn.matches} == {("grappler", "grappler")}
    assert {m.stage for m in drawn.matches} == {"bridge"}
    assert drawn.matches[0].seed != drawn.matches[1].seed  # each rung's bot has its own random stream
    assert LadderScenario.from_dict(drawn.to_dict()) == drawn


def test_gymnasiums_env_checker_passes():
    check_env(FightingLadderEnv(), skip_render_check=True)
    check_env(gym.make(ENV_ID).unwrapped, skip_render_check=True)


def test_the_native_vector_form_runs_the_champion_as_the_single_env_does():
    vector = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point")
    single = [FightingLadderEnv() for _ in range(2)]
    _, infos = vector.reset(seed=8)
    for i, env in enumerate(single):
        env.reset(seed=8 + i)
    assert infos["opponent"].tolist() == ["passive", "passive"] and infos["rung"].tolist() == [0, 0]
    for _ in range(500):
        actions = CHAMPION(vector)
        assert actions.tolist() == [CHAMPION(env) for env in single]
        _, rewards, _, _, infos = vector.step(actions)
        for i, env in enumerate(single):
            _, reward, _, _, info = env.step(int(actions[i]))
            assert rewards[i] == reward
            assert (infos["rung"][i], infos["opponent"][i]) == (info["rung"], info["opponent"])
    assert (infos["rung"] >= 2).all()  # the champion is two rungs up in both worlds


# ---- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("generator_kwargs", "message"),
    [
        ({"bots": ["passive", "boxer"]}, r"bots must be a non-empty list of distinct names from \['passive', "),
        ({"bots": ["passive", "passive"]}, "bots must be a non-empty list of distinct names"),
        ({"bots": []}, "bots must be a non-empty list of distinct names"),
        ({"opponents": ["passive"]}, r"the ladder's opponents are its bots.*Pass bots=\[\.\.\.\]"),
        ({"stage": ["dojo"]}, r"unknown argument\(s\) \['stage'\]; it takes bots and \['characters', 'stages'"),
        ({"pairs": "odd"}, "pairs must be 'train', 'ood' or 'all'"),
    ],
)
def test_bad_generator_arguments_say_what_is_allowed(generator_kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        gym.make(ENV_ID, generator_kwargs=generator_kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start_rung": 10}, r"start_rung must be an integer in \[0, 9\]; got 10"),
        ({"start_rung": -1}, r"start_rung must be an integer in \[0, 9\]; got -1"),
        ({"start_rung": 1.0}, r"start_rung must be an integer in \[0, 9\]; got 1.0"),
        (
            {"start_rung": 2, "generator_kwargs": {"bots": ["passive", "champion"]}},
            r"start_rung must be a rung of the ladder, 0 \.\. 1 for bots \['passive', 'champion'\]; got 2",
        ),
    ],
)
def test_a_start_rung_off_the_ladder_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=f"{ENV_ID}: {message}"):
        gym.make(ENV_ID, **kwargs)


def test_bad_scenarios_and_actions_are_refused():
    env = FightingLadderEnv(start_rung=1)
    with pytest.raises(ScenarioError, match="options\\['scenario'\\] must be a LadderScenario"):
        env.reset(options={"scenario": FightingScenario(opponent="passive")})
    with pytest.raises(ScenarioError, match="starts on rung 1; options\\['scenario'\\] has only 1 rung"):
        env.reset(options={"scenario": ladder("passive")})
    with pytest.raises(ScenarioError, match="each with its rung's bot as opponent"):
        LadderScenario((FightingScenario(),))
    with pytest.raises(ScenarioError, match="non-empty sequence"):
        LadderScenario(())
    env.reset(options={"scenario": ladder("passive", "masher")})
    with pytest.raises(InvalidActionError, match="Discrete\\(54\\)"):
        env.step(54)
