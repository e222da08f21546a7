"""The fighters of FightingDuel-v0: a frozen dataclass per move, a move table per character, as data.

Units are integers, so that the simulator's arithmetic is exact and mirror-symmetric: lengths in
millimetres (a fighter stands 1700 tall), times in frames (60 a second), speeds in millimetres a
frame, gravity in millimetres a frame squared. Frame data follows fighting-game convention: a move
pressed on frame 1 is in startup on frames ``1 .. startup``, hits on frames ``startup + 1 ..
startup + active`` and recovers for ``recovery`` frames after that.

Every character has the same nine move slots (:data:`SLOTS`); what fills them makes the match-ups:

| character | style | health | walk | special | super |
|---|---|---:|---:|---|---|
| ``striker`` | rush-down: fast walk and normals | 1000 | 45 | dash punch (advances) | invulnerable rush |
| ``zoner`` | keep-away: slow, long pokes | 950 | 34 | fireball (one on screen) | fast beam projectile |
| ``grappler`` | up close: slow and heavy | 1150 | 27 | command grab (a long throw) | super grab |

Hit levels: ``MID`` is blocked standing or crouching, ``LOW`` only crouching, ``HIGH`` (the air
attacks, overheads) only standing, ``THROW`` never: a throw beats a block, and whiffs against an
airborne fighter or one in hit- or block-stun.
"""

from __future__ import annotations

import dataclasses

import numpy as np

#: Hit levels.
MID, LOW, HIGH, THROW = range(4)
LEVEL_NAMES = ("mid", "low", "high", "throw")
#: Move slots, the same for every character.
SLOTS = (
    "stand_light",
    "stand_heavy",
    "crouch_light",
    "crouch_heavy",
    "air_light",
    "air_heavy",
    "special",
    "throw",
    "super",
)
(STAND_LIGHT, STAND_HEAVY, CROUCH_LIGHT, CROUCH_HEAVY, AIR_LIGHT, AIR_HEAVY, SPECIAL, THROW_SLOT, SUPER) = range(9)
NUM_SLOTS = len(SLOTS)
#: Super meter: a super costs the full bar.
METER_MAX = 1000
#: Hurt boxes (millimetres): half the width, and the height standing, crouching and in the air (tucked).
HALF_WIDTH, STAND_HEIGHT, CROUCH_HEIGHT, AIR_HEIGHT = 300, 1700, 1000, 1300
#: Projectile box: half its width and its height.
PROJECTILE_HALF_WIDTH, PROJECTILE_HEIGHT = 150, 300
GRAVITY = 5


@dataclasses.dataclass(frozen=True)
class Move:
    """One move's frame data, boxes and effects.

    Attributes:
        name: what the renderer and docs call it.
        startup: frames before the first active frame.
        active: frames the hit box is out (a move hits at most once).
        recovery: frames after the active ones before the fighter acts again.
        damage: health taken on hit.
        chip: health taken through a block.
        hitstun: frames the defender cannot act after being hit.
        blockstun: frames the defender cannot act after blocking.
        knockback: the defender's speed away from the attacker on hit (half of it on block).
        near: the hit box's near edge, forward of the attacker's centre.
        reach: its far edge.
        low: its bottom, above the attacker's feet.
        high: its top.
        level: ``MID``, ``LOW``, ``HIGH`` or ``THROW``.
        advance: the attacker's forward speed during startup and active frames.
        projectile: the speed of the projectile the move fires on its first active frame (0: none).
        invulnerable: frames from the press on which the attacker has no hurt box.
        crouching: performed crouching (the crouching hurt box).
    """

    name: str
    startup: int
    active: int
    recovery: int
    damage: int
    hitstun: int
    blockstun: int
    reach: int
    level: int = MID
    chip: int = 0
    knockback: int = 20
    near: int = 0
    low: int = 800
    high: int = 1500
    advance: int = 0
    projectile: int = 0
    invulnerable: int = 0
    crouching: bool = False

    @property
    def total(self) -> int:
        """Frames from the press to the end of recovery."""
        return self.startup + self.active + self.recovery


@dataclasses.dataclass(frozen=True)
class Character:
    """A fighter: movement, health and its nine moves (in :data:`SLOTS` order)."""

    name: str
    style: str
    health: int
    walk: int
    back_walk: int
    jump_speed: int
    jump_drift: int
    moves: tuple[Move, ...]

    def __post_init__(self) -> None:
        if len(self.moves) != NUM_SLOTS:
            raise ValueError(f"{self.name} has {len(self.moves)} moves; every character has {NUM_SLOTS} ({SLOTS}).")


def _normals(jab: int, poke: int) -> tuple[Move, ...]:
    """The six normals, their reach scaled to the character's limbs (``jab``, ``poke``)."""
    return (
        Move("jab", 4, 3, 8, 40, 14, 10, reach=jab, knockback=15),
        Move("straight", 8, 4, 18, 90, 20, 14, reach=poke, knockback=35),
        Move("low jab", 5, 3, 9, 35, 13, 9, reach=jab - 40, level=LOW, low=0, high=500, crouching=True),
        Move("sweep", 9, 4, 22, 80, 22, 12, reach=poke + 60, level=LOW, low=0, high=300, crouching=True),
        Move("air kick", 6, 6, 6, 55, 16, 10, reach=jab, level=HIGH, low=-700, high=400),
        Move("air stomp", 9, 6, 10, 95, 20, 14, reach=poke - 150, level=HIGH, low=-900, high=300, knockback=30),
    )


