"""``benchmarkzoo/MAPF-v0``: the PettingZoo ``ParallelEnv`` view on the MAPF simulator (a batch of one world)."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer, number
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.generator import (
    LifelongMapfGenerator,
    LifelongMapfScenario,
    MapfGenerator,
    MapfScenario,
)
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

ACTION_NAMES = sim.ACTION_NAMES
#: Action types checked inline (range only); anything else goes through ``check_action``.
INTEGER_TYPES = frozenset(
    {int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp, np.uintp}
)
#: Keys added to every present agent's info on the step its world's episode ends.
METRIC_KEYS = ("success_rate", "cooperative_success", "makespan", "sum_of_costs")


def mapf_params(
    generator: MapfGenerator, view_radius: int, step_reward: float, goal_reward: float, lifelong: bool
) -> sim.Params:
    """The simulator's parameters: the generator's map and agents, the view and the scalar rewards."""
    height, width = generator.shape
    goals_per_agent = cast(LifelongMapfGenerator, generator).goals_per_agent if lifelong else 0
    return sim.Params(
        height, width, generator.num_agents, view_radius, step_reward, goal_reward, lifelong, goals_per_agent
    )


class MapfConfig(EnvConfig):
    """The arguments of MAPF-v0 (both forms); see :class:`MapfEnv`."""

    generator: str | Generator = "mapf/obstacles"
    generator_kwargs: dict[str, Any] | None = None
    view_radius: int = arg(default=5, check=integer(1, 16))
    step_reward: float = arg(default=-0.01, check=number())
    goal_reward: float = arg(default=1.0, check=number())

    generator_type: ClassVar[type] = MapfGenerator
    generator_needs: ClassVar[str] = "a MAPF generator"
    time_limit: ClassVar[int] = 128
    #: Lifelong MAPF: an arrived agent gets its next goal instead of leaving.
    lifelong: ClassVar[bool] = False

    @override
    def sim_params(self, generator: MapfGenerator, env_id: str) -> sim.Params:
        return mapf_params(generator, self.view_radius, self.step_reward, self.goal_reward, self.lifelong)

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> MapfScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a MAPF instance of this env's size and agent count."""
        wanted = LifelongMapfScenario if params.lifelong else MapfScenario
        if (
            not isinstance(scenario, wanted)
            or scenario.shape != (params.height, params.width)
            or scenario.num_agents != params.num_agents
        ):
            raise ScenarioError(
                f"{env_id} was made for {params.height}x{params.width} maps with {params.num_agents} agents; "
                f"options['scenario'] is {scenario!r:.80}. Make the env with a generator of that size, or pass a "
                f"matching {wanted.__name__}."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Dict, spaces.Discrete]:
    """One agent's observation and action spaces."""
    size = params.view_size
    observation_space = spaces.Dict(
        {
            "goal_direction": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
            "view": spaces.Box(0.0, 1.0, shape=(sim.NUM_CHANNELS, size, size), dtype=np.float32),
        }
    )
    return observation_space, spaces.Discrete(len(ACTION_NAMES))


