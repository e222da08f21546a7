"""Rendering of RPSPopulation-v0 and RPSSelfPlay-v0: deterministic scoreboards that change with the moves."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.core.errors import ResetNeededError
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.multiagent.rps import render
from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv, RPSSelfPlayEnv
from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario, RPSSelfPlayScenario
from benchmarkzoo.envs.multiagent.rps.vector_env import RPSPopulationVectorEnv, RPSSelfPlayVectorEnv
from benchmarkzoo.testing import check_env

pytestmark = pytest.mark.skipif(
    not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'"
)
ROCK, PAPER, SCISSORS = range(3)


def population_frame(moves: list[int], bot: str = "rock", history: int = 5) -> np.ndarray:
    env = RPSPopulationEnv(history=history, render_mode="rgb_array")
    env.reset(seed=0, options={"scenario": RPSScenario(bot=bot)})
    for move in moves:
        env.step(move)
    frame = env.render()
    env.close()
    return frame


def self_play_frame(moves: list[tuple[int, int]]) -> np.ndarray:
    env = RPSSelfPlayEnv(render_mode="rgb_array")
    env.reset(seed=0, options={"scenario": RPSSelfPlayScenario()})
    for move0, move1 in moves:
        env.step({"player_0": move0, "player_1": move1})
    frame = env.render()
    env.close()
    return frame


def row_tint(frame: np.ndarray, k: int) -> tuple[int, ...]:
    """The tint of the ``k``-th most recent round's row, read near its left edge."""
    return tuple(frame[render.HEADER + k * render.ROW + 6, 8].tolist())


def test_population_frames_are_deterministic_and_follow_the_moves():
    frame = population_frame([PAPER, ROCK, SCISSORS])
    assert frame.shape == (render.HEADER + 5 * render.ROW + 8, render.WIDTH, 3) and frame.dtype == np.uint8
    np.testing.assert_array_equal(frame, population_frame([PAPER, ROCK, SCISSORS]))
    assert not np.array_equal(frame, population_frame([PAPER, ROCK, PAPER]))  # another last move
    assert not np.array_equal(frame, population_frame([PAPER, ROCK, SCISSORS], bot="markov"))  # another name
    # against rock: scissors lost (most recent row), rock drew, paper won; no fourth round yet
    tints = [row_tint(frame, k) for k in range(4)]
    assert tints == [render.LOSS, render.DRAW, render.WIN, render.FLOOR]


def test_population_frame_before_any_round_is_the_bare_scoreboard():
    frame = population_frame([])
    body = frame[render.HEADER :]
    assert (body == render.FLOOR).all()  # no round rows yet
    assert (frame[: render.HEADER] != render.FLOOR).any(axis=-1).sum() > 100  # names and score are drawn
    assert population_frame([], history=2).shape[0] == render.HEADER + 2 * render.ROW + 8


def test_self_play_frames_are_deterministic_and_follow_the_moves():
    moves = [(ROCK, PAPER), (SCISSORS, PAPER)]
    frame = self_play_frame(moves)
    np.testing.assert_array_equal(frame, self_play_frame(moves))
    assert not np.array_equal(frame, self_play_frame([(ROCK, PAPER), (SCISSORS, ROCK)]))
    assert [row_tint(frame, k) for k in range(3)] == [render.WIN, render.LOSS, render.FLOOR]  # player_0's view
    # a scissors icon (red) in player_0's column of the latest row, a paper sheet (white) in player_1's
    centre = render.HEADER + render.ROW // 2
    left = frame[centre - 15 : centre + 15, render.LEFT_X - 15 : render.LEFT_X + 15].reshape(-1, 3)
    right = frame[centre - 15 : centre + 15, render.RIGHT_X - 15 : render.RIGHT_X + 15].reshape(-1, 3)
    assert (left == render.SCISSORS).all(axis=1).any() and not (left == render.PAPER).all(axis=1).any()
    assert (right == render.PAPER).all(axis=1).any() and not (right == render.SCISSORS).all(axis=1).any()


def test_names_show_the_bot_or_the_players():
    from benchmarkzoo.envs.multiagent.rps import sim

    state = sim.init_state(sim.Params(), 2)
    sim.load(state, 0, RPSScenario(bot="win_stay_lose_shift"))
    sim.load(state, 1, RPSSelfPlayScenario())
    assert render.player_names(state, 0) == ("agent", "bot: win_stay_lose_shift")
    assert render.player_names(state, 1) == ("player_0", "player_1")


def test_vector_frames_equal_the_single_envs():
    vec = RPSPopulationVectorEnv(num_envs=2, render_mode="rgb_array")
    vec.reset(seed=4)
    singles = [RPSPopulationEnv(render_mode="rgb_array") for _ in range(2)]
    for i, env in enumerate(singles):
        env.reset(seed=4 + i)
    for moves in ([0, 1], [2, 2]):
        vec.step(np.array(moves))
        for env, move in zip(singles, moves):
            env.step(move)
    frames = vec.render()
    assert len(frames) == 2
    for frame, env in zip(frames, singles):
        np.testing.assert_array_equal(frame, env.render())
    vec.close()

    svec = RPSSelfPlayVectorEnv(num_envs=2, render_mode="rgb_array")
    svec.reset(seed=4)
    par = RPSSelfPlayEnv(render_mode="rgb_array")
    par.reset(seed=5)
    svec.step(np.array([[0, 1], [2, 0]]))
    par.step({"player_0": 2, "player_1": 0})
    np.testing.assert_array_equal(svec.render()[1], par.render())
    svec.close()


def test_render_refusals_and_registered_metadata():
    with pytest.raises(ValueError, match="render_mode"):
        RPSPopulationEnv(render_mode="ansi")
    with pytest.raises(ValueError, match="render_mode"):
        RPSSelfPlayVectorEnv(render_mode="human")
    with pytest.raises(ResetNeededError):
        RPSPopulationEnv(render_mode="rgb_array").render()
    with pytest.raises(ResetNeededError):
        RPSSelfPlayEnv(render_mode="rgb_array").render()
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert RPSPopulationEnv(render_mode=None).render() is None
    env = gym.make("benchmarkzoo/RPSPopulation-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (render.HEADER + 5 * render.ROW + 8, render.WIDTH, 3)
    env.close()


def test_rendering_passes_gymnasium_and_pettingzoo_render_checks():
    from pettingzoo.test import render_test

    check_env("benchmarkzoo/RPSPopulation-v0", steps=120, render_mode="rgb_array", strict=True)
    render_test(lambda render_mode=None: benchmarkzoo.make_aec("benchmarkzoo/RPSSelfPlay-v0", render_mode=render_mode))
