"""Reference signal controllers for TrafficSignal-v0: fixed-time and max-pressure.

Both read the simulator's measurements (lane vehicle counts, current green, clock) rather
than the observation, and work on the single env (returning an int) or the native vector env
(returning ``(B,)`` int64).
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.traffic import sim


def _worlds(env) -> list[tuple[sim.Layout, sim.Measurement, sim.Timing]]:
    env = getattr(env, "unwrapped", env)
    if hasattr(env, "layouts"):  # the native vector env
        return [(layout, m, env.timing) for layout, m in zip(env.layouts, env._measurements)]
    return [(env.layout, env._measurement, env.timing)]


def _act(env, choose) -> int | np.ndarray:
    actions = [choose(layout, m, timing) for layout, m, timing in _worlds(env)]
    unwrapped = getattr(env, "unwrapped", env)
    return np.array(actions, dtype=np.int64) if hasattr(unwrapped, "layouts") else actions[0]


class FixedTimePolicy:
    """Cycle through the green phases, ``green_time`` simulated seconds each (from the sim clock).

    Args:
        green_time: seconds of each green (rounded to whole env steps, at least one).
    """

    def __init__(self, green_time: int = 30):
        self.green_time = green_time

    def choose(self, layout: sim.Layout, m: sim.Measurement, timing: sim.Timing, tls: int = 0) -> int:
        """The green of the fixed-time cycle at the measurement's time."""
        steps_per_green = max(1, round(self.green_time / timing.delta_time))
        step = round(m.time / timing.delta_time)
        return (step // steps_per_green) % layout.num_phases(tls)

    def __call__(self, env) -> int | np.ndarray:
        """The fixed-time green: an int for the single env, ``(num_envs,)`` for the vector env."""
        return _act(env, self.choose)


class MaxPressurePolicy:
    """Show the green whose movements have the largest pressure (upstream minus downstream vehicles).

    Pressure of phase ``p`` = sum over its green movements ``(l, m)`` of vehicles on incoming
    lane ``l`` minus vehicles on outgoing lane ``m`` (Varaiya's max-pressure). Ties keep the
    current green.
    """

    def choose(self, layout: sim.Layout, m: sim.Measurement, timing: sim.Timing, tls: int = 0) -> int:
        """The green of largest pressure, the current one on ties."""
        pressure = (
            layout.phase_in[tls] @ m.vehicles[layout.incoming[tls]]
            - layout.phase_out[tls] @ m.vehicles[layout.outgoing[tls]]
        )  # (P,)
        current = int(m.phase[tls])
        best = int(np.argmax(pressure))
        return current if pressure[current] >= pressure[best] else best

    def __call__(self, env) -> int | np.ndarray:
        """The max-pressure green: an int for the single env, ``(num_envs,)`` for the vector env."""
        return _act(env, self.choose)
