"""Envs from another distribution: a real one, built in a temporary folder, found through its
``benchmarkzoo.envs`` entry points. Every check runs in a fresh interpreter, so the registry it
sees has loaded the plugins exactly once, as a user's would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import benchmarkzoo

WORKTREE = Path(benchmarkzoo.__file__).resolve().parents[1]

CORRIDOR = '''
"""Corridors: a tiny third-party package with its own Gymnasium env."""

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class CorridorEnv(gym.Env):
    """Walk right along a corridor to its end.

    ## Version History

    * v1: The length is a constructor argument.
    """

    metadata = {"render_modes": []}

    def __init__(self, length=5):
        self.length = length
        self.observation_space = spaces.Discrete(length + 1)
        self.action_space = spaces.Discrete(2)
        self._position = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._position = int(self.np_random.integers(0, self.length))
        return self._position, {}

    def step(self, action):
        from benchmarkzoo.core.spaces import check_action  # a plugin may use benchmarkzoo's helpers

        check_action(self.spec.id if self.spec else "bzdemo/Corridor", self.action_space, action)
        step = 1 if int(action) == 1 else -1
        self._position = int(np.clip(self._position + step, 0, self.length))
        arrived = self._position == self.length
        return self._position, 1.0 if arrived else -0.1, arrived, False, {}


def register_corridor(env_id, length, max_episode_steps, description):
    import benchmarkzoo

    benchmarkzoo.register(
        env_id,
        kind="single",
        family="corridors",
        entry_point="bzdemo_envs:CorridorEnv",
        max_episode_steps=max_episode_steps,
        kwargs={"length": length},
        description=description,
    )


def register_envs():
    register_corridor("bzdemo/Corridor-v1", 5, 50, "Walk right to the end of a corridor.")
'''

# The module form: importing it registers. It also reads the registry while registering, which
# must not load the plugins a second time (nor recurse).
LONG_CORRIDOR = """
import benchmarkzoo
from bzdemo_envs import register_corridor

if "corridors" not in benchmarkzoo.list_families():
    raise RuntimeError("entry points load in name order: 'corridor' registers the family before 'long'")
register_corridor("bzdemo/LongCorridor-v0", 40, 200, "A corridor of 40 cells.")
"""

BROKEN = """
def register_envs():
    raise RuntimeError("the corridor map is missing")
