"""Scenario sets: named, versioned lists of scenarios split into train, test and OOD tiers.

A set lives in ``scenarios/<family>/<name>.yaml`` and is named ``"<family>/<name>"``. Each split
names a registered generator, its kwargs and a half-open range of seeds; the scenario of seed
``s`` is ``make_generator(generator, kwargs).sample(s)``, which is exactly what
``gym.make(env, generator=..., generator_kwargs=...).reset(seed=s)`` plays. The file also records
the content hash of every scenario, so :func:`verify` catches any generator change that alters a
scenario (a version bump), and a results file can cite the scenarios it was scored on.

The file format::

    name: gridworld/maze                 # must match the file's path under the root
    version: 0                           # bumped by `record` whenever a recorded hash changes
    env: benchmarkzoo/Maze-v0            # a registered env id that can play these scenarios
    description: One line for `benchmarkzoo scenarios list`.
    splits:                              # train, test and ood are required; more tiers may follow
      train: {generator: maze/dfs, kwargs: {height: 11, width: 11}, seeds: {start: 0, stop: 200}}
      test: ...
      ood: ...
    hashes:                              # written by `benchmarkzoo scenarios record`
      train: {0: <sha256 hex>, 1: ..., 199: ...}

>>> scenario_set = load_set("gridworld/maze")
>>> train = scenario_set.split("train")
>>> train.scenario(0).content_hash == train.hashes[0]
True
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from benchmarkzoo import registration
from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.errors import BenchmarkZooError, ScenarioSetError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.core.yaml_loading import load_strict_cached
from benchmarkzoo.generators.base import Generator

#: Environment variable naming the folder of scenario sets (overrides the repository's ``scenarios/``).
ROOT_ENV_VAR = "BENCHMARKZOO_SCENARIOS"
#: Splits every set must have, in the order files list them.
REQUIRED_SPLITS: tuple[str, ...] = ("train", "test", "ood")

_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_.-]*$")
_SPLIT_PATTERN = re.compile(r"^[a-z][a-z0-9_-]*$")
_HASH_PATTERN = re.compile(r"^[0-9a-f]{64}$")
_TOP_KEYS = {"name": True, "version": True, "env": True, "description": True, "splits": True, "hashes": False}
_SPLIT_KEYS = {"generator": True, "kwargs": False, "seeds": True}
_SEED_KEYS = {"start": True, "stop": True}
_HEADER = (
    "# Scenario set: see benchmarkzoo/scenario_sets.py for the format.\n"
    "# `hashes` is written by `benchmarkzoo scenarios record`; do not edit it by hand. A change to a\n"
    "# recorded hash is a version bump of this set (and of the env, if its default scenarios change).\n"
)


# ---- the model ----------------------------------------------------------------------------------


#: Split ``"<split>~calibration"`` is ``<split>``'s calibration twin: its distribution, disjoint seeds.
CALIBRATION_SUFFIX = "~calibration"
#: How far a calibration twin's seeds lie from its split's (every split's seeds lie below it).
CALIBRATION_SEED_OFFSET = 1_000_000_000


@dataclasses.dataclass(frozen=True)
class Split:
    """One tier of a scenario set: a generator, its kwargs and a range of seeds.

    Attributes:
        name: ``train``, ``test``, ``ood`` or another tier name.
        generator: registered generator name, e.g. ``"maze/dfs"``.
        kwargs: the generator's keyword arguments (read-only).
        seeds: the split's seeds, a half-open ``range(start, stop)``.
        hashes: recorded content hash of each seed's scenario (read-only; may lag the file's
            seeds until :func:`record` runs).
    """

    name: str
    generator: str
    kwargs: Mapping[str, Any]
    seeds: range
    hashes: Mapping[int, str]

    def __len__(self) -> int:
        return len(self.seeds)

    @property
    def is_calibration_twin(self) -> bool:
        """A split's calibration twin (:meth:`ScenarioSet.calibration_twin`): its hashes live in calibration records."""
        return self.name.endswith(CALIBRATION_SUFFIX)

    def make_generator(self) -> Generator:
        """A fresh instance of this split's generator."""
        return registration.make_generator(self.generator, dict(self.kwargs))

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``gym.make(env, **kwargs)`` so that ``reset(seed=s)`` plays seed ``s``."""
        return {"generator": self.generator, "generator_kwargs": dict(self.kwargs)}

    def scenario(self, seed: int) -> Scenario:
        """The scenario of ``seed``, which must lie in this split's seeds."""
        if seed not in self.seeds:
            raise ScenarioSetError(
                f"Split {self.name!r} has seeds {self.seeds.start}..{self.seeds.stop - 1}; got seed {seed!r}. "
                "Pick a seed from split.seeds."
            )
        return self.make_generator().sample(seed)

    def scenarios(self) -> Iterator[tuple[int, Scenario]]:
        """Every ``(seed, scenario)`` of the split, in seed order (one generator instance for all)."""
        generator = self.make_generator()
        for seed in self.seeds:
            yield seed, generator.sample(seed)

    def to_dict(self) -> dict[str, Any]:
        """The split as it appears under ``splits:`` in the file (hashes are kept apart)."""
        return {
            "generator": self.generator,
            "kwargs": dict(self.kwargs),
            "seeds": {"start": self.seeds.start, "stop": self.seeds.stop},
        }


