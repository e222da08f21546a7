"""The Platform simulator: batched numpy over a frozen Params, shared by the single and vector envs.

A move is a discrete type and a continuous power ``p`` in ``[0, 1]``: the agent covers
``MOVE_LOW[m] + p * (MOVE_HIGH[m] - MOVE_LOW[m])`` (run ``[0, 1]``, hop ``[0.5, 2]``, leap
``[2, 4]``). A run stays on the ground, so it fails if it passes the current platform's edge; a
hop or a leap flies, so it succeeds if it lands on any platform. The discrete part picks the
range and whether the gap can be crossed at all; the continuous part picks the point.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.control.platform.generator import PlatformScenario

MOVE_NAMES = ("run", "hop", "leap")
#: The distance of each move at power 0 and at power 1.
MOVE_LOW = np.array([0.0, 0.5, 2.0])
MOVE_HIGH = np.array([1.0, 2.0, 4.0])
RUN = 0
#: Observation distances are divided by this and clipped to ``[0, 1]``: two leaps of lookahead.
VIEW = 8.0
OBS_SIZE = 6


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance.

    Attributes:
        num_platforms: platforms of every course (the generator's).
        goal_reward: paid once, on landing on the goal platform.
    """

    num_platforms: int
    goal_reward: float = 1.0


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds.

    Attributes:
        starts, ends: ``(B, P)`` float64, the platforms; the goal platform's end is ``inf``
            (landing beyond its start succeeds).
        goal: ``(B,)`` float64, the goal platform's start.
        x: ``(B,)`` float64, the agent's position (in a gap after a fall).
        platform: ``(B,)`` int64, the platform the agent stands on (last stood on, after a fall).
        last_x: ``(B,)`` float64, where the last move started (the renderer draws its arc; no dynamics read it).
        last_move: ``(B,)`` int64, the last move's type, ``-1`` before the first move of an episode.
    """

    starts: np.ndarray
    ends: np.ndarray
    goal: np.ndarray
    x: np.ndarray
    platform: np.ndarray
    last_x: np.ndarray
    last_move: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """A batch of empty worlds; every world must be :func:`load`-ed before it is stepped."""
    shape = (num_worlds, params.num_platforms)
    return State(
        starts=np.zeros(shape),
        ends=np.zeros(shape),
        goal=np.ones(num_worlds),
        x=np.zeros(num_worlds),
        platform=np.zeros(num_worlds, dtype=np.int64),
        last_x=np.zeros(num_worlds),
        last_move=np.full(num_worlds, -1, dtype=np.int64),
    )


def load(state: State, world: int, scenario: PlatformScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``; the agent stands at 0, on the first platform."""
    state.starts[world] = scenario.starts
    state.ends[world] = scenario.ends
    state.ends[world, -1] = np.inf
    state.goal[world] = scenario.goal
    state.x[world] = 0.0
    state.platform[world] = 0
    state.last_x[world] = 0.0
    state.last_move[world] = -1


def distances(moves: np.ndarray, powers: np.ndarray) -> np.ndarray:
    """``(B,)`` float64, the distance covered by moves ``(B,)`` int64 at powers ``(B,)`` float64."""
    low = MOVE_LOW[moves]
    return low + powers * (MOVE_HIGH[moves] - low)


def step(
    state: State, moves: np.ndarray, powers: np.ndarray, params: Params
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Make every world's move; advances ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        moves: ``(B,)`` int64 in ``0..2`` (run, hop, leap), already validated.
        powers: ``(B,)`` float64 in ``[0, 1]``, already validated.
        params: the simulator's parameters.

    Returns:
        rewards: ``(B,)`` float64, the progress ``(min(x', goal) - x) / goal`` of a landed move plus
            ``goal_reward`` on the goal platform; 0 on a fall.
        terminated: ``(B,)`` bool, the agent fell or reached the goal platform.
        success: ``(B,)`` bool, the agent reached the goal platform.
    """
    worlds = np.arange(state.x.shape[0])
    target = state.x + distances(moves, powers)
    inside = (state.starts <= target[:, None]) & (target[:, None] <= state.ends)  # (B, P)
    flew_to = inside.argmax(axis=1)
    is_run = moves == RUN
    # A run never leaves the ground: it lands only on the platform it started on.
    landed = np.where(is_run, target <= state.ends[worlds, state.platform], inside.any(axis=1))
    platform = np.where(is_run, state.platform, flew_to)
    progress = (np.minimum(target, state.goal) - np.minimum(state.x, state.goal)) / state.goal
    success = landed & (platform == params.num_platforms - 1)
    rewards = np.where(landed, progress, 0.0) + np.where(success, params.goal_reward, 0.0)
    state.last_x[:] = state.x
    state.last_move[:] = moves
    state.x[:] = target
    np.copyto(state.platform, platform, where=landed)
    return rewards, ~landed | success, success


def observe(state: State) -> np.ndarray:
    """``(B, 6)`` float32 observations (fresh): distances ahead, divided by :data:`VIEW`, clipped to ``[0, 1]``.

    Entries: to the current platform's edge; to the next platform's start and end; to the one
    after's start and end; progress ``x / goal``. A platform past the goal is at ``inf`` (1).
    """
    num_worlds = state.x.shape[0]
    worlds = np.arange(num_worlds)
    padded_starts = np.concatenate([state.starts, np.full((num_worlds, 2), np.inf)], axis=1)
    padded_ends = np.concatenate([state.ends, np.full((num_worlds, 2), np.inf)], axis=1)
    k, x = state.platform, state.x
    ahead = np.stack(
        [
            padded_ends[worlds, k],
            padded_starts[worlds, k + 1],
            padded_ends[worlds, k + 1],
            padded_starts[worlds, k + 2],
            padded_ends[worlds, k + 2],
        ],
        axis=1,
    )
    obs = np.empty((num_worlds, OBS_SIZE), dtype=np.float64)
    obs[:, :5] = (ahead - x[:, None]) / VIEW
    obs[:, 5] = x / state.goal
    return np.clip(obs, 0.0, 1.0).astype(np.float32)
