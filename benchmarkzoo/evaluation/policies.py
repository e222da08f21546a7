"""The policy protocol of the evaluation runner, and the built-in policies.

A policy sees batched observations and returns batched actions. Episodes are independent of
which world they run in and of what runs beside them: a stateful policy resets its state for a
world when :meth:`Policy.start_episodes` says a new episode starts there, with that episode's
seed. That is what makes results bit-identical for any number of worlds or workers.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces
from gymnasium.vector import AsyncVectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array
from typing_extensions import override

from benchmarkzoo import baselines
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.registration import EnvSpec, load
from benchmarkzoo.vector.base import world_slice


class PolicyError(BenchmarkZooError, ValueError):
    """A policy that cannot be loaded, or that failed while acting."""


class Policy:
    """Base class: override :meth:`act`; override the others when the policy has state.

    Attributes:
        name: shown in results and on the leaderboard.
        kind: ``random``, ``baseline``, ``callable``, ``sb3``, ``rllib``, ``onnx``.
        source: the file a hash is taken of (a checkpoint, a script), if any.
    """

    name = "policy"
    kind = "callable"
    source: Path | None = None

    def start_task(self, task_id: str) -> None:
        """Called before :meth:`setup` with the id of the suite task about to play (a bundle picks its model)."""

    def setup(self, env: Any, spec: EnvSpec) -> None:
        """Called once per task with the vector env the task runs on."""

    def start_episodes(self, worlds: np.ndarray, seeds: list[int]) -> None:
        """Worlds ``worlds`` start new episodes, seeded ``seeds``: reset any per-world state."""

    def act(self, observations: Any, env: Any) -> Any:
        """Batched actions for every world of ``env`` (idle worlds' actions are ignored)."""
        raise NotImplementedError

    def content_hash(self) -> str | None:
        """sha256 of :attr:`source`, so a results file names exactly what was evaluated."""
        if self.source is None:
            return None
        return hashlib.sha256(Path(self.source).read_bytes()).hexdigest()


class RandomPolicy(Policy):
    """Uniform random actions, drawn per world (and per agent) from generators seeded by the episode's seed.

    On a multi-agent vector env (``env.num_agents`` agents per world, actions ``(B, N, ...)``)
    agent ``j`` of an episode seeded ``s`` draws from a space seeded ``derive_seed(s,
    "random-policy", j)``; a single-agent episode's space is seeded ``derive_seed(s, "random-policy")``.
    """

    name = "random"
    kind = "random"

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        self._space = env.single_action_space
        self._agents = getattr(env, "num_agents", None) if spec.kind in ("parallel", "moma") else None
        per_world = 1 if self._agents is None else self._agents
        self._spaces = [[copy.deepcopy(self._space) for _ in range(per_world)] for _ in range(env.num_envs)]
        if self._agents is None:
            self._out = create_empty_array(self._space, env.num_envs)
        else:
            self._world_space = batch_space(self._space, self._agents)
            self._world_out = create_empty_array(self._space, self._agents)
            self._out = create_empty_array(self._world_space, env.num_envs)

    @override
    def start_episodes(self, worlds: np.ndarray, seeds: list[int]) -> None:
        for world, seed in zip(worlds, seeds):
            if self._agents is None:
                self._spaces[world][0].seed(derive_seed(seed, "random-policy"))
            else:
                for agent, space in enumerate(self._spaces[world]):
                    space.seed(derive_seed(seed, "random-policy", agent))

    @override
    def act(self, observations: Any, env: Any) -> Any:
        if self._agents is None:
            return concatenate(self._space, [spaces[0].sample() for spaces in self._spaces], self._out)
        worlds = [
            copy.deepcopy(concatenate(self._space, [s.sample() for s in spaces], self._world_out))
            for spaces in self._spaces
        ]
        return concatenate(self._world_space, worlds, self._out)


class BaselinePolicy(Policy):
    """The env's registered baseline (``EnvSpec.baseline``), a privileged planner or controller.

    Baselines read the simulator, so they run on the native backend (and on ``sync``, world by
    world); on ``async`` the simulators live in other processes and this raises. A multi-agent
    baseline is called as ``baseline(vec_env)`` and returns ``(B, N)`` actions.
    """

    name = "baseline"
    kind = "baseline"

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        if spec.baseline is None:
            raise PolicyError(f"{spec.id} has no registered baseline; pick another policy (e.g. random).")
        self._planner = load(spec.baseline)()
        self._sub_envs = getattr(env, "envs", None)
        if isinstance(env, AsyncVectorEnv):
            raise PolicyError(
                f"The {spec.id} baseline reads the simulator, which --backend async keeps in other processes; "
                "run the baseline with --backend native or sync."
            )

    @override
    def act(self, observations: Any, env: Any) -> Any:
        if self._sub_envs is not None:
            actions = [
                baselines.act(self._planner, sub, world_slice(observations, i)) for i, sub in enumerate(self._sub_envs)
            ]
            space = env.single_action_space
            if isinstance(space, gym_spaces.Dict | gym_spaces.Tuple):  # Platform-v0's: batched part by part
                return concatenate(space, actions, create_empty_array(space, len(actions)))
            return np.asarray(actions)
        return baselines.act(self._planner, env, observations)


class CallablePolicy(Policy):
    """Any ``f(observations) -> actions`` (batched), or a class/factory returning a :class:`Policy`."""

    def __init__(self, fn: Any, name: str, source: Path | None):
        self._fn = fn
        self.name = name
        self.source = source

    @override
    def act(self, observations: Any, env: Any) -> Any:
        return self._fn(observations)


def reshape_leading(tree: Any, lead: tuple[int, ...], axes: int) -> Any:
    """``tree`` (an array, or a dict of them, nested) with the first ``axes`` axes of every array replaced by ``lead``.

    How a policy of one agent reads a multi-agent batch: ``(B, N, ...)`` observations as ``(B * N, ...)``.
    """
    if isinstance(tree, dict):
        return {k: reshape_leading(v, lead, axes) for k, v in tree.items()}
    array = np.asarray(tree)
    return array.reshape(*lead, *array.shape[axes:])


def _load_target(target: str) -> tuple[Any, Path | None]:
    """Resolve ``module:attr`` or ``path/to/file.py:attr``."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise PolicyError(
            f"Policy {target!r} is not a built-in (random, baseline); expected 'module:callable' or 'file.py:callable'."
        )
    source: Path | None
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise PolicyError(f"Policy file {str(path)!r} does not exist.")
        spec = importlib.util.spec_from_file_location(f"benchmarkzoo_policy_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise PolicyError(f"Policy file {str(path)!r} cannot be imported as a Python module.")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # the user's file: report its failure in one line, not a traceback
            raise PolicyError(f"Policy file {str(path)!r} failed to load: {type(error).__name__}: {error}") from error
        source = path
    else:
        try:
            module = importlib.import_module(where)
        except Exception as error:  # ImportError, or whatever the module raises at import
            raise PolicyError(f"Cannot import policy module {where!r}: {type(error).__name__}: {error}.") from error
        file = getattr(module, "__file__", None)
        source = Path(file) if file else None
    if not hasattr(module, attr):
        raise PolicyError(f"{where!r} has no attribute {attr!r}; check the policy name after the colon.")
    return getattr(module, attr), source


#: Built-in policies by name.
BUILTINS: dict[str, Callable[[], Policy]] = {"random": RandomPolicy, "baseline": BaselinePolicy}


#: Policy kinds by prefix: ``"<prefix>:<rest>"`` is ``LOADERS[prefix](rest)`` (e.g. ``sb3:model.zip``).
#: Add a kind with one entry here; a prefix ending in ``.py`` or naming a module is never shadowed
#: unless registered.
def _load_sb3(path: str) -> Policy:
    # Loading an SB3 zip unpickles code: evaluate only models you trust (submissions are never loaded).
    from benchmarkzoo.adapters.sb3_policy import load_sb3_policy  # SB3 and torch load only here

    return load_sb3_policy(path)


def _load_rllib(path: str) -> Policy:
    # Loading an RLlib checkpoint unpickles code: evaluate only checkpoints you trust.
    from benchmarkzoo.adapters.rllib_policy import load_rllib_policy  # Ray and torch load only here

    return load_rllib_policy(path)


def _load_onnx(path: str) -> Policy:
    # An ONNX model is data: onnxruntime runs its graph, nothing from the file is executed as Python.
    from benchmarkzoo.evaluation.onnx_policy import load_onnx_policy  # onnxruntime loads only here

    return load_onnx_policy(path)


LOADERS: dict[str, Callable[[str], Policy]] = {"sb3": _load_sb3, "rllib": _load_rllib, "onnx": _load_onnx}


def load_policy(target: str) -> Policy:
    """A policy from the command line: a built-in, ``<kind>:<rest>``, ``module:callable`` or ``file.py:callable``.

    A class (or factory) is instantiated with no arguments; if the result is a :class:`Policy`
    it is used as is, otherwise it must be callable as ``f(observations) -> actions``.
    """
    if target in BUILTINS:
        return BUILTINS[target]()
    prefix, sep, rest = target.partition(":")
    if sep and prefix in LOADERS:
        return LOADERS[prefix](rest)
    obj, source = _load_target(target)
    if inspect.isclass(obj):
        try:
            obj = obj()
        except Exception as error:
            raise PolicyError(f"Policy {target!r} could not be created: {type(error).__name__}: {error}") from error
    if isinstance(obj, Policy):
        if obj.source is None:
            obj.source = source
        return obj
    if not callable(obj):
        raise PolicyError(f"Policy {target!r} is neither a Policy nor callable.")
    return CallablePolicy(obj, name=target.rpartition(":")[2], source=source)


__all__ = [
    "BaselinePolicy",
    "CallablePolicy",
    "Policy",
    "PolicyError",
    "RandomPolicy",
    "load_policy",
    "reshape_leading",
]
