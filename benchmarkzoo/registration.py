"""The one registry: every env of every kind, and every scenario generator, by name.

``import benchmarkzoo`` fills it from :mod:`benchmarkzoo.catalogue` (the ``benchmarkzoo/``
namespace). Other distributions add envs in their own namespaces through the ``benchmarkzoo.envs``
entry-point group (:mod:`benchmarkzoo.plugins`), loaded at the registry's first use. Single-agent
and multi-objective envs are also registered with Gymnasium (``gym.make``, ``gym.make_vec`` and
``mo_gymnasium.make`` work), and parallel envs with PettingZoo's registry. Parallel envs also get a
Gymnasium entry whose entry point refuses (:func:`_refuse_gym_make`): ``gym.make`` on them names
``benchmarkzoo.make_parallel`` instead of Gymnasium's bare ``NameNotFound``. Everything else in the
package (CLI, tests, evaluation suites) reads the env list from here and nowhere else.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import gymnasium as gym
from gymnasium.envs.registration import parse_env_id

from benchmarkzoo.core.bounds import OutcomeBounds
from benchmarkzoo.core.errors import MissingExtraError, UnknownEnvError, UnknownGeneratorError, WrongKindError
from benchmarkzoo.core.extras import EXTRA_MODULES, missing_modules
from benchmarkzoo.generators.base import Generator

if TYPE_CHECKING:
    from benchmarkzoo.plugins import Plugin

Kind = Literal["single", "mo", "parallel", "moma"]
KINDS: tuple[str, ...] = ("single", "mo", "parallel", "moma")
#: The built-in envs' namespace; a bare ``Name-vN`` is looked up in it.
NAMESPACE = "benchmarkzoo"
#: The form :func:`register` accepts: Gymnasium's, with the namespace and the version required.
ID_FORM = "'namespace/Name-vN' (e.g. 'benchmarkzoo/Maze-v0', 'mylab/Thing-v2')"
_FAMILY_PATTERN = re.compile(r"[a-z][a-z0-9_]*")


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """What the registry knows of one env.

    Attributes:
        id: ``<namespace>/<Name>-v<N>`` (``benchmarkzoo/`` for the built-ins); bump ``N`` whenever a
            fixed seed would give other output.
        kind: ``single``, ``mo`` (vector reward), ``parallel`` (PettingZoo) or ``moma``.
        family: a lower-case identifier grouping envs (built-ins: ``gridworld``, ``control``,
            ``multiagent``, ``traffic``, ``robotics``).
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
        """Whether the spec names a native vector env (a ``vector_entry_point``)."""
        return self.vector_entry_point is not None

    @property
    def missing_extras(self) -> list[str]:
        """Extras whose modules are not installed (nothing is imported to find out)."""
        return [extra for extra in self.extras if missing_modules(extra)]

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON-ready data, as results files record it (``outcome_bounds`` left out)."""
        data = dataclasses.asdict(self)
        del data["outcome_bounds"]
        data["extras"] = list(self.extras)
        data["scenario_sets"] = list(self.scenario_sets)
        data["native_vector"] = self.has_native_vector
        return data

    def to_json(self) -> str:
        """:meth:`to_dict` as canonical JSON (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def load_entry_point(self) -> Callable[..., Any]:
        """Import the env's class (or factory); a missing extra raises naming the ``pip install``."""
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
_PLUGINS: tuple[Plugin, ...] | None = None  # None until load_plugins() has run


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
    """Add an env to the registry (and to Gymnasium's or PettingZoo's, by kind).

    Any distribution may call it, in its own namespace (``mylab/Thing-v2``), usually from a
    ``benchmarkzoo.envs`` entry point (see :mod:`benchmarkzoo.plugins`).
    """
    check_id(id)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")
    _check_family(family)
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
        # Gymnasium has no hook for an unknown id's message, so the id is listed there too, with a
        # creator that only refuses; its kwargs carry nothing but the id (gym.spec shows no defaults).
        gym.register(id=id, entry_point=f"{__name__}:_refuse_gym_make", kwargs={"__id__": id})
    return spec


def _lookup(env_id: str) -> EnvSpec | None:
    found = _ENVS.get(env_id)
    if found is None:
        found = _ENVS.get(f"{NAMESPACE}/{env_id}")  # "Maze-v0" is unambiguous
    return found


def spec(env_id: str) -> EnvSpec:
    """The spec of ``env_id``; an unknown id raises :class:`UnknownEnvError` with the closest ids.

    Plugins (:func:`load_plugins`) are loaded only when ``env_id`` is not among the envs
    registered so far, so looking up a built-in env never reads any distribution's metadata.
    """
    found = _lookup(env_id)
    if found is None:
        load_plugins()
        found = _lookup(env_id)
    if found is None:
        raise UnknownEnvError(env_id, suggest(env_id))
    return found


def registered_so_far() -> list[EnvSpec]:
    """The envs registered until now, sorted by id, without loading plugins.

    For lookups made while an env is being constructed (which id to name): making a built-in env
    must not read every installed distribution's metadata. An env made through a plugin's id is
    registered by then, because the lookup of that id loaded the plugins.
    """
    return [s for _, s in sorted(_ENVS.items())]


def list_envs(kind: str | None = None, family: str | None = None) -> list[EnvSpec]:
    """Every registered env, sorted by id, optionally of one ``kind`` and/or ``family``."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None; got {kind!r}.")
    if family is not None:
        _expect_known_family(family)
    load_plugins()
    return [
        s
        for _, s in sorted(_ENVS.items())
        if (kind is None or s.kind == kind) and (family is None or s.family == family)
    ]


# ---- open registry: id forms, families, suggestions, plugins ------------------------------------


def check_id(env_id: str) -> tuple[str, str, int]:
    """The namespace, name and version of an id :func:`register` accepts.

    Ids are parsed by Gymnasium's own ``parse_env_id``; benchmarkzoo also requires the namespace
    (a bare name is looked up in ``benchmarkzoo/``) and the version (bumped when a seed's output changes).

    Raises:
        ValueError: naming the expected form and what is wrong with ``env_id``.
    """
    problem = "Gymnasium's parse_env_id cannot read it (at most one '/'; letters, digits, '_', '-', '.')"
    if isinstance(env_id, str):
        try:
            namespace, name, version = parse_env_id(env_id)
        except gym.error.Error:
            pass
        else:
            if ":" in env_id:  # gymnasium.make reads "a:b" as "import a, then make b"
                problem = "':' is not allowed (gymnasium.make would read it as 'module:id')"
            elif namespace is None:
                problem = f"it has no namespace (use your project's, e.g. 'mylab/{env_id}')"
            elif version is None:
                problem = f"it has no version (e.g. '{env_id}-v0')"
            else:
                return namespace, name, version
    raise ValueError(f"Env ids look like {ID_FORM}; got {env_id!r}: {problem}.")


def _check_family(family: str) -> None:
    if not isinstance(family, str) or not _FAMILY_PATTERN.fullmatch(family):
        raise ValueError(
            f"family must be a lower-case identifier (letters, digits, '_'; e.g. 'gridworld', 'my_robots'); "
            f"got {family!r}."
        )


def list_families() -> list[str]:
    """The families that have registered envs, sorted."""
    load_plugins()
    return sorted({s.family for s in _ENVS.values()})


def _expect_known_family(family: str) -> None:
    known = list_families()
    if family not in known:
        close = difflib.get_close_matches(family, known, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"No env is registered in the family {family!r}; families with envs: {', '.join(known)}.{hint}"
        )


def _id_parts(env_id: str) -> tuple[str | None, str]:
    """Namespace and lower-case name of any id, well-formed or not (for suggestions)."""
    try:
        namespace, name, _ = parse_env_id(env_id)
    except gym.error.Error:  # e.g. "a/b/c" or spaces: compare what follows the last '/'
        namespace, _, name = env_id.rpartition("/")
    return namespace or None, name.lower()


def suggest(env_id: str, limit: int = 3) -> list[str]:
    """Registered ids whose names are closest to ``env_id``'s, in every namespace.

    Names are compared ignoring namespace, version and case; among ids of the same name, those in
    ``env_id``'s namespace come first (``mylab/Maze-v1`` suggests ``mylab/Maze-v0`` before ``benchmarkzoo/Maze-v0``).
    """
    load_plugins()
    namespace, name = _id_parts(env_id)
    by_name: dict[str, list[str]] = {}
    for registered in sorted(_ENVS, key=lambda i: (_id_parts(i)[0] != namespace, i)):
        by_name.setdefault(_id_parts(registered)[1], []).append(registered)
    close = difflib.get_close_matches(name, list(by_name), n=limit, cutoff=0.6)
    return [registered for found in close for registered in by_name[found]][:limit]


def load_plugins() -> tuple[Plugin, ...]:
    """Register the envs of every installed distribution's ``benchmarkzoo.envs`` entry point, once per process.

    Called by the registry's lookups; a plugin that fails is reported as a
    :class:`~benchmarkzoo.plugins.PluginWarning` (once) and skipped.

    Returns:
        Every entry point of the group, with the ids it registered and its error, if any.
    """
    global _PLUGINS
    if _PLUGINS is None:
        from benchmarkzoo import plugins  # not at import: nothing of it is needed until a lookup misses

        _PLUGINS = ()  # first: a plugin that looks the registry up while it registers must not load the group again
        _PLUGINS = plugins.load_group(lambda: _ENVS)
    return _PLUGINS


def provider(env_id: str) -> Plugin | None:
    """The plugin entry point that registered ``env_id``, or ``None`` (built-in or registered directly)."""
    return next((plugin for plugin in load_plugins() if env_id in plugin.env_ids), None)


def _expect_kind(found: EnvSpec, kinds: tuple[str, ...], maker: str) -> None:
    if found.kind not in kinds:
        right = "make / make_vec" if found.kind in ("single", "mo") else "make_parallel / make_aec"
        raise TypeError(f"{found.id} is a {found.kind!r} env; {maker} makes {'/'.join(kinds)} envs. Use {right}.")


def make(env_id: str, **kwargs: Any) -> gym.Env:
    """A single-agent (or multi-objective) env through ``gymnasium.make``, wrappers included.

    A goal-conditioned env (one whose unwrapped env has ``compute_reward``, the Panda envs) comes
    wrapped once more in :class:`~benchmarkzoo.wrappers.goal.GoalEnvWrapper`, so
    ``env.compute_reward`` works on the result as SB3's ``check_env`` calls it.
    """
    found = spec(env_id)
    _expect_kind(found, ("single", "mo"), "make")
    found.require_extras()
    env = gym.make(found.id, **kwargs)
    if hasattr(env.unwrapped, "compute_reward") and not hasattr(env, "compute_reward"):
        from benchmarkzoo.wrappers.goal import GoalEnvWrapper

        env = GoalEnvWrapper(env)
    return env


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
    """A PettingZoo ``AECEnv``: the parallel env through PettingZoo's standard conversion.

    A ``moma`` env keeps its vector rewards and ``reward_space`` (MOMAland's AEC semantics,
    :class:`~benchmarkzoo.adapters.aec.MOParallelToAEC`) instead of PettingZoo's scalar conversion.
    """
    from pettingzoo.utils.conversions import parallel_to_aec

    parallel = make_parallel(env_id, **kwargs)
    if spec(env_id).kind == "moma":
        from benchmarkzoo.adapters.aec import MOParallelToAEC

        return MOParallelToAEC(parallel)
    return parallel_to_aec(parallel)


def _make_aec_from_kwargs(__id__: str, **kwargs: Any) -> Any:
    return make_aec(__id__, **kwargs)


def _refuse_gym_make(__id__: str, **kwargs: Any) -> Any:
    """The Gymnasium entry point of a parallel or moma env: ``gym.make`` is told what to call instead."""
    found = _ENVS[__id__]
    keywords = "".join(f", {key}={value!r}" for key, value in kwargs.items())
    raise WrongKindError(
        f"{found.id} is a {found.kind!r} (multi-agent, PettingZoo) env, which gymnasium.make cannot make. "
        f"Use benchmarkzoo.make_parallel({found.id!r}{keywords}) for a ParallelEnv or "
        f"benchmarkzoo.make_aec({found.id!r}{keywords}) for an AECEnv, or benchmarkzoo.make_vec for its "
        "native vector form."
    )


# ---- generators ---------------------------------------------------------------------------------


def register_generator(name: str, entry_point: str) -> None:
    """Name a generator class (``"family/name"``) so env specs and scenario sets can refer to it."""
    if name in _GENERATORS:
        raise ValueError(f"Generator {name!r} is already registered.")
    _GENERATORS[name] = entry_point


def list_generators() -> list[str]:
    """The names of every registered generator, plugins' included, sorted."""
    load_plugins()
    return sorted(_GENERATORS)


def make_generator(name: str, kwargs: dict[str, Any] | None = None) -> Generator:
    """Instantiate the generator registered as ``name`` with ``kwargs``."""
    if name not in _GENERATORS:
        load_plugins()
    if name not in _GENERATORS:
        raise UnknownGeneratorError(name, list(_GENERATORS))
    return load(_GENERATORS[name])(**(kwargs or {}))


def generator_name(generator: Generator) -> str:
    """The registered name of a generator instance's class."""
    target = f"{type(generator).__module__}:{type(generator).__qualname__}"
    if target not in _GENERATORS.values():
        load_plugins()
    for name, entry_point in _GENERATORS.items():
        if entry_point == target:
            return name
    raise UnknownGeneratorError(target, list(_GENERATORS))
