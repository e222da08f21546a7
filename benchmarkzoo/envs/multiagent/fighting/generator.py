"""FightingDuel scenarios (who fights whom, where, from which start) and the generator that draws them.

A scenario names the two characters, the stage, the starting gap and offset, the meter both
start with, and, for the scored form, the scripted bot in seat 1 with the seed of its random
stream. Stages differ in width: a narrow stage corners a zoner, a wide one lets it keep away.
A :class:`LadderScenario` (``FightingLadder-v0``) is a run of such matches, one per rung.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

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


@dataclasses.dataclass(frozen=True, eq=False)
class LadderScenario(Scenario):
    """A run up the ladder: one match per rung, weakest opponent first (``FightingLadder-v0``).

    Attributes:
        matches: the rungs' matches, each a :class:`FightingScenario` with its ``opponent`` (the
            rung's bot) set; rung ``r`` plays ``matches[r]``.
    """

    kind = "fighting-ladder"

    matches: tuple[FightingScenario, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "matches", tuple(self.matches))
        if not self.matches or any(not isinstance(m, FightingScenario) or m.opponent is None for m in self.matches):
            raise ScenarioError(
                "LadderScenario.matches must be a non-empty sequence of FightingScenarios, each with its rung's bot "
                f"as opponent (e.g. (FightingScenario(opponent='passive'),)); got {self.matches!r:.120}."
            )

    @property
    def bots(self) -> tuple[str, ...]:
        """The rungs' bots, in order."""
        return tuple(str(m.opponent) for m in self.matches)

    # A match is a scenario of its own, and Scenario fields are plain values: the canonical form
    # nests each match's canonical form (kind included), so its hash covers every field of every rung.
    @override
    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "fields": {"matches": [m.to_dict() for m in self.matches]}}

    @override
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LadderScenario:
        if not isinstance(data, dict) or data.get("kind") != cls.kind:
            got = data.get("kind") if isinstance(data, dict) else data
            raise ScenarioError(
                f"LadderScenario.from_dict expects kind {cls.kind!r}; got {got!r:.80}. Load the scenario with the "
                "env it was generated for."
            )
        matches = data.get("fields", {}).get("matches")
        if set(data.get("fields", {})) != {"matches"} or not isinstance(matches, list):
            raise ScenarioError(f"LadderScenario has one field, 'matches' (a list); the data has {data!r:.120}.")
        return cls(tuple(cast(FightingScenario, FightingScenario.from_dict(m)) for m in matches))


#: The arguments of :class:`FightingGenerator` a ladder's matches are drawn with (all but ``opponents``).
MATCH_ARGUMENTS = ("characters", "stages", "pairs", "max_offset", "max_meter")


class LadderGenerator(Generator):
    """Draws a run up the ladder: one match per bot of ``bots``, each drawn as FightingDuel's are.

    Rung ``r``'s match is a draw of a :class:`FightingGenerator` made with ``match`` (characters,
    stage, start, meter and the bot's random seed), with ``bots[r]`` as its opponent; rungs are
    drawn in order from the one ``rng``.

    Args:
        bots: the ladder, lowest rung first: distinct names of :data:`~.bots.BOTS` in any order
            (default all of them, in the measured order).
        **match: :class:`FightingGenerator`'s arguments (``characters``, ``stages``, ``pairs``,
            ``max_offset``, ``max_meter``); ``opponents`` is not one (the ladder's are ``bots``).
    """

    scenario_type = LadderScenario

    def __init__(self, bots: list[str] | None = None, **match: Any):
        from benchmarkzoo.envs.multiagent.fighting.bots import BOTS

        if "opponents" in match:
            raise GeneratorArgumentError(
                f"the ladder's opponents are its bots, rung by rung; got opponents={match['opponents']!r}. "
                "Pass bots=[...] (lowest rung first) instead."
            )
        unknown = sorted(set(match) - set(MATCH_ARGUMENTS))
        if unknown:
            raise GeneratorArgumentError(
                f"LadderGenerator got unknown argument(s) {unknown}; it takes bots and {list(MATCH_ARGUMENTS)}."
            )
        self.match = FightingGenerator(**match)
        self.bots = FightingGenerator._names("bots", bots, BOTS, BOTS)

    @override
    @property
    def kwargs(self) -> dict[str, Any]:
        match = {k: v for k, v in self.match.kwargs.items() if k != "opponents"}
        return {"bots": list(self.bots), **match}

    @override
    def __call__(self, rng: np.random.Generator) -> LadderScenario:
        return LadderScenario(tuple(dataclasses.replace(self.match(rng), opponent=bot) for bot in self.bots))
