"""The native multi-world forms of ``Navigation-v0`` and ``MO-Navigation-v0``: ``num_envs`` worlds of ``N`` robots."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.errors import InvalidActionError
from benchmarkzoo.envs.multiagent.navigation import sim
from benchmarkzoo.envs.multiagent.navigation.env import (
    MONavigationConfig,
    NavigationConfig,
    NavigationEnv,
    build_spaces,
    mo_reward_space,
)
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveWorlds
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


def check_box_agents(env_id: str, actions: Any, acting: np.ndarray, agents: list[str]) -> np.ndarray:
    """Validate a ``(B, N, 2)`` batch of ``Box(-1, 1, (2,), float32)`` actions where ``acting``.

    Accepts what the ParallelEnv accepts agent by agent (a dtype that casts safely to float32,
    entries in ``[-1, 1]``, no NaN); entries of agents outside ``acting`` (arrived, or in a world
    about to be reset) are ignored.
    """
    arr = actions
    shape = (*acting.shape, 2)
    if not isinstance(arr, np.ndarray) or arr.shape != shape or not np.can_cast(arr.dtype, np.float32):
        got = f"dtype {arr.dtype}, shape {arr.shape}" if isinstance(arr, np.ndarray) else type(arr).__name__
        raise InvalidActionError(
            f"{env_id} expects a batch of actions as a float32 array of shape {shape} (worlds, agents in "
            f"possible_agents order, 2) in [-1, 1]; got {got}. Use env.action_space.sample() for the layout, and "
            "cast float64 policy outputs with .astype(np.float32)."
        )
    if not (arr.min() >= -1.0 and arr.max() <= 1.0):  # False for NaN too
        bad = acting & ~((arr >= -1.0) & (arr <= 1.0)).all(axis=2)
        if bad.any():
            world, agent = (int(x) for x in np.argwhere(bad)[0])
            hint = (
                "The action contains NaN: check your policy's output."
                if np.isnan(arr[world, agent]).any()
                else "Clip or rescale in your policy."
            )
            raise InvalidActionError(
                f"{env_id} expects actions in Box(-1.0, 1.0, (2,), float32); world {world}, agent {agents[agent]!r} "
                f"sent {arr[world, agent].tolist()}. {hint}"
            )
    return arr


class NavigationVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` Navigation-v0 worlds stepped together.

    See :class:`~benchmarkzoo.envs.multiagent.navigation.env.NavigationEnv` for the task.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s: actions
    ``(B, N, 2)`` float32, observations ``(B, N, D)`` float32, rewards ``(B, N)`` float64,
    terminations and truncations ``(B, N)`` bool, ``infos["active"]`` and ``infos["present"]``
    ``(B, N)`` bool. Infos also hold ``is_success`` and ``collision`` ``(B, N)`` and, for the
    worlds whose episode ended on the step (mask ``_success_rate`` etc.), the episode metrics
    ``success_rate``, ``cooperative_success`` and ``collisions``, each ``(B,)``.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``NavigationEnv`` reset with ``seed + i`` and stepped with
    the same actions, bit for bit (the simulator is written for it: see its module docstring).
    """

    metadata = vector_metadata(NavigationEnv.metadata)
    config_type = NavigationConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        sim.load_worlds(self.sim_state, worlds, self._next_scenarios(worlds, options))
        never = np.zeros((self.num_envs, self.num_agents), dtype=bool)
        return {"is_success": never, "collision": never.copy()}

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_agents(self.env_id, actions, acting, self.possible_agents)
        # worlds truncated on the last step still have robots in the arena: they are stepped with
        # zero actions and their outputs discarded until the world is reloaded
        result = sim.step(self.sim_state, actions, self.params, acting)
        arrived = result.arrived & acting
        return (
            self._rewards(result, acting),
            arrived,
            {
                "is_success": arrived.copy(),
                "collision": result.collided & acting,
            },
        )

    def _rewards(self, result: sim.StepResult, acting: np.ndarray) -> np.ndarray:
        rewards = result.rewards
        rewards[~acting] = 0.0
        return rewards

    def _observe(self, present: np.ndarray) -> np.ndarray:
        return sim.observe(self.sim_state, self.params, present)

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.navigation.render import NavigationRenderer

        return NavigationRenderer(self.params, "rgb_array", self.metadata["render_fps"])


class MONavigationVectorEnv(MultiObjectiveWorlds, NavigationVectorEnv):
    """``num_envs`` MO-Navigation-v0 worlds; rewards are ``(B, N, 3)`` float32: progress, energy, collision.

    ``single_reward_space`` is every robot's reward space (see
    :class:`~benchmarkzoo.envs.multiagent.navigation.env.MONavigationEnv`).
    """

    config_type = MONavigationConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params)

    def _rewards(self, result: sim.StepResult, acting: np.ndarray) -> np.ndarray:
        rewards = sim.mo_rewards(result)
        rewards[~acting] = 0.0
        return rewards
