"""``benchmarkzoo/MO-Beach-v0``: the beach problem domain's PettingZoo ``ParallelEnv`` (one world)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer, one_of
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.beach import sim
from benchmarkzoo.envs.multiagent.beach.generator import BeachGenerator, BeachScenario
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

#: Keys added to every agent's info on the episode's last step.
METRIC_KEYS = ("global_capacity", "global_mixture")


class BeachConfig(EnvConfig):
    """The arguments of MO-Beach-v0 (both forms), read by both views and the bounds; see :class:`MOBeachEnv`."""

    generator: str | Generator = "beach/random"
    generator_kwargs: dict[str, Any] | None = None
    num_timesteps: int = arg(default=1, check=integer(1, 100))
    reward_mode: str = arg(default="individual", check=one_of(sim.REWARD_MODES))

    generator_type: ClassVar[type] = BeachGenerator
    generator_needs: ClassVar[str] = "a beach generator"
    time_limit: ClassVar[int] = 100

    @override
    def sim_params(self, generator: BeachGenerator, env_id: str) -> sim.Params:
        return sim.Params(
            num_agents=generator.num_agents,
            num_sections=generator.num_sections,
            capacity=generator.capacity,
            num_types=generator.num_types,
            num_timesteps=self.num_timesteps,
            reward_mode=self.reward_mode,
        )

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> BeachScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` has this env's agents, sections, capacity and types."""
        shape = (params.num_agents, params.num_sections, params.capacity, params.num_types)
        if (
            not isinstance(scenario, BeachScenario)
            or (
                scenario.num_agents,
                scenario.num_sections,
                scenario.capacity,
                scenario.num_types,
            )
            != shape
        ):
            raise ScenarioError(
                f"{env_id} was made for {params.num_agents} agents of {params.num_types} types on "
                f"{params.num_sections} sections of capacity {params.capacity}; options['scenario'] is "
                f"{scenario!r:.80}. Make the env with a generator of that shape, or pass a matching BeachScenario."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete]:
    """One agent's observation space (MOMAland's ``(5,)`` layout) and action space."""
    high = np.array(
        [params.num_types - 1, params.num_sections - 1, params.capacity, params.num_agents, 1.0], dtype=np.float32
    )
    return spaces.Box(np.zeros(5, dtype=np.float32), high, dtype=np.float32), spaces.Discrete(len(sim.MOVES))


def mo_reward_space(params: sim.Params) -> spaces.Box:
    """One agent's reward space: capacity in ``[0, c / e]`` (``S c / e`` for team rewards), mixture in ``[0, 1 / T]``.

    ``x exp(-x / c)`` peaks at ``x = c``; the rarest of ``T`` types is at most ``1 / T`` of a section.
    """
    peak = params.capacity / np.e * (params.num_sections if params.reward_mode == "team" else 1)
    high = np.array([peak, 1.0 / params.num_types], dtype=np.float32)
    return spaces.Box(np.zeros(2, dtype=np.float32), np.nextafter(high, np.float32(np.inf)), dtype=np.float32)


