"""What every multi-agent env view shares: one batch-of-one simulator behind PettingZoo's ParallelEnv.

The views differ in their simulators, spaces, rewards and infos; the episode plumbing is the same:
the env's own generator (seeded like Gymnasium's ``Env.reset``), the scenario drawn from it or
passed in ``options``, one space object for every agent, and lazy rendering of world 0.

Misuse is refused here for every view: a seed that is not a non-negative int (Gymnasium's rule),
``reset``/``step``/``render`` after ``close()``, a ``reset`` option key that looks like a misspelt
known one (``"senario"``). Other unknown keys pass: PettingZoo's own ``parallel_api_test`` resets
with ``options={"options": 1}``, so a conforming ``ParallelEnv`` must accept keys it does not read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar, NoReturn

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv
from typing_extensions import override

from benchmarkzoo.core.config import keyword
from benchmarkzoo.core.errors import ClosedEnvError, ResetNeededError
from benchmarkzoo.core.options import check_options
from benchmarkzoo.core.seeding import check_seed, np_random
from benchmarkzoo.envs.configured import ConfiguredView


def _refusing_when_closed(step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` preceded by the closed check (one attribute read), so no view repeats it."""

    @functools.wraps(step)
    def guarded(self: ParallelEnvView, actions: Any) -> Any:
        if self._closed:
            self._refuse_closed("step")
        return step(self, actions)

    guarded.refuses_closed = True  # type: ignore[attr-defined]  # a marker on the function, read in __init_subclass__
    return guarded


