"""``benchmarkzoo/Foraging-v0`` and ``MO-Foraging-v0``: PettingZoo ``ParallelEnv`` views on the Foraging simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer, number
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.foraging import sim
from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator, ForagingScenario
from benchmarkzoo.envs.multiagent.objectives import REWARD_DTYPE, MultiObjectiveAgents
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

ACTION_NAMES = sim.ACTION_NAMES
#: Keys added to every agent's info on the step its world's episode ends.
METRIC_KEYS = ("food_collected", "all_collected")


class ForagingConfig(EnvConfig):
    """The arguments of Foraging-v0 (both forms); see :class:`ForagingEnv`."""

    generator: str | Generator = "foraging/random"
    generator_kwargs: dict[str, Any] | None = None
    view_radius: int = arg(default=2, check=integer(1, 8))
    load_penalty: float = arg(default=0.0, check=number(0.0, expected="a finite number >= 0"))

    generator_type: ClassVar[type] = ForagingGenerator
    generator_needs: ClassVar[str] = "a Foraging generator"
    time_limit: ClassVar[int] = 50

    @override
    def sim_params(self, generator: ForagingGenerator, env_id: str) -> sim.Params:
        return sim.Params(
            height=generator.height,
            width=generator.width,
            num_agents=generator.num_agents,
            num_food=generator.num_food,
            max_agent_level=generator.max_agent_level,
            food_scale=generator.food_level_bound,
            num_food_types=generator.num_food_types,
            view_radius=self.view_radius,
            load_penalty=self.load_penalty,
        )

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> ForagingScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` fits this env (size, counts, level and type ranges)."""
        fits = (
            isinstance(scenario, ForagingScenario)
            and (scenario.height, scenario.width) == (params.height, params.width)
            and scenario.num_agents == params.num_agents
            and scenario.num_food == params.num_food
            and int(scenario.agent_levels.max()) <= params.max_agent_level
            and int(scenario.food_levels.max()) <= params.food_scale
            and int(scenario.food_types.max()) < params.num_food_types
        )
        if not fits:
            raise ScenarioError(
                f"{env_id} was made for {params.height}x{params.width} grids with {params.num_agents} agents of "
                f"level <= {params.max_agent_level}, {params.num_food} food items of level <= {params.food_scale} "
                f"and {params.num_food_types} food type(s); options['scenario'] is {scenario!r:.80}. Make the env "
                "with a generator of that shape, or pass a matching ForagingScenario."
            )
        return scenario


class MOForagingConfig(ForagingConfig):
    """The arguments of MO-Foraging-v0 (both forms): Foraging-v0's without the scalar load penalty."""

    # A variant fixes a base argument as a ClassVar (core/config.py, default_of): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    load_penalty: ClassVar[float] = 0.0  # type: ignore[misc]  # one objective per food type, no penalty


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete]:
    """One agent's observation and action spaces."""
    size = params.view_size
    observation_space = spaces.Box(0.0, 1.0, shape=(params.num_channels, size, size), dtype=np.float32)
    return observation_space, spaces.Discrete(len(ACTION_NAMES))


