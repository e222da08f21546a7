"""The registry: lookups and suggestions, kind errors, JSON specs, missing extras, a light import."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import benchmarkzoo
from benchmarkzoo import registration
from benchmarkzoo.core import extras
from benchmarkzoo.core.errors import MissingExtraError, UnknownEnvError, UnknownGeneratorError, WrongKindError
from benchmarkzoo.registration import EnvSpec

SPECS = benchmarkzoo.list_envs()
TOY = "benchmarkzoo/ToyLine-v0"


@pytest.mark.parametrize("bad_id", ["benchmarkzoo/Maze-v1", "benchmarkzoo/Mzae-v0", "maze-v0", "Maze-v9"])
def test_unknown_id_suggests_the_registered_one(bad_id):
    with pytest.raises(UnknownEnvError) as caught:
        benchmarkzoo.make(bad_id)
    assert caught.value.suggestions[0] == "benchmarkzoo/Maze-v0"
    # the closest id first; MazeKeys-v0 may follow as a further suggestion
    assert str(caught.value).startswith(
        f"No benchmarkzoo env is registered as {bad_id!r}. Did you mean 'benchmarkzoo/Maze-v0'"
    )
    assert isinstance(caught.value, KeyError)  # code written against dict lookups still catches it


def test_unknown_id_without_neighbours_points_to_the_cli():
    with pytest.raises(UnknownEnvError, match="Run `benchmarkzoo list`"):
        benchmarkzoo.spec("benchmarkzoo/Zzzzqqq-v0")


def test_short_id_resolves():
    assert benchmarkzoo.spec("Maze-v0") is benchmarkzoo.spec("benchmarkzoo/Maze-v0")


def test_unknown_generator():
    with pytest.raises(UnknownGeneratorError, match=r"registered generators: .*maze/dfs, maze/obstacles") as caught:
        benchmarkzoo.make_generator("maze/prim")
    assert all(name in str(caught.value) for name in benchmarkzoo.list_generators())


def test_list_envs_filters():
    gridworld = [s.id for s in benchmarkzoo.list_envs(family="gridworld")]
    assert "benchmarkzoo/Maze-v0" in gridworld and gridworld == sorted(gridworld)
    assert all(s.family == "gridworld" for s in benchmarkzoo.list_envs(family="gridworld"))
    assert [s.id for s in benchmarkzoo.list_envs(kind="single", family="gridworld")] == [
        "benchmarkzoo/Maze-v0",
        "benchmarkzoo/MazeKeys-v0",
    ]
    assert all(s.kind == "single" for s in benchmarkzoo.list_envs(kind="single"))
    with pytest.raises(ValueError, match="kind must be one of"):
        benchmarkzoo.list_envs(kind="multi")


UNREADABLE = "Gymnasium's parse_env_id cannot read it (at most one '/'; letters, digits, '_', '-', '.')"


@pytest.mark.parametrize(
    ("bad_id", "problem"),
    [
        ("benchmarkzoo/maze", "it has no version (e.g. 'benchmarkzoo/maze-v0')"),
        ("Maze-v3", "it has no namespace (use your project's, e.g. 'mylab/Maze-v3')"),
        ("mylab/sub/Thing-v0", UNREADABLE),
        ("my lab/Thing-v0", UNREADABLE),
        ("mylab:mod/Thing-v0", "':' is not allowed (gymnasium.make would read it as 'module:id')"),
    ],
)
def test_register_refuses_malformed_ids_naming_the_form(bad_id, problem):
    # Changed with the open registry (issue 16): any namespace, in Gymnasium's form with namespace and version.
    with pytest.raises(ValueError) as caught:
        benchmarkzoo.register(bad_id, kind="single", family="gridworld", entry_point="x:y", description="")
    expected_form = "'namespace/Name-vN' (e.g. 'benchmarkzoo/Maze-v0', 'mylab/Thing-v2')"
    assert str(caught.value) == f"Env ids look like {expected_form}; got {bad_id!r}: {problem}."
    assert bad_id not in registration._ENVS


def test_register_refuses_duplicates():
    with pytest.raises(ValueError, match="already registered; bump its version"):
        benchmarkzoo.register(
            "benchmarkzoo/Maze-v0", kind="single", family="gridworld", entry_point="x:y", description=""
        )


@pytest.fixture
def toy_parallel(monkeypatch):
    """A parallel spec in the registry for one test only (not via register(): no PettingZoo side effects)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "testing"))
    toy = EnvSpec(
        id=TOY,
        kind="parallel",
        family="multiagent",
        entry_point="toy_envs:LineParallelEnv",
        vector_entry_point=None,
        max_episode_steps=12,
        kwargs={"num_agents": 2},
        extras=(),
        description="toy",
    )
    monkeypatch.setitem(registration._ENVS, TOY, toy)
    return toy


