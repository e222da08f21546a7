"""The ``benchmarkzoo`` command, driven through click's CliRunner; assertions are on real values."""

from __future__ import annotations

import dataclasses
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.cli import cli
from benchmarkzoo.envs.gridworld.maze import generator as maze_generator
from benchmarkzoo.scenario_sets import list_sets, load_set

MAZE = "benchmarkzoo/Maze-v0"
REPO_SCENARIOS = Path(benchmarkzoo.__file__).resolve().parents[1] / "scenarios"


def flip_large_mazes(original):
    """A 'generator change' that alters only 21x21 DFS mazes (mirrored left to right)."""

    def changed(rng, height, width):
        walls = original(rng, height, width)
        return np.ascontiguousarray(walls[:, ::-1]) if height == 21 else walls

    return changed


@pytest.fixture
def run(monkeypatch):
    """Invoke the CLI against the repository's scenario sets; returns the click Result."""
    monkeypatch.delenv(scenario_sets.ROOT_ENV_VAR, raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)  # tables laid out at the fixed pipe width
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, list(args))

    return invoke


# ---- list / info --------------------------------------------------------------------------------


def test_list_json_is_the_registry(run):
    result = run("list", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == [s.to_dict() for s in registration.list_envs()]
    maze = next(d for d in data if d["id"] == MAZE)
    assert maze["kind"] == "single" and maze["native_vector"] is True and maze["family"] == "gridworld"


def test_list_table_and_filters(run):
    result = run("list")
    assert result.exit_code == 0
    line = next(line for line in result.stdout.splitlines() if MAZE in line)
    assert "single" in line and "gridworld" in line and "yes" in line
    assert MAZE not in run("list", "--kind", "parallel").stdout
    assert MAZE not in run("list", "--family", "traffic").stdout
    bad = run("list", "--kind", "triple")
    assert bad.exit_code == 2 and "'triple' is not one of" in bad.output


def test_list_names_missing_extras(run, monkeypatch):
    fake = dataclasses.replace(registration.spec(MAZE), id="benchmarkzoo/Fake-v0", extras=("robotics",))
    monkeypatch.setitem(registration._ENVS, fake.id, fake)
    monkeypatch.setattr(registration, "missing_modules", lambda extra: ["pybullet"] if extra == "robotics" else [])
    line = next(line for line in run("list").stdout.splitlines() if "Fake-v0" in line)
    assert "robotics (missing)" in line


def test_info_shows_spaces_reward_range_sets_and_history(run):
    result = run("info", "Maze-v0")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Discrete(4)" in out
    assert "Box(0.0, 1.0, (2, 5, 5), float32)" in out
    assert "[-0.01, 1.0]" in out
    assert "gridworld/maze" in out and "200" in out
    assert "Version History" in out and "v0: Initial version." in out


def test_info_json(run):
    data = json.loads(run("info", MAZE, "--json").stdout)
    assert data["spec"]["id"] == MAZE
    assert data["action_space"] == "Discrete(4)"
    assert data["reward_range"] == [-0.01, 1.0]
    assert data["version_history"] == "* v0: Initial version."
    splits = data["scenario_sets"]["gridworld/maze"]["splits"]
    assert {name: s["size"] for name, s in splits.items()} == {"train": 200, "test": 100, "ood": 100}
    assert splits["ood"]["kwargs"]["height"] == 21


def test_info_prints_the_whole_documentation_page(run):
    out = run("info", "benchmarkzoo/MAPF-v0").stdout
    page = inspect.getdoc(registration.spec("benchmarkzoo/MAPF-v0").load_entry_point())
    sections = [line for line in page.splitlines() if line.startswith("## ")]
    assert {"## Description", "## Action Space", "## Version History", "## Example"} <= set(sections)
    assert [line for line in out.splitlines() if line.startswith("## ")] == sections  # every section, in order
    assert page.splitlines()[-1] in out  # to the end of the example
    assert json.loads(run("info", "benchmarkzoo/MAPF-v0", "--json").stdout)["doc"] == page


@pytest.mark.parametrize(
    ("env_id", "as_json", "text", "extra"),
    [
        # MAPF: -0.01 a step, plus at most goal_reward + 0.01 once (mapf/bounds.py)
        ("benchmarkzoo/MAPF-v0", [-0.01, 1.01], "[-0.01, 1.01] (per agent, one step, from the outcome bounds)", None),
        (
            "benchmarkzoo/MO-MAPF-v0",
            {"arrival": [0.0, 1.0], "energy": [-1.0, 0.0], "waiting": [-1.0, 0.0]},
            "energy: [-1, 0] (per agent",
            None,
        ),
        ("benchmarkzoo/PandaReach-v0", [-1.0, 0.0], "[-1, 0] (one step, from the outcome bounds)", "pybullet"),
        (
            "benchmarkzoo/TrafficRESCO-grid4x4-v0",
            [None, None],
            "[-inf, inf] (unbounded; per agent, one step, from the outcome bounds)",
            "libsumo",
        ),
    ],
)
def test_info_gives_envs_without_a_declared_reward_range_their_bounds_range(run, env_id, as_json, text, extra):
    if extra is not None:
        pytest.importorskip(extra, reason="needs the env's extra")
    data = json.loads(run("info", env_id, "--json").stdout)
    assert data["reward_range"] == as_json and data["reward_range_source"] == "outcome_bounds"
    out = run("info", env_id).stdout
    rows = out[out.index("reward_range") : out.index("outcome_bounds", out.index("reward_range"))]
    assert text in rows


def test_info_keeps_a_reward_range_the_env_declares(run):
    data = json.loads(run("info", MAZE, "--json").stdout)
    assert data["reward_range"] == [-0.01, 1.0] and data["reward_range_source"] == "env"


def test_info_without_the_extra_says_so(run, monkeypatch):
    fake = dataclasses.replace(registration.spec(MAZE), id="benchmarkzoo/Fake-v0", extras=("robotics",))
    monkeypatch.setitem(registration._ENVS, fake.id, fake)
    monkeypatch.setattr(registration, "missing_modules", lambda extra: ["pybullet"] if extra == "robotics" else [])
    data = json.loads(run("info", "benchmarkzoo/Fake-v0", "--json").stdout)
    assert "robotics" in data["unavailable"] and "action_space" not in data


@pytest.mark.parametrize("args", [("info", "Maze-v1"), ("rollout", "--id", "benchmarkzoo/Maez-v0")])
def test_unknown_id_exits_2_with_suggestion_and_no_traceback(run, args):
    result = run(*args)
    assert result.exit_code == 2
    assert "No benchmarkzoo env is registered as" in result.stderr
    assert f"Did you mean '{MAZE}'" in result.stderr
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


# ---- scenarios ----------------------------------------------------------------------------------


def test_scenarios_list(run):
    out = run("scenarios", "list").stdout
    for name in ("gridworld/maze", "gridworld/maze-obstacles"):
        line = next(line for line in out.splitlines() if line.startswith(f"│ {name} "))
        assert MAZE in line and "train 200, test 100, ood 100" in line


def test_scenarios_show(run):
    recorded = scenario_sets.load_set("gridworld/maze", REPO_SCENARIOS).split("ood")
    out = run("scenarios", "show", "gridworld/maze").stdout
    assert "maze/dfs" in out and "200000..200099 (100 scenarios)" in out
    assert recorded.hashes[200000] in out
    data = json.loads(run("scenarios", "show", "gridworld/maze", "--split", "ood", "--json").stdout)
    assert list(data["splits"]) == ["ood"]
    ood = data["splits"]["ood"]
    assert ood["kwargs"] == {"height": 21, "width": 21, "min_goal_distance": 10}
    assert ood["seeds"] == {"start": 200000, "stop": 200100}
    assert len(ood["hashes"]) == 100 and ood["hashes"]["200000"] == recorded.hashes[200000]
    bad = run("scenarios", "show", "gridworld/maze", "--split", "valid")
    assert bad.exit_code == 2 and "has splits train, test, ood; got 'valid'" in bad.stderr


#: Cheap committed sets of two families, copied to a temporary root for ``verify``'s no-argument form.
#: Every committed set's hashes are verified, set by set, by test_scenario_sets' test_committed_set_verifies
#: (the same ``scenario_sets.verify`` the command calls): regenerating all of them again here cost 110 s.
VERIFY_ALL_SETS = ("gridworld/maze", "gridworld/treasure", "multiagent/rps-self-play")


def test_scenarios_verify_passes_on_every_set_of_the_root(run, tmp_path, monkeypatch):
    for name in VERIFY_ALL_SETS:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(REPO_SCENARIOS / f"{name}.yaml", tmp_path / f"{name}.yaml")
    monkeypatch.setenv(scenario_sets.ROOT_ENV_VAR, str(tmp_path))
    result = run("scenarios", "verify")  # no names: every set under the root
    assert result.exit_code == 0, result.output
    assert list_sets() == sorted(VERIFY_ALL_SETS)
    sets = [load_set(name) for name in list_sets()]
    assert all(f"{s.name} " in result.stdout for s in sets)
    assert result.stdout.count(" OK ") == sum(len(s.splits) for s in sets) and "FAIL" not in result.stdout
    assert f"All {sum(s.num_scenarios for s in sets)} scenarios match" in result.stdout


def test_scenarios_verify_catches_a_generator_change(run, monkeypatch):
    monkeypatch.setattr(maze_generator, "dfs_maze", flip_large_mazes(maze_generator.dfs_maze))
    result = run("scenarios", "verify", "gridworld/maze", "gridworld/maze-obstacles")
    assert result.exit_code == 1
    rows = {
        tuple(cell.strip() for cell in line.split("│")[1:3]): line
        for line in result.stdout.splitlines()
        if line.count("│") >= 4
    }
    assert "FAIL (100 mismatches)" in rows["gridworld/maze", "ood"]
    assert "OK" in rows["gridworld/maze", "train"] and "OK" in rows["gridworld/maze", "test"]
    assert all("OK" in rows["gridworld/maze-obstacles", split] for split in ("train", "test", "ood"))
    assert "gridworld/maze ood: hashes differ for seeds 200000, 200001" in result.stderr
    assert "version bump" in result.stderr


def test_scenarios_record_rewrites_and_bumps(run, tmp_path, monkeypatch):
    (tmp_path / "gridworld").mkdir()
    shutil.copy(REPO_SCENARIOS / "gridworld/maze.yaml", tmp_path / "gridworld/maze.yaml")
    monkeypatch.setenv(scenario_sets.ROOT_ENV_VAR, str(tmp_path))
    assert "No hash changed; version stays 0" in run("scenarios", "record", "gridworld/maze").stdout
    monkeypatch.setattr(maze_generator, "dfs_maze", flip_large_mazes(maze_generator.dfs_maze))
    assert run("scenarios", "verify", "gridworld/maze").exit_code == 1
    result = run("scenarios", "record", "gridworld/maze")
    assert result.exit_code == 0
    assert "100 seeds changed: version 0 -> 1" in result.stdout
    assert run("scenarios", "verify", "gridworld/maze").exit_code == 0
    assert "version bump" in run("scenarios", "record", "--help").stdout


def test_malformed_scenario_file_is_a_clear_error(run, tmp_path, monkeypatch):
    (tmp_path / "gridworld").mkdir()
    bad = tmp_path / "gridworld/broken.yaml"
    bad.write_text("name: gridworld/broken\nsplits: {train: [unclosed\n")
    monkeypatch.setenv(scenario_sets.ROOT_ENV_VAR, str(tmp_path))
    for args in (("scenarios", "list"), ("scenarios", "verify", "gridworld/broken")):
        result = run(*args)
        assert result.exit_code == 2
        assert str(bad) in result.stderr and "is not valid YAML" in result.stderr and "line" in result.stderr
        assert "Traceback" not in result.output


# ---- rollout ------------------------------------------------------------------------------------


def test_rollout_maze_baseline_always_succeeds(run):
    result = run("rollout", "--id", MAZE, "--episodes", "4", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["id"] == MAZE and row["status"] == "ok" and row["episodes"] == 4
    assert row["success_rate"] == 1.0
    assert 0.0 < row["min_return"] <= row["mean_return"] <= row["max_return"] <= 1.0
    assert row["mean_length"] >= 4  # min_goal_distance: no goal is closer than 4 steps

    table = run("rollout", "--episodes", "3", "--family", "gridworld").stdout
    line = next(line for line in table.splitlines() if MAZE in line)
    assert "ok" in line and line.split("│")[-2].strip() == "1.00"
    assert "TrafficSignal" not in table  # --family keeps one family


def test_rollout_is_deterministic_in_the_seed(run):
    first = json.loads(run("rollout", "--id", MAZE, "-n", "3", "-s", "11", "--json").stdout)
    again = json.loads(run("rollout", "--id", MAZE, "-n", "3", "-s", "11", "--json").stdout)
    other = json.loads(run("rollout", "--id", MAZE, "-n", "3", "-s", "20", "--json").stdout)  # disjoint seeds
    assert first == again and first != other


def test_rollout_skips_missing_extras_and_fails_on_errors(run, monkeypatch):
    maze = registration.spec(MAZE)
    needs_extra = dataclasses.replace(maze, id="benchmarkzoo/Fake-v0", extras=("robotics",))
    broken = dataclasses.replace(maze, id="benchmarkzoo/Broken-v0", baseline=f"{maze_generator.__name__}:NoSuchPolicy")
    monkeypatch.setitem(registration._ENVS, needs_extra.id, needs_extra)
    monkeypatch.setitem(registration._ENVS, broken.id, broken)
    monkeypatch.setattr(registration, "missing_modules", lambda extra: ["pybullet"] if extra == "robotics" else [])
    result = run("rollout", "--episodes", "2", "--family", "gridworld", "--json")
    assert result.exit_code == 1
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows[MAZE]["status"] == "ok" and rows[MAZE]["success_rate"] == 1.0
    assert rows[needs_extra.id]["status"] == "skipped" and "robotics" in rows[needs_extra.id]["reason"]
    assert rows[broken.id]["status"] == "error" and "NoSuchPolicy" in rows[broken.id]["reason"]


# ---- entry points -------------------------------------------------------------------------------


def test_python_dash_m_runs_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarkzoo", "list", "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert MAZE in [d["id"] for d in json.loads(done.stdout)]


def test_importing_the_cli_does_not_import_rich():
    code = "import sys, benchmarkzoo.cli; print(any(m == 'rich' or m.startswith('rich.') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