class ForagingEnv(ParallelEnvView):
    """Level-based foraging: agents with levels collect food items that need enough of them at once.

    ## Description

    ``N`` agents and ``M`` food items lie on an open grid, in the spirit of LBF (Papoudakis et
    al., "Benchmarking Multi-Agent Deep Reinforcement Learning Algorithms in Cooperative
    Tasks", 2021). Every agent and every food item has a level. Agents gather food by standing
    next to it and choosing ``load`` on the same step: the item is collected only if the levels
    of all the agents loading it add up to at least its level, so strong food needs a team.
    Each reset draws a new instance from the generator (``"foraging/random"``): agent levels
    ``1..max_agent_level``, food levels up to the whole team's total (every item can be
    collected), food never on the border or next to other food. With
    ``generator_kwargs={"cooperative": True}`` every food level exceeds the highest agent
    level: no item can ever be collected alone (LBF's ``force_coop``).

    Moves are simultaneous (see :mod:`benchmarkzoo.envs.multiagent.foraging.sim`): a move
    succeeds if its target is on the grid and was empty (no agent, no food) at the start of the
    step, and no other agent targets the same cell; otherwise the agent stays.

    ## Action Space

    ``Discrete(6)`` per agent:

    | Num | Action |
    |-----|--------|
    | 0   | none |
    | 1   | up (row - 1) |
    | 2   | right (col + 1) |
    | 3   | down (row + 1) |
    | 4   | left (col - 1) |
    | 5   | load (every food item in the 4-neighbourhood) |

    ``step`` takes a dict with exactly one action per agent in ``env.agents``. An unknown name,
    a missing agent or an agent whose episode is over raises ``InvalidAgentError``; an action
    outside ``Discrete(6)`` (float, out of range, array, ``None``) raises ``InvalidActionError``.

    ## Observation Space

    ``Box(0, 1, (3, V, V), float32)`` per agent, ``V = 2r + 1``, the agent at the centre
    (LBF's grid observation): channel 0 agent levels / ``max_agent_level`` (this agent
    included), channel 1 food levels / the generator's highest food level, channel 2 ``1`` off
    the grid. ``MO-Foraging-v0`` adds channel 3, food ``(type + 1) / num_food_types``.

    ## Rewards

    When an item of level ``F`` is collected by loading agents of total level ``L``, each of
    them gets ``level * F / (L * total food level of the scenario)`` (LBF's normalized reward):
    a team that collects everything earns 1.0 in total. A load that collects nothing costs
    ``load_penalty`` (0 by default).

    ## Episode End

    * Termination: every agent terminates on the step the last food item is collected.
    * Truncation: after ``max_cycles`` steps (50 in the registered spec, as in LBF), also when
      the last item is collected on that step (then every agent is terminated and truncated).
    * On the step the episode ends, every agent's info gets ``food_collected`` (fraction of
      the items collected) and ``all_collected``.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/Foraging-v0", generator="foraging/random",
                               generator_kwargs={"height": 8, "width": 8, "num_agents": 3, "num_food": 4,
                                                 "max_agent_level": 3, "cooperative": False},
                               view_radius=2, load_penalty=0.0, max_cycles=50, render_mode=None)
    ```

    * ``generator``: ``"foraging/random"`` or a ``ForagingGenerator``; ``generator_kwargs`` are
      its arguments (grid size, ``num_agents``, ``num_food``, levels, ``cooperative``).
    * ``view_radius``: ``r`` (LBF's ``sight``).
    * ``reset(options={"scenario": s})`` plays the given ``ForagingScenario``.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The native multi-world form
    is ``benchmarkzoo.make_vec("benchmarkzoo/Foraging-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.foraging.vector_env.ForagingVectorEnv`).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import numpy as np
    >>> from benchmarkzoo.envs.multiagent.foraging.env import ForagingEnv
    >>> from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator, ForagingScenario
    >>> scenario = ForagingScenario(height=5, width=5, agent_pos=[[1, 1], [1, 3]], agent_levels=[1, 2],
    ...                             food_pos=[[1, 2]], food_levels=[3], food_types=[0])
    >>> env = ForagingEnv(generator=ForagingGenerator(height=5, width=5, num_agents=2, num_food=1))
    >>> observations, infos = env.reset(seed=0, options={"scenario": scenario})
    >>> observations["agent_0"].shape
    (3, 5, 5)
    >>> _, rewards, terminations, _, infos = env.step({"agent_0": 5, "agent_1": 0})  # level 1 < 3: too weak
    >>> rewards["agent_0"], terminations["agent_0"]
    (0.0, False)
    >>> _, rewards, terminations, _, infos = env.step({"agent_0": 5, "agent_1": 5})  # 1 + 2 >= 3
    >>> round(rewards["agent_0"], 4), round(rewards["agent_1"], 4), terminations["agent_0"]
    (0.3333, 0.6667, True)
    >>> infos["agent_0"]["all_collected"]
    True
    """

    metadata = {
        "name": "foraging_v0",
        "render_modes": ["rgb_array", "human"],
        "render_fps": 8,
        "is_parallelizable": True,
    }
    config_type = ForagingConfig
    sim = sim

    metric_keys = METRIC_KEYS

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.num_agents), dtype=np.int64)

    @override
    def step(self, actions: dict[str, Any]):
        self._check_agents(actions)
        acting = list(self.agents)
        for agent in acting:
            action = actions[agent]
            if type(action) is not int or not 0 <= action < len(ACTION_NAMES):  # plain ints skip the generic check
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            self._actions[0, self._index[agent]] = action
        rewards, typed, done = sim.step(self.sim_state, self._actions, self.params)
        self.num_steps += 1
        over = bool(done[0])
        limit = self.num_steps >= self.max_cycles
        observations = self._observations(acting)
        out_rewards = self._rewards(acting, rewards, typed)
        terminations = {agent: over for agent in acting}
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in acting}
        return self._finish_step(acting, observations, out_rewards, terminations, infos, limit)

    def _rewards(self, acting: list[str], rewards: np.ndarray, typed: np.ndarray) -> dict[str, Any]:
        return {agent: float(rewards[0, self._index[agent]]) for agent in acting}

    def _check_agents(self, actions: Any) -> None:
        check_action_dict(self.env_id, actions, self.agents, self._index, "send 0 to do nothing")

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        batch = sim.observe(self.sim_state, self.params)[0]  # (N, C, V, V), fresh
        return {agent: batch[self._index[agent]] for agent in agents}

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.foraging.render import ForagingRenderer

        return ForagingRenderer(self.params, self.render_mode, self.metadata["render_fps"])


