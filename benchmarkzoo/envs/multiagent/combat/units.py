"""The unit types of MicroCombat-v0: one row per type, in per-step units.

One env step is half a second of StarCraft II game time ("faster" speed). The numbers follow
SC2's marine, marauder, stalker and zealot, rounded so every health, damage and cooldown is
an integer (sums of damage are then exact in float64, in any batch size):

| type | code | health | damage | attack range | cooldown (steps) | speed (per step) | sight |
|---|---|---:|---:|---:|---:|---:|---:|
| marine | m | 45 | 6 | 5.0 | 1 | 1.5 | 9.0 |
| marauder | r | 125 | 10 | 6.0 | 2 | 1.5 | 9.0 |
| stalker | s | 160 | 13 | 6.0 | 3 | 2.0 | 9.0 |
| zealot | z | 150 | 16 | 1.5 | 2 | 1.5 | 9.0 |

Shields are folded into health (stalker 80 + 80, zealot 100 + 50); armour and bonus damage are
left out. The zealot's melee range is 1.5, not SC2's 0.1: units are points that move along
the axes by ``speed``, and from any point a unit can come within ``speed / sqrt(2)`` of a
standing target, so a melee range below that could leave a zealot circling its target.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class UnitType:
    """One row of the unit table (see the module docstring for the units)."""

    name: str
    code: str
    health: int
    damage: int
    attack_range: float
    cooldown: int
    speed: float
    sight: float


UNIT_TYPES: tuple[UnitType, ...] = (
    UnitType("marine", "m", 45, 6, 5.0, 1, 1.5, 9.0),
    UnitType("marauder", "r", 125, 10, 6.0, 2, 1.5, 9.0),
    UnitType("stalker", "s", 160, 13, 6.0, 3, 2.0, 9.0),
    UnitType("zealot", "z", 150, 16, 1.5, 2, 1.5, 9.0),
)
TYPE_NAMES: tuple[str, ...] = tuple(u.name for u in UNIT_TYPES)
TYPE_INDEX: dict[str, int] = {u.name: i for i, u in enumerate(UNIT_TYPES)}
NUM_TYPES = len(UNIT_TYPES)


def _column(field: str, dtype: type) -> np.ndarray:
    column: np.ndarray = np.array([getattr(u, field) for u in UNIT_TYPES], dtype=dtype)
    column.setflags(write=False)
    return column


#: ``(T,)`` lookup columns of the table, indexed by type.
HEALTH = _column("health", np.float64)
DAMAGE = _column("damage", np.float64)
ATTACK_RANGE = _column("attack_range", np.float64)
COOLDOWN = _column("cooldown", np.int64)
SPEED = _column("speed", np.float64)
SIGHT = _column("sight", np.float64)
ONE_HOT = np.eye(NUM_TYPES, dtype=np.float32)
ONE_HOT.setflags(write=False)


def parse_army(spec: str) -> tuple[str, ...]:
    """``"2s3z"`` -> ``("stalker", "stalker", "zealot", "zealot", "zealot")``: counts followed by type codes."""
    codes = {u.code: u.name for u in UNIT_TYPES}
    army: list[str] = []
    number = ""
    for ch in spec:
        if ch.isdigit():
            number += ch
        elif ch in codes and number:
            army += [codes[ch]] * int(number)
            number = ""
        else:
            raise ValueError(f"army {spec!r}: expected counts followed by type codes {sorted(codes)}, like '2s3z'.")
    if number or not army:
        raise ValueError(f"army {spec!r}: expected counts followed by type codes {sorted(codes)}, like '2s3z'.")
    return tuple(army)
