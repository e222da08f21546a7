"""Platform courses and their generator: a row of platforms separated by gaps of drawn widths."""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

#: The widest gap any generator draws: a leap (the longest move, ``sim.MOVE_HIGH[2]``) from the edge must clear it.
MAX_GAP = 3.8
MAX_PLATFORMS = 64


@dataclasses.dataclass(frozen=True, eq=False)
class PlatformScenario(Scenario):
    """One course: platforms ``[starts[k], ends[k]]`` along a line, left to right; the agent starts at 0.

    The last platform is the goal: landing anywhere on or beyond its start succeeds.

    Attributes:
        starts: platform starts, the first ``0.0``, strictly increasing.
        ends: platform ends, ``starts[k] < ends[k] < starts[k + 1]`` (the gaps lie between).
    """

    kind = "platform"

    starts: tuple[float, ...]
    ends: tuple[float, ...]

    def __post_init__(self) -> None:
        starts, ends = _floats("starts", self.starts), _floats("ends", self.ends)
        if len(starts) != len(ends) or len(starts) < 2:
            raise ScenarioError(
                f"PlatformScenario needs as many starts as ends, at least 2 of each; got {len(starts)} and {len(ends)}."
            )
        edges = [value for pair in zip(starts, ends, strict=True) for value in pair]
        if starts[0] != 0.0 or any(b <= a for a, b in itertools.pairwise(edges)):
            raise ScenarioError(
                "PlatformScenario platforms must start at 0.0 and be ordered, each ending before the next starts; "
                f"got starts {starts} and ends {ends}."
            )
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "ends", ends)

    @property
    def num_platforms(self) -> int:
        """Platforms in the course, the goal platform included."""
        return len(self.starts)

    @property
    def goal(self) -> float:
        """Where the goal platform starts: the distance the course asks the agent to cover."""
        return self.starts[-1]


def _floats(name: str, values: Any) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ScenarioError(f"PlatformScenario.{name} must be a sequence of numbers; got {values!r:.80}.") from None
    if not all(math.isfinite(v) for v in out):
        raise ScenarioError(f"PlatformScenario.{name} must be finite; got {out!r:.80}.")
    return out


class PlatformGenerator(Generator):
    """Courses of ``num_platforms`` platforms whose lengths and gaps are drawn uniformly.

    Every course can be crossed: from a platform's edge a hop reaches ``[0.5, 2.0]`` ahead and a
    leap ``[2.0, 4.0]``, so any gap up to 3.8 followed by a platform at least 0.2 long has a landing.

    Args:
        num_platforms: platforms, the start and the goal platform included, 2..64.
        platform_length: ``(low, high)`` length of every platform but the goal's (which is ``high``).
        gap: ``(low, high)`` width of every gap, within ``[0.1, 3.8]``.
    """

    scenario_type = PlatformScenario

    def __init__(
        self,
        num_platforms: int = 5,
        platform_length: tuple[float, float] = (1.0, 3.0),
        gap: tuple[float, float] = (0.5, 3.0),
    ):
        self.num_platforms = self._check_int_range("num_platforms", num_platforms, 2, MAX_PLATFORMS)
        self.platform_length = _check_pair("platform_length", platform_length, 0.2, 20.0)
        self.gap = _check_pair("gap", gap, 0.1, MAX_GAP)

    def __call__(self, rng: np.random.Generator) -> PlatformScenario:
        """Draw one course: ``num_platforms - 1`` lengths, then ``num_platforms - 1`` gaps."""
        gaps = self.num_platforms - 1
        lengths = rng.uniform(*self.platform_length, size=gaps)
        widths = rng.uniform(*self.gap, size=gaps)
        starts, ends, x = [0.0], [], 0.0
        for length, width in zip(lengths.tolist(), widths.tolist(), strict=True):
            x += length
            ends.append(x)
            x += width
            starts.append(x)
        ends.append(x + self.platform_length[1])
        return PlatformScenario(starts=tuple(starts), ends=tuple(ends))


def _check_pair(name: str, value: Any, low: float, high: float) -> tuple[float, float]:
    ok = isinstance(value, tuple | list) and len(value) == 2
    ok = ok and all(isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in value)
    if not ok or not low <= float(value[0]) <= float(value[1]) <= high:
        raise GeneratorArgumentError(
            f"{name} must be a (low, high) pair with {low} <= low <= high <= {high}; got {value!r}."
        )
    return (float(value[0]), float(value[1]))