def mo_reward_space(params: sim.Params, dtype: np.dtype) -> spaces.Box:
    """One agent's reward space in ``MO-Foraging``: one objective per food type, each in ``[0, 1]``."""
    return spaces.Box(0.0, 1.0, shape=(params.num_food_types,), dtype=dtype.type)


class MOForagingEnv(MultiObjectiveAgents, ForagingEnv):
    """Multi-objective level-based foraging: one reward per food type (MOMAland-style ``moma`` kind).

    ## Description

    ``Foraging-v0``'s world and rules, with food items of ``num_food_types`` types (2 in the
    registered spec, drawn uniformly). Each agent's reward is a vector with one entry per type:
    the ``Foraging-v0`` reward of the items of that type it helped collect. A team that collects
    every item earns, summed over agents and objectives, 1.0; how a policy trades one type for
    another is the multi-objective question. Observations have a fourth channel, food
    ``(type + 1) / num_food_types``. There is no load penalty (an objective per food type
    leaves no natural place for it).

    ## Rewards

    ``reward_space(agent)`` is ``Box(0, 1, (T,), float64)``; rewards are ``(T,)`` float64 arrays.
    For a scalar reward, wrap the env in :class:`~benchmarkzoo.wrappers.LinearScalarization` (one
    weight vector for every agent, or one per agent), or pass weights to the SB3 adapter (``scalarize=``).

    ## Arguments

    As ``Foraging-v0``, without ``load_penalty``; ``generator_kwargs["num_food_types"]`` sets ``T``
    (2..4).

    ## Version History

    * v1: float32 rewards and reward space (:class:`MOForagingV1Env`; MOMAland's dtype), same values
      rounded to float32. v0's float64 failed MOMAland's ``api_test``, whose AEC sums are float32.
    * v0: Initial version (float64 rewards; kept for the results that cite it, e.g. suite ``moma-v1``).

    ## Example

    >>> from benchmarkzoo.envs.multiagent.foraging.env import MOForagingEnv
    >>> from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator, ForagingScenario
    >>> scenario = ForagingScenario(height=5, width=5, agent_pos=[[1, 1], [3, 3]], agent_levels=[1, 1],
    ...                             food_pos=[[1, 2], [3, 2]], food_levels=[1, 1], food_types=[0, 1])
    >>> env = MOForagingEnv(generator=ForagingGenerator(height=5, width=5, num_agents=2, num_food=2,
    ...                                                 num_food_types=2))
    >>> _ = env.reset(seed=0, options={"scenario": scenario})
    >>> env.reward_space("agent_0")
    Box(0.0, 1.0, (2,), float64)
    >>> _, rewards, _, _, _ = env.step({"agent_0": 5, "agent_1": 0})
    >>> rewards["agent_0"].tolist(), rewards["agent_1"].tolist()
    ([0.5, 0.0], [0.0, 0.0])
    """

    metadata = {**ForagingEnv.metadata, "name": "mo_foraging_v0"}
    config_type = MOForagingConfig
    reward_dtype: ClassVar[np.dtype] = np.dtype(np.float64)  # v0's, frozen: MOForagingV1Env has MOMAland's float32

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params, self.reward_dtype)

    def _rewards(self, acting: list[str], rewards: np.ndarray, typed: np.ndarray) -> dict[str, Any]:
        return {agent: typed[0, self._index[agent]].astype(self.reward_dtype) for agent in acting}


class MOForagingV1Env(MOForagingEnv):
    """``benchmarkzoo/MO-Foraging-v1``: :class:`MOForagingEnv` with float32 rewards (MOMAland's dtype).

    World, rules, objectives and baseline are v0's; each reward is v0's rounded to float32, and
    ``reward_space(agent)`` is ``Box(0, 1, (T,), float32)``.

    >>> import benchmarkzoo
    >>> env = benchmarkzoo.make_parallel("benchmarkzoo/MO-Foraging-v1")
    >>> env.reward_space("agent_0")
    Box(0.0, 1.0, (2,), float32)
    """

    metadata = {**ForagingEnv.metadata, "name": "mo_foraging_v1"}
    reward_dtype = REWARD_DTYPE