def test_make_of_a_parallel_id_points_to_make_parallel(toy_parallel):
    with pytest.raises(
        TypeError,
        match=r"ToyLine-v0 is a 'parallel' env; make makes single/mo envs\. "
        r"Use make_parallel / make_aec",
    ):
        benchmarkzoo.make(TOY)
    with pytest.raises(TypeError, match="Use make / make_vec"):
        benchmarkzoo.make_parallel("benchmarkzoo/Maze-v0")
    with pytest.raises(ValueError, match="only its native vector form exists"):
        benchmarkzoo.make_vec(TOY, 2)


def test_gym_make_of_a_parallel_id_names_make_parallel():
    message = (
        "benchmarkzoo/MAPF-v0 is a 'parallel' (multi-agent, PettingZoo) env, which gymnasium.make cannot make. "
        "Use benchmarkzoo.make_parallel('benchmarkzoo/MAPF-v0', view_radius=3) for a ParallelEnv or "
        "benchmarkzoo.make_aec('benchmarkzoo/MAPF-v0', view_radius=3) for an AECEnv, or benchmarkzoo.make_vec "
        "for its native vector form."
    )
    with pytest.raises(WrongKindError) as caught:
        gym.make("benchmarkzoo/MAPF-v0", view_radius=3)
    assert str(caught.value) == message
    assert isinstance(caught.value, gym.error.Error)  # what code catching gym.make's failures catches
    with pytest.raises(WrongKindError, match=r"^benchmarkzoo/MO-MAPF-v0 is a 'moma' .*make_parallel\('benchmarkzoo"):
        gym.make("benchmarkzoo/MO-MAPF-v0")
    with pytest.raises(WrongKindError, match="make_parallel"):
        gym.make_vec("benchmarkzoo/Navigation-v0", num_envs=2)


def test_gymnasium_lists_every_id_and_still_makes_the_single_agent_ones():
    listed = {env_id for env_id in gym.envs.registry if env_id.startswith("benchmarkzoo/")}
    assert listed == {s.id for s in SPECS if s.id.startswith("benchmarkzoo/")}
    multi = [s for s in SPECS if s.kind in ("parallel", "moma")]
    assert multi and all(gym.spec(s.id).kwargs == {"__id__": s.id} for s in multi)  # no defaults to mislead
    assert json.loads(gym.spec("benchmarkzoo/MAPF-v0").to_json())["entry_point"].endswith(":_refuse_gym_make")
    env = gym.make("benchmarkzoo/Maze-v0")
    assert env.unwrapped.spec.id == "benchmarkzoo/Maze-v0" and env.reset(seed=0)[0] is not None
    gym.pprint_registry(disable_print=True)  # Gymnasium's own listing still reads every entry


def test_make_parallel_passes_spec_kwargs_and_max_cycles(toy_parallel):
    env = benchmarkzoo.make_parallel(TOY)
    assert env.possible_agents == ["walker_0", "walker_1"] and env.max_cycles == 12
    aec = benchmarkzoo.make_aec(TOY, num_agents=3)
    aec.reset(seed=0)
    assert aec.agents == ["walker_0", "walker_1", "walker_2"]