@dataclasses.dataclass(frozen=True)
class ScenarioSet:
    """A named, versioned scenario set, as loaded from its YAML file.

    Attributes:
        name: ``"<family>/<name>"``, the file's path under the root without ``.yaml``.
        version: bumped whenever a recorded hash changes.
        env: id of the registered env that plays these scenarios.
        description: one line.
        splits: split name to :class:`Split`, in file order (read-only).
        path: the file it was loaded from, or ``None``.
    """

    name: str
    version: int
    env: str
    description: str
    splits: Mapping[str, Split]
    path: Path | None = dataclasses.field(default=None, compare=False)

    def split(self, name: str) -> Split:
        """The split called ``name``; an unknown name raises :class:`ScenarioSetError` listing the others.

        ``"<split>~calibration"`` is the calibration twin of ``<split>`` (:meth:`calibration_twin`).
        """
        if name.endswith(CALIBRATION_SUFFIX) and name.removesuffix(CALIBRATION_SUFFIX) in self.splits:
            return self.calibration_twin(name.removesuffix(CALIBRATION_SUFFIX))
        if name not in self.splits:
            raise ScenarioSetError(f"Scenario set {self.name!r} has splits {', '.join(self.splits)}; got {name!r}.")
        return self.splits[name]

    def calibration_twin(self, name: str) -> Split:
        """Split ``name``'s generator and kwargs on as many seeds, shifted by :data:`CALIBRATION_SEED_OFFSET`.

        Normalization references are measured on the twin, so that they come from scenarios of the
        same distribution that no leaderboard episode plays (a deterministic baseline measured on
        the leaderboard's own scenarios scores exactly 1 there by construction). Its hashes are not
        recorded in the set: the calibration record keeps each episode's.

        Raises:
            ScenarioSetError: the shifted seeds overlap a split of this set.
        """
        split = self.split(name)
        seeds = range(split.seeds.start + CALIBRATION_SEED_OFFSET, split.seeds.stop + CALIBRATION_SEED_OFFSET)
        for other in self.splits.values():
            if other.seeds.start < seeds.stop and seeds.start < other.seeds.stop:
                raise ScenarioSetError(
                    f"Scenario set {self.name!r}: split {other.name!r} (seeds {other.seeds.start}.."
                    f"{other.seeds.stop - 1}) reaches the calibration seeds of {name!r} ({seeds.start}..); "
                    f"keep every split's seeds below {CALIBRATION_SEED_OFFSET}."
                )
        return dataclasses.replace(split, name=name + CALIBRATION_SUFFIX, seeds=seeds, hashes=MappingProxyType({}))

    @property
    def num_scenarios(self) -> int:
        """The number of seeds over all splits."""
        return sum(len(split) for split in self.splits.values())

    def to_dict(self, hashes: bool = True) -> dict[str, Any]:
        """The file's content as plain data (seed keys of ``hashes`` stay ints)."""
        data: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "env": self.env,
            "description": self.description,
            "splits": {name: split.to_dict() for name, split in self.splits.items()},
        }
        if hashes:
            data["hashes"] = {name: dict(split.hashes) for name, split in self.splits.items()}
        return data


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """One seed whose regenerated scenario does not match the record.

    ``recorded`` is ``None`` for a seed in the split that has no recorded hash; ``actual`` is
    ``None`` for a recorded seed that lies outside the split's seeds.
    """

    set_name: str
    split: str
    seed: int
    recorded: str | None
    actual: str | None

    def __str__(self) -> str:
        where = f"{self.set_name} {self.split} seed {self.seed}"
        if self.recorded is None:
            assert self.actual is not None, "a mismatch has a recorded or a regenerated hash"
            return f"{where}: no recorded hash (regenerated {self.actual[:12]})"
        if self.actual is None:
            return f"{where}: recorded ({self.recorded[:12]}) but outside the split's seeds"
        return f"{where}: recorded {self.recorded[:12]}, regenerated {self.actual[:12]}"