"""


def write_distribution(site: Path, name: str, files: dict[str, str], entry_points: dict[str, str] | str) -> None:
    """An installed distribution as pip leaves it: its modules and a ``.dist-info`` with entry points.

    ``entry_points`` maps names to targets in the ``benchmarkzoo.envs`` group, or is the file's whole text.
    """
    for relative, text in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(textwrap.dedent(text))
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    if isinstance(entry_points, dict):
        entry_points = "[benchmarkzoo.envs]\n" + "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def demo_site(tmp_path):
    """A folder on sys.path holding the distribution ``bzdemo-envs``."""
    site = tmp_path / "site"
    files = {"bzdemo_envs/__init__.py": CORRIDOR, "bzdemo_envs/long.py": LONG_CORRIDOR}
    write_distribution(
        site, "bzdemo-envs", files, {"corridor": "bzdemo_envs:register_envs", "long": "bzdemo_envs.long"}
    )
    return site


@pytest.fixture
def broken_site(demo_site):
    """The demo distribution beside ``bzbroken-envs``, one entry point raising, one naming a missing module."""
    write_distribution(
        demo_site,
        "bzbroken-envs",
        {"bzbroken_envs/__init__.py": BROKEN},
        {"raises": "bzbroken_envs:register_envs", "gone": "bzbroken_envs.removed_module"},
    )
    return demo_site


def run_python(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(WORKTREE)]), "COLUMNS": "200"}
    env.pop("BENCHMARKZOO_SCENARIOS", None)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=site.parent, timeout=120, check=False
    )


def run_cli(site: Path, *args: str) -> subprocess.CompletedProcess:
    return run_python(site, "-m", "benchmarkzoo", *args)


def test_plugin_envs_are_listed(demo_site):
    done = run_cli(demo_site, "list", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no plugin warning: both entry points loaded
    listed = {d["id"]: d for d in json.loads(done.stdout)}
    assert {i: (d["kind"], d["family"]) for i, d in listed.items() if i.startswith("bzdemo/")} == {
        "bzdemo/Corridor-v1": ("single", "corridors"),
        "bzdemo/LongCorridor-v0": ("single", "corridors"),
    }
    assert listed["bzdemo/Corridor-v1"]["kwargs"] == {"length": 5}
    assert listed["benchmarkzoo/Maze-v0"]["family"] == "gridworld"  # the built-ins are still there


def test_list_filters_by_a_plugin_family(demo_site):
    done = run_cli(demo_site, "list", "--family", "corridors")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "bzdemo/" in line]
    assert [row.split("│")[1].strip() for row in rows] == ["bzdemo/Corridor-v1", "bzdemo/LongCorridor-v0"]
    cells = [cell.strip() for cell in rows[0].split("│")[2:7]]
    assert cells == ["single", "corridors", "-", "no", "Walk right to the end of a corridor."]
    assert "benchmarkzoo/Maze-v0" not in done.stdout
    unknown = run_cli(demo_site, "list", "--family", "corridor")
    assert unknown.returncode == 2
    assert "No env is registered in the family 'corridor'; families with envs: " in unknown.stderr
    assert "control, corridors, gridworld" in unknown.stderr and "Did you mean 'corridors'?" in unknown.stderr


def test_info_shows_a_plugin_env(demo_site):
    done = run_cli(demo_site, "info", "bzdemo/Corridor-v1", "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["spec"]["id"] == "bzdemo/Corridor-v1" and info["spec"]["family"] == "corridors"
    assert info["plugin"] == {"distribution": "bzdemo-envs", "entry_point": "bzdemo_envs:register_envs"}
    assert (info["observation_space"], info["action_space"]) == ("Discrete(6)", "Discrete(2)")
    assert info["version_history"] == "* v1: The length is a constructor argument."
    assert info["outcome_bounds"] is None and info["scenario_sets"] == {}
    table = run_cli(demo_site, "info", "bzdemo/LongCorridor-v0").stdout
    fields = {cells[1].strip(): cells[2].strip() for line in table.splitlines() if len(cells := line.split("│")) == 4}
    assert fields["plugin"] == "bzdemo-envs (bzdemo_envs.long)"
    assert fields["observation_space"] == "Discrete(41)" and fields["max_episode_steps"] == "200"


def test_a_misspelt_plugin_id_is_suggested(demo_site):
    done = run_cli(demo_site, "info", "benchmarkzoo/Coridor-v1")
    assert done.returncode == 2
    assert done.stderr == (
        "Error: No benchmarkzoo env is registered as 'benchmarkzoo/Coridor-v1'. "
        "Did you mean 'bzdemo/Corridor-v1', 'bzdemo/LongCorridor-v0'?\n"
    )


PYTHON_CHECKS = """
import json, sys, warnings
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
import benchmarkzoo

warnings.simplefilter("error")  # a plugin warning here would fail the run
def lazy():
    return "bzdemo_envs" not in sys.modules and "benchmarkzoo.plugins" not in sys.modules

lazy_import = lazy()
benchmarkzoo.make("benchmarkzoo/Maze-v0").close()  # a built-in id: no entry point is even looked for
lazy_make = lazy()
ids = [s.id for s in benchmarkzoo.list_envs(family="corridors")]
env = gym.make("bzdemo/Corridor-v1")
check_env(env.unwrapped, skip_render_check=True)
trace = []
for _ in range(2):
    observation, _ = env.reset(seed=7)
    steps = [observation]
    done = False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(1)
        steps.append((observation, reward))
        done = terminated or truncated
    trace.append(steps)
spec = benchmarkzoo.spec("bzdemo/LongCorridor-v0")
native = benchmarkzoo.make("bzdemo/LongCorridor-v0")
from benchmarkzoo.testing import check_env as kit_check_env

