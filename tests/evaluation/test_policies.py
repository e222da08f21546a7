"""A failing policy fails its task, with its own message in the results; the run goes on."""

from __future__ import annotations

import hashlib
import json
import textwrap

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation.policies import PolicyError, load_policy
from benchmarkzoo.evaluation.protocol import evaluate

POLICIES = textwrap.dedent(
    """
    import numpy as np

    from benchmarkzoo.evaluation.policies import Policy


    def first_move(observations):
        return np.zeros(len(observations["view"]), dtype=np.int64)


    def raises(observations):
        raise RuntimeError("my network exploded")


    def seven(observations):
        return np.full(len(observations["view"]), 7, dtype=np.int64)


    def wrong_shape(observations):
        return np.zeros((2, 5), dtype=np.int64)


    class FailsOnLargeMaps(Policy):
        name = "fails-on-large-maps"

        def setup(self, env, spec):
            self.num_envs = env.num_envs

        def act(self, observations, env):
            if any(s.walls.shape[0] > 11 for s in env.scenarios if s is not None):
                raise ValueError("maps larger than 11x11 are not supported")
            return np.zeros(self.num_envs, dtype=np.int64)
    """
)

#: ood first, so the failing task comes before one that must still run.
OOD_FIRST = {
    "name": "ood-first-v0",
    "description": "The ood task, then the test task.",
    "tasks": [
        {
            "id": "maze-ood",
            "env": "benchmarkzoo/Maze-v0",
            "scenario_set": "gridworld/maze",
            "split": "ood",
            "episodes": 3,
            "env_kwargs": {"max_episode_steps": 30},
        },
        {
            "id": "maze-test",
            "env": "benchmarkzoo/Maze-v0",
            "scenario_set": "gridworld/maze",
            "split": "test",
            "episodes": 4,
            "env_kwargs": {"max_episode_steps": 30},
        },
    ],
}


@pytest.fixture
def policy_file(tmp_path):
    path = tmp_path / "my_policies.py"
    path.write_text(POLICIES)
    return path


@pytest.fixture
def ood_first(tmp_path, suite_writer):
    return suite_writer(tmp_path, OOD_FIRST)


def test_file_policy_runs(policy_file, tiny_suite):
    results = evaluate(tiny_suite, f"{policy_file}:first_move", num_envs=3)
    assert [t.status for t in results.tasks] == ["ok", "ok"]
    assert results.policy.name == "first_move" and results.policy.kind == "callable"
    # The results name exactly the file that was evaluated.
    assert results.policy.content_hash == hashlib.sha256(policy_file.read_bytes()).hexdigest()
    # Always moving "up" (action 0) rarely reaches a goal: each episode ends by the time limit or success.
    ood = results.tasks[1]
    assert all(e.length == 150 or e.success for e in ood.episodes)


def test_policy_that_raises_fails_only_its_task(policy_file, ood_first):
    results = evaluate(ood_first, f"{policy_file}:FailsOnLargeMaps", num_envs=2)
    failed, ok = results.tasks
    assert failed.status == "failed" and failed.aggregates is None and failed.episodes == []
    assert "ValueError: maps larger than 11x11 are not supported" in failed.error
    assert "fails-on-large-maps" in failed.error
    assert ok.status == "ok" and len(ok.episodes) == 4 and ok.error is None
    assert all(e.length == 30 or e.success for e in ok.episodes)


@pytest.mark.filterwarnings("ignore::UserWarning")  # AsyncVectorEnv's workers report the refusal as warnings
@pytest.mark.parametrize("backend", ["native", "sync", "async"])
@pytest.mark.parametrize(
    ("callable_", "message"),
    [
        ("raises", "raised RuntimeError: my network exploded"),
        ("seven", "Discrete(4)"),
        ("wrong_shape", "refused"),
    ],
)
def test_bad_policy_fails_every_task_with_its_error(policy_file, tiny_suite, backend, callable_, message):
    results = evaluate(tiny_suite, f"{policy_file}:{callable_}", backend=backend, num_envs=3)
    assert [t.status for t in results.tasks] == ["failed", "failed"]
    for task in results.tasks:
        assert message in task.error
        assert callable_ in task.error  # the policy is named
    assert results.aggregates is None


def test_invalid_action_names_what_was_sent(policy_file, tiny_suite):
    results = evaluate(tiny_suite, f"{policy_file}:seven", num_envs=3)
    assert "7" in results.tasks[0].error
    results = evaluate(tiny_suite, f"{policy_file}:wrong_shape", backend="sync", num_envs=3)
    assert "(2, 5)" in results.tasks[0].error and "3 actions" in results.tasks[0].error


def test_load_policy_errors_are_policy_errors(tmp_path, policy_file):
    with pytest.raises(PolicyError, match="does not exist"):
        load_policy(str(tmp_path / "nope.py:act"))
    with pytest.raises(PolicyError, match="no attribute 'missing'"):
        load_policy(f"{policy_file}:missing")
    with pytest.raises(PolicyError, match="expected 'module:callable'"):
        load_policy("no-such-builtin")
    with pytest.raises(PolicyError, match="Cannot import policy module"):
        load_policy("benchmarkzoo_no_such_module:act")
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('needs torch')\n")
    with pytest.raises(PolicyError, match="failed to load: ImportError: needs torch"):
        load_policy(f"{broken}:act")


def test_cli_failed_task_exits_1_without_traceback(policy_file, ood_first, tmp_path):
    out = tmp_path / "results.json"
    result = CliRunner(env={"COLUMNS": "250"}).invoke(  # wide enough that rich prints the whole error
        cli, ["evaluate", "--suite", str(ood_first), "--policy", f"{policy_file}:FailsOnLargeMaps", "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert "maps larger than" in result.output
    data = json.loads(out.read_text())
    assert [t["status"] for t in data["tasks"]] == ["failed", "ok"]
    assert "maps larger than 11x11 are not supported" in data["tasks"][0]["error"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [("{tmp}/missing.py:act", "does not exist"), ("{file}:missing", "has no attribute 'missing'")],
)
def test_cli_bad_policy_spec_one_line_exit_2(policy_file, tiny_suite, tmp_path, spec, message):
    spec = spec.format(tmp=tmp_path, file=policy_file)
    result = CliRunner().invoke(cli, ["evaluate", "--suite", str(tiny_suite), "--policy", spec])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]
