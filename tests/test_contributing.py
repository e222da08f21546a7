"""CONTRIBUTING.md's "Adding an env" walkthrough, run: its code blocks are a real package.

Every block marked ``<!-- file: corridor/... -->`` is written into a temporary folder, and a fresh
interpreter (so the registry holds only the built-ins and what the walkthrough registers)
registers ``mylab/Corridor-v0`` and runs the conformance kit, the exact rewards and the
messages the page quotes, and random rollouts against the env's own outcome bounds. It reports
each result as JSON; the tests below assert on them, so a page edit that breaks the package, or
prose that no longer matches what the code does, fails here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import benchmarkzoo

WORKTREE = Path(benchmarkzoo.__file__).resolve().parents[1]
CONTRIBUTING = WORKTREE / "CONTRIBUTING.md"
#: A marker line, then one fenced python block: the file's whole text.
BLOCK = re.compile(r"^<!-- file: (corridor/[\w/]+\.py) -->\n```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
ENV_FILES = (
    "corridor/sim.py",
    "corridor/generator.py",
    "corridor/env.py",
    "corridor/vector_env.py",
    "corridor/bounds.py",
)
REGISTRATION = "corridor/__init__.py"
#: The "Checking it" block, run as the page says.
RUN = re.compile(r"^<!-- run: after register_envs\(\) -->\n```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
ENV_ID = "mylab/Corridor-v0"

# Runs in the fresh interpreter; prints {probe: {"value": ...} | {"error": "Type: message"}}.
DRIVER = textwrap.dedent(
    """
    import doctest, inspect, json, sys
    import gymnasium as gym
    import numpy as np
    import benchmarkzoo
    import corridor

    corridor.register_envs()
    from benchmarkzoo.evaluation.results import Episode
    from benchmarkzoo.leaderboard.plausibility import episode_problem
    from benchmarkzoo.testing import check_env, check_generator, check_pickle, check_vector_matches_single
    from corridor.env import CorridorEnv
    from corridor.generator import CorridorScenario
    from corridor.vector_env import CorridorVectorEnv

    ID = "mylab/Corridor-v0"
    SCENARIO = CorridorScenario(12, start=0, goal=5, pits=(2,))


    def play(actions):
        env = gym.make(ID)
        env.reset(seed=0, options={"scenario": SCENARIO})
        steps = []
        for action in actions:
            _, reward, terminated, truncated, info = env.step(action)
            steps.append([reward, terminated, truncated, info["is_success"]])
        return steps


    def defaults(cls):
        return {name: repr(p.default) for name, p in inspect.signature(cls).parameters.items()}


    def message(call):
        try:
            call()
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        return None


    def rollouts(limit, episodes):
        spec = benchmarkzoo.spec(ID)
        bounds = spec.bounds({"max_episode_steps": limit})
        env = gym.make(ID, max_episode_steps=limit)
        rng = np.random.default_rng(7)
        endings, problems = {"goal": 0, "pit": 0, "limit": 0}, []
        for index in range(episodes):
            _, info = env.reset(seed=index)
            total, length, done = 0.0, 0, False
            while not done:
                _, reward, terminated, truncated, info = env.step(int(rng.integers(4)))
                total, length, done = total + reward, length + 1, terminated or truncated
            endings["goal" if info["is_success"] else "pit" if terminated else "limit"] += 1
            record = Episode(
                index=index, seed=index, scenario_seed=index, scenario_hash=env.unwrapped.scenario.content_hash,
                length=length, success=info["is_success"], **{"return": total},
            )
            problems.append(episode_problem(spec, bounds, record))
        forged = Episode(
            index=0, seed=0, scenario_seed=0, scenario_hash="0" * 64, length=4, success=True, **{"return": 0.5}
        )
        problems = [p for p in problems if p]
        return {"endings": endings, "problems": problems, "forged": episode_problem(spec, bounds, forged)}


    PROBES = {
        "check_env": lambda: check_env(ID, strict=True),
        "vector": lambda: {
            mode: check_vector_matches_single(ID, num_envs=8, steps=400, autoreset_mode=mode)
            for mode in ("NextStep", "SameStep", "Disabled")
        },
        "vector_async": lambda: check_vector_matches_single(
            ID, num_envs=4, steps=200, seed=3, autoreset_mode="SameStep", backends=("async",)
        ),
        "generator": lambda: len(set(check_generator(benchmarkzoo.make_generator("corridor/random")).values())),
        "pickle": lambda: check_pickle(benchmarkzoo.make(ID), strict=True),
        "goal_run": lambda: play([1, 3, 1, 1]),
        "pit_run": lambda: play([1, 1]),
        "env_signature": lambda: defaults(CorridorEnv),
        "vector_signature": lambda: defaults(CorridorVectorEnv),
        "typo": lambda: message(lambda: gym.make(ID, step_rewrd=0.0)),
        "nan": lambda: message(lambda: gym.make(ID, pit_reward=float("nan"))),
        "rollouts": lambda: [rollouts(50, 40), rollouts(4, 40)],
        "doctest": lambda: list(doctest.testmod(sys.modules["corridor.env"])),
        "docstring": lambda: inspect.getdoc(CorridorEnv),
        "listed": lambda: [s.to_dict() for s in benchmarkzoo.list_envs(family="corridors")],
        "page_checks": lambda: exec(open("checking.py").read(), {}),
    }
    results = {}
    for name, probe in PROBES.items():
        try:
            results[name] = {"value": probe()}
        except Exception as error:
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(results))
    """
)


def page() -> str:
    return CONTRIBUTING.read_text()


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space (the page wraps its quotes)."""
    return " ".join(text.split())