kit_check_env("bzdemo/Corridor-v1", steps=200)  # the conformance kit finds a plugin's id in the registry
plugins = [(p.distribution, p.name, list(p.env_ids), p.error) for p in benchmarkzoo.load_plugins()]
print(json.dumps({
    "lazy": [lazy_import, lazy_make], "ids": ids, "trace": trace, "spec_max": spec.max_episode_steps,
    "long_length": native.unwrapped.length, "time_limit": native.spec.max_episode_steps, "plugins": plugins,
}))
"""


def test_registry_loads_plugins_lazily_and_gym_makes_their_envs(demo_site):
    done = run_python(demo_site, "-c", PYTHON_CHECKS)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["lazy"] == [True, True]  # import benchmarkzoo reads no distribution's metadata, imports no plugin
    assert result["ids"] == ["bzdemo/Corridor-v1", "bzdemo/LongCorridor-v0"]
    first, again = result["trace"]
    assert first == again and first[-1] == [5, 1.0]  # seeded, and the walk ends at the corridor's end
    assert all(reward == -0.1 for _, reward in first[1:-1]) and len(first) == 6 - first[0]
    assert (result["spec_max"], result["long_length"], result["time_limit"]) == (200, 40, 200)
    assert result["plugins"] == [
        ["bzdemo-envs", "corridor", ["bzdemo/Corridor-v1"], None],
        ["bzdemo-envs", "long", ["bzdemo/LongCorridor-v0"], None],
    ]


def test_a_broken_plugin_warns_once_and_the_rest_still_lists(broken_site):
    done = run_cli(broken_site, "list", "--json")
    assert done.returncode == 0, done.stderr
    ids = [d["id"] for d in json.loads(done.stdout)]
    assert "benchmarkzoo/Maze-v0" in ids and "bzdemo/Corridor-v1" in ids and "bzdemo/LongCorridor-v0" in ids
    warnings = done.stderr.splitlines()
    assert warnings == [
        "Warning: benchmarkzoo could not load the 'benchmarkzoo.envs' entry point 'gone' "
        "(bzbroken_envs.removed_module) of the distribution 'bzbroken-envs': "
        "ModuleNotFoundError: No module named 'bzbroken_envs.removed_module'. "
        "Its envs may be missing; fix or uninstall that distribution.",
        "Warning: benchmarkzoo could not load the 'benchmarkzoo.envs' entry point 'raises' "
        "(bzbroken_envs:register_envs) of the distribution 'bzbroken-envs': "
        "RuntimeError: the corridor map is missing. Its envs may be missing; fix or uninstall that distribution.",
    ]


BROKEN_CHECKS = """
import json, warnings
import benchmarkzoo
from benchmarkzoo.plugins import PluginWarning

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    first = len(benchmarkzoo.list_envs())
    again = len(benchmarkzoo.list_envs())
    benchmarkzoo.make("bzdemo/Corridor-v1").close()
errors = {p.name: p.error for p in benchmarkzoo.load_plugins() if p.error}
print(json.dumps({
    "categories": [w.category.__name__ for w in caught], "same": first == again, "errors": errors,
}))
"""


def test_a_broken_plugin_is_a_warning_in_python_too(broken_site):
    done = run_python(broken_site, "-c", BROKEN_CHECKS)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["categories"] == ["PluginWarning", "PluginWarning"]  # once each, however often the registry is read
    assert result["same"]
    assert result["errors"] == {
        "gone": "ModuleNotFoundError: No module named 'bzbroken_envs.removed_module'",
        "raises": "RuntimeError: the corridor map is missing",
    }


def test_a_malformed_entry_points_file_is_a_warning(demo_site):
    # importlib.metadata.entry_points() raises for every distribution when one file has a line without '='
    write_distribution(demo_site, "bzmangled-envs", {}, "[benchmarkzoo.envs]\nbzmangled_envs:register\n")
    write_distribution(demo_site, "bzunrelated", {}, "[console_scripts]\njust a broken line\n")
    done = run_cli(demo_site, "list", "--family", "corridors", "--json")
    assert done.returncode == 0, done.stderr
    assert [d["id"] for d in json.loads(done.stdout)] == ["bzdemo/Corridor-v1", "bzdemo/LongCorridor-v0"]
    (warning,) = done.stderr.splitlines()  # the unrelated distribution's broken file is not ours to report
    assert warning.startswith(
        "Warning: benchmarkzoo could not read the 'benchmarkzoo.envs' entry points of the distribution "
        "'bzmangled-envs': "  # then importlib.metadata's own error, which varies with the Python version
    )
    assert warning.endswith(". Its envs may be missing; fix or uninstall that distribution.")
