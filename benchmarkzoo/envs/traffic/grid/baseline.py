"""Reference controllers for TrafficGrid-v0: fixed-time and max-pressure at every signal, independently.

Each signal runs the single-intersection controller of
:mod:`benchmarkzoo.envs.traffic.signal.baseline` on its own lanes. Called on the ParallelEnv
they return ``{agent: action}``; on the native vector env, ``(B, N)`` int64.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.traffic.signal.baseline import FixedTimePolicy as _FixedTime
from benchmarkzoo.envs.traffic.signal.baseline import MaxPressurePolicy as _MaxPressure


def _act(env, choose) -> dict[str, int] | np.ndarray:
    env = getattr(env, "unwrapped", env)
    if hasattr(env, "layouts"):  # the native vector env
        return np.array(
            [
                [choose(layout, m, env.timing, k) if m is not None else 0 for k in range(env.num_agents)]
                for layout, m in zip(env.layouts, env._measurements)
            ],
            dtype=np.int64,
        )  # (B, N)
    return {agent: choose(env.layout, env._measurement, env.timing, env._index[agent]) for agent in env.agents}


class FixedTimePolicy(_FixedTime):
    """Every signal cycles its greens, ``green_time`` simulated seconds each, all in step (no offsets)."""

    # The grid controller reuses the single-intersection one's choose, not its interface: it acts on
    # a grid env, so it returns that env's actions (mypy reads the subclass as a substitute).
    def __call__(self, env) -> dict[str, int] | np.ndarray:  # type: ignore[override]
        """Every signal's fixed-time green: a dict for the ParallelEnv, ``(B, N)`` for the vector env."""
        return _act(env, self.choose)


class MaxPressurePolicy(_MaxPressure):
    """Every signal shows its own max-pressure green (Varaiya), ties keeping the current green."""

    # The grid controller reuses the single-intersection one's choose, not its interface: it acts on
    # a grid env, so it returns that env's actions (mypy reads the subclass as a substitute).
    def __call__(self, env) -> dict[str, int] | np.ndarray:  # type: ignore[override]
        """Every signal's max-pressure green: a dict for the ParallelEnv, ``(B, N)`` for the vector env."""
        return _act(env, self.choose)