def _refusing_before_reset(step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` preceded by the closed, reset and ended checks (two attribute reads) of a configured view."""

    @functools.wraps(step)
    def guarded(self: ParallelEnvView, actions: Any) -> Any:
        if self._closed or not self.agents:
            self._refuse_step()
        return step(self, actions)

    guarded.refuses_closed = True  # type: ignore[attr-defined]  # a marker on the function, read in __init_subclass__
    return guarded


class ParallelEnvView(ConfiguredView, ParallelEnv):
    """Base of the multi-agent views.

    A view that sets ``config_type`` (its env's :class:`~benchmarkzoo.core.config.EnvConfig`) is
    constructed with the config's fields, ``max_cycles`` and ``render_mode``
    (:mod:`benchmarkzoo.envs.configured`): this constructor then checks them, names the agents
    (the config's ``possible_agents``), and the view builds its spaces and simulator state
    (``sim_state``, ``_observation_space``, ``_action_space``) in :meth:`_setup`. Its ``step`` is
    refused before ``reset``, once every agent has finished and after ``close``. A view without a
    config sets all of these in its own ``__init__`` (``self.scenario = self._rng =
    self._renderer = None`` first) and refuses a step before reset itself. Both implement
    :meth:`_make_renderer` (or :meth:`_render_frame`) when they render.
    """

    #: The keys ``reset(options=...)`` reads; near misses of them are refused (see the module docstring).
    reset_options: ClassVar[tuple[str, ...]] = ("scenario",)
    #: What the messages call an agent ("robot" in Navigation).
    agent_noun: ClassVar[str] = "agent"
    _closed = False
    agents: list[str] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "refuses_closed", False):
            cls.step = (_refusing_before_reset if cls.config_type is not None else _refusing_when_closed)(step)

    @classmethod
    def _trailing_parameters(cls) -> tuple[Any, ...]:
        limit = cls.config_type.time_limit if cls.config_type is not None else None
        return (keyword("max_cycles", limit, "int"), keyword("render_mode", None, "str | None"))

    def _configured_init(self, *args: Any, **kwargs: Any) -> None:
        own = self._configure(args, kwargs)
        agents = self.config.possible_agents(self.params)
        ParallelEnvView.__init__(self, self.generator, self.params, agents, own["max_cycles"], own["render_mode"])
        self._setup()

    def __init__(
        self, generator: Any, params: Any, possible_agents: list[str], max_cycles: int, render_mode: str | None
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"{self.env_id}: render_mode must be one of {self.metadata['render_modes']} or None; "
                f"got {render_mode!r}."
            )
        if not isinstance(max_cycles, int | np.integer) or isinstance(max_cycles, bool) or max_cycles < 1:
            raise ValueError(f"{self.env_id}: max_cycles must be a positive integer; got {max_cycles!r}.")
        self.generator = generator
        self.params = params
        self.max_cycles = int(max_cycles)
        self.render_mode = render_mode
        self.possible_agents = list(possible_agents)
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.agents = []
        self.num_steps = 0
        self.scenario: Any = None
        self._rng: np.random.Generator | None = None
        self._renderer: Any = None

    # ---- reset of a configured view ------------------------------------------------------------

    #: The simulator module of the default :meth:`_load` (``load(state, world, scenario, params)``).
    sim: Any = None

    @override
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reseed, choose the scenario, load it and return every agent's first observation and info."""
        self._load(self._next_scenario(seed, options, self._check_scenario))
        self.agents = list(self.possible_agents)
        self.num_steps = 0
        if self.render_mode == "human":
            self.render()
        return self._observations(self.agents), self._reset_infos()

    def _load(self, scenario: Any) -> None:
        """Load ``scenario`` into the simulator's world 0: ``sim.load(sim_state, 0, scenario, params)``."""
        self.sim.load(self.sim_state, 0, scenario, self.params)

    def _observations(self, agents: list[str]) -> dict[str, Any]:
        """The observations of ``agents``, fresh arrays."""
        raise NotImplementedError

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        """Every agent's info of the first step (empty by default)."""
        return {agent: {} for agent in self.agents}

    def _refuse_step(self) -> None:
        if self._closed:
            self._refuse_closed("step")
        if self.scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before step().")
        raise ResetNeededError(
            f"{self.env_id}: every {self.agent_noun} has finished; call reset() to start a new episode."
        )

    @override
    def observation_space(self, agent: str) -> Any:
        """Every agent's observation space: one object, as PettingZoo requires."""
        return self._observation_space

    @override
    def action_space(self, agent: str) -> Any:
        """Every agent's action space: one object, so seeding it seeds every agent's samples."""
        return self._action_space

    def _next_scenario(self, seed: int | None, options: dict[str, Any] | None, check: Callable[[Any], Any]) -> Any:
        """Reseed like ``gymnasium.Env.reset`` and set :attr:`scenario`: ``options["scenario"]`` or a fresh draw."""
        if self._closed:
            self._refuse_closed("reset")
        seed = check_seed(self.env_id, seed)
        checked = check_options(self.env_id, options, self.reset_options, near_misses_only=True)
        if seed is not None or self._rng is None:
            self._rng = np_random(seed)
        scenario = checked.get("scenario")
        self.scenario = check(scenario) if scenario is not None else self.generator(self._rng)
        return self.scenario

    def _end_step(self, acting: list[str], terminations: dict[str, bool], limit: bool) -> dict[str, bool]:
        """Return the step's truncations and set :attr:`agents` to those still alive after it.

        On the time-limit step every agent that acted is truncated, one that terminated on that
        same step included (its termination stays ``True``): Gymnasium's ``TimeLimit`` convention.
        So the last step of every episode has ``all(truncations.values())`` or
        ``all(terminations.values())``, the test by which RLlib's ``ParallelPettingZooEnv`` sets
        ``__all__``; a mix of the two (some agents arriving exactly at the limit) would leave it
        stepping an env with no agents. Termination still marks the agents that reached a terminal
        state, which learners must not bootstrap past.

        Args:
            acting: the agents that acted on this step (``agents`` before it).
            terminations: this step's terminations, one per agent of ``acting``.
            limit: this step is the episode's ``max_cycles``-th.
        """
        if limit:
            self.agents = []
            return dict.fromkeys(acting, True)
        self.agents = [agent for agent in acting if not terminations[agent]]
        return dict.fromkeys(acting, False)

    #: Keys of the episode metrics (:meth:`_episode_metrics`) added to every agent's info when an episode ends.
    metric_keys: ClassVar[tuple[str, ...]] = ()

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        """World 0's episode metrics, ``(1,)`` arrays keyed by :attr:`metric_keys`."""
        return {}

    def _finish_step(
        self,
        acting: list[str],
        observations: dict[str, Any],
        rewards: dict[str, Any],
        terminations: dict[str, bool],
        infos: dict[str, dict[str, Any]],
        limit: bool,
    ) -> tuple[dict, dict, dict, dict, dict]:
        """The end of every ``step``: truncations (:meth:`_end_step`), episode metrics, human rendering."""
        truncations = self._end_step(acting, terminations, limit)
        if not self.agents and self.metric_keys:
            metrics = self._episode_metrics()
            summary = {key: metrics[key][0].item() for key in self.metric_keys}
            for agent in acting:
                infos[agent].update(summary)
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _make_renderer(self) -> Any:
        raise NotImplementedError

    def _render_frame(self) -> Any:
        """The frame of the current state; by default ``renderer.draw(sim_state, 0)`` of a lazy renderer."""
        if self._renderer is None:
            self._renderer = self._make_renderer()
        return self._renderer.draw(self.sim_state, 0)

    @override
    def render(self) -> np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn(f"{self.env_id}: render() called without a render_mode; pass render_mode='rgb_array'.")
            return None
        if self._closed:
            self._refuse_closed("render")
        if self.scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before render().")
        return self._render_frame()

    @override
    def close(self) -> None:
        """Release the renderer; safe to call twice. The env refuses ``reset``, ``step`` and ``render`` after it."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self._closed = True

    def _refuse_closed(self, method: str) -> NoReturn:
        raise ClosedEnvError(
            f"{self.env_id}: {method}() called after close(); a closed env has released its simulator. "
            "Make a new env (benchmarkzoo.make_parallel) to keep going."
        )
