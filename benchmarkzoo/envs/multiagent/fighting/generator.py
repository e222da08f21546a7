"""FightingDuel scenarios (who fights whom, where, from which start) and the generator that draws them.

A scenario names the two characters, the stage, the starting gap and offset, the meter both
start with, and, for the scored form, the scripted bot in seat 1 with the seed of its random
stream. Stages differ in width: a narrow stage corners a zoner, a wide one lets it keep away.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.envs.multiagent.fighting.characters import CHARACTER_NAMES, HALF_WIDTH, METER_MAX
from benchmarkzoo.generators.base import Generator


@dataclasses.dataclass(frozen=True)
class Stage:
    """An arena: its width between the walls (millimetres) and its colours (sky, floor)."""

    name: str
    width: int
    sky: tuple[int, int, int]
    floor: tuple[int, int, int]


STAGES: tuple[Stage, ...] = (
    Stage("dojo", 6000, (236, 214, 170), (150, 104, 62)),
    Stage("rooftop", 5200, (70, 88, 140), (80, 80, 92)),
    Stage("beach", 7200, (150, 206, 236), (226, 206, 150)),
    Stage("temple", 6600, (200, 120, 90), (110, 96, 90)),
    Stage("bridge", 4400, (120, 150, 120), (96, 70, 50)),  # narrow: held out of training
)
STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
#: The widest stage (the observation's position scale).
MAX_WIDTH = max(s.width for s in STAGES)
#: Stages of the train and test splits; ``bridge`` is the ood split's.
TRAIN_STAGES: tuple[str, ...] = ("dojo", "rooftop", "beach", "temple")
#: Character pairs (seat 0, seat 1) held out of training: the ood split plays them.
OOD_PAIRS: tuple[tuple[str, str], ...] = (("zoner", "grappler"), ("grappler", "zoner"))
MAX_SEED = 2**62
#: Starting gap between the fighters' centres: the closest and farthest the generator draws.
MIN_GAP, MAX_GAP = 1200, 3000


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True, eq=False)
class FightingScenario(Scenario):
    """One match.

    Attributes:
        characters: ``(seat 0, seat 1)`` character names (:data:`~.characters.CHARACTER_NAMES`).
        stage: a stage name (:data:`STAGE_NAMES`).
        gap: distance between the fighters' centres at the start of every round (millimetres).
        offset: where the midpoint between them is, from the stage's centre (millimetres).
        meter: super meter both fighters start the match with (0 .. 1000).
        opponent: the scripted bot in seat 1 (a name of :data:`~.bots.BOTS`), or ``None`` for two learners.
        seed: the seed of the bot's random stream.
    """

    kind = "fighting"

    characters: tuple[str, str] = ("striker", "striker")
    stage: str = "dojo"
    gap: int = 2000
    offset: int = 0
    meter: int = 0
    opponent: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        from benchmarkzoo.envs.multiagent.fighting.bots import BOTS  # bots read the simulator, which reads this

        object.__setattr__(self, "characters", tuple(self.characters))
        if len(self.characters) != 2 or any(c not in CHARACTER_NAMES for c in self.characters):
            raise ScenarioError(
                f"FightingScenario.characters must be two names from {list(CHARACTER_NAMES)}; got {self.characters!r}."
            )
        if self.stage not in STAGE_NAMES:
            raise ScenarioError(f"FightingScenario.stage must be one of {list(STAGE_NAMES)}; got {self.stage!r}.")
        width = self.stage_info.width
        ok = _is_int(self.gap) and _is_int(self.offset) and self.gap >= 2 * HALF_WIDTH
        if not ok or abs(int(self.offset)) + self.gap // 2 + HALF_WIDTH > width // 2:
            raise ScenarioError(
                f"FightingScenario: gap {self.gap!r} and offset {self.offset!r} must be integers placing both fighters "
                f"inside the {width}-wide {self.stage} (gap >= {2 * HALF_WIDTH}, |offset| + gap/2 + {HALF_WIDTH} <= "
                f"{width // 2})."
            )
        if not _is_int(self.meter) or not 0 <= self.meter <= METER_MAX:
            raise ScenarioError(f"FightingScenario.meter must be an integer in [0, {METER_MAX}]; got {self.meter!r}.")
        if self.opponent is not None and self.opponent not in BOTS:
            raise ScenarioError(
                f"FightingScenario.opponent must be None or one of {list(BOTS)}; got {self.opponent!r}."
            )
        if not _is_int(self.seed) or not 0 <= self.seed < MAX_SEED:
            raise ScenarioError(f"FightingScenario.seed must be an integer in [0, 2**62); got {self.seed!r}.")
        for name in ("gap", "offset", "meter", "seed"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @property
    def stage_info(self) -> Stage:
        """The :class:`Stage` named by :attr:`stage`."""
        return STAGES[STAGE_NAMES.index(self.stage)]


class FightingGenerator(Generator):
    """Draws a character pair, a stage, a starting gap, offset and meter, and (scored form) a bot.

    Args:
        characters: the characters to draw from (default all three); each seat draws uniformly.
        stages: the stages to draw from (default :data:`TRAIN_STAGES`).
        pairs: ``"train"`` (every pair but :data:`OOD_PAIRS`), ``"ood"`` (only those) or ``"all"``.
        max_offset: the largest centre offset, 0 .. 1000 (millimetres); the offset is uniform in
            ``[-max_offset, max_offset]``, clipped to the stage.
        max_meter: the largest starting meter, 0 .. 1000.
        opponents: bot names (:data:`~.bots.BOTS`) for seat 1, drawn uniformly; ``None``: two learners.
    """

    scenario_type = FightingScenario

    def __init__(
        self,
        characters: list[str] | None = None,
        stages: list[str] | None = None,
        pairs: str = "train",
        max_offset: int = 500,
        max_meter: int = 0,
        opponents: list[str] | None = None,
    ):
        from benchmarkzoo.envs.multiagent.fighting.bots import BOTS

        self.characters = self._names("characters", characters, CHARACTER_NAMES, CHARACTER_NAMES)
        self.stages = self._names("stages", stages, STAGE_NAMES, TRAIN_STAGES)
        if pairs not in ("train", "ood", "all"):
            raise GeneratorArgumentError(f"pairs must be 'train', 'ood' or 'all'; got {pairs!r}.")
        self.pairs = pairs
        self.max_offset = self._check_int_range("max_offset", max_offset, 0, 1000)
        self.max_meter = self._check_int_range("max_meter", max_meter, 0, METER_MAX)
        self.opponents = None if opponents is None else self._names("opponents", opponents, BOTS, BOTS)
        self._pairs = [
            (a, b)
            for a in self.characters
            for b in self.characters
            if pairs == "all" or ((a, b) in OOD_PAIRS) == (pairs == "ood")
        ]
        if not self._pairs:
            raise GeneratorArgumentError(
                f"no character pair of {self.characters} is in the {pairs!r} pairs (ood pairs: {list(OOD_PAIRS)}); "
                "add characters or choose pairs='all'."
            )

    @staticmethod
    def _names(what: str, names: list[str] | None, known: tuple[str, ...], default: tuple[str, ...]) -> list[str]:
        chosen = list(default if names is None else names)
        if not chosen or any(n not in known for n in chosen) or len(set(chosen)) != len(chosen):
            raise GeneratorArgumentError(
                f"{what} must be a non-empty list of distinct names from {list(known)}; got {names!r}."
            )
        return chosen

    @override
    @property
    def kwargs(self) -> dict[str, Any]:
        return {
            "characters": list(self.characters),
            "stages": list(self.stages),
            "pairs": self.pairs,
            "max_offset": self.max_offset,
            "max_meter": self.max_meter,
            "opponents": None if self.opponents is None else list(self.opponents),
        }

    @override
    def __call__(self, rng: np.random.Generator) -> FightingScenario:
        pair = self._pairs[int(rng.integers(len(self._pairs)))]
        stage = self.stages[int(rng.integers(len(self.stages)))]
        width = STAGES[STAGE_NAMES.index(stage)].width
        gap = int(rng.integers(MIN_GAP // 100, MAX_GAP // 100 + 1)) * 100
        room = width // 2 - gap // 2 - HALF_WIDTH
        offset = int(rng.integers(-self.max_offset, self.max_offset + 1))
        offset = max(-room, min(room, offset))
        meter = int(rng.integers(self.max_meter + 1))
        opponent = None if self.opponents is None else self.opponents[int(rng.integers(len(self.opponents)))]
        seed = int(rng.integers(MAX_SEED))
        return FightingScenario(pair, stage, gap, offset, meter, opponent, seed)
