"""README.md, run as written: every fenced block, from a folder outside the clone.

Each ``python`` block runs in a fresh interpreter whose cwd is a temporary folder (the worktree's
package importable); each ``bash`` command runs there too, with ``benchmarkzoo`` this worktree's
CLI. A command the test cannot run is listed in :data:`NOT_RUN` with the reason; a command that
is neither run nor listed fails :func:`test_every_readme_command_is_run_or_listed`, so a new
README command has to be decided on. Long commands run with a smaller budget the command itself
supports (:data:`SMALLER`), files a command needs that the README does not make are made by
:data:`GIVEN`, and after every block ``git status`` of the worktree must be what it was: following
the README never writes into the clone.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import benchmarkzoo
from benchmarkzoo import plugins

WORKTREE = Path(benchmarkzoo.__file__).resolve().parents[1]
README = WORKTREE / "README.md"
SUITES = WORKTREE / "benchmarkzoo" / "evaluation" / "suites"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: A shell comment starts with `#` at the start of a line or after a space.
COMMENT = re.compile(r"(?:^|\s)#(?:\s|$)")
LANGUAGES = {"python", "bash", "toml"}

#: README commands not run here, and why.
NOT_RUN = {
    "make run": "installs torch and every extra into .venv (network, minutes); the evaluate, add and build "
    "commands below are the ones it runs",
    "make test": "is the whole test suite, this file included (CI runs it)",
    "pip install -e .": "installs into the running environment; tests/test_core_install.py checks the core "
    "install by hiding the extras",
    'pip install -e ".[render]"': "installs into the running environment (the test venv has every extra)",
    'pip install -e ".[fast]"': "installs into the running environment (the test venv has every extra)",
    'pip install -e ".[all]"': "installs into the running environment (the test venv has every extra)",
    "benchmarkzoo leaderboard serve --root my-leaderboard": "serves until interrupted",
    "RAY_AUTH_MODE=disabled ray start --head --node-ip-address 127.0.0.1 --port 6380 --num-cpus 2": "starts Ray "
    "daemons on a fixed port that outlive the command; tests/evaluation/test_ray_cluster.py starts these clusters",
    "RAY_AUTH_MODE=disabled ray start --address 127.0.0.1:6380 --node-ip-address 127.0.0.1 --num-cpus 2": "the "
    "second node of that cluster (tests/evaluation/test_ray_cluster.py)",
    "benchmarkzoo evaluate --suite quickstart-v0 --policy random --backend ray --ray-address 127.0.0.1:6380": "needs "
    "that cluster (tests/evaluation/test_ray_cluster.py runs it against one)",
    'RAY_AUTH_MODE=token RAY_AUTH_TOKEN="$(ray get-auth-token)" benchmarkzoo evaluate ... --ray-address HEAD:6380': "a "
    "template (`...`, HEAD) for a token-authenticated cluster (tests/evaluation/test_ray_cluster.py starts one)",
}

#: Commands run with a smaller budget: README command -> (text replaced, replacement, why).
#: An empty text replaced appends the replacement.
SMALLER = {
    "benchmarkzoo evaluate --suite core-v0 --policy random --backend ray --out r.json --resume": (
        "",
        " --episodes 1",
        "core-v0 plays 300 episodes; one per task shows the Ray backend runs and --resume starts a new r.json",
    ),
    "benchmarkzoo ratings --matches 40 --out ratings.json": (
        "--matches 40",
        "--matches 2",
        "40 matches per pairing takes 20 times as long as 2, which write the same kind of file",
    ),
}

#: Python blocks run with a smaller budget: text of the block -> (replacement, why).
PYTHON_SMALLER = {
    'PPO("MultiInputPolicy", env).learn(100_000)': (
        'PPO("MultiInputPolicy", env, n_steps=16, batch_size=64, n_epochs=1).learn(512)',
        "100,000 steps is minutes; two small updates show the adapter, tagging and saving work "
        "(the slow tests train PPO on Maze to beat random)",
    ),
    'ppo_config("benchmarkzoo/Navigation-v0")': (
        'ppo_config("benchmarkzoo/Navigation-v0", train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)',
        "ten iterations of 2,000 steps is minutes; ten of 200 show the config builds and trains",
    ),
}

#: Commands whose README exit status is not 0, and why.
EXIT = {
    "benchmarkzoo replay results.json --task maze-test --episode 3 --policy random": (
        1,
        "the README: a replay with another policy warns that it differs and exits 1",
    ),
}


def calibrated_suites() -> tuple[str, list[str]]:
    """The README's "N calibrated suites ship today (...)": N and the names."""
    text = " ".join(README.read_text().split())
    count, names = re.search(r"(\w+) calibrated suites ship today \(([^)]*)\)", text).groups()
    return count, re.findall(r"`([\w-]+)`", names)