class MOBeachEnv(MultiObjectiveAgents, ParallelEnvView):
    """The beach problem domain: agents spread over beach sections, trading crowding against mixing.

    ## Description

    ``N`` agents of ``T`` types (tourists, say) stand on a beach of ``S`` sections in a row, each
    of capacity ``c`` (Mannion et al., 2018; MOMAland's ``mobeach_v0``, whose defaults these are:
    100 agents, 6 sections of capacity 7, types drawn with probabilities 0.3 and 0.7, starts
    uniform). Every step each agent moves one section left or right or stays; after
    ``num_timesteps`` steps (1 by default: a one-shot congestion game) each agent is paid, in two
    objectives, for where it stands. A section is best at its capacity (too few or too many
    agents both pay less), and well mixed when its types are balanced; with 100 agents on 42
    places the team's best capacity reward crowds the excess into one section, which the agents
    in it pay for: the objectives, and the agents, pull in different directions.

    ## Action Space

    ``Discrete(3)`` per agent: 0 left, 1 stay, 2 right (clipped at the ends of the beach).

    ## Observation Space

    ``Box(0, high, (5,), float32)`` per agent, MOMAland's layout: its type, its section, the
    section's capacity, the number of agents in it, and the share of them of its own type.

    ## Rewards

    ``reward_space(agent)`` is ``Box(0, [c / e, 1 / T], (2,), float32)`` (``S c / e`` for team
    rewards); rewards are ``(2,)`` float32 arrays, zero before the last step. On the last step,
    with ``x`` the agents in a section and ``n_t`` those of type ``t``:

    | Index | Objective | ``reward_mode="individual"`` (own section) | ``"team"`` (every agent alike) |
    |---|---|---|---|
    | 0 | capacity | ``x exp(-x / c)`` | the sum of it over sections |
    | 1 | mixture | ``min_t n_t / x`` | its mean over sections (empty ones count 0) |

    ## Episode End

    * Termination: every agent on step ``num_timesteps``; its infos hold ``global_capacity`` and
      ``global_mixture`` (the team rewards of the final positions).
    * Truncation: ``max_cycles`` steps (100 in the registered spec), reached first only when
      ``num_timesteps`` is larger.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MO-Beach-v0", generator="beach/random",
                               generator_kwargs={"num_agents": 100, "num_sections": 6, "capacity": 7,
                                                 "type_distribution": [0.3, 0.7], "position_distribution": None},
                               num_timesteps=1, reward_mode="individual", max_cycles=100)
    ```

    ``reset(options={"scenario": s})`` plays the ``BeachScenario`` ``s``. The native multi-world
    form is ``benchmarkzoo.make_vec("benchmarkzoo/MO-Beach-v0", num_envs)``; the AEC form
    ``benchmarkzoo.make_aec``. The baseline (``baseline.BestResponsePolicy``) plays rounds of
    best responses to the team's equal-weight utility.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.beach.env import MOBeachEnv
    >>> from benchmarkzoo.envs.multiagent.beach.generator import BeachGenerator, BeachScenario
    >>> env = MOBeachEnv(generator=BeachGenerator(num_agents=3, num_sections=2, capacity=2))
    >>> scenario = BeachScenario(num_sections=2, capacity=2, num_types=2, types=(0, 1, 1), starts=(0, 0, 1))
    >>> _ = env.reset(seed=0, options={"scenario": scenario})
    >>> _, rewards, terminations, _, infos = env.step({"agent_0": 1, "agent_1": 1, "agent_2": 0})  # all on 0
    >>> [round(float(x), 4) for x in rewards["agent_0"]], terminations["agent_0"]  # 3 exp(-3/2), 1 of 3 is type 0
    ([0.6694, 0.3333], True)
    """

    metadata = {"name": "mo_beach_v0", "render_modes": [], "is_parallelizable": True}
    config_type = BeachConfig
    sim = sim

    metric_keys = METRIC_KEYS

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.num_agents), dtype=np.int64)

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params)

    @override
    def step(self, actions: dict[str, Any]):
        check_action_dict(self.env_id, actions, self.agents, self._index, "send 1 to stay")
        acting = list(self.agents)  # every agent: they all finish on the same step
        chosen = [actions[agent] for agent in acting]
        try:  # one array check for 100 agents; the per-agent check (and its message) only when it fails
            batch = np.asarray(chosen)
        except ValueError:
            batch = np.zeros(0)
        if (
            batch.shape != (len(acting),)
            or batch.dtype.kind not in "iu"
            or batch.min() < 0
            or batch.max() >= len(sim.MOVES)
        ):
            for agent, action in zip(acting, chosen, strict=True):
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
        self._actions[0] = chosen
        rewards, done = sim.step(self.sim_state, self._actions, self.params)
        self.num_steps += 1
        observations = self._observations(acting)
        out = dict(zip(acting, rewards[0], strict=True))  # rows of a fresh array
        terminations = dict.fromkeys(acting, bool(done[0]))
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in acting}
        return self._finish_step(acting, observations, out, terminations, infos, self.num_steps >= self.max_cycles)

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        batch = sim.observe(self.sim_state, self.params)[0]  # (N, 5), fresh; agents is always every agent
        return dict(zip(agents, batch, strict=True))