# ---- finding and loading files ------------------------------------------------------------------


def scenarios_root() -> Path:
    """The folder of scenario sets: ``$BENCHMARKZOO_SCENARIOS``, else ``scenarios/`` beside the package."""
    configured = os.environ.get(ROOT_ENV_VAR)
    if configured:
        root = Path(configured).expanduser()
        if not root.is_dir():
            raise ScenarioSetError(
                f"{ROOT_ENV_VAR} is set to {configured!r}, which is not a directory. Point it at a folder of "
                "<family>/<name>.yaml files, or unset it to use the repository's scenarios/ folder."
            )
        return root
    import benchmarkzoo  # the package's own location; imported here because this module is part of it

    root = Path(benchmarkzoo.__file__).resolve().parents[1] / "scenarios"
    if not root.is_dir():
        raise ScenarioSetError(
            f"No scenario sets found: expected the folder {root} next to the benchmarkzoo package, but it does "
            f"not exist (installed wheels do not ship it). Set {ROOT_ENV_VAR} to a checkout's scenarios/ folder."
        )
    return root


def list_sets(root: Path | None = None) -> list[str]:
    """Names of every scenario set under ``root`` (default :func:`scenarios_root`), sorted."""
    root = scenarios_root() if root is None else Path(root)
    return sorted(path.relative_to(root).with_suffix("").as_posix() for path in root.glob("*/*.yaml"))


def set_path(name: str, root: Path | None = None) -> Path:
    """The file of the set ``name``; an unknown name raises :class:`ScenarioSetError` with close names."""
    root = scenarios_root() if root is None else Path(root)
    if not isinstance(name, str) or not _NAME_PATTERN.match(name):
        raise ScenarioSetError(f"Scenario set names look like '<family>/<name>', e.g. 'gridworld/maze'; got {name!r}.")
    path = root / f"{name}.yaml"
    if not path.is_file():
        known = list_sets(root)
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        if close:
            hint = f"Did you mean {', '.join(repr(c) for c in close)}?"
        else:
            hint = f"Known sets: {', '.join(known) or 'none'}."
        raise ScenarioSetError(f"No scenario set {name!r}: {path} does not exist. {hint}")
    return path


def load_set(name: str, root: Path | None = None, *, check_generators: bool = True) -> ScenarioSet:
    """Load and validate the set ``name`` (e.g. ``"gridworld/maze"``) from ``root``.

    Args:
        name: ``"<family>/<name>"``.
        root: the folder of sets (default :func:`scenarios_root`).
        check_generators: construct each split's generator, so a bad kwarg is refused here. ``False``
            checks everything else: what ``scenarios list`` shows needs no generator (a RESCO
            generator routes its demand when constructed, and needs the traffic extra).
    """
    path = set_path(name, root)
    return parse_set(_read_yaml(path), path, expected_name=name, check_generators=check_generators)


def load_file(path: str | Path) -> ScenarioSet:
    """Load and validate a scenario-set file at any path (its ``name`` is not checked against it)."""
    path = Path(path)
    return parse_set(_read_yaml(path), path)


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioSetError(f"Cannot read scenario set {path}: {error.strerror}.") from error
    try:
        return load_strict_cached(text)  # safe, libyaml's parser where installed, duplicate keys refused
    except yaml.YAMLError as error:
        raise ScenarioSetError(f"{path} is not valid YAML: {error}. Fix the file (see scenario_sets.py).") from error


# ---- validation ---------------------------------------------------------------------------------


class _Checker:
    """Builds error messages that name the file, the key, what was expected and what arrived."""

    def __init__(self, path: Path | None):
        self.where = str(path) if path is not None else "<scenario set>"

    def fail(self, key: str, expected: str, got: Any, hint: str = "") -> ScenarioSetError:
        shown = f"{got!r:.200}"
        return ScenarioSetError(f"{self.where}: {key} must be {expected}; got {shown}.{' ' + hint if hint else ''}")

    def mapping(self, key: str, value: Any, keys: dict[str, bool]) -> dict[str, Any]:
        """``value`` as a dict with only the given keys (``True``: required)."""
        if not isinstance(value, dict):
            raise self.fail(key, f"a mapping with keys {', '.join(keys)}", value)
        unknown = [k for k in value if k not in keys]
        if unknown:
            raise self.fail(f"{key} keys", f"among {', '.join(keys)}", unknown, "Remove or rename the unknown keys.")
        missing = [k for k, required in keys.items() if required and k not in value]
        if missing:
            raise self.fail(
                key,
                f"a mapping with keys {', '.join(k for k, r in keys.items() if r)}",
                value,
                f"Add {', '.join(missing)}.",
            )
        return value

    def integer(self, key: str, value: Any, low: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.fail(key, f"an integer >= {low}", value)
        return value

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "a non-empty string", value)
        return value