def lists_the_calibrated_suites(output: str) -> None:
    listed = {line.split()[0] for line in output.splitlines() if line.strip()}
    assert set(calibrated_suites()[1]) <= listed, output


def replays_every_state(output: str) -> None:
    """The README: it says the outcome equals the recorded one, and prints path, frames (length + 1) and bytes."""
    assert "equals the recorded episode" in output, output
    frames, steps = re.search(
        r"wrote \S+: (\d+) frames \(every state of (\d+) steps\), .*[\d,]+ bytes", output
    ).groups()
    assert int(frames) == int(steps) + 1


def warns_it_differs(output: str) -> None:
    assert "differs from the recorded episode" in output, output


def improvement_with_interval(output: str) -> None:
    assert re.search(r"P\([^)]+ > [^)]+\) = [\d.]+ \[[\d.]+, [\d.]+\]", output), output


#: What the README says a command prints (its comment or the prose after the block), checked on stdout + stderr.
OUTPUTS: dict[str, Callable[[str], None]] = {
    "benchmarkzoo suites list": lists_the_calibrated_suites,
    "benchmarkzoo replay results.json --task maze-test --episode 3": replays_every_state,
    "benchmarkzoo replay results.json --task maze-test --episode 3 --out episode.svg": replays_every_state,
    "benchmarkzoo replay results.json --task maze-test --episode 3 --policy random": warns_it_differs,
    "benchmarkzoo leaderboard compare a.json b.json": improvement_with_interval,
}

MY_AGENT = '''\
import numpy as np


def act(observations):
    """Action 0 in every world (the README's `my_agent.py:act`, a batched policy)."""
    return np.zeros(len(next(iter(observations.values()))), dtype=np.int64)
'''


def cli(cwd: Path, *args: str) -> None:
    subprocess.run(["benchmarkzoo", *args], cwd=cwd, env=environment(cwd), check=True, capture_output=True)


def given_agent(cwd: Path) -> None:
    (cwd / "my_agent.py").write_text(MY_AGENT)


def given_custom_suite(cwd: Path) -> None:
    """A custom suite (quickstart-v0 under another name) and a full run of it as r.json."""
    text = (SUITES / "quickstart-v0.yaml").read_text()
    (cwd / "my-suite-v0.yaml").write_text(text.replace("name: quickstart-v0", "name: my-suite-v0", 1))
    (cwd / "r.json").unlink(missing_ok=True)  # the Ray run's, one episode a task
    cli(cwd, "evaluate", "--suite", "my-suite-v0.yaml", "--policy", "random", "--out", "r.json")


def given_two_results(cwd: Path) -> None:
    shutil.copy(cwd / "results.json", cwd / "a.json")
    shutil.copy(cwd / "mine.json", cwd / "b.json")


def given_sb3_model(cwd: Path) -> None:
    shutil.copy(WORKTREE / "leaderboard" / "policies" / "ppo-maze.zip", cwd / "my-ppo.zip")


#: Files a command needs that the README does not make: command -> (maker, what it makes).
GIVEN: dict[str, tuple[Callable[[Path], None], str]] = {
    "benchmarkzoo evaluate --suite quickstart-v0 --policy my_agent.py:act"
    " --backend sync --num-envs 16 --out mine.json": (
        given_agent,
        "my_agent.py, a batched policy",
    ),
    "benchmarkzoo leaderboard validate --suite my-suite-v0.yaml r.json": (
        given_custom_suite,
        "my-suite-v0.yaml and r.json evaluated on it",
    ),
    "benchmarkzoo leaderboard compare a.json b.json": (given_two_results, "a.json, b.json: two results files above"),
    "benchmarkzoo export-onnx my-ppo.zip my-ppo.onnx": (given_sb3_model, "my-ppo.zip: the committed ppo-maze.zip"),
}