class MapfEnv(ParallelEnvView):
    """Multi-agent pathfinding on a grid: every agent must reach its own goal without collisions.

    ## Description

    ``N`` agents share a grid map with obstacles; each has a start and a goal cell. Agents move
    one cell per step, at the same time, and see only a square window around themselves, in
    the spirit of POGEMA. Each reset draws a new instance from the scenario generator: open
    maps with random obstacles (``"mapf/obstacles"``, the default), braided DFS mazes
    (``"mapf/maze"``), or a fixed MovingAI ``.map`` file with fresh starts and goals
    (``"mapf/movingai"``, ``generator_kwargs={"map_file": path}``). Starts and goals are
    ``2N`` distinct free cells and every goal is reachable from its agent's start.

    Moves are resolved together (see :mod:`benchmarkzoo.envs.multiagent.mapf.sim`):

    * a move into an obstacle or off the map is a "stay";
    * **vertex conflict**: of several agents moving into the same cell, the one with the lowest
      index (``agent_0`` first) moves and the others stay; nobody moves into a cell whose agent stays;
    * **edge (swap) conflict**: two agents that would trade cells both stay;
    * reverted moves can cause new conflicts, so the rules are applied again until none is
      left. Following an agent that moves away, and rotations of three or more, are allowed.

    An agent that reaches its goal **disappears**: it is terminated on that step (its last
    observation, reward and info are in the step's dicts) and is then removed from
    ``env.agents`` and from the grid, so it no longer blocks anyone. The episode ends when
    ``env.agents`` is empty.

    ## Action Space

    ``Discrete(5)`` per agent:

    | Num | Action |
    |-----|--------|
    | 0   | stay |
    | 1   | up (row - 1) |
    | 2   | right (col + 1) |
    | 3   | down (row + 1) |
    | 4   | left (col - 1) |

    ``step`` takes a dict with exactly one action per agent in ``env.agents``. An unknown name,
    a missing agent or an agent that has already finished raises ``InvalidAgentError``; an
    action outside ``Discrete(5)`` (float, out of range, array, ``None``) raises
    ``InvalidActionError``. Nothing is clipped.

    ## Observation Space

    ``Dict`` per agent, ``V = 2r + 1``:

    | Key | Space | Meaning |
    |-----|-------|---------|
    | ``view`` | ``Box(0, 1, (3, V, V), float32)`` | obstacles (off-map too), other agents, own goal |
    | ``goal_direction`` | ``Box(-1, 1, (2,), float32)`` | ``(goal - position) / (height - 1, width - 1)`` |

    The agent is at the centre of ``view``; channel 1 shows only agents still on the grid, and
    channel 2 this agent's goal only when it lies inside the window.

    ## Rewards

    ``goal_reward`` (1.0) on the step an agent arrives, ``step_reward`` (-0.01) on every other
    step it is on the grid.

    ## Episode End

    * Termination, per agent: the agent stands on its goal (``info["is_success"]`` is ``True``).
    * Truncation: after ``max_cycles`` steps (128 in the registered spec) every remaining agent
      is truncated; one that arrives on that step is both terminated and truncated (Gymnasium's
      ``TimeLimit`` convention), so every agent of the last step is truncated.
    * On the step the episode ends, every agent in the dicts also gets the episode's metrics:
      ``success_rate`` (fraction of agents that arrived, individual success), ``cooperative_success``
      (all arrived), ``makespan`` (step of the last arrival, or the episode length if some agent
      did not arrive) and ``sum_of_costs`` (sum of arrival steps, the episode length for agents
      that did not arrive).

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MAPF-v0", generator="mapf/obstacles",
                               generator_kwargs={"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
                               view_radius=5, step_reward=-0.01, goal_reward=1.0, max_cycles=128,
                               render_mode=None)
    ```

    * ``generator``: a registered generator name (``"mapf/obstacles"``, ``"mapf/maze"``,
      ``"mapf/movingai"``) or a ``MapfGenerator`` instance; ``generator_kwargs`` are its
      arguments (map size, ``num_agents``, density or openings, ``map_file``).
    * ``view_radius``: ``r``, how far each agent sees (POGEMA's ``obs_radius``).
    * ``max_cycles``: the time limit, in steps.
    * ``reset(options={"scenario": s})`` plays the given ``MapfScenario`` instead of drawing one.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The AEC form is
    ``benchmarkzoo.make_aec("benchmarkzoo/MAPF-v0")`` (PettingZoo's ``parallel_to_aec``); the native
    multi-world form is ``benchmarkzoo.make_vec("benchmarkzoo/MAPF-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.mapf.vector_env.MapfVectorEnv`).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.mapf.env import MapfEnv
    >>> from benchmarkzoo.envs.multiagent.mapf.generator import ObstacleMapGenerator
    >>> env = MapfEnv(generator=ObstacleMapGenerator(height=8, width=8, num_agents=2))
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents
    ['agent_0', 'agent_1']
    >>> observations["agent_0"]["view"].shape
    (3, 11, 11)
    >>> observations, rewards, terminations, truncations, infos = env.step({"agent_0": 0, "agent_1": 0})
    >>> rewards["agent_0"], terminations["agent_0"], infos["agent_0"]["is_success"]
    (-0.01, False, False)
    """

    metadata = {"name": "mapf_v0", "render_modes": ["rgb_array", "human"], "render_fps": 8, "is_parallelizable": True}
    config_type = MapfConfig
    params: sim.Params
    sim = sim
    #: Keys of the episode metrics added to the infos of the step an episode ends (the lifelong variant has its own).
    metric_keys: ClassVar[tuple[str, ...]] = METRIC_KEYS

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.state_space = spaces.Box(0.0, 1.0, shape=(3, self.params.height, self.params.width), dtype=np.float32)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.num_agents), dtype=np.int64)

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: {"is_success": False} for agent in self.agents}

    @override
    def step(self, actions: dict[str, Any]):
        self._check_agents(actions)
        acting = list(self.agents)
        index, row, n = self._index, self._actions[0], len(ACTION_NAMES)
        for agent in acting:
            action = actions[agent]
            # plain Python and numpy integers in range skip the generic check (what Discrete.contains accepts)
            if type(action) not in INTEGER_TYPES or not 0 <= action < n:
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            row[index[agent]] = action
        rewards, arrived = self._advance()
        self.num_steps += 1
        limit = self.num_steps >= self.max_cycles
        observations = self._observations(acting)
        slots = [index[agent] for agent in acting]
        reward_row = self._reward_row(rewards)
        done_row = arrived[0].tolist()
        out_rewards = {agent: reward_row[i] for agent, i in zip(acting, slots, strict=True)}
        infos = {agent: {"is_success": done_row[i]} for agent, i in zip(acting, slots, strict=True)}
        if self.params.lifelong:  # lifelong agents never leave
            terminations = dict.fromkeys(acting, False)
        else:
            terminations = {agent: done_row[i] for agent, i in zip(acting, slots, strict=True)}
        return self._finish_step(acting, observations, out_rewards, terminations, infos, limit)

    def _advance(self) -> tuple[np.ndarray, np.ndarray]:
        """Step the simulator with ``self._actions``: rewards ``(1, N, ...)`` and arrivals ``(1, N)``."""
        return sim.step(self.sim_state, self._actions, self.params)

    def _reward_row(self, rewards: np.ndarray) -> list[Any]:
        """Every agent slot's entry of :meth:`_advance`'s rewards, as the output dicts hold them."""
        return rewards[0].tolist()

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def _check_agents(self, actions: Any) -> None:
        check_action_dict(self.env_id, actions, self.agents, self._index, "send 0 to stay")

    def _observations(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        batch = sim.observe(self.sim_state, self.params)
        views, directions = list(batch["view"][0]), list(batch["goal_direction"][0])  # per-slot views
        if len(agents) == len(views):  # every agent: agents is possible_agents, in order
            return {
                agent: {"goal_direction": direction, "view": view}
                for agent, direction, view in zip(agents, directions, views, strict=True)
            }
        index = self._index
        return {agent: {"goal_direction": directions[index[agent]], "view": views[index[agent]]} for agent in agents}

    def state(self) -> np.ndarray:
        """The global state (PettingZoo's ``state()``): ``(3, H, W)`` float32 planes.

        The planes are the obstacles, the agents on the grid and their goals; see ``state_space``.
        """
        p, r = self.params, self.params.view_radius
        planes = np.zeros((3, p.height, p.width), dtype=np.float32)
        planes[0] = self.sim_state.walls[0, r : r + p.height, r : r + p.width]
        planes[1] = self.sim_state.occupant[0, r : r + p.height, r : r + p.width] >= 0
        active = self.sim_state.active[0]
        planes[2, self.sim_state.goal[0, active, 0], self.sim_state.goal[0, active, 1]] = 1.0
        return planes

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.mapf.render import MapfRenderer

        return MapfRenderer(self.params, self.render_mode, self.metadata["render_fps"])
