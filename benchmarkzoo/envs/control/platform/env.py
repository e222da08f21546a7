"""``benchmarkzoo/Platform-v0``: the single-agent Gymnasium view on the Platform simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, number
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.control.platform import sim
from benchmarkzoo.envs.control.platform.generator import PlatformGenerator, PlatformScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator


class PlatformConfig(EnvConfig):
    """The arguments of Platform-v0 (both forms); see :class:`PlatformEnv`."""

    generator: str | Generator = "platform/gaps"
    generator_kwargs: dict[str, Any] | None = None
    goal_reward: float = arg(default=1.0, check=number(0.0))

    generator_type: ClassVar[type] = PlatformGenerator
    generator_needs: ClassVar[str] = "a platform generator"
    time_limit: ClassVar[int] = 50

    @override
    def sim_params(self, generator: PlatformGenerator, env_id: str) -> sim.Params:
        return sim.Params(num_platforms=generator.num_platforms, goal_reward=self.goal_reward)

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> PlatformScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a course of this env's number of platforms."""
        if not isinstance(scenario, PlatformScenario) or scenario.num_platforms != params.num_platforms:
            raise ScenarioError(
                f"{env_id} was made for courses of {params.num_platforms} platforms; options['scenario'] is "
                f"{scenario!r:.80}. Make the env with generator_kwargs={{'num_platforms': ...}} to match, or pass "
                "a matching PlatformScenario."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Dict]:
    """The single-world observation and action spaces."""
    observation_space = spaces.Box(0.0, 1.0, shape=(sim.OBS_SIZE,), dtype=np.float32)
    action_space = spaces.Dict(
        {
            "move": spaces.Discrete(len(sim.MOVE_NAMES)),
            "power": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
        }
    )
    return observation_space, action_space


class PlatformEnv(SingleAgentEnvView):
    """Cross a row of platforms and gaps with parameterized moves: a discrete move type and a continuous power.

    ## Description

    A course is a line of platforms separated by gaps (Masson, Ranchod and Konidaris 2016,
    "Reinforcement learning with parameterized actions": their Platform domain has the same
    action structure). The agent starts at 0 on the first platform and must land on the last
    (the goal). Each step it makes one move: it chooses *which* move (run, hop or leap) and *how
    hard* (a power in ``[0, 1]``). The two parts matter together: a run never crosses a gap but
    is the only fine positioning; a hop reaches from 0.5 to 2.0 ahead; a leap from 2.0 to 4.0, so
    it clears the wide gaps but overshoots short platforms. Each reset draws a new course from the
    scenario generator (``"platform/gaps"``: platform lengths in ``[1, 3]``, gaps in ``[0.5, 3]``).

    ## Action Space

    ``Dict({"move": Discrete(3), "power": Box(0, 1, (1,), float32)})``; the distance covered is
    ``low + power * (high - low)``:

    | move | name | distance ``[low, high]`` | lands |
    |------|------|--------------------------|-------|
    | 0    | run  | ``[0.0, 1.0]``           | only on the platform it started on (past its edge: a fall) |
    | 1    | hop  | ``[0.5, 2.0]``           | on any platform, else in a gap (a fall) |
    | 2    | leap | ``[2.0, 4.0]``           | on any platform, else in a gap (a fall) |

    Anything not in the space (a missing key, a float move, a power outside ``[0, 1]``, float64
    powers) raises ``InvalidActionError``. Stable-Baselines3 trains on array action spaces only:
    ``benchmarkzoo.adapters.sb3.make_vec_env`` trains this one through
    :class:`~benchmarkzoo.wrappers.hybrid.HybridActionCodec` (a ``Box`` of one score per move
    and the power).

    ## Observation Space

    ``Box(0, 1, (6,), float32)``: distances ahead of the agent divided by 8 and clipped to
    ``[0, 1]``: to the current platform's edge, to the next platform's start and end, to the one
    after's start and end (past the goal platform: 1), and the progress ``x / goal``.

    ## Rewards

    A move that lands pays its progress ``(x' - x) / goal`` (capped at the goal platform's start,
    so progress sums to at most 1) and ``goal_reward`` (1.0) on landing on the goal platform. A
    fall pays 0. A successful episode returns ``1 + goal_reward``.

    ## Episode End

    * Termination: the agent lands on the goal platform (``info["is_success"]``) or falls.
    * Truncation: ``max_episode_steps`` steps (50 in the registered spec).

    ## Arguments

    ```python
    gym.make("benchmarkzoo/Platform-v0", generator="platform/gaps", generator_kwargs={"num_platforms": 5},
             goal_reward=1.0, render_mode=None)
    ```

    * ``generator``: a registered generator name (``"platform/gaps"``) or a ``PlatformGenerator``;
      ``generator_kwargs`` its arguments (``num_platforms``, ``platform_length``, ``gap``).
    * ``reset(options={"scenario": s})`` plays the given ``PlatformScenario``.

    * ``render_mode``: ``"rgb_array"`` (the course, the agent and its last move's arc: a run along the
      ground, a hop or leap as a parabola) or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/Platform-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape
    (6,)
    >>> obs, reward, terminated, truncated, info = env.step({"move": 0, "power": np.array([0.5], np.float32)})
    >>> terminated, round(float(env.unwrapped.state.x[0]), 3)
    (False, 0.5)
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 4}
    config_type = PlatformConfig
    params: sim.Params

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        self.state = sim.init_state(self.params, 1)

    def _make_renderer(self):
        from benchmarkzoo.envs.control.platform.render import PlatformRenderer

        return PlatformRenderer(self.render_mode, self.metadata["render_fps"])

    def _load(self, scenario: PlatformScenario) -> tuple[np.ndarray, dict[str, Any]]:
        self.scenario = scenario
        sim.load(self.state, 0, scenario, self.params)
        return sim.observe(self.state)[0], {"is_success": False}

    def _step(self, action: Any):
        check_action(self.env_id, self.action_space, action)
        moves = np.array([int(action["move"])], dtype=np.int64)
        powers = np.asarray(action["power"], dtype=np.float32).reshape(1).astype(np.float64)
        rewards, terminated, success = sim.step(self.state, moves, powers, self.params)
        done, won = bool(terminated[0]), bool(success[0])
        return sim.observe(self.state)[0], float(rewards[0]), done, False, {"is_success": won}
