"""The two objectives of the multi-objective traffic envs: vehicles' waiting time and their CO2.

MO-TrafficSignal-v0 counts them over the whole network (:func:`objectives`), MO-TrafficGrid-v0
per signal, on the lanes each signal owns (:func:`signal_objectives`); both are costs, so every
reward space is ``Box(-inf, 0, (2,), float32)`` (:func:`build_reward_space`). The measurements
come from :class:`~benchmarkzoo.envs.traffic.sim.SignalController`, which advances SUMO one
second at a time and sums halted vehicle-seconds and SUMO's CO2 (mg/s per one-second step).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from benchmarkzoo.envs.traffic import sim

OBJECTIVES = ("waiting_time", "co2")


class MultiObjective:
    """The one way a signal-control view becomes multi-objective: list this mixin first, override the rewards.

    ``class MOTrafficSignalEnv(MultiObjective, TrafficSignalEnv)`` takes its base's arguments
    but ``reward`` and ``emissions``, which its config fixes (``ClassVar`` constants: the rewards
    are the objectives, which need SUMO's CO2), sets ``reward_dim``, and returns
    :func:`objectives` or :func:`signal_objectives` from its reward hook; its reward space is the
    base's convention's attribute (``reward_space``, ``reward_spaces``, ``single_reward_space``)
    from :func:`build_reward_space`.
    """

    reward_dim = len(OBJECTIVES)


def build_reward_space() -> spaces.Box:
    """``Box(-inf, 0, (2,), float32)``: both objectives are costs, unbounded by the demand."""
    return spaces.Box(low=-np.inf, high=0.0, shape=(len(OBJECTIVES),), dtype=np.float32)


def objectives(m: sim.Measurement) -> np.ndarray:
    """``(2,)`` float32 ``[-halted vehicle-seconds, -grams of CO2]`` of the step that produced ``m``."""
    return np.array([-m.halted, -m.co2 / 1000.0], dtype=np.float32)


def signal_objectives(m: sim.Measurement, tls: int) -> np.ndarray:
    """``(2,)`` float32 ``[-halted vehicle-seconds, -grams of CO2]`` on signal ``tls``'s own lanes in the step of ``m``.

    :func:`objectives`, restricted to the lanes the signal owns
    (:meth:`~benchmarkzoo.envs.traffic.sim.SignalController.lane_owners`).
    """
    return np.array([-m.signal_halted[tls], -m.signal_co2[tls] / 1000.0], dtype=np.float32)