@pytest.mark.parametrize("env_spec", SPECS, ids=[s.id for s in SPECS])
def test_spec_json_round_trips(env_spec):
    data = json.loads(env_spec.to_json())
    assert {"id", "kind", "family", "extras", "native_vector", "description"} <= set(data)
    assert data["id"] == env_spec.id and data["kind"] == env_spec.kind and data["family"] == env_spec.family
    assert data["native_vector"] is env_spec.has_native_vector
    assert data["extras"] == list(env_spec.extras)
    assert json.dumps(data, sort_keys=True) == env_spec.to_json()
    rebuilt = EnvSpec(
        **{k: tuple(v) if k in ("extras", "scenario_sets") else v for k, v in data.items() if k != "native_vector"}
    )
    assert rebuilt == env_spec


@pytest.mark.parametrize("env_spec", [s for s in SPECS if s.kind in ("single", "mo")], ids=lambda s: s.id)
def test_gymnasium_spec_json(env_spec):
    gym_spec = gym.spec(env_spec.id)
    data = json.loads(gym_spec.to_json())
    assert data["id"] == env_spec.id
    assert data["max_episode_steps"] == env_spec.max_episode_steps
    assert data["kwargs"] == env_spec.kwargs
    assert gym.envs.registration.EnvSpec.from_json(gym_spec.to_json()).kwargs == env_spec.kwargs


@pytest.fixture
def hide_pygame(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        extras.importlib.util,
        "find_spec",
        lambda name, *a, **k: None if name == "pygame" else real_find_spec(name, *a, **k),
    )
    monkeypatch.setitem(sys.modules, "pygame", None)  # a later `import pygame` fails as if not installed


