"""What a frame shows of a running SUMO simulation: every vehicle and every traffic light's state.

:func:`read_snapshot` runs where SUMO runs (this process, a worker, or over TraCI) and is called
only when a view renders, so an env without a ``render_mode`` never pays for it. It only reads
(``vehicle.get*``, ``trafficlight.getRedYellowGreenState``): no subscription, no random draw, so
an episode is the same rendered or not (``tests/envs/traffic/test_render.py`` compares them).
The result is plain arrays, cheap to pickle across the worker's socket.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

#: SUMO's halting threshold (m/s): the lanes' halting counts, and so the env's queues, use the same.
HALTING_SPEED = 0.1


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The vehicles and signals of a simulation at one moment.

    Attributes:
        time: simulated seconds.
        vehicles: ``(V,)`` vehicle ids, in SUMO's order.
        position: ``(V, 2)`` float64 front bumper of each vehicle, in the network's metres.
        angle: ``(V,)`` float64 heading in SUMO's degrees (0 north, clockwise).
        length: ``(V,)`` float64 metres.
        halted: ``(V,)`` bool, slower than :data:`HALTING_SPEED` (what the env counts as queued).
        signals: ``{traffic light: state string}``, one character per link (``"GrYy..."``).
    """

    time: float
    vehicles: tuple[str, ...]
    position: np.ndarray
    angle: np.ndarray
    length: np.ndarray
    halted: np.ndarray
    signals: dict[str, str]


def read_snapshot(conn: Any) -> Snapshot:
    """The snapshot of the simulation ``conn`` (the ``libsumo`` module or a ``traci`` connection) runs now."""
    vehicle = conn.vehicle
    ids = tuple(vehicle.getIDList())
    position = np.array([vehicle.getPosition(v) for v in ids], dtype=np.float64).reshape(len(ids), 2)
    speed = np.array([vehicle.getSpeed(v) for v in ids], dtype=np.float64)
    return Snapshot(
        time=float(conn.simulation.getTime()),
        vehicles=ids,
        position=position,
        angle=np.array([vehicle.getAngle(v) for v in ids], dtype=np.float64),
        length=np.array([vehicle.getLength(v) for v in ids], dtype=np.float64),
        halted=speed < HALTING_SPEED,
        signals={tls: conn.trafficlight.getRedYellowGreenState(tls) for tls in conn.trafficlight.getIDList()},
    )
