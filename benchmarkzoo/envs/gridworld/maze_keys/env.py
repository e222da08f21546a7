"""``benchmarkzoo/MazeKeys-v0``: fetch a key to open the door to the goal (the Gymnasium single env)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.gridworld.keyboard import KeyboardPlay
from benchmarkzoo.envs.gridworld.maze.env import ACTION_NAMES, MazeConfig
from benchmarkzoo.envs.gridworld.maze_keys import sim
from benchmarkzoo.envs.gridworld.maze_keys.generator import KeyDoorGenerator, MazeKeysScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

#: One read-only ``(1,)`` int64 batch per action, so a single-env step allocates no action array.
_ACTION_BATCHES = tuple(np.full(1, a, dtype=np.int64) for a in range(len(ACTION_NAMES)))
for _batch in _ACTION_BATCHES:
    _batch.setflags(write=False)


class MazeKeysConfig(MazeConfig):
    """The arguments of MazeKeys-v0 (both forms): Maze-v0's, with a key-and-door generator."""

    generator: str | Generator = "maze_keys/key_door"

    generator_type: ClassVar[type] = KeyDoorGenerator
    generator_needs: ClassVar[str] = "a key-and-door generator"
    time_limit: ClassVar[int] = 300

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> MazeKeysScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a key-and-door maze of this env's size."""
        if not isinstance(scenario, MazeKeysScenario) or scenario.shape != (params.height, params.width):
            raise ScenarioError(
                f"{env_id} was made for {params.height}x{params.width} MazeKeysScenario scenarios; "
                f"options['scenario'] is {scenario!r:.80}. Make the env with a generator of that size, or pass a "
                "matching MazeKeysScenario."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Dict, spaces.Discrete]:
    """The single-world observation and action spaces."""
    size = params.view_size
    observation_space = spaces.Dict(
        {
            "view": spaces.Box(0.0, 1.0, shape=(len(sim.CHANNELS), size, size), dtype=np.float32),
            "goal_direction": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
            "has_key": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
        }
    )
    return observation_space, spaces.Discrete(len(ACTION_NAMES))


class MazeKeysEnv(KeyboardPlay, SingleAgentEnvView):
    """Fetch the key, open the locked door, reach the goal: a maze that needs memory.

    ## Description

    The Maze-v0 task (a grid maze, an egocentric window, a compass to the goal) with a locked
    door on the way: every path from the start to the goal passes through the door, and the
    door opens only once the agent has picked up the key, which lies somewhere on the start's
    side. The compass points at the goal, not the key, and the key and door show only while
    they are in view, so a good policy remembers where it saw them. Each reset draws a new
    maze from any maze generator (``"maze/dfs"`` by default) and places the door on the
    shortest start-goal path where it cuts the goal off, then the key.

    ## Action Space

    ``Discrete(4)``: 0 up, 1 right, 2 down, 3 left, as in Maze-v0. A move into a wall, or into
    the door without the key, leaves the agent where it is.

    ## Observation Space

    ``Dict`` with

    | Key | Space | Meaning |
    |-----|-------|---------|
    | ``view`` | ``Box(0, 1, (4, V, V), float32)``, ``V = 2r+1`` | walls, goal, key, locked door; each when in view |
    | ``goal_direction`` | ``Box(-1, 1, (2,), float32)`` | ``(goal - position) / (height - 1, width - 1)`` |
    | ``has_key`` | ``Box(0, 1, (1,), float32)`` | 1 once the key is picked up |

    The agent is at the centre of the view; cells outside the map show as walls. The key shows
    until it is picked up, the locked door until the key is held.

    ## Rewards

    ``goal_reward`` (1.0) on the step that reaches the goal, ``step_reward`` (-0.01) on every
    other step; picking up the key pays nothing.

    ## Episode End

    * Termination: the agent reaches the goal (``info["is_success"]`` is ``True``).
    * Truncation: ``max_episode_steps`` steps (300 in the registered spec).

    ## Arguments

    ```python
    gym.make("benchmarkzoo/MazeKeys-v0", generator="maze_keys/key_door",
             generator_kwargs={"maze": "maze/dfs", "maze_kwargs": {"height": 11, "width": 11, "min_goal_distance": 6}},
             view_radius=2, step_reward=-0.01, goal_reward=1.0, render_mode=None)
    ```

    * ``generator_kwargs["maze"]``: any registered maze generator (``"maze/dfs"``,
      ``"maze/rooms"``, ``"maze/obstacles"``), with its arguments in ``maze_kwargs``.
    * ``reset(options={"scenario": s})`` plays the given ``MazeKeysScenario``.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The baseline
    (``benchmarkzoo.envs.gridworld.maze_keys.baseline.KeyDoorPlanner``) walks a shortest path
    to the key, through the door, to the goal: the fewest steps any policy can take.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/MazeKeys-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs["view"].shape, obs["has_key"]
    ((4, 5, 5), array([0.], dtype=float32))
    >>> scenario = env.unwrapped.scenario
    >>> scenario.key != scenario.door
    True
    >>> obs, reward, terminated, truncated, info = env.step(0)
    >>> float(reward), terminated
    (-0.01, False)
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 8}
    config_type = MazeKeysConfig

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        rewards = (self.params.step_reward, self.params.goal_reward)
        self.reward_range = (min(rewards), max(rewards))
        self.state = sim.init_state(self.params, 1)

    def _load(self, scenario: MazeKeysScenario) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self.scenario = scenario
        sim.load(self.state, 0, scenario, self.params)
        return self._observation(), {"is_success": False}

    def _step(self, action: Any):
        if type(action) is not int or not 0 <= action < len(ACTION_NAMES):  # in-range ints skip the generic check
            check_action(self.env_id, self.action_space, action)
        rewards, reached = sim.step(self.state, _ACTION_BATCHES[int(action)], self.params)
        success = bool(reached[0])
        return self._observation(), float(rewards[0]), success, False, {"is_success": success}

    def _observation(self) -> dict[str, np.ndarray]:
        return {key: value[0] for key, value in sim.observe(self.state, self.params).items()}

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze_keys.render import MazeKeysRenderer

        return MazeKeysRenderer(self.params, self.render_mode, self.metadata["render_fps"])