def blocks() -> dict[str, str]:
    found = BLOCK.findall(page())
    files = dict(found)
    assert len(files) == len(found), "a file is given twice"
    return {name: text for name, text in files.items()}


@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> dict:
    site = tmp_path_factory.mktemp("site")
    for name, text in blocks().items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    (checking,) = RUN.findall(page())
    (site / "checking.py").write_text(checking)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(WORKTREE)])}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER], capture_output=True, text=True, env=env, cwd=site, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def value(probes: dict, name: str):
    assert "error" not in probes[name], f"{name}: {probes[name]['error']}"
    return probes[name]["value"]


# ---- the page's shape -------------------------------------------------------------------------


def test_the_env_is_five_small_files_and_one_registration():
    files = blocks()
    assert sorted(files) == sorted((*ENV_FILES, REGISTRATION))
    sizes = {name: files[name].count("\n") for name in ENV_FILES}
    assert max(sizes.values()) <= 130 and sum(sizes.values()) <= 330, sizes
    code = "".join(files.values())
    assert code.count("benchmarkzoo.register(") == 1
    assert code.count("benchmarkzoo.register_generator(") == 1


def test_the_page_states_the_unwritten_rules():
    text = flat(page())
    for rule in (
        "@dataclasses.dataclass(frozen=True, eq=False)",
        "Seeds 0..19 must give 20 distinct scenarios.",
        "test_every_env_declares_outcome_bounds",
        "benchmarkzoo scenarios record",
        "## Version History",
        "bump `-vN`",
        "`ruff format --check .`",
        "complexity 20",
        "never by timed tests",
        "## Workflow",
    ):
        assert rule in text, rule


def test_the_pages_links_are_in_readme_and_architecture():
    for name in ("README.md", "ARCHITECTURE.md"):
        assert "CONTRIBUTING.md" in (WORKTREE / name).read_text(), name


# ---- the walkthrough's env, run ---------------------------------------------------------------


def test_the_conformance_kit_passes(probes):
    assert value(probes, "check_env") is None
    assert value(probes, "pickle") is None
    for mode, summary in value(probes, "vector").items():
        assert summary["episodes_ended"] > 0, mode
    assert value(probes, "vector_async")["episodes_ended"] > 0


def test_the_page_s_checking_block_runs(probes):
    assert value(probes, "page_checks") is None


def test_seeds_0_to_19_give_20_distinct_scenarios(probes):
    assert value(probes, "generator") == 20


def test_the_fixed_actions_give_the_rewards_the_page_quotes(probes):
    goal_run = value(probes, "goal_run")
    assert goal_run == [[-0.01, False, False, False]] * 3 + [[1.0, True, False, True]]
    assert round(sum(step[0] for step in goal_run), 12) == 0.97
    assert value(probes, "pit_run") == [[-0.01, False, False, False], [-1.0, True, False, False]]
    text = flat(page())
    assert "right, jump right, right, right give rewards -0.01, -0.01, -0.01, 1.0" in text
    assert "(return 0.97)" in text and "-0.01 then -1.0, terminated, `is_success == False`" in text


def test_the_signatures_are_the_declared_arguments(probes):
    declared = {
        "generator": "'corridor/random'",
        "generator_kwargs": "None",
        "step_reward": "-0.01",
        "goal_reward": "1.0",
        "pit_reward": "-1.0",
    }
    assert value(probes, "env_signature") == {**declared, "render_mode": "None"}
    vector = value(probes, "vector_signature")
    assert list(vector) == ["num_envs", *declared, "max_episode_steps", "autoreset_mode", "render_mode"]
    assert vector["num_envs"] == "1" and vector["max_episode_steps"] == "50"
    quoted = "(" + ", ".join(f"{name}={default}" for name, default in value(probes, "env_signature").items()) + ")"
    assert quoted in flat(page())


def test_bad_arguments_are_refused_as_the_page_quotes(probes):
    typo = value(probes, "typo")
    assert typo.startswith("TypeError: CorridorEnv() got an unexpected keyword argument 'step_rewrd'.")
    assert "Did you mean 'step_reward'?" in typo
    own = typo.split(" was raised from the environment creator")[0]  # Gymnasium's suffix
    assert own in flat(page())
    nan = value(probes, "nan")
    assert nan == "ValueError: mylab/Corridor-v0: pit_reward must be a finite number; got nan."
    assert nan in flat(page())


def test_random_rollouts_lie_inside_the_bounds_and_a_forgery_does_not(probes):
    for run in value(probes, "rollouts"):
        assert run["problems"] == []
        assert "0.5" in run["forged"] and "success=True" in run["forged"]
    full, short = value(probes, "rollouts")
    assert full["endings"]["goal"] > 0 and full["endings"]["pit"] > 0  # both terminations are exercised
    assert short["endings"]["limit"] > 0  # and truncation at the step limit


def test_the_docstring_is_a_gymnasium_page_whose_example_runs(probes):
    failed, attempted = value(probes, "doctest")
    assert failed == 0 and attempted >= 5
    doc = value(probes, "docstring")
    sections = [
        "Description",
        "Action Space",
        "Observation Space",
        "Rewards",
        "Episode End",
        "Arguments",
        "Version History",
        "Example",
    ]
    found = re.findall(r"^## (.+)$", doc, re.MULTILINE)
    assert found == sections


def test_the_registry_lists_the_env(probes):
    (listed,) = value(probes, "listed")
    assert listed["id"] == ENV_ID and listed["kind"] == "single" and listed["native_vector"]
    assert listed["max_episode_steps"] == 50 and listed["kwargs"] == {"generator": "corridor/random"}
