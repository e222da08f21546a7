"""The one registry: every env of every kind, and every scenario generator, by name.

``import benchmarkzoo`` fills it from :mod:`benchmarkzoo.catalogue`. Single-agent and
multi-objective envs are also registered with Gymnasium under the ``benchmarkzoo/`` namespace
(``gym.make``, ``gym.make_vec`` and ``mo_gymnasium.make`` work), and parallel envs with
PettingZoo's registry. Everything else in the package (CLI, tests, evaluation suites) reads
the env list from here and nowhere else.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Callable
from typing import Any, Literal

import gymnasium as gym

from benchmarkzoo.core.bounds import OutcomeBounds
from benchmarkzoo.core.errors import MissingExtraError, UnknownEnvError, UnknownGeneratorError
from benchmarkzoo.core.extras import EXTRA_MODULES, missing_modules
from benchmarkzoo.generators.base import Generator

Kind = Literal["single", "mo", "parallel", "moma"]
KINDS: tuple[str, ...] = ("single", "mo", "parallel", "moma")
FAMILIES: tuple[str, ...] = ("gridworld", "control", "multiagent", "traffic", "robotics")
NAMESPACE = "benchmarkzoo"
_ID_PATTERN = re.compile(rf"^{NAMESPACE}/[A-Z][A-Za-z0-9]*(-[A-Za-z0-9]+)*-v\d+$")


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """What the registry knows of one env.

    Attributes:
        id: ``benchmarkzoo/<Name>-v<N>``; bump ``N`` whenever a fixed seed would give other output.
        kind: ``single``, ``mo`` (vector reward), ``parallel`` (PettingZoo) or ``moma``.
        family: ``gridworld``, ``control``, ``multiagent``, ``traffic``, ``robotics``.
        entry_point: ``"module:Class"`` of the env.
        vector_entry_point: ``"module:Class"`` of the native vector env, or ``None``.
        max_episode_steps: time limit (``max_cycles`` for parallel kinds).
        kwargs: constructor defaults, JSON-compatible (generators are named, not instances).
        extras: benchmarkzoo extras the env needs, e.g. ``("traffic",)``.
        description: one line.
        baseline: ``"module:Class"`` of the reference policy, or ``None``.
        scenario_sets: scenario-set names under ``scenarios/``, e.g. ``("gridworld/maze",)``.
        outcome_bounds: ``"module:function"`` that returns the :class:`~benchmarkzoo.core.bounds.OutcomeBounds`
            of the env's episodes (see :meth:`bounds`). It locates code, so it is not part of
            :meth:`to_dict`, which results files record, nor of equality (a spec round-trips through JSON).
    """

    id: str
    kind: Kind
    family: str
    entry_point: str
    vector_entry_point: str | None
    max_episode_steps: int | None
    kwargs: dict[str, Any]
    extras: tuple[str, ...]
    description: str
    baseline: str | None = None
    scenario_sets: tuple[str, ...] = ()
    outcome_bounds: str | None = dataclasses.field(default=None, compare=False)  # code, not identity

    @property
    def has_native_vector(self) -> bool:
        return self.vector_entry_point is not None

    @property
    def missing_extras(self) -> list[str]:
        """Extras whose modules are not installed (nothing is imported to find out)."""
        return [extra for extra in self.extras if missing_modules(extra)]

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        del data["outcome_bounds"]
        data["extras"] = list(self.extras)
        data["scenario_sets"] = list(self.scenario_sets)
        data["native_vector"] = self.has_native_vector
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def load_entry_point(self) -> Callable[..., Any]:
        self.require_extras()
        return load(self.entry_point)

    def bounds(self, kwargs: dict[str, Any] | None = None) -> OutcomeBounds:
        """What an episode of this env made with ``kwargs`` (over the spec's) can produce.

        The step limit is ``kwargs``' ``max_episode_steps`` (``max_cycles`` for parallel kinds),
        else the spec's. Nothing is simulated; only the env's modules are imported.
        """
        if self.outcome_bounds is None:
            raise ValueError(
                f"{self.id} declares no outcome_bounds; register it with outcome_bounds='module:function'."
            )
        merged = {**self.kwargs, **(kwargs or {})}
        limit_key = "max_episode_steps" if self.kind in ("single", "mo") else "max_cycles"
        limit = merged.pop(limit_key, self.max_episode_steps)
        merged.pop("max_episode_steps", None)
        return load(self.outcome_bounds)(merged, limit)

    def require_extras(self) -> None:
        """Raise :class:`MissingExtraError` naming the first extra this env needs that is missing."""
        for extra in self.extras:
            missing = missing_modules(extra)
            if missing:
                raise MissingExtraError(missing[0], extra, self.id)


_ENVS: dict[str, EnvSpec] = {}
_GENERATORS: dict[str, str] = {}


def load(entry_point: str) -> Callable[..., Any]:
    """Import ``"module:attr"`` and return the attribute."""
    import importlib

    module, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module), attr)


# ---- envs ---------------------------------------------------------------------------------------


def register(
    id: str,
    *,
    kind: Kind,
    family: str,
    entry_point: str,
    description: str,
    vector_entry_point: str | None = None,
    max_episode_steps: int | None = None,
    kwargs: dict[str, Any] | None = None,
    extras: tuple[str, ...] = (),
    baseline: str | None = None,
    scenario_sets: tuple[str, ...] = (),
    outcome_bounds: str | None = None,
) -> EnvSpec:
    """Add an env to the registry (and to Gymnasium's or PettingZoo's, by kind)."""
    if not _ID_PATTERN.match(id):
        raise ValueError(f"Env ids look like '{NAMESPACE}/Name-v0'; got {id!r}.")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}.")
    unknown = [e for e in extras if e not in EXTRA_MODULES]
    if unknown:
        raise ValueError(f"Unknown extras {unknown}; known: {list(EXTRA_MODULES)}.")
    if id in _ENVS:
        raise ValueError(f"{id!r} is already registered; bump its version instead of re-registering.")
    spec = EnvSpec(
        id=id,
        kind=kind,
        family=family,
        entry_point=entry_point,
        vector_entry_point=vector_entry_point,
        max_episode_steps=max_episode_steps,
        kwargs=dict(kwargs or {}),
        extras=tuple(extras),
        description=description,
        baseline=baseline,
        scenario_sets=tuple(scenario_sets),
        outcome_bounds=outcome_bounds,
    )
    json.dumps(spec.kwargs)  # specs must serialize: name generators by string, never pass instances
    _ENVS[id] = spec
    if kind in ("single", "mo"):
        gym.register(
            id=id,
            entry_point=entry_point,
            vector_entry_point=vector_entry_point,
            max_episode_steps=max_episode_steps,
            kwargs=spec.kwargs,
        )
    else:
        from pettingzoo.env_registry import registration as pz  # loaded only once a parallel env exists

        pz.register("parallel", id, entry_point=entry_point, max_cycles=max_episode_steps, kwargs=spec.kwargs)
        pz.register("aec", id, entry_point=f"{__name__}:_make_aec_from_kwargs", kwargs={"__id__": id})
    return spec


def spec(env_id: str) -> EnvSpec:
    """The spec of ``env_id``; an unknown id raises :class:`UnknownEnvError` with the closest ids."""
    found = _ENVS.get(env_id)
    if found is None:
        found = _ENVS.get(f"{NAMESPACE}/{env_id}")  # "Maze-v0" is unambiguous
    if found is None:
        raise UnknownEnvError(env_id, suggest(env_id))
    return found


def suggest(env_id: str, limit: int = 3) -> list[str]:
    """Registered ids whose names are closest to ``env_id``'s (ignoring namespace, version and case)."""

    def stem(name: str) -> str:
        return re.sub(r"-v\d+$", "", name.split("/", 1)[-1].lower())

    by_stem: dict[str, list[str]] = {}
    for registered in sorted(_ENVS):
        by_stem.setdefault(stem(registered), []).append(registered)
    close = difflib.get_close_matches(stem(env_id), list(by_stem), n=limit, cutoff=0.6)
    return [registered for name in close for registered in by_stem[name]][:limit]


def list_envs(kind: str | None = None, family: str | None = None) -> list[EnvSpec]:
    """Every registered env, sorted by id, optionally of one ``kind`` and/or ``family``."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None; got {kind!r}.")
    if family is not None and family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES} or None; got {family!r}.")
    return [
        s
        for _, s in sorted(_ENVS.items())
        if (kind is None or s.kind == kind) and (family is None or s.family == family)
    ]


def _expect_kind(found: EnvSpec, kinds: tuple[str, ...], maker: str) -> None:
    if found.kind not in kinds:
        right = "make / make_vec" if found.kind in ("single", "mo") else "make_parallel / make_aec"
        raise TypeError(f"{found.id} is a {found.kind!r} env; {maker} makes {'/'.join(kinds)} envs. Use {right}.")


def make(env_id: str, **kwargs: Any) -> gym.Env:
    """A single-agent (or multi-objective) env through ``gymnasium.make``, wrappers included."""
    found = spec(env_id)
    _expect_kind(found, ("single", "mo"), "make")
    found.require_extras()
    return gym.make(found.id, **kwargs)


def make_vec(env_id: str, num_envs: int = 1, vectorization_mode: str | None = None, **kwargs: Any) -> Any:
    """A vector env: native (``"vector_entry_point"``, the default where it exists), ``"sync"`` or ``"async"``.

    Parallel kinds have only the native form, a batch of multi-agent worlds.
    """
    found = spec(env_id)
    found.require_extras()
    if found.kind in ("single", "mo"):
        return gym.make_vec(found.id, num_envs=num_envs, vectorization_mode=vectorization_mode, **kwargs)
    if vectorization_mode not in (None, "vector_entry_point") or found.vector_entry_point is None:
        raise ValueError(
            f"{found.id} is a {found.kind!r} env: only its native vector form exists (vectorization_mode=None)."
        )
    merged = {**found.kwargs, **kwargs}
    if found.max_episode_steps is not None:
        merged.setdefault("max_cycles", found.max_episode_steps)
    return _made_under(found, load(found.vector_entry_point)(num_envs=num_envs, **merged))


def make_parallel(env_id: str, **kwargs: Any) -> Any:
    """A PettingZoo ``ParallelEnv`` of a ``parallel`` or ``moma`` env."""
    found = spec(env_id)
    _expect_kind(found, ("parallel", "moma"), "make_parallel")
    merged = {**found.kwargs, **kwargs}
    if found.max_episode_steps is not None:
        merged.setdefault("max_cycles", found.max_episode_steps)
    return _made_under(found, found.load_entry_point()(**merged))


def _made_under(found: EnvSpec, env: Any) -> Any:
    """Hand ``env`` its spec, as ``gym.make`` does: its messages then name the id it was made under."""
    env.spec = found
    return env


def make_aec(env_id: str, **kwargs: Any) -> Any:
    """A PettingZoo ``AECEnv``: the parallel env through PettingZoo's standard conversion."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(make_parallel(env_id, **kwargs))


def _make_aec_from_kwargs(__id__: str, **kwargs: Any) -> Any:
    return make_aec(__id__, **kwargs)


# ---- generators ---------------------------------------------------------------------------------


def register_generator(name: str, entry_point: str) -> None:
    """Name a generator class (``"family/name"``) so env specs and scenario sets can refer to it."""
    if name in _GENERATORS:
        raise ValueError(f"Generator {name!r} is already registered.")
    _GENERATORS[name] = entry_point


def list_generators() -> list[str]:
    return sorted(_GENERATORS)


def make_generator(name: str, kwargs: dict[str, Any] | None = None) -> Generator:
    """Instantiate the generator registered as ``name`` with ``kwargs``."""
    if name not in _GENERATORS:
        raise UnknownGeneratorError(name, list(_GENERATORS))
    return load(_GENERATORS[name])(**(kwargs or {}))


def generator_name(generator: Generator) -> str:
    """The registered name of a generator instance's class."""
    target = f"{type(generator).__module__}:{type(generator).__qualname__}"
    for name, entry_point in _GENERATORS.items():
        if entry_point == target:
            return name
    raise UnknownGeneratorError(target, list(_GENERATORS))