def test_missing_render_extra_is_named(hide_pygame):
    assert extras.missing_modules("render") == ["pygame"] and not extras.available("render")
    with pytest.raises(
        MissingExtraError,
        match=r"Maze rendering needs the Python module .pygame.*"
        r'pip install "benchmarkzoo\[render\]"',
    ):
        extras.require("pygame", "render", "Maze rendering")
    env = benchmarkzoo.make("benchmarkzoo/Maze-v0", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(MissingExtraError, match=r'pip install "benchmarkzoo\[render\]"') as caught:
        env.render()
    assert caught.value.extra == "render" and isinstance(caught.value, ImportError)


def test_missing_extra_blocks_make(hide_pygame, monkeypatch):
    needs_render = EnvSpec(
        id="benchmarkzoo/NeedsRender-v0",
        kind="single",
        family="gridworld",
        entry_point="benchmarkzoo.envs.gridworld.maze.env:MazeEnv",
        vector_entry_point=None,
        max_episode_steps=None,
        kwargs={},
        extras=("render",),
        description="test",
    )
    monkeypatch.setitem(registration._ENVS, needs_render.id, needs_render)
    assert needs_render.missing_extras == ["render"]
    with pytest.raises(MissingExtraError, match=r'benchmarkzoo/NeedsRender-v0 needs .*"benchmarkzoo\[render\]"'):
        benchmarkzoo.make(needs_render.id)


def test_require_shows_real_import_errors_of_installed_modules(monkeypatch, tmp_path):
    (tmp_path / "bz_broken_mod.py").write_text("import bz_definitely_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="bz_definitely_missing_dependency"):
        extras.require("bz_broken_mod", "render", "test")


HEAVY = ("torch", "ray", "pybullet", "sumo_rl", "libsumo", "traci", "pygame", "matplotlib")


def test_import_is_light():
    code = f"import sys, benchmarkzoo, benchmarkzoo.testing; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "", f"import benchmarkzoo loaded {result.stdout.strip()}"


# ---- an open registry: other namespaces, free-form families -------------------------------------


@pytest.fixture
def scratch_registry(monkeypatch):
    """Lets a test register envs for real; afterwards ours, Gymnasium's and PettingZoo's registries are as before."""
    from pettingzoo.env_registry import registration as pz

    monkeypatch.syspath_prepend(str(Path(__file__).parent / "testing"))
    monkeypatch.setattr(registration, "_ENVS", dict(registration._ENVS))
    mirrors = (gym.envs.registration.registry, pz.aec_registry, pz.parallel_registry)
    before = [set(mirror) for mirror in mirrors]
    yield
    for mirror, ids in zip(mirrors, before):
        for added in set(mirror) - ids:
            del mirror[added]


def register_counter(env_id: str, family: str = "counters") -> EnvSpec:
    return benchmarkzoo.register(
        env_id,
        kind="single",
        family=family,
        entry_point="toy_envs:CounterEnv",
        max_episode_steps=7,
        description="counts to seven",
    )


def test_another_namespace_is_a_first_class_env(scratch_registry):
    registered = register_counter("mylab/Counter-v2")
    assert registered.id == "mylab/Counter-v2" and benchmarkzoo.spec("mylab/Counter-v2") is registered
    assert [s.id for s in benchmarkzoo.list_envs(family="counters")] == ["mylab/Counter-v2"]
    assert "counters" in benchmarkzoo.list_families() and "gridworld" in benchmarkzoo.list_families()
    assert gym.spec("mylab/Counter-v2").max_episode_steps == 7
    for env in (benchmarkzoo.make("mylab/Counter-v2"), gym.make("mylab/Counter-v2")):
        env.reset(seed=3)
        lengths = [env.step(0) for _ in range(7)]
        assert [truncated for *_, truncated, _ in lengths] == [False] * 6 + [True]  # the spec's time limit
    with pytest.raises(UnknownEnvError):
        benchmarkzoo.spec("Counter-v2")  # a bare name is looked up in benchmarkzoo/ only


def test_a_parallel_env_in_another_namespace_reaches_pettingzoo(scratch_registry):
    from pettingzoo.env_registry import registration as pz

    benchmarkzoo.register(
        "mylab/Line-v0",
        kind="parallel",
        family="lines",
        entry_point="toy_envs:LineParallelEnv",
        max_episode_steps=9,
        kwargs={"num_agents": 3},
        description="walkers on a line",
    )
    assert benchmarkzoo.make_parallel("mylab/Line-v0").possible_agents == ["walker_0", "walker_1", "walker_2"]
    assert pz.parallel_registry["mylab/Line-v0"].max_cycles == 9
    assert pz.aec_registry["mylab/Line-v0"].kwargs == {"__id__": "mylab/Line-v0"}
    with pytest.raises(WrongKindError, match=r"Use benchmarkzoo\.make_parallel\('mylab/Line-v0'\)"):
        gym.make("mylab/Line-v0")


@pytest.mark.parametrize("bad_family", ["", "Gridworld", "grid world", "1grid", "grid-world", None])
def test_register_refuses_families_that_are_not_lower_case_identifiers(scratch_registry, bad_family):
    with pytest.raises(ValueError) as caught:
        register_counter("mylab/Counter-v0", family=bad_family)
    assert str(caught.value) == (
        "family must be a lower-case identifier (letters, digits, '_'; e.g. 'gridworld', 'my_robots'); "
        f"got {bad_family!r}."
    )
    assert "mylab/Counter-v0" not in registration._ENVS


def test_an_unknown_family_lists_the_known_ones(scratch_registry):
    register_counter("mylab/Counter-v0", family="my_counters")
    known = ", ".join(sorted({"control", "gridworld", "multiagent", "robotics", "traffic", "my_counters"}))
    with pytest.raises(ValueError) as caught:
        benchmarkzoo.list_envs(family="my_countres")
    assert str(caught.value) == (
        f"No env is registered in the family 'my_countres'; families with envs: {known}. Did you mean 'my_counters'?"
    )


def test_suggestions_cross_namespaces_and_prefer_the_asked_one(scratch_registry):
    register_counter("mylab/Counter-v2")
    register_counter("mylab/Maze-v0")
    assert registration.suggest("benchmarkzoo/Countr-v0") == ["mylab/Counter-v2"]
    assert registration.suggest("otherlab/Counter-v5")[0] == "mylab/Counter-v2"
    assert registration.suggest("mylab/Maze-v1")[:2] == ["mylab/Maze-v0", "benchmarkzoo/Maze-v0"]
    assert registration.suggest("benchmarkzoo/Maze-v1")[:2] == ["benchmarkzoo/Maze-v0", "mylab/Maze-v0"]
    with pytest.raises(UnknownEnvError) as caught:
        benchmarkzoo.make("mylab/Countre-v2")
    assert caught.value.suggestions == ["mylab/Counter-v2"]
    assert "Did you mean 'mylab/Counter-v2'?" in str(caught.value)