def parse_set(
    data: Any, path: Path | None = None, expected_name: str | None = None, *, check_generators: bool = True
) -> ScenarioSet:
    """Validate plain data (a parsed file) and build the :class:`ScenarioSet`.

    Args:
        data: the parsed YAML document.
        path: the file, for error messages.
        expected_name: the name the file's location implies; ``name`` must equal it.
        check_generators: construct each split's generator with its kwargs (see :func:`load_set`).

    Raises:
        ScenarioSetError: naming the file, the key, what was expected and what arrived.
    """
    check = _Checker(path)
    top = check.mapping("the document", data, _TOP_KEYS)
    name = check.string("name", top["name"])
    if not _NAME_PATTERN.match(name):
        raise check.fail("name", "'<family>/<name>' in lowercase, e.g. 'gridworld/maze'", name)
    if expected_name is not None and name != expected_name:
        raise check.fail(
            "name",
            f"{expected_name!r} (the file's path under the scenarios root)",
            name,
            "Rename the file or fix the name.",
        )
    version = check.integer("version", top["version"], 0)
    env = check.string("env", top["env"])
    try:
        env = registration.spec(env).id
    except BenchmarkZooError as error:
        raise check.fail("env", "a registered env id", env, str(error)) from error
    description = check.string("description", top["description"])

    raw_splits = top["splits"]
    if not isinstance(raw_splits, dict):
        raise check.fail(
            "splits", f"a mapping from split name to split, with at least {', '.join(REQUIRED_SPLITS)}", raw_splits
        )
    missing = [s for s in REQUIRED_SPLITS if s not in raw_splits]
    if missing:
        raise check.fail(
            "splits",
            f"a mapping with the splits {', '.join(REQUIRED_SPLITS)}",
            list(raw_splits),
            f"Add {', '.join(missing)}.",
        )
    raw_hashes = top.get("hashes") or {}
    if not isinstance(raw_hashes, dict):
        raise check.fail("hashes", "a mapping from split name to {seed: sha256}", raw_hashes)
    unknown = [s for s in raw_hashes if s not in raw_splits]
    if unknown:
        raise check.fail(
            "hashes keys",
            f"split names ({', '.join(map(str, raw_splits))})",
            unknown,
            "Re-run `benchmarkzoo scenarios record` to rewrite the hashes.",
        )

    # Required splits first, then extra tiers in file order: output and iteration are stable.
    order = [*REQUIRED_SPLITS, *(s for s in raw_splits if s not in REQUIRED_SPLITS)]
    splits = {s: _parse_split(check, s, raw_splits[s], raw_hashes.get(s), check_generators) for s in order}
    _check_disjoint(check, splits)
    return ScenarioSet(name, version, env, description, MappingProxyType(splits), path)


def _parse_split(check: _Checker, name: Any, raw: Any, raw_hashes: Any, check_generator: bool) -> Split:
    if not isinstance(name, str) or not _SPLIT_PATTERN.match(name):
        raise check.fail("split name", "a lowercase identifier like 'train' or 'ood_dense'", name)
    key = f"splits.{name}"
    raw = check.mapping(key, raw, _SPLIT_KEYS)
    generator = check.string(f"{key}.generator", raw["generator"])
    if generator not in registration.list_generators():
        raise check.fail(
            f"{key}.generator", f"a registered generator ({', '.join(registration.list_generators())})", generator
        )
    kwargs = raw.get("kwargs") or {}
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise check.fail(f"{key}.kwargs", "a mapping of keyword arguments", kwargs)
    try:  # construct once now so a bad kwarg is reported at load time, with the file named
        if check_generator:
            registration.make_generator(generator, dict(kwargs))
    except (BenchmarkZooError, TypeError, ValueError) as error:
        raise check.fail(f"{key}.kwargs", f"valid arguments of {generator!r}", kwargs, str(error)) from error
    seeds = check.mapping(f"{key}.seeds", raw["seeds"], _SEED_KEYS)
    start = check.integer(f"{key}.seeds.start", seeds["start"], 0)
    stop = check.integer(f"{key}.seeds.stop", seeds["stop"], start + 1)
    return Split(
        name,
        generator,
        MappingProxyType(dict(kwargs)),
        range(start, stop),
        MappingProxyType(_parse_hashes(check, f"hashes.{name}", raw_hashes)),
    )