#: Blocks (by first command) that go on in the folder of the block before, in the same test: the
#: maintainer verifies the results.json and my-ppo.onnx the submitter sent.
CONTINUES = {"benchmarkzoo leaderboard verify results.json --policy my-ppo.onnx --episodes 4"}

#: The slow blocks (Ray), by first command or first line.
SLOW = {"benchmarkzoo suites list", "import ray"}


def fenced() -> list[tuple[str, str]]:
    return FENCE.findall(README.read_text())


def commands(block: str) -> list[tuple[str, str]]:
    """``(command, comment)`` for each line of a shell block that is not only a comment."""
    found = []
    for line in block.splitlines():
        match = COMMENT.search(line)
        command = line[: match.start()].strip() if match else line.strip()
        if command:
            found.append((command, line[match.end() :].strip() if match else ""))
    return found


def shell_blocks() -> list[list[tuple[str, str]]]:
    return [commands(text) for language, text in fenced() if language == "bash"]


def python_blocks() -> list[str]:
    return [text for language, text in fenced() if language == "python"]


def environment(cwd: Path) -> dict[str, str]:
    shim = cwd.parent / "bin"
    if not shim.exists():
        shim.mkdir()
        (shim / "benchmarkzoo").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m benchmarkzoo "$@"\n')
        (shim / "benchmarkzoo").chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join([str(cwd), str(WORKTREE)]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "SDL_VIDEODRIVER": "dummy",
    }


def repository_state() -> list[str]:
    """Tracked changes, untracked and ignored files of the worktree (caches aside)."""
    lines = subprocess.run(
        ["git", "-C", str(WORKTREE), "status", "--porcelain", "--ignored", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    caches = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".venv/", ".scratch/")
    return sorted(line for line in lines if not any(cache in line for cache in caches))


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=environment(cwd), capture_output=True, text=True, timeout=300, check=False
    )


def check_writes(command: str, comment: str, cwd: Path) -> None:
    """The files the command says it writes: ``--out FILE``, ``--root DIR`` of a build, a file its comment names."""
    words = shlex.split(command)
    for flag, value in itertools.pairwise(words):
        if flag == "--out":
            assert (cwd / value).is_file(), f"{command}: no {value}"
    if "leaderboard build" in command and "--root" in words:
        root = cwd / words[words.index("--root", words.index("build")) + 1]
        assert json.loads((root / "leaderboard.json").read_text()), command
        assert (root / "site" / "index.html").is_file(), command
    for name in re.findall(r"\b[\w-]+\.(?:gif|svg|json|html)\b", comment):
        assert (cwd / name).is_file(), f"{command}: no {name} as its comment says"


# ---- the page's inventory ---------------------------------------------------------------------


def test_every_block_is_of_a_language_the_test_runs():
    assert {language for language, _ in fenced()} <= LANGUAGES


def test_every_readme_command_is_run_or_listed():
    """A command is run (as written, or with a budget) or listed with a reason; no table entry is stale."""
    readme = [command for block in shell_blocks() for command, _ in block]
    for table in (NOT_RUN, SMALLER, EXIT, GIVEN, OUTPUTS):
        assert set(table) <= set(readme), f"not README commands any more: {set(table) - set(readme)}"
    assert not set(NOT_RUN) & (set(SMALLER) | set(EXIT) | set(GIVEN))
    assert set(CONTINUES) | (SLOW - {"import ray"}) <= {block[0][0] for block in shell_blocks()}
    assert "import ray" in {block.splitlines()[0] for block in python_blocks()}
    for text in PYTHON_SMALLER:
        assert sum(text in block for block in python_blocks()) == 1, text
    for command in readme:
        assert command in NOT_RUN or command.startswith("benchmarkzoo "), f"decide on {command!r}: run it or list it"


def test_the_calibrated_suites_it_names_are_the_shipped_ones():
    count, named = calibrated_suites()
    shipped = sorted(path.name.removesuffix(".calibration.json") for path in SUITES.glob("*.calibration.json"))
    assert sorted(named) == shipped
    words = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
    assert words.split().index(count.lower()) == len(shipped)


