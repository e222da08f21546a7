"""Keyboard play: get_keys_to_action on the grid worlds, and gymnasium.utils.play driven headless by key events."""

from __future__ import annotations

import gymnasium as gym
import pytest

pygame = pytest.importorskip("pygame", reason="needs extra render: pip install 'benchmarkzoo[render]'")

from gymnasium.utils.play import play  # noqa: E402  (imports pygame)

import benchmarkzoo  # noqa: E402
from benchmarkzoo.envs.gridworld.maze import env as maze_env  # noqa: E402
from benchmarkzoo.envs.gridworld.maze_keys import env as maze_keys_env  # noqa: E402
from benchmarkzoo.envs.gridworld.treasure import env as treasure_env  # noqa: E402
from benchmarkzoo.generators.grids import MOVES  # noqa: E402

GRIDS = {
    "benchmarkzoo/Maze-v0": maze_env,
    "benchmarkzoo/MazeKeys-v0": maze_keys_env,
    "benchmarkzoo/MO-Treasure-v0": treasure_env,
}
EXPECTED_MOVE = {"up": (-1, 0), "right": (0, 1), "down": (1, 0), "left": (0, -1)}
KEY_OF = {"up": (ord("w"), pygame.K_UP), "right": (ord("d"), pygame.K_RIGHT), "down": (ord("s"), pygame.K_DOWN)}
KEY_OF["left"] = (ord("a"), pygame.K_LEFT)


def test_every_single_agent_grid_world_has_the_mapping():
    grids = {s.id for s in benchmarkzoo.list_envs(family="gridworld")}
    assert grids == set(GRIDS)  # a new grid world gets keys too (or a reason here)


@pytest.mark.parametrize("env_id", sorted(GRIDS))
def test_the_mapping_agrees_with_the_action_table(env_id):
    env = gym.make(env_id)
    mapping = env.get_wrapper_attr("get_keys_to_action")()
    names = GRIDS[env_id].ACTION_NAMES
    assert env.action_space == gym.spaces.Discrete(len(names))
    for action, name in enumerate(names):
        assert tuple(MOVES[action]) == EXPECTED_MOVE[name]  # the table the simulator moves by
        assert {keys for keys, a in mapping.items() if a == action} == {(code,) for code in KEY_OF[name]}
    assert all(action in env.action_space for action in mapping.values()) and len(mapping) == 8


def test_play_walks_the_maze_with_the_keys_pressed():
    """``play`` headless (SDL's dummy driver): after each step the callback releases the key and presses the next."""
    keys = [pygame.K_RIGHT, ord("s"), ord("a"), pygame.K_UP, ord("d")]
    env = gym.make("benchmarkzoo/Maze-v0", render_mode="rgb_array")
    steps, positions = [], []

    def press_next(obs_before, obs, action, reward, terminated, truncated, info):
        steps.append(action)
        positions.append(tuple(env.unwrapped.state.pos[0].tolist()))
        if len(steps) >= 2:
            pygame.event.post(pygame.event.Event(pygame.KEYUP, key=keys[len(steps) - 2]))
        following = keys[len(steps) - 1] if len(steps) <= len(keys) else None
        event = (
            pygame.event.Event(pygame.QUIT) if following is None else pygame.event.Event(pygame.KEYDOWN, key=following)
        )
        pygame.event.post(event)

    play(env, callback=press_next, seed=3, fps=240, noop=2)  # the first step, before any key is down, is the noop
    env.close()
    assert steps == [2, 1, 2, 3, 0, 1]
    reference = gym.make("benchmarkzoo/Maze-v0")
    reference.reset(seed=3)
    walked = []
    for action in steps:
        reference.step(action)
        walked.append(tuple(reference.unwrapped.state.pos[0].tolist()))
    assert positions == walked and len(set(walked)) > 1  # play stepped exactly these moves, and some moved
