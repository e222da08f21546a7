"""The beach problem domain's simulator: ``B`` worlds of ``N`` agents choosing among ``S`` beach sections.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``; the rules exist
once. Mannion, Devlin, Duggan and Howley (2018), "Reward shaping for knowledge-based
multi-objective multi-agent reinforcement learning", as MOMAland's ``mobeach_v0`` implements it:

* Every step each agent moves one section left, stays, or moves one section right (clipped at
  the ends of the beach).
* On the episode's last step (``num_timesteps``) each agent is paid, in two objectives, for the
  section it ends in: **capacity** ``x * exp(-x / c)`` for a section holding ``x`` agents of
  capacity ``c`` (it peaks at ``c / e`` when ``x = c``: an empty beach and a crowded one both pay
  little), and **mixture** ``min_t n_t / x``, the share of the section's rarest type (``1 / T``
  for an even mix, 0 for one type alone). Earlier steps pay nothing.
* ``"individual"`` rewards pay the agent's own section (a local reward); ``"team"`` rewards pay
  every agent the global ones: the capacity rewards summed over sections, the mixture rewards
  averaged over sections (an empty section counts 0), as MOMAland does.

Every count is an integer and every reward a function of counts, so world ``i`` of a batch
computes exactly what a batch of one would.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.multiagent.beach.generator import BeachScenario

#: Actions: 0 left, 1 stay, 2 right (MOMAland's order).
MOVES = np.array([-1, 0, 1], dtype=np.int64)
ACTION_NAMES = ("left", "stay", "right")
OBJECTIVES = ("capacity", "mixture")
REWARD_MODES = ("individual", "team")


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance (every world has the same beach and the same number of agents)."""

    num_agents: int
    num_sections: int
    capacity: int
    num_types: int
    num_timesteps: int = 1
    reward_mode: str = "individual"


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds: ``types``, ``section`` ``(B, N)`` int64; ``time`` ``(B,)`` int64."""

    types: np.ndarray
    section: np.ndarray
    time: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    zeros = np.zeros((num_worlds, params.num_agents), dtype=np.int64)
    return State(zeros.copy(), zeros.copy(), np.zeros(num_worlds, dtype=np.int64))


def load(state: State, world: int, scenario: BeachScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``."""
    state.types[world] = scenario.types
    state.section[world] = scenario.starts
    state.time[world] = 0


def counts(state: State, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """``(B, S)`` agents per section and ``(B, S, T)`` agents per section and type, int64."""
    b, s, t = state.section.shape[0], params.num_sections, params.num_types
    world = np.arange(b, dtype=np.int64)[:, None] * s
    by_type = np.bincount(((world + state.section) * t + state.types).ravel(), minlength=b * s * t)
    by_type = by_type.reshape(b, s, t)
    return by_type.sum(axis=2), by_type


def section_rewards(state: State, params: Params) -> np.ndarray:
    """``(B, S, 2)`` float64: every section's capacity and mixture reward as the agents stand now."""
    crowd, by_type = counts(state, params)
    capacity = crowd * np.exp(-crowd / params.capacity)
    mixture = np.divide(by_type.min(axis=2), crowd, out=np.zeros(crowd.shape), where=crowd > 0)
    return np.stack([capacity, mixture], axis=2)


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Move every agent, in place; ``actions`` ``(B, N)`` int64 in 0..2, validated.

    Returns:
        rewards ``(B, N, 2)`` float32 (zero before the last step), done ``(B,)`` bool (the last step).
    """
    np.clip(state.section + MOVES[actions], 0, params.num_sections - 1, out=state.section)
    state.time += 1
    done = state.time >= params.num_timesteps
    rewards = np.zeros((*state.section.shape, len(OBJECTIVES)), dtype=np.float32)
    if done.any():
        rewards[done] = paid(state, params)[done]
    return rewards, done


def paid(state: State, params: Params) -> np.ndarray:
    """``(B, N, 2)`` float32: what every agent is paid if the episode ended now (local or global rewards)."""
    per_section = section_rewards(state, params)  # (B, S, 2)
    if params.reward_mode == "team":
        totals = np.stack([per_section[..., 0].sum(axis=1), per_section[..., 1].mean(axis=1)], axis=1)  # (B, 2)
        return np.broadcast_to(totals[:, None, :], (*state.section.shape, 2)).astype(np.float32)
    return np.take_along_axis(per_section, state.section[..., None], axis=1).astype(np.float32)


def observe(state: State, params: Params) -> np.ndarray:
    """``(B, N, 5)`` float32 (fresh), MOMAland's layout: type, section, capacity, crowd, share of own type there."""
    crowd, by_type = counts(state, params)
    here = np.take_along_axis(crowd, state.section, axis=1)  # (B, N) >= 1: the agent itself
    b = np.arange(state.section.shape[0])[:, None]
    same = by_type[b, state.section, state.types]  # (B, N)
    obs = np.empty((*state.section.shape, 5), dtype=np.float32)
    obs[..., 0] = state.types
    obs[..., 1] = state.section
    obs[..., 2] = params.capacity
    obs[..., 3] = here
    obs[..., 4] = same / here
    return obs


def episode_metrics(state: State, params: Params) -> dict[str, np.ndarray]:
    """``(B,)`` float64 global capacity and mixture rewards of the agents' current sections (the team rewards)."""
    per_section = section_rewards(state, params)
    return {"global_capacity": per_section[..., 0].sum(axis=1), "global_mixture": per_section[..., 1].mean(axis=1)}
