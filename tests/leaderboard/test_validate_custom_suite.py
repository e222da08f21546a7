"""``leaderboard validate --suite PATH``: results of a custom suite, checked against its own YAML file."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.suites import SuiteError
from benchmarkzoo.leaderboard.validate import SubmissionError, load_custom_suite, validate_file

SUITE = {
    "name": "my-maze-v0",
    "description": "A custom suite: Maze's test split, 12 episodes.",
    "tasks": [{"id": "maze-test", "env": "benchmarkzoo/Maze-v0", "scenario_set": "gridworld/maze", "split": "test",
               "episodes": 12, "references": {"random": -1.4, "baseline": 0.9, "seed": 1, "episodes": 12}}],
}  # fmt: skip


def _write(path, data) -> str:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


@pytest.fixture(scope="module")
def custom(tmp_path_factory):
    """``(suite file, results file)`` of the baseline on the custom suite."""
    folder = tmp_path_factory.mktemp("custom")
    suite = _write(folder / "my-maze-v0.yaml", SUITE)
    results = folder / "baseline.json"
    evaluate(suite, "baseline", num_envs=4, out=results)
    return suite, results


def test_a_custom_suite_validates_its_results(custom):
    suite, results = custom
    accepted = validate_file(results, suite=load_custom_suite(suite))
    assert accepted.suite == "my-maze-v0" and [len(t.episodes) for t in accepted.tasks] == [12]


def test_without_the_suite_file_the_suite_is_unknown_and_the_refusal_says_what_to_do(custom):
    _, results = custom
    with pytest.raises(SubmissionError, match=r"unknown suite: No suite named 'my-maze-v0'.*--suite PATH"):
        validate_file(results)


def test_results_are_checked_against_the_custom_suite(custom, tmp_path):
    suite, results = custom
    other = _write(tmp_path / "other.yaml", {**SUITE, "tasks": [{**SUITE["tasks"][0], "episodes": 13}]})
    with pytest.raises(SubmissionError, match="the protocol plays 13 episodes; the file has 12"):
        validate_file(results, suite=load_custom_suite(other))
    renamed = _write(tmp_path / "renamed.yaml", {**SUITE, "name": "their-maze-v0"})
    with pytest.raises(SubmissionError, match="the file names 'my-maze-v0', the suite file is 'their-maze-v0'"):
        validate_file(results, suite=load_custom_suite(renamed))
    forged = tmp_path / "forged.json"
    data = json.loads(results.read_text())
    data["tasks"][0]["aggregates"]["mean"] += 0.1
    forged.write_text(json.dumps(data))
    with pytest.raises(SubmissionError, match="aggregates do not match"):
        validate_file(forged, suite=load_custom_suite(suite))


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("missing.yaml", None, "no such file"),
        ("suite.json", "{}", "not a .yaml or .yml file"),
        ("broken.yaml", "tasks: [", "is not valid YAML"),
        ("schema.yaml", {**SUITE, "tasks": [{**SUITE["tasks"][0], "episodes": 0}]}, "tasks.0.episodes"),
        ("env.yaml", {**SUITE, "tasks": [{**SUITE["tasks"][0], "env": "benchmarkzoo/Nope-v0"}]}, "task maze-test"),
        ("set.yaml", {**SUITE, "tasks": [{**SUITE["tasks"][0], "scenario_set": "gridworld/nope"}]}, "No scenario set"),
        ("split.yaml", {**SUITE, "tasks": [{**SUITE["tasks"][0], "split": "nope"}]}, "has splits train, test"),
    ],
)
def test_a_bad_suite_file_is_a_clear_error(tmp_path, name, content, match):
    path = tmp_path / name
    if isinstance(content, dict):
        _write(path, content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(SuiteError, match=match) as error:
        load_custom_suite(path)
    assert str(path) in str(error.value)


def test_cli_validate_with_a_custom_suite(custom, tmp_path):
    suite, results = custom
    result = CliRunner().invoke(cli, ["leaderboard", "validate", "--suite", suite, str(results)])
    assert result.exit_code == 0, result.output
    assert f"{results}: valid" in result.output
    refused = CliRunner().invoke(cli, ["leaderboard", "validate", str(results)])
    assert refused.exit_code == 2 and "--suite PATH" in refused.output
    bad = CliRunner().invoke(cli, ["leaderboard", "validate", "--suite", str(tmp_path / "nope.yaml"), str(results)])
    assert bad.exit_code == 2 and "Invalid value for '--suite'" in bad.output and "no such file" in bad.output
    assert "Traceback" not in bad.output