def test_the_plugin_entry_point_is_the_group_benchmarkzoo_loads():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    (toml,) = [text for language, text in fenced() if language == "toml"]
    points = tomllib.loads(toml)["project"]["entry-points"]
    assert list(points) == [plugins.GROUP]
    assert points[plugins.GROUP] == {"mylab": "mylab_envs:register_envs"}


# ---- the blocks, run --------------------------------------------------------------------------


def sessions() -> list[list[int]]:
    """Blocks run in one folder, in order: each block alone, or with the blocks that continue it."""
    found: list[list[int]] = []
    for index, block in enumerate(shell_blocks()):
        if block[0][0] in CONTINUES:
            found[-1].append(index)
        else:
            found.append([index])
    return found


def shell_params() -> list:
    params = []
    for session in sessions():
        block = [line for index in session for line in shell_blocks()[index]]
        if all(command in NOT_RUN for command, _ in block):
            continue  # nothing to run (the inventory test holds these to the table)
        marks = [pytest.mark.slow] if block[0][0] in SLOW else []
        params.append(pytest.param(session, marks=marks, id=f"bash-{session[0]}-{block[0][0][:40]}"))
    return params


@pytest.mark.parametrize("session", shell_params())
def test_the_shell_block_runs_as_written(session, tmp_path):
    cwd = tmp_path / "work"
    cwd.mkdir()
    before = repository_state()
    for command, comment in (line for index in session for line in shell_blocks()[index]):
        if command in NOT_RUN:
            continue
        if command in GIVEN:
            GIVEN[command][0](cwd)
        runnable = command
        if command in SMALLER:
            old, new, _ = SMALLER[command]
            runnable = command + new if not old else command.replace(old, new)
        done = run(runnable, cwd)
        expected = EXIT.get(command, (0, ""))[0]
        assert done.returncode == expected, f"{runnable}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        check_writes(command, comment, cwd)
        if command in OUTPUTS:
            OUTPUTS[command](done.stdout + done.stderr)
        assert repository_state() == before, f"{command} wrote into the repository"
        # run from the clone (the README's cwd for `make`), ./leaderboard is the committed leaderboard
        assert not (cwd / "leaderboard").exists(), f"{command} wrote ./leaderboard: give it a --root of its own"


def python_params() -> list:
    params = []
    for index, text in enumerate(python_blocks()):
        first = text.splitlines()[0]
        marks = [pytest.mark.slow] if first in SLOW else []
        params.append(pytest.param(index, marks=marks, id=f"python-{index}-{first[:40]}"))
    return params


@pytest.mark.parametrize("index", python_params())
def test_the_python_block_runs_as_written(index, tmp_path):
    text = python_blocks()[index]
    for old, (new, _) in PYTHON_SMALLER.items():
        text = text.replace(old, new)
    cwd = tmp_path / "work"
    cwd.mkdir()
    first = text.splitlines()[0]
    registered = ""
    if re.fullmatch(r"# [\w/]+\.py", first):  # a file of a package: written there, then used
        path = cwd / first[2:]
        path.parent.mkdir(parents=True)
        path.write_text(text)
        module = path.parent.name
        (registered,) = re.findall(r'benchmarkzoo\.register\(\s*"([^"]+)"', text)
        text = f"import benchmarkzoo, {module}\n{module}.register_envs()\nprint(benchmarkzoo.spec({registered!r}).id)\n"
    before = repository_state()
    done = subprocess.run(
        [sys.executable, "-c", text], cwd=cwd, env=environment(cwd), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert repository_state() == before, "the block wrote into the repository"
    if registered:  # the registry holds the id the block registers
        assert done.stdout.split() == [registered]
    if "print(algo.train()" in text:  # one mean return per iteration the loop counts
        (iterations,) = re.findall(r"range\((\d+)\)", text)
        returns = [float(line) for line in done.stdout.splitlines()]
        assert len(returns) == int(iterations)
    if "model.save(" in text:
        (saved,) = re.findall(r'model\.save\("([^"]+)"\)', text)
        assert (cwd / saved).is_file()
