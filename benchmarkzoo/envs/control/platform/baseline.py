"""A course planner: the Platform baseline, an upper reference for learned policies.

It is privileged: it reads the course from the simulator. From where the agent stands it jumps
to the middle of the part of the next platform a hop (preferred) or a leap can reach, keeping
a margin from its ends; when neither reaches, it runs towards the edge. From an edge some move
always reaches the next platform (see :class:`~benchmarkzoo.envs.control.platform.generator.PlatformGenerator`),
so it crosses every course the generator draws.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.control.platform import sim

#: Landings keep this far from a platform's ends; runs stop this far before the edge.
MARGIN = 0.05


def plan(x: float, edge: float, start: float, end: float) -> tuple[int, float]:
    """The move and power for an agent at ``x`` on a platform ending at ``edge``, next platform ``[start, end]``."""
    margin = min(MARGIN, (end - start) / 4)
    for move in (1, 2):  # hop, then leap
        low = max(x + sim.MOVE_LOW[move], start + margin)
        high = min(x + sim.MOVE_HIGH[move], end - margin)
        if low <= high:
            return move, _power(move, (low + high) / 2 - x)
    return sim.RUN, _power(sim.RUN, min(sim.MOVE_HIGH[sim.RUN], max(0.0, edge - x - MARGIN)))


def _power(move: int, distance: float) -> float:
    low, high = sim.MOVE_LOW[move], sim.MOVE_HIGH[move]
    return float(np.clip((distance - low) / (high - low), 0.0, 1.0))


class PlatformPlanner:
    """Plans each world's next move from its course (see the module doc).

    Works on a :class:`~benchmarkzoo.envs.control.platform.env.PlatformEnv` (returns one action
    dict) or a :class:`~benchmarkzoo.envs.control.platform.vector_env.PlatformVectorEnv`
    (returns ``{"move": (B,) int64, "power": (B, 1) float32}``).
    """

    def __call__(self, env) -> dict[str, object]:
        """The action(s) for ``env``'s current state."""
        env = getattr(env, "unwrapped", env)
        state = env.state
        moves, powers = [], []
        for b in range(state.x.shape[0]):
            k = int(state.platform[b])
            nxt = min(k + 1, state.starts.shape[1] - 1)
            end = float(state.ends[b, nxt])
            end = float(state.starts[b, nxt]) + sim.MOVE_HIGH[-1] if np.isinf(end) else end  # the goal platform
            move, power = plan(float(state.x[b]), float(state.ends[b, k]), float(state.starts[b, nxt]), end)
            moves.append(move)
            powers.append(power)
        if hasattr(env, "scenarios"):  # the native vector env
            return {
                "move": np.array(moves, dtype=np.int64),
                "power": np.array(powers, dtype=np.float32).reshape(-1, 1),
            }
        return {"move": moves[0], "power": np.array(powers[:1], dtype=np.float32)}
