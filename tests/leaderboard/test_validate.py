"""``leaderboard validate`` accepts honest results files and refuses forged or hostile ones, with the reason."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file


def forge(tmp_path, source, edit: Callable[[dict], None], name: str = "forged.json"):
    data = json.loads(source.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("policy", ["random", "baseline"])
def test_honest_results_are_valid(quickstart_results, policy):
    results = validate_file(quickstart_results[policy])
    assert results.suite == "quickstart-v0" and results.policy.name == policy
    assert [len(t.episodes) for t in results.tasks] == [50, 50]


def _set(path: str, value) -> Callable[[dict], None]:
    """An edit setting a dotted path (list indices as integers) to ``value``; a callable value maps the old one."""

    def edit(data):
        *head, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node = data
        for part in head:
            node = node[part]
        node[last] = value(node[last]) if callable(value) else value

    return edit


def _drop_episode(data):
    data["tasks"][0]["episodes"].pop()


REFUSALS = {
    "task-mean": (_set("tasks.0.aggregates.mean", lambda m: m + 0.1), "aggregates do not match"),
    "suite-iqm": (_set("aggregates.iqm", lambda m: m + 0.05), "aggregates do not match"),
    "suite-ci": (_set("aggregates.iqm_ci", lambda ci: [ci[0], ci[1] + 0.01]), "aggregates do not match"),
    # Plausibility refuses a forged raw return before the aggregates are recomputed (the Maze rule fixes it).
    "raw-return": (_set("tasks.1.episodes.3.return", lambda r: r + 1.0), "task maze-ood, episode 3: return"),
    "episode-seed": (_set("tasks.0.episodes.4.seed", lambda s: s + 1), "episode 4: the protocol (seed 0) prescribes"),
    "scenario-seed": (_set("tasks.0.episodes.2.scenario_seed", 0), "episode 2: the protocol"),
    "scenario-hash": (_set("tasks.1.episodes.5.scenario_hash", "ab" * 32), "episode 5: scenario hash abababababab"),
    "missing-episode": (_drop_episode, "the protocol plays 50 episodes; the file has 49"),
    "unknown-env": (_set("tasks.0.env_id", "benchmarkzoo/Nope-v0"), "is registered as 'benchmarkzoo/Nope-v0'"),
    "env-version": (_set("tasks.0.env_id", "benchmarkzoo/Maze-v1"), "registered as 'benchmarkzoo/Maze-v1'"),
    "unknown-suite": (_set("suite", "nosuch-v0"), "unknown suite: No suite named 'nosuch-v0'"),
    "suite-path": (_set("suite", "../../../etc/passwd"), "unknown suite"),
    "references": (_set("tasks.0.references.baseline", 100.0), "normalization references differ"),
    "policy-traversal": (_set("policy.name", "../../etc/passwd"), "policy name '../../etc/passwd' is refused"),
    "policy-slash": (_set("policy.name", "team/agent"), "policy name 'team/agent' is refused"),
    "extra-key": (_set("tasks.0.episodes.0.surprise", 1), "schema violation at tasks.0.episodes.0.surprise"),
    "wrong-type": (_set("protocol_seed", "zero"), "schema violation at protocol_seed"),
    "shopped-seed": (_set("protocol_seed", 7), "evaluated with the protocol seed 0; the file used 7"),
    "failed-task": (
        _set("tasks.1", lambda t: {**t, "status": "failed", "error": "oops", "episodes": [], "aggregates": None}),
        "task maze-ood failed ('oops')",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_with_reason(quickstart_results, tmp_path, case):
    edit, reason = REFUSALS[case]
    path = forge(tmp_path, quickstart_results["random"], edit)
    with pytest.raises(SubmissionError) as error:
        validate_file(path)
    assert reason in str(error.value)


def test_changed_seed_is_refused_even_with_recomputed_aggregates(quickstart_results, tmp_path):
    # A forger who recomputes the aggregates is still caught by the seed check.
    from benchmarkzoo.evaluation.results import Results, recompute

    data = json.loads(quickstart_results["baseline"].read_text())
    data["tasks"][0]["episodes"][0]["seed"] = 12345
    results = recompute(Results.model_validate(data))
    path = tmp_path / "recomputed.json"
    results.write(path)
    with pytest.raises(SubmissionError, match="episode 0: the protocol"):
        validate_file(path)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_refused(quickstart_results, tmp_path, token):
    text = quickstart_results["random"].read_text()
    path = tmp_path / "nonfinite.json"
    path.write_text(text.replace('"wall_time_s": ', f'"wall_time_s": {token}, "x": ', 1))
    with pytest.raises(SubmissionError, match=f"contains {token}: only finite numbers"):
        validate_file(path)


def test_oversize_refused(quickstart_results):
    size = quickstart_results["random"].stat().st_size
    with pytest.raises(SubmissionError, match=f"{size} bytes is over the 1000-byte limit"):
        validate_file(quickstart_results["random"], max_bytes=1000)


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b"[" * 100_000])
def test_non_json_refused(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SubmissionError, match="not valid JSON"):
        validate_file(path)


def test_missing_file_refused(tmp_path):
    with pytest.raises(SubmissionError, match="no such file"):
        validate_file(tmp_path / "nope.json")


def test_cli_validate(quickstart_results, tmp_path):
    forged = forge(tmp_path, quickstart_results["random"], REFUSALS["task-mean"][0])
    result = CliRunner().invoke(cli, ["leaderboard", "validate", str(quickstart_results["random"]), str(forged)])
    assert result.exit_code == 2  # a refusal is bad input, like every benchmarkzoo error
    assert f"{quickstart_results['random']}: valid" in result.output
    assert f"{forged}: refused: task maze-test: the aggregates do not match" in result.output
    assert "Traceback" not in result.output
