"""FightingDuel-v0: the rules frame by frame (blocks, throws, frame data, KOs), symmetry, and the views agreeing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import benchmarkzoo
from benchmarkzoo.core.errors import InvalidActionError, ScenarioError
from benchmarkzoo.envs.multiagent.fighting import bots, sim
from benchmarkzoo.envs.multiagent.fighting import characters as ch
from benchmarkzoo.envs.multiagent.fighting.env import FightingDuelEnv
from benchmarkzoo.envs.multiagent.fighting.generator import FightingGenerator, FightingScenario
from benchmarkzoo.testing import check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/FightingDuel-v0"
A = sim.action_index
FRAME = sim.Params(frame_skip=1)  # one frame a step: the frame data is exact


def duel(scenario: FightingScenario, params: sim.Params = FRAME) -> sim.State:
    state = sim.init_state(params, 1)
    sim.load(state, 0, scenario, params)
    return state


def play(state: sim.State, p0: int, p1: int, frames: int, params: sim.Params = FRAME, hold: int | None = None):
    """Press ``p0`` and ``p1`` on the first frame, then hold their directions (or ``hold``) for ``frames - 1``."""
    total = 0.0
    for k in range(frames):
        first = np.array([[p0, p1]])
        later = first if hold is None else np.array([[hold if p0 != hold else p0, p1]])
        total += float(sim.frame(state, first if k == 0 else later, k == 0, params)[0])
    return total


def test_throw_beats_a_block_and_a_normal_is_blocked():
    scenario = FightingScenario(gap=700, offset=2350)  # seat 1 in the corner: holding back cannot walk away
    blocking = A("back", "none")
    # the straight (a mid) into a standing block: no damage, block-stun
    state = duel(scenario)
    play(state, A("neutral", "heavy"), blocking, ch.STARTUP[0, ch.STAND_HEAVY] + 1)
    assert state.health[0, 1] == 1000
    assert state.stun_kind[0, 1] == sim.BLOCK_STUN
    # the throw into the same block: its full damage, hit-stun
    state = duel(scenario)
    play(state, A("neutral", "throw"), blocking, ch.STARTUP[0, ch.THROW_SLOT] + 1)
    assert state.health[0, 1] == 1000 - ch.CHARACTERS[0].moves[ch.THROW_SLOT].damage == 880
    assert state.stun_kind[0, 1] == sim.HIT_STUN


def test_a_low_hits_a_standing_block_and_a_crouching_block_stops_it():
    low = A("down", "light")
    frames = ch.STARTUP[0, ch.CROUCH_LIGHT] + 1
    state = duel(FightingScenario(gap=650))
    play(state, low, A("back", "none"), frames)
    assert state.health[0, 1] == 1000 - 35  # the low jab's damage through a standing block
    state = duel(FightingScenario(gap=650))
    play(state, low, A("down-back", "none"), frames)
    assert state.health[0, 1] == 1000  # blocked crouching
    assert state.stun_kind[0, 1] == sim.BLOCK_STUN


def test_an_air_attack_is_high_and_beats_a_crouching_block():
    state = duel(FightingScenario(gap=900))
    sim.frame(state, np.array([[A("up-forward", "none"), A("down-back", "none")]]), True, FRAME)
    taken = False
    for _ in range(60):
        button = A("neutral", "light") if state.y[0, 0] > 700 and state.move[0, 0] < 0 else A("neutral", "none")
        sim.frame(state, np.array([[button, A("down-back", "none")]]), True, FRAME)
        taken |= state.health[0, 1] < 1000
    assert taken, "the air kick (high) went through the crouching block"


@pytest.mark.parametrize("character", range(ch.NUM_CHARACTERS), ids=ch.CHARACTER_NAMES)
@pytest.mark.parametrize(("button", "slot"), [("light", ch.STAND_LIGHT), ("heavy", ch.STAND_HEAVY)])
def test_a_move_hits_on_exactly_its_first_active_frame(character, button, slot):
    name = ch.CHARACTER_NAMES[character]
    state = duel(FightingScenario(characters=(name, "grappler"), gap=700))
    startup = int(ch.STARTUP[character, slot])
    press = A("neutral", button)
    sim.frame(state, np.array([[press, 0]]), True, FRAME)  # frame 1
    for _ in range(startup - 1):  # frames 2 .. startup: still in startup
        sim.frame(state, np.array([[press, 0]]), False, FRAME)
    assert state.health[0, 1] == 1150, f"{name}'s {button} hit before frame {startup + 1}"
    sim.frame(state, np.array([[press, 0]]), False, FRAME)  # frame startup + 1: the first active frame
    assert state.health[0, 1] == 1150 - ch.CHARACTERS[character].moves[slot].damage


def test_ko_ends_the_round_and_two_end_the_match():
    state = duel(FightingScenario(gap=700), FRAME)
    state.health[0, 1] = 30  # a jab (40) knocks out
    reward = play(state, A("neutral", "light"), 0, ch.STARTUP[0, ch.STAND_LIGHT] + 1)
    assert reward == pytest.approx(30 / 1000 + 1.0)  # the damage that was left, and the round
    assert state.wins[0].tolist() == [1, 0] and state.round[0] == 1 and not state.done[0]
    assert state.health[0].tolist() == [1000, 1000] and state.x[0].tolist() == [2650, 3350]  # back to the start
    env = FightingDuelEnv()
    env.reset(seed=0, options={"scenario": FightingScenario(gap=700)})
    for _ in range(2):
        env.sim_state.health[0, 1] = 1
        env.step({"player_0": A("neutral", "light"), "player_1": 0})
        _, rewards, terminations, truncations, infos = env.step({"player_0": 0, "player_1": 0})
    assert terminations == {"player_0": True, "player_1": True} and not any(truncations.values())
    assert env.agents == []
    assert infos["player_0"]["rounds_won"] == 2.0 and infos["player_0"]["won"] == 1.0
    assert rewards["player_0"] == pytest.approx(0.001 + 1.0) and rewards["player_1"] == -rewards["player_0"]


def test_time_out_goes_to_the_higher_health_fraction():
    params = dataclasses.replace(FRAME, round_frames=120)
    state = duel(FightingScenario(characters=("striker", "grappler"), gap=2400), params)
    state.health[0] = [500, 580]  # 0.5 of 1000 against 0.504 of 1150
    play(state, 0, 0, 120, params)
    assert state.wins[0].tolist() == [0, 1]


def test_projectiles_fly_hit_and_cancel():
    state = duel(FightingScenario(characters=("zoner", "striker"), gap=2600))
    fireball = ch.CHARACTERS[1].moves[ch.SPECIAL]
    sim.frame(state, np.array([[A("neutral", "special"), 0]]), True, FRAME)
    assert sim.action_masks(state)[0, 0, A("neutral", "special")] == 0  # busy
    for _ in range(fireball.startup):
        sim.frame(state, np.array([[0, 0]]), False, FRAME)
    assert state.proj[0, 0]
    for _ in range(60):
        sim.frame(state, np.array([[0, 0]]), False, FRAME)
    assert not state.proj[0, 0] and state.health[0, 1] == 1000 - fireball.damage
    # two fireballs meet in the middle and cancel
    state = duel(FightingScenario(characters=("zoner", "zoner"), gap=2600))
    play(state, A("neutral", "special"), A("neutral", "special"), 80)
    assert state.health[0].tolist() == [950, 950] and not state.proj[0].any()


def test_masks_follow_the_state():
    state = duel(FightingScenario(gap=2000, meter=1000))
    mask = sim.action_masks(state)[0, 0]
    assert mask.sum() == sim.NUM_ACTIONS  # full meter: everything on the ground
    sim.frame(state, np.array([[A("up", "none"), 0]]), True, FRAME)
    sim.frame(state, np.array([[A("up", "none"), 0]]), False, FRAME)
    air = sim.action_masks(state)[0, 0]
    assert air[A("neutral", "light")] == 1 and air[A("neutral", "throw")] == 0 and air[A("neutral", "super")] == 0
    assert sim.action_masks(state)[0, 1, A("neutral", "super")] == 1


def test_masked_actions_play_as_neutral_and_are_counted():
    env = FightingDuelEnv()
    env.reset(seed=0, options={"scenario": FightingScenario(gap=2000)})
    env.step({"player_0": A("neutral", "super"), "player_1": 0})  # no meter: masked
    assert env.sim_state.move[0, 0] == -1 and env.sim_state.masked[0].tolist() == [1, 0]
    with pytest.raises(InvalidActionError):
        env.step({"player_0": sim.NUM_ACTIONS, "player_1": 0})


def _mirror(state: sim.State) -> sim.State:
    """The same world seen in a mirror with the seats swapped."""
    fields = {}
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        fields[f.name] = value[:, ::-1].copy() if value.ndim == 2 else value.copy()
    width = state.width[:, None]
    fields["x"] = width - fields["x"]
    fields["proj_x"] = width - fields["proj_x"]
    for name in ("vx", "facing", "proj_vx"):
        fields[name] = -fields[name]
    return sim.State(**fields)


def test_mirror_symmetry_swaps_the_observations():
    params = sim.Params()
    generator = FightingGenerator(pairs="all", max_meter=1000)
    rng = np.random.default_rng(4)
    state = sim.init_state(params, 32)
    for i in range(32):
        sim.load(state, i, generator(rng), params)
    for _ in range(40):  # a lived-in state: moves, stun, projectiles, airborne fighters
        sim.step(state, np.stack([bots.act("champion", state, 0), bots.act("masher", state, 1)], axis=1), params)
    mirror = _mirror(state)
    obs, mirrored = sim.observe(state, params), sim.observe(mirror, params)
    np.testing.assert_array_equal(obs[:, 0], mirrored[:, 1])
    np.testing.assert_array_equal(obs[:, 1], mirrored[:, 0])
    # and the rules are symmetric: the mirrored world plays the mirrored future, exactly
    for _ in range(40):
        a = np.stack([bots.act("rushdown", state, 0), bots.act("zoner", state, 1)], axis=1)
        r = sim.step(state, a, params)
        r_mirror = sim.step(mirror, a[:, ::-1], params)
        np.testing.assert_array_equal(r, 0.0 - r_mirror)
    np.testing.assert_array_equal(sim.observe(state, params)[:, ::-1], sim.observe(mirror, params))


def test_a_mirror_match_with_mirrored_inputs_stays_even():
    env = FightingDuelEnv()
    observations, _ = env.reset(seed=0, options={"scenario": FightingScenario(gap=1600)})
    rng = np.random.default_rng(0)
    for _ in range(200):
        action = int(rng.integers(sim.NUM_ACTIONS))
        observations, rewards, terminations, truncations, _ = env.step({"player_0": action, "player_1": action})
        np.testing.assert_array_equal(observations["player_0"], observations["player_1"])
        assert rewards == {"player_0": 0.0, "player_1": 0.0}
        if any(terminations.values()) or any(truncations.values()):
            break


def test_rewards_are_zero_sum_and_bounded():
    env = benchmarkzoo.make_parallel(ENV_ID)
    env.reset(seed=3)
    total = 0.0
    while env.agents:
        actions = {a: int(bots.act("masher", env.sim_state, i)[0]) for i, a in enumerate(env.agents)}
        _, rewards, _, _, _ = env.step(actions)
        assert rewards["player_0"] == 0.0 - rewards["player_1"]
        total += rewards["player_0"]
    assert abs(total) <= 3 * 2.0


def test_pettingzoo_api_and_seed_tests():
    parallel_api_test(benchmarkzoo.make_parallel(ENV_ID), num_cycles=200)
    parallel_seed_test(lambda: benchmarkzoo.make_parallel(ENV_ID))


def test_native_vector_equals_the_parallel_env_world_by_world_against_bots():
    summary = check_parallel_vector_matches_single(
        ENV_ID, num_envs=2, steps=370, seed=5, generator_kwargs={"opponents": list(bots.BOTS)}
    )
    assert summary["episodes_ended"] > 0


def test_the_scored_form_has_one_agent_against_the_scenario_bot():
    env = benchmarkzoo.make_parallel(ENV_ID, generator_kwargs={"opponents": ["rushdown"]})
    observations, _ = env.reset(seed=0)
    assert env.possible_agents == ["player_0"] and list(observations) == ["player_0"]
    assert env.scenario.opponent == "rushdown"
    total = 0.0
    while env.agents:
        total += env.step({"player_0": 0})[1]["player_0"]
    assert total < -1.0  # standing still loses to the rush-down bot
    with pytest.raises(ScenarioError, match="opponent"):
        env.reset(options={"scenario": FightingScenario()})


def test_generator_splits_hold_out_pairs_and_stages():
    train = FightingGenerator()
    ood = FightingGenerator(pairs="ood", stages=["bridge"])
    for seed in range(50):
        a, b = train.sample(seed), ood.sample(seed)
        assert a.characters not in (("zoner", "grappler"), ("grappler", "zoner")) and a.stage != "bridge"
        assert b.characters in (("zoner", "grappler"), ("grappler", "zoner")) and b.stage == "bridge"
    with pytest.raises(ValueError, match="pairs"):
        FightingGenerator(characters=["zoner"], pairs="ood")


def test_rendering_shows_the_fight():
    pytest.importorskip("pygame", reason="needs extra render: pip install 'benchmarkzoo[render]'")
    env = FightingDuelEnv(render_mode="rgb_array")
    env.reset(seed=0, options={"scenario": FightingScenario(gap=700)})
    before = env.render()
    assert before.shape == (420, 800, 3) and before.dtype == np.uint8
    env.step({"player_0": A("neutral", "light"), "player_1": A("down", "none")})  # a jab; seat 1 crouches
    env.render()
    env.step({"player_0": 0, "player_1": A("down", "none")})  # it hits on frame 5, the second step's first
    after = env.render()
    spark = np.all(after == (255, 240, 120), axis=2)  # the hit spark's colour
    assert spark.sum() > 20 and not np.all(before == (255, 240, 120), axis=2).any()
    env.close()
