"""Exception types. Every message names the env, what was expected, what arrived, and what to do.

Each error also subclasses the builtin a caller would naturally catch (``ValueError``,
``KeyError``, ``ImportError``), so code written against Gymnasium or PettingZoo keeps working.
"""

from __future__ import annotations

from gymnasium.error import ClosedEnvironmentError, ResetNeeded
from gymnasium.error import Error as GymnasiumError


class BenchmarkZooError(Exception):
    """Base class of every error benchmarkzoo raises on purpose."""


class UnknownEnvError(BenchmarkZooError, KeyError):
    """An env id that is not registered."""

    def __init__(self, env_id: str, suggestions: list[str]):
        self.env_id = env_id
        self.suggestions = suggestions
        hint = (
            f" Did you mean {', '.join(repr(s) for s in suggestions)}?"
            if suggestions
            else " Run `benchmarkzoo list` to see every registered id."
        )
        super().__init__(f"No benchmarkzoo env is registered as {env_id!r}.{hint}")

    def __str__(self) -> str:  # KeyError would otherwise print the repr of the message
        return self.args[0]


class UnknownGeneratorError(BenchmarkZooError, KeyError):
    """A generator name that is not registered."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        super().__init__(
            f"No scenario generator is registered as {name!r}; registered generators: "
            f"{', '.join(sorted(known))}. Pass one of these as generator=... ."
        )

    def __str__(self) -> str:
        return self.args[0]


class MissingExtraError(BenchmarkZooError, ImportError):
    """An optional dependency that is not installed."""

    def __init__(self, module: str, extra: str, needed_for: str):
        self.module = module
        self.extra = extra
        super().__init__(
            f"{needed_for} needs the Python module {module!r}, which is not installed. "
            f'Install it with: pip install "benchmarkzoo[{extra}]"'
        )


class InvalidActionError(BenchmarkZooError, ValueError):
    """An action outside the action space, of the wrong shape or dtype, or NaN."""


class IllegalActionError(InvalidActionError):
    """An action inside the action space that the agent's current action mask forbids."""


class InvalidAgentError(BenchmarkZooError, KeyError):
    """An action dict whose agent names are unknown, missing, or already done."""

    def __str__(self) -> str:
        return self.args[0]


class GeneratorArgumentError(BenchmarkZooError, ValueError):
    """A generator keyword argument outside its allowed range."""


class InvalidWeightsError(BenchmarkZooError, ValueError):
    """Scalarization weights that do not fit an env's vector reward: wrong length, agents or values."""


class ScenarioError(BenchmarkZooError, ValueError):
    """A scenario that cannot be loaded: wrong type, wrong size for this env, unreachable goal."""


class ScenarioSetError(BenchmarkZooError, ValueError):
    """A scenario-set file that is malformed, or whose regenerated hashes differ from the recorded ones."""


class ResetNeededError(BenchmarkZooError, ResetNeeded, RuntimeError):
    """``step`` called before ``reset``, or on a finished world with autoreset disabled."""


class SimulatorError(BenchmarkZooError, RuntimeError):
    """An external simulator's process or connection died (a SUMO worker, a ``sumo`` process, a PyBullet worker).

    The message names the simulator, the env and what happened (a signal, an exit code, a
    closed connection). It is not the policy's fault: the evaluation replays the episodes it
    interrupted on a fresh simulator (:data:`benchmarkzoo.evaluation.runner.SIMULATOR_RETRIES`).
    """


class ClosedEnvError(BenchmarkZooError, ClosedEnvironmentError, RuntimeError):
    """``reset``, ``step`` or ``render`` called on an env after its ``close()``."""


class InvalidSeedError(BenchmarkZooError, GymnasiumError, ValueError, TypeError):
    """A seed that is not a non-negative integer (Gymnasium's rule), or a per-world list of the wrong length.

    Gymnasium raises ``gymnasium.error.Error`` for such seeds; this is one, and also the
    ``ValueError``/``TypeError`` a caller might catch instead.
    """


class UnknownOptionError(BenchmarkZooError, KeyError, ValueError):
    """A ``reset`` option the env does not know (it would otherwise be ignored silently)."""

    def __str__(self) -> str:
        return self.args[0]


class WrongKindError(BenchmarkZooError, GymnasiumError):
    """A multi-agent id handed to ``gymnasium.make`` (or ``mo_gymnasium.make``), which makes single-agent envs.

    It is a ``gymnasium.error.Error`` (what ``gymnasium.make`` raises for an id it cannot make)
    and deliberately not a ``TypeError``: ``gymnasium.make`` re-raises a creator's ``TypeError``
    with its kwargs appended, which would bury the hint.
    """
