"""RPS scenarios: a match against one scripted bot, or a self-play match.

A bot match names the bot, its noise level and the seed of its random stream; a self-play match
says how often the players' hands tremble, and the seed of the trembles.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

#: Every bot, in the order of its strategy index in :mod:`~benchmarkzoo.envs.multiagent.rps.sim`.
BOTS: tuple[str, ...] = (
    "rock",
    "paper",
    "scissors",  # constant
    "cycle_up",
    "cycle_down",
    "cycle_double",  # cycles
    "biased",
    "uniform",  # fixed mixtures
    "copy_last",
    "beat_last",
    "lose_to_last",  # react to the opponent's last move
    "win_stay_lose_shift",
    "win_stay_lose_beat",  # react to the last outcome
    "frequency",
    "frequency_recent",
    "frequency_sampled",  # frequency counting
    "markov",
    "markov_pair",
    "markov_two",  # pattern matching
    "second_guess",
    "beat_beat_last",
    "mixture",  # higher-order and mixed
    "meta_predictor",
    "switcher",
    "regret_matching",  # adaptive
)
#: Bots held out of training: the adaptive ones and two higher-order reactive ones.
OOD_BOTS: tuple[str, ...] = (
    "lose_to_last",
    "beat_beat_last",
    "second_guess",
    "meta_predictor",
    "switcher",
    "regret_matching",
)
#: Bots of the train and test splits.
TRAIN_BOTS: tuple[str, ...] = tuple(b for b in BOTS if b not in OOD_BOTS)
MAX_SEED = 2**62


@dataclasses.dataclass(frozen=True, eq=False)
class RPSScenario(Scenario):
    """One opponent: a scripted bot of the population.

    Attributes:
        bot: the bot's name, one of :data:`BOTS`.
        noise: probability in ``[0, 1]`` that the bot plays a uniformly random move instead of its own.
        seed: the seed of the bot's random stream (its stochastic choices and its noise).
    """

    kind = "rps"

    bot: str
    noise: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.bot not in BOTS:
            raise ScenarioError(f"RPSScenario.bot must be one of {list(BOTS)}; got {self.bot!r}.")
        ok_noise = isinstance(self.noise, int | float | np.floating) and not isinstance(self.noise, bool)
        if not ok_noise or not 0.0 <= float(self.noise) <= 1.0:
            raise ScenarioError(f"RPSScenario.noise must be a number in [0, 1]; got {self.noise!r}.")
        ok_seed = isinstance(self.seed, int | np.integer) and not isinstance(self.seed, bool)
        if not ok_seed or not 0 <= int(self.seed) < MAX_SEED:
            raise ScenarioError(f"RPSScenario.seed must be an integer in [0, 2**62); got {self.seed!r}.")
        object.__setattr__(self, "noise", float(self.noise))
        object.__setattr__(self, "seed", int(self.seed))

    @property
    def bot_index(self) -> int:
        """The bot's strategy index (its position in :data:`BOTS`)."""
        return BOTS.index(self.bot)


class RPSPopulationGenerator(Generator):
    """Draws a bot uniformly from ``bots``, a noise level uniform in ``[0, max_noise]`` and a stream seed.

    Args:
        bots: names from :data:`BOTS` (default: :data:`TRAIN_BOTS`, every bot but :data:`OOD_BOTS`).
        max_noise: the highest noise level, in ``[0, 1]``.
    """

    scenario_type = RPSScenario

    def __init__(self, bots: list[str] | None = None, max_noise: float = 0.0):
        names = list(TRAIN_BOTS if bots is None else bots)
        unknown = [b for b in names if b not in BOTS]
        if not names or unknown or len(set(names)) != len(names):
            raise GeneratorArgumentError(
                f"bots must be a non-empty list of distinct names from {list(BOTS)}; got {bots!r}."
            )
        self.bots = names
        self.max_noise = self._check_float_range("max_noise", max_noise, 0.0, 1.0)

    @override
    @property
    def kwargs(self) -> dict[str, Any]:
        return {"bots": list(self.bots), "max_noise": self.max_noise}

    @override
    def __call__(self, rng: np.random.Generator) -> RPSScenario:
        bot = self.bots[int(rng.integers(len(self.bots)))]
        noise = float(rng.uniform(0.0, self.max_noise))
        seed = int(rng.integers(MAX_SEED))
        return RPSScenario(bot=bot, noise=noise, seed=seed)


@dataclasses.dataclass(frozen=True, eq=False)
class RPSSelfPlayScenario(Scenario):
    """One self-play match: how often each player's hand trembles, and the seed of the trembles.

    Attributes:
        noise: probability in ``[0, 1]`` that a player's move is replaced by a uniformly random
            one (independently for each player and round).
        seed: the seed of the trembles' random stream.
    """

    kind = "rps-self-play"

    noise: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        ok_noise = isinstance(self.noise, int | float | np.floating) and not isinstance(self.noise, bool)
        if not ok_noise or not 0.0 <= float(self.noise) <= 1.0:
            raise ScenarioError(f"RPSSelfPlayScenario.noise must be a number in [0, 1]; got {self.noise!r}.")
        ok_seed = isinstance(self.seed, int | np.integer) and not isinstance(self.seed, bool)
        if not ok_seed or not 0 <= int(self.seed) < MAX_SEED:
            raise ScenarioError(f"RPSSelfPlayScenario.seed must be an integer in [0, 2**62); got {self.seed!r}.")
        object.__setattr__(self, "noise", float(self.noise))
        object.__setattr__(self, "seed", int(self.seed))


class RPSSelfPlayGenerator(Generator):
    """Draws a tremble probability uniform in ``[0, max_noise]`` and a stream seed.

    With ``max_noise=0`` every scenario plays the same (pure rock-paper-scissors); the seed still
    differs, so scenario hashes name their seeds as for every other generator.

    Args:
        max_noise: the highest tremble probability, in ``[0, 1]``.
    """

    scenario_type = RPSSelfPlayScenario

    def __init__(self, max_noise: float = 0.0):
        self.max_noise = self._check_float_range("max_noise", max_noise, 0.0, 1.0)

    @override
    def __call__(self, rng: np.random.Generator) -> RPSSelfPlayScenario:
        noise = float(rng.uniform(0.0, self.max_noise))
        seed = int(rng.integers(MAX_SEED))
        return RPSSelfPlayScenario(noise=noise, seed=seed)
