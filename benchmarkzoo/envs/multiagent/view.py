"""What every multi-agent env view shares: one batch-of-one simulator behind PettingZoo's ParallelEnv.

The views differ in their simulators, spaces, rewards and infos; the episode plumbing is the same:
the env's own generator (seeded like Gymnasium's ``Env.reset``), the scenario drawn from it or
passed in ``options``, one space object for every agent, and lazy rendering of world 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv

from benchmarkzoo.core.errors import ResetNeededError
from benchmarkzoo.core.seeding import np_random


class ParallelEnvView(ParallelEnv):
    """Base of the multi-agent views. Subclasses set ``env_id``, ``generator``, ``params``,
    ``render_mode``, ``sim_state``, ``_observation_space``, ``_action_space`` in ``__init__``
    (after ``self.scenario = self._rng = self._renderer = None``) and implement :meth:`_make_renderer`.
    """

    env_id = "benchmarkzoo"

    def observation_space(self, agent: str) -> Any:
        """Every agent's observation space: one object, as PettingZoo requires."""
        return self._observation_space

    def action_space(self, agent: str) -> Any:
        """Every agent's action space: one object, so seeding it seeds every agent's samples."""
        return self._action_space

    def _next_scenario(self, seed: int | None, options: dict[str, Any] | None, check: Callable[[Any], Any]) -> Any:
        """Reseed like ``gymnasium.Env.reset`` and set :attr:`scenario`: ``options["scenario"]`` or a fresh draw."""
        if seed is not None or self._rng is None:
            self._rng = np_random(seed)
        scenario = (options or {}).get("scenario")
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

    def _make_renderer(self) -> Any:
        raise NotImplementedError

    def render(self) -> np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn(f"{self.env_id}: render() called without a render_mode; pass render_mode='rgb_array'.")
            return None
        if self.scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before render().")
        if self._renderer is None:
            self._renderer = self._make_renderer()
        return self._renderer.draw(self.sim_state, 0)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