CHARACTERS: tuple[Character, ...] = (
    Character(
        "striker",
        "rush-down",
        1000,
        walk=45,
        back_walk=36,
        jump_speed=100,
        jump_drift=28,
        moves=(
            *_normals(jab=650, poke=820),
            Move("dash punch", 10, 5, 14, 110, 22, 14, reach=700, advance=70, chip=10, knockback=45),
            Move("throw", 5, 2, 20, 120, 0, 0, reach=580, level=THROW, low=0, high=1700, knockback=60),
            Move(
                "rush",
                4,
                12,
                30,
                300,
                40,
                20,
                reach=760,
                advance=90,
                chip=40,
                knockback=70,
                invulnerable=10,
            ),
        ),
    ),
    Character(
        "zoner",
        "keep-away",
        950,
        walk=34,
        back_walk=34,
        jump_speed=95,
        jump_drift=22,
        moves=(
            *_normals(jab=640, poke=980),
            Move("fireball", 12, 1, 30, 90, 22, 18, reach=450, chip=15, knockback=35, projectile=60),
            Move("throw", 5, 2, 20, 110, 0, 0, reach=560, level=THROW, low=0, high=1700, knockback=60),
            Move("beam", 8, 1, 40, 280, 40, 24, reach=450, chip=50, knockback=60, projectile=120, invulnerable=8),
        ),
    ),
    Character(
        "grappler",
        "up close",
        1150,
        walk=27,
        back_walk=24,
        jump_speed=85,
        jump_drift=20,
        moves=(
            *_normals(jab=660, poke=860),
            Move("command grab", 6, 2, 40, 200, 0, 0, reach=900, level=THROW, low=0, high=1700, knockback=80),
            Move("throw", 5, 2, 20, 140, 0, 0, reach=600, level=THROW, low=0, high=1700, knockback=60),
            Move(
                "super grab",
                3,
                3,
                45,
                380,
                0,
                0,
                reach=1000,
                level=THROW,
                low=0,
                high=1700,
                knockback=90,
                invulnerable=6,
            ),
        ),
    ),
)
CHARACTER_NAMES: tuple[str, ...] = tuple(c.name for c in CHARACTERS)
NUM_CHARACTERS = len(CHARACTERS)


def _table(field: str, dtype: type = np.int64) -> np.ndarray:
    """``(C, NUM_SLOTS)`` array of one move field for every character and slot (read-only)."""
    table: np.ndarray = np.array([[getattr(m, field) for m in c.moves] for c in CHARACTERS], dtype=dtype)
    table.setflags(write=False)
    return table


def _stats(field: str) -> np.ndarray:
    """``(C,)`` array of one character field (read-only)."""
    table = np.array([getattr(c, field) for c in CHARACTERS], dtype=np.int64)
    table.setflags(write=False)
    return table


STARTUP, ACTIVE, RECOVERY, TOTAL = _table("startup"), _table("active"), _table("recovery"), _table("total")
DAMAGE, CHIP, HITSTUN, BLOCKSTUN, KNOCKBACK = (
    _table(f) for f in ("damage", "chip", "hitstun", "blockstun", "knockback")
)
NEAR, REACH, BOX_LOW, BOX_HIGH = _table("near"), _table("reach"), _table("low"), _table("high")
LEVEL, ADVANCE, PROJECTILE, INVULNERABLE = (
    _table("level"),
    _table("advance"),
    _table("projectile"),
    _table("invulnerable"),
)
CROUCHING = _table("crouching", bool)
HEALTH, WALK, BACK_WALK, JUMP_SPEED, JUMP_DRIFT = (
    _stats(f) for f in ("health", "walk", "back_walk", "jump_speed", "jump_drift")
)

#: Every integer move field in one ``(C, NUM_SLOTS, K)`` table: the simulator reads a move's whole row in one gather.
MOVE_FIELDS = (
    "startup",
    "active",
    "total",
    "damage",
    "chip",
    "hitstun",
    "blockstun",
    "knockback",
    "near",
    "reach",
    "low",
    "high",
    "level",
    "advance",
    "projectile",
    "invulnerable",
)
(
    F_STARTUP,
    F_ACTIVE,
    F_TOTAL,
    F_DAMAGE,
    F_CHIP,
    F_HITSTUN,
    F_BLOCKSTUN,
    F_KNOCKBACK,
    F_NEAR,
    F_REACH,
    F_LOW,
    F_HIGH,
    F_LEVEL,
    F_ADVANCE,
    F_PROJECTILE,
    F_INVULNERABLE,
) = range(len(MOVE_FIELDS))
MOVE_TABLE = np.stack([_table(f) for f in MOVE_FIELDS], axis=-1)
MOVE_TABLE.setflags(write=False)
