"""The core install (`pip install -e .`, no extras): `--help` works, and what needs an extra says which, at once.

An extra is made missing for real: its modules are hidden from ``importlib.util.find_spec`` and set
to ``None`` in ``sys.modules``, so an ``import`` of them fails as on a machine without them. The
import graph of ``--help`` is checked in a fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import gymnasium as gym
import pytest
from click.testing import CliRunner

import benchmarkzoo
from benchmarkzoo import scenario_sets
from benchmarkzoo.cli import _TopGroup, cli
from benchmarkzoo.core import extras
from benchmarkzoo.core.errors import MissingExtraError, ScenarioSetError

INSTALL_EVAL = 'pip install -e ".[eval]"'


def hide(monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    """Make every module of ``extra`` uninstalled for this test."""
    hidden = set(extras.EXTRA_MODULES[extra])
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        return None if name.split(".")[0] in hidden else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    for module in hidden:
        monkeypatch.setitem(sys.modules, module, None)  # a later `import module` raises ImportError


def test_help_imports_none_of_the_lazy_commands():
    code = (
        "import json, sys\n"
        "from benchmarkzoo.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic', 'scipy', 'matplotlib', 'jinja2', 'benchmarkzoo.evaluation.commands',\n"
        "         'benchmarkzoo.leaderboard.commands', 'benchmarkzoo.evaluation.runner')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    *help_lines, imported = done.stdout.strip().splitlines()
    assert json.loads(imported) == []
    listed = "\n".join(help_lines)
    for name in ("evaluate", "suites", "leaderboard", "export-onnx", "list", "scenarios"):
        assert f"  {name} " in listed


def test_the_summaries_shown_by_help_are_the_commands_own():
    for name, lazy in _TopGroup.lazy_commands.items():
        if extras.available(lazy.extra):
            command = benchmarkzoo.registration.load(lazy.target)
            assert command.get_short_help_str(limit=1000) == lazy.summary, name


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "--suite", "core-v0", "--policy", "random"],
        ["suites", "list"],
        ["leaderboard", "build"],
        ["leaderboard", "validate", "results.json"],
    ],
    ids=["evaluate", "suites-list", "leaderboard-build", "leaderboard-validate"],
)
def test_a_command_of_the_eval_extra_without_it_is_one_line_naming_it(monkeypatch, args):
    hide(monkeypatch, "eval")
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    lines = done.output.strip().splitlines()
    assert len(lines) == 1, done.output
    assert lines[0].startswith(f'Error: benchmarkzoo {args[0]} needs the "eval" extra (pydantic')
    assert INSTALL_EVAL in lines[0]


def test_help_works_without_the_eval_extra_and_says_what_needs_it(monkeypatch):
    hide(monkeypatch, "eval")
    done = CliRunner().invoke(cli, ["--help"])
    assert done.exit_code == 0, done.output
    assert "evaluate" in done.output and "(needs the eval extra)" in done.output
    group_help = CliRunner().invoke(cli, ["leaderboard", "--help"])
    assert group_help.exit_code == 0, group_help.output
    assert "Validate, add and build leaderboard submissions" in group_help.output
    assert INSTALL_EVAL in " ".join(group_help.output.split())  # help text is wrapped
    listing = CliRunner().invoke(cli, ["list", "--json"])  # the core commands still run
    assert listing.exit_code == 0 and json.loads(listing.output)


@pytest.mark.parametrize(
    "make",
    [
        lambda: gym.make("benchmarkzoo/TrafficSignal-v0"),
        lambda: gym.make_vec("benchmarkzoo/TrafficSignal-v0", 2, vectorization_mode="vector_entry_point"),
        lambda: benchmarkzoo.make_parallel("benchmarkzoo/TrafficGrid-v0"),
        lambda: benchmarkzoo.envs.traffic.signal.env.TrafficSignalEnv(),
    ],
    ids=["gym.make", "gym.make_vec", "make_parallel", "constructor"],
)
def test_a_traffic_env_without_the_traffic_extra_fails_at_make(monkeypatch, make):
    import benchmarkzoo.envs.traffic.signal.env  # noqa: F401  # the class the constructor case builds

    hide(monkeypatch, "traffic")
    with pytest.raises(
        MissingExtraError, match=r'needs the Python module .sumo.*pip install "benchmarkzoo\[traffic\]"'
    ):
        make()


def test_scenarios_list_shows_every_set_without_the_traffic_extra(monkeypatch):
    hide(monkeypatch, "traffic")  # RESCO's generator needs sumo-rl's files; listing needs no generator
    done = CliRunner().invoke(cli, ["scenarios", "list", "--json"])
    assert done.exit_code == 0, done.output
    names = [s["name"] for s in json.loads(done.output)]
    assert names == scenario_sets.list_sets() and "traffic/resco-cologne1" in names
    with pytest.raises(ScenarioSetError, match=r"splits.train.kwargs must be valid arguments of 'traffic/resco'"):
        scenario_sets.load_set("traffic/resco-cologne1")  # loading a set to play it still constructs them