def _parse_hashes(check: _Checker, key: str, raw: Any) -> dict[int, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise check.fail(key, "a mapping from seed to sha256 hex digest", raw)
    hashes = {}
    for seed, digest in raw.items():
        check.integer(f"{key} seed", seed, 0)
        if not isinstance(digest, str) or not _HASH_PATTERN.match(digest):
            raise check.fail(
                f"{key}.{seed}",
                "a sha256 hex digest (64 lowercase hex characters)",
                digest,
                "Re-run `benchmarkzoo scenarios record` to rewrite the hashes.",
            )
        hashes[seed] = digest
    return dict(sorted(hashes.items()))


def _check_disjoint(check: _Checker, splits: dict[str, Split]) -> None:
    """Refuse overlapping seed ranges: a seed in two splits would leak test scenarios into training."""
    items = list(splits.values())
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if a.seeds.start < b.seeds.stop and b.seeds.start < a.seeds.stop:
                raise check.fail(
                    f"splits.{b.name}.seeds",
                    f"disjoint from splits.{a.name}.seeds ({a.seeds.start}..{a.seeds.stop - 1})",
                    {"start": b.seeds.start, "stop": b.seeds.stop},
                    "Move one range so no seed is in two splits.",
                )


# ---- verifying and recording --------------------------------------------------------------------


def compute_hashes(split: Split) -> dict[int, str]:
    """Regenerate every scenario of ``split``; seed to content hash."""
    return {seed: scenario.content_hash for seed, scenario in split.scenarios()}


def verify(scenario_set: ScenarioSet, splits: list[str] | None = None) -> list[Mismatch]:
    """Regenerate every scenario and compare with the recorded hashes.

    Args:
        scenario_set: a loaded set.
        splits: only these splits (default all).

    Returns:
        One :class:`Mismatch` per changed, unrecorded or out-of-range seed, in split and seed order;
        empty when the set is intact.
    """
    mismatches = []
    for name in splits or list(scenario_set.splits):
        split = scenario_set.split(name)
        actual = compute_hashes(split)
        for seed in sorted(set(actual) | set(split.hashes)):
            recorded, now = split.hashes.get(seed), actual.get(seed)
            if recorded != now:
                mismatches.append(Mismatch(scenario_set.name, name, seed, recorded, now))
    return mismatches


@dataclasses.dataclass(frozen=True)
class RecordResult:
    """What :func:`record` did.

    Attributes:
        scenario_set: the set as now written (with the new hashes and version).
        changed: mismatches between the previous record and the new one (empty: nothing changed).
        previous_version: the version before recording.
    """

    scenario_set: ScenarioSet
    changed: list[Mismatch]
    previous_version: int

    @property
    def bumped(self) -> bool:
        """Whether recording raised the set's version."""
        return self.scenario_set.version != self.previous_version


def record(name: str, root: Path | None = None) -> RecordResult:
    """Recompute every hash of set ``name`` and rewrite its file atomically.

    If the file already held hashes and any of them change (or seeds are added or removed), the
    set's ``version`` goes up by one: the scenarios behind that name are no longer the same.
    A first recording (no hashes yet) keeps the version.
    """
    path = set_path(name, root)
    old = parse_set(_read_yaml(path), path, expected_name=name)
    changed = verify(old)
    had_record = any(split.hashes for split in old.splits.values())
    version = old.version + 1 if changed and had_record else old.version
    splits = {
        split_name: dataclasses.replace(split, hashes=MappingProxyType(compute_hashes(split)))
        for split_name, split in old.splits.items()
    }
    new = dataclasses.replace(old, version=version, splits=MappingProxyType(splits))
    atomic_write(path, dump_set(new))
    return RecordResult(new, changed, old.version)


def dump_set(scenario_set: ScenarioSet) -> str:
    """The YAML text of a set: a header comment, the definition with inline kwargs, then the hashes."""
    data = scenario_set.to_dict(hashes=False)
    # Flow style for the small leaf mappings (kwargs, seeds) keeps each split readable at a glance,
    # and a wide line width stops PyYAML folding the description. Block style for the hashes keeps
    # one seed per line, so a diff shows exactly which seeds changed.
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=10_000, allow_unicode=True)
    hashes = {"hashes": {name: dict(split.hashes) for name, split in scenario_set.splits.items()}}
    return _HEADER + body + yaml.safe_dump(hashes, sort_keys=False, default_flow_style=False)
