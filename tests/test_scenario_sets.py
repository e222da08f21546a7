"""Scenario sets: the committed files verify, envs play the recorded scenarios, bad files are refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core import yaml_loading
from benchmarkzoo.core.errors import ScenarioSetError
from benchmarkzoo.envs.gridworld.maze import generator as maze_generator

REPO_SCENARIOS = Path(benchmarkzoo.__file__).resolve().parents[1] / "scenarios"
SET_NAMES = scenario_sets.list_sets(REPO_SCENARIOS)


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """An empty scenarios root, selected through the environment variable."""
    (tmp_path / "gridworld").mkdir()
    monkeypatch.setenv(scenario_sets.ROOT_ENV_VAR, str(tmp_path))
    return tmp_path


def valid_data(name: str = "gridworld/tiny") -> dict:
    split = {"generator": "maze/dfs", "kwargs": {"height": 7, "width": 7, "min_goal_distance": 2}}
    return {
        "name": name,
        "version": 0,
        "env": "benchmarkzoo/Maze-v0",
        "description": "A tiny test set.",
        "splits": {
            "train": {**split, "seeds": {"start": 0, "stop": 5}},
            "test": {**split, "seeds": {"start": 10, "stop": 13}},
            "ood": {
                **split,
                "kwargs": {"height": 9, "width": 9, "min_goal_distance": 3},
                "seeds": {"start": 20, "stop": 22},
            },
        },
    }


def write(root: Path, data, name: str = "gridworld/tiny") -> Path:
    path = root / f"{name}.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def flip_large_mazes(original):
    """A 'generator change' that alters only 21x21 DFS mazes (mirrored left to right)."""

    def changed(rng, height, width):
        walls = original(rng, height, width)
        return np.ascontiguousarray(walls[:, ::-1]) if height == 21 else walls

    return changed


# ---- the committed sets -------------------------------------------------------------------------


def test_committed_sets_exist():
    assert {"gridworld/maze", "gridworld/maze-obstacles"} <= set(SET_NAMES)


@pytest.mark.parametrize("name", SET_NAMES)
def test_committed_set_verifies(name):
    loaded = scenario_sets.load_set(name, REPO_SCENARIOS)
    assert list(loaded.splits)[:3] == ["train", "test", "ood"]
    for split in loaded.splits.values():
        assert len(split.hashes) == len(split) > 0
    assert scenario_sets.verify(loaded) == []


@pytest.mark.parametrize("name", SET_NAMES)
def test_env_reset_plays_the_recorded_scenarios(name):
    """make(env, **split.env_kwargs()).reset(seed=s) plays exactly the scenario the set records for s."""
    loaded = scenario_sets.load_set(name, REPO_SCENARIOS)
    spec = registration.spec(loaded.env)
    for split in loaded.splits.values():
        if spec.kind in ("parallel", "moma"):
            env = registration.make_parallel(loaded.env, **split.env_kwargs())
        else:
            env = gym.make(loaded.env, **split.env_kwargs())
        # A SUMO env starts a simulation on every reset (up to 25 s per seed on a city network): the
        # seed -> scenario mapping is the same code for every seed, so three per split show it; every
        # seed's hash is still checked from the generator by test_committed_set_verifies.
        seeds = split.seeds[:3] if spec.family == "traffic" else split.seeds
        try:
            for seed in seeds:
                env.reset(seed=seed)
                assert env.unwrapped.scenario.content_hash == split.hashes[seed], (name, split.name, seed)
        finally:
            env.close()


@pytest.mark.parametrize("spec", registration.list_envs(), ids=lambda s: s.id)
def test_every_env_plays_the_sets_it_lists(spec):
    """An env's listed sets load, and the env itself (not only the set's own env) plays their scenarios.

    Variants share sets (PandaReach-v0 and its -Dense-v0 reward, MO-TrafficSignal-v0 and
    TrafficSignal-v0): the first seeds of every split must give the recorded hashes through this id.
    """
    if spec.missing_extras:
        pytest.skip(f"needs extra {spec.missing_extras[0]}")
    for name in spec.scenario_sets:
        loaded = scenario_sets.load_set(name, REPO_SCENARIOS)
        registration.spec(loaded.env)  # the set's own env is registered
        for split in loaded.splits.values():
            if spec.kind in ("parallel", "moma"):
                env = registration.make_parallel(spec.id, **split.env_kwargs())
            else:
                env = gym.make(spec.id, **split.env_kwargs())
            try:
                for seed in list(split.seeds)[:2]:
                    env.reset(seed=seed)
                    assert env.unwrapped.scenario.content_hash == split.hashes[seed], (spec.id, name, split.name, seed)
            finally:
                env.close()


def test_maze_set_splits():
    loaded = scenario_sets.load_set("gridworld/maze", REPO_SCENARIOS)
    assert loaded.split("train").kwargs["height"] == 11 and len(loaded.split("train")) == 200
    assert loaded.split("test").kwargs == loaded.split("train").kwargs
    assert loaded.split("ood").scenario(loaded.split("ood").seeds.start).shape == (21, 21)
    obstacles = scenario_sets.load_set("gridworld/maze-obstacles", REPO_SCENARIOS)
    assert obstacles.split("ood").kwargs["density"] > obstacles.split("train").kwargs["density"]
    assert obstacles.split("ood").kwargs["height"] > obstacles.split("train").kwargs["height"]


def test_split_scenario_matches_generator_sample_and_refuses_foreign_seeds():
    train = scenario_sets.load_set("gridworld/maze", REPO_SCENARIOS).split("train")
    assert train.scenario(7) == registration.make_generator("maze/dfs", dict(train.kwargs)).sample(7)
    assert [seed for seed, _ in train.scenarios()] == list(range(200))
    with pytest.raises(ScenarioSetError, match=r"seeds 0\.\.199; got seed 100000"):
        train.scenario(100000)


def test_unknown_split_and_unknown_set_are_named():
    loaded = scenario_sets.load_set("gridworld/maze", REPO_SCENARIOS)
    with pytest.raises(ScenarioSetError, match="has splits train, test, ood; got 'validation'"):
        loaded.split("validation")
    with pytest.raises(ScenarioSetError, match="Did you mean 'gridworld/maze'"):
        scenario_sets.load_set("gridworld/mazes", REPO_SCENARIOS)


def test_generator_change_is_caught_in_the_changed_split_only(monkeypatch):
    monkeypatch.setattr(maze_generator, "dfs_maze", flip_large_mazes(maze_generator.dfs_maze))
    mismatches = scenario_sets.verify(scenario_sets.load_set("gridworld/maze", REPO_SCENARIOS))
    assert {m.split for m in mismatches} == {"ood"}
    assert len(mismatches) == 100
    assert all(m.recorded and m.actual and m.recorded != m.actual for m in mismatches)


# ---- root discovery -----------------------------------------------------------------------------


def test_default_root_is_the_repository_folder(monkeypatch):
    monkeypatch.delenv(scenario_sets.ROOT_ENV_VAR, raising=False)
    assert scenario_sets.scenarios_root() == REPO_SCENARIOS


def test_root_env_var_must_be_a_directory(tmp_path, monkeypatch):
    monkeypatch.setenv(scenario_sets.ROOT_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(ScenarioSetError, match=f"{scenario_sets.ROOT_ENV_VAR} is set to .*not a directory"):
        scenario_sets.list_sets()


def test_root_env_var_selects_the_sets(root):
    write(root, valid_data())
    assert scenario_sets.list_sets() == ["gridworld/tiny"]


# ---- validation ---------------------------------------------------------------------------------


def mutate(data: dict, path: str, value) -> dict:
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return data


DELETE = object()

BAD_FILES = [
    ("extra top-level key", "colour", "blue", r"the document keys must be among name, .*; got \['colour'\]"),
    (
        "extra split key",
        "splits.train.seed",
        3,
        r"splits\.train keys must be among generator, kwargs, seeds; got \['seed'\]",
    ),
    ("missing ood", "splits.ood", DELETE, r"splits must be a mapping with the splits train, test, ood; .* Add ood"),
    (
        "unknown generator",
        "splits.test.generator",
        "maze/prim",
        r"splits\.test\.generator must be a registered generator \(.*maze/dfs.*\); got 'maze/prim'",
    ),
    (
        "bad generator kwarg",
        "splits.train.kwargs.height",
        8,
        r"splits\.train\.kwargs must be valid arguments of 'maze/dfs'.*odd",
    ),
    (
        "overlapping seeds",
        "splits.test.seeds",
        {"start": 3, "stop": 12},
        r"splits\.test\.seeds must be disjoint from splits\.train\.seeds \(0\.\.4\)",
    ),
    (
        "empty seed range",
        "splits.ood.seeds",
        {"start": 20, "stop": 20},
        r"splits\.ood\.seeds\.stop must be an integer >= 21; got 20",
    ),
    (
        "negative seed",
        "splits.ood.seeds",
        {"start": -1, "stop": 2},
        r"splits\.ood\.seeds\.start must be an integer >= 0",
    ),
    (
        "unknown env",
        "env",
        "benchmarkzoo/Maze-v9",
        r"env must be a registered env id; got 'benchmarkzoo/Maze-v9'.*Did you mean",
    ),
    ("name not the path", "name", "gridworld/other", r"name must be 'gridworld/tiny' \(the file's path"),
    ("bool version", "version", True, r"version must be an integer >= 0; got True"),
    ("hashes of an unknown split", "hashes", {"valid": {0: "0" * 64}}, r"hashes keys must be split names"),
    ("malformed hash", "hashes", {"train": {0: "abc"}}, r"hashes\.train\.0 must be a sha256 hex digest"),
]


@pytest.mark.parametrize(("case", "key", "value", "message"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_files_are_refused_with_file_key_expected_and_got(root, case, key, value, message):
    path = write(root, mutate(valid_data(), key, value))
    with pytest.raises(ScenarioSetError, match=message) as caught:
        scenario_sets.load_set("gridworld/tiny")
    assert str(path) in str(caught.value)


def test_malformed_yaml_names_the_file_and_line(root):
    path = write(root, "name: gridworld/tiny\nsplits: {train: [unclosed\n")
    with pytest.raises(ScenarioSetError, match="is not valid YAML") as caught:
        scenario_sets.load_set("gridworld/tiny")
    assert str(path) in str(caught.value) and "line" in str(caught.value)


def test_duplicate_keys_are_refused(root):
    text = yaml.safe_dump(valid_data(), sort_keys=False) + "version: 3\n"
    write(root, text)
    with pytest.raises(ScenarioSetError, match="found duplicate key 'version'"):
        scenario_sets.load_set("gridworld/tiny")


def test_extra_tiers_are_allowed_after_the_required_ones(root):
    data = valid_data()
    data["splits"] = {"ood_dense": {**data["splits"]["ood"], "seeds": {"start": 30, "stop": 31}}, **data["splits"]}
    write(root, data)
    assert list(scenario_sets.load_set("gridworld/tiny").splits) == ["train", "test", "ood", "ood_dense"]


# ---- record and verify --------------------------------------------------------------------------


def test_first_record_writes_every_hash_and_keeps_the_version(root):
    path = write(root, valid_data())
    path.chmod(0o644)
    assert {m.recorded for m in scenario_sets.verify(scenario_sets.load_set("gridworld/tiny"))} == {None}
    result = scenario_sets.record("gridworld/tiny")
    assert not result.bumped and len(result.changed) == 10
    loaded = scenario_sets.load_set("gridworld/tiny")
    assert loaded.version == 0 and scenario_sets.verify(loaded) == []
    assert loaded.split("ood").hashes[20] == loaded.split("ood").scenario(20).content_hash
    assert path.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == ["tiny.yaml"]  # no temp file left behind
    assert scenario_sets.record("gridworld/tiny").changed == []  # recording again changes nothing


def test_changed_missing_and_extra_seeds_are_mismatches_and_record_bumps(root):
    write(root, valid_data())
    scenario_sets.record("gridworld/tiny")
    data = yaml.safe_load((root / "gridworld/tiny.yaml").read_text())
    data["hashes"]["train"][1] = "0" * 64  # changed
    del data["hashes"]["test"][11]  # missing
    data["hashes"]["ood"][99] = "f" * 64  # recorded, but outside the split
    write(root, data)
    mismatches = scenario_sets.verify(scenario_sets.load_set("gridworld/tiny"))
    found = {(m.split, m.seed): m for m in mismatches}
    assert set(found) == {("train", 1), ("test", 11), ("ood", 99)}
    assert found["train", 1].recorded == "0" * 64 and found["train", 1].actual is not None
    assert found["test", 11].recorded is None
    assert found["ood", 99].actual is None and "outside the split" in str(found["ood", 99])
    result = scenario_sets.record("gridworld/tiny")
    assert result.bumped and result.scenario_set.version == 1 and len(result.changed) == 3
    assert scenario_sets.verify(scenario_sets.load_set("gridworld/tiny")) == []


def test_record_round_trips_the_committed_file(tmp_path, monkeypatch):
    """Recording an intact set rewrites its file byte for byte: the committed files are `record` output."""
    for name in SET_NAMES:
        target = tmp_path / f"{name}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_SCENARIOS / f"{name}.yaml", target)
        scenario_sets.record(name, tmp_path)
        assert target.read_text() == (REPO_SCENARIOS / f"{name}.yaml").read_text()


def test_the_loader_parses_with_libyaml_and_matches_pure_python_pyyaml():
    # the C parser where PyYAML has it (the shared venv's does): 6-7x faster on the committed sets
    assert yaml_loading.SafeLoader is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert issubclass(yaml_loading.StrictLoader, yaml_loading.SafeLoader)
    for name in scenario_sets.list_sets():
        text = scenario_sets.set_path(name).read_text(encoding="utf-8")
        assert yaml_loading.load_strict(text) == yaml.load(text, Loader=yaml.SafeLoader), name


@pytest.mark.parametrize(
    "text",
    ["a: 1\nb: {c: 2, c: 3}\n", "- {x: 1}\n- {y: 2, y: 2}\n", "a: &m {k: 1}\nb: {k: 2, k: 3}\n"],
    ids=["nested", "in-a-list", "beside-an-anchor"],
)
def test_the_strict_loader_refuses_a_duplicate_key_anywhere(text):
    with pytest.raises(yaml.constructor.ConstructorError, match="found duplicate key"):
        yaml_loading.load_strict(text)
    yaml_loading.load_safe(text)  # the plain safe loader keeps the last value, as yaml.safe_load does


def test_parsed_sets_are_kept_by_content_and_read_back_as_the_same_data(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    texts = [scenario_sets.set_path(n).read_text(encoding="utf-8") for n in scenario_sets.list_sets()]
    parsed = [yaml_loading.load_strict_cached(t) for t in texts]  # parsed, then stored
    assert len(list((tmp_path / "yaml").glob("*.json"))) == len(set(texts))

    def no_parsing(text):
        raise AssertionError("parsed again")

    monkeypatch.setattr(yaml_loading, "load_strict", no_parsing)
    for text, first in zip(texts, parsed):
        again = yaml_loading.load_strict_cached(text)
        assert again == first == yaml.load(text, Loader=yaml.SafeLoader)
        assert all(type(seed) is int for seed in again["hashes"]["train"])  # JSON would make them strings


def test_refused_and_unplain_documents_are_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    for bad in ("a: 1\na: 2\n", "a: [unclosed\n"):
        for _ in range(2):  # refused the same way every time
            with pytest.raises(yaml.YAMLError):
                yaml_loading.load_strict_cached(bad)
    dated = yaml_loading.load_strict_cached("when: 2026-12-02\n")  # a date: JSON cannot carry it
    assert dated == {"when": __import__("datetime").date(2026, 12, 2)}
    assert not list((tmp_path / "yaml").glob("*.json"))
    assert yaml_loading.load_strict_cached("{1: [true, 1, 1.0, null, '1']}\n") == {1: [True, 1, 1.0, None, "1"]}
    kept = yaml_loading.load_strict_cached("{1: [true, 1, 1.0, null, '1']}\n")  # from the cache: same types
    assert [type(v) for v in kept[1]] == [bool, int, float, type(None), str]


def test_calibration_twin_keeps_the_distribution_on_disjoint_seeds():
    """References are measured on a twin: the split's distribution, seeds no leaderboard episode plays."""
    maze = scenario_sets.load_set("gridworld/maze")
    test, twin = maze.split("test"), maze.split("test" + scenario_sets.CALIBRATION_SUFFIX)
    assert (twin.generator, dict(twin.kwargs), len(twin)) == (test.generator, dict(test.kwargs), len(test))
    assert (
        twin.seeds.start == test.seeds.start + scenario_sets.CALIBRATION_SEED_OFFSET and twin.name == "test~calibration"
    )
    assert twin.scenario(twin.seeds.start).content_hash != test.scenario(test.seeds.start).content_hash
    with pytest.raises(ScenarioSetError, match="has splits"):
        maze.split("nope" + scenario_sets.CALIBRATION_SUFFIX)
