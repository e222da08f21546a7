"""``leaderboard verify`` and ``add --verify``: replays catch forgeries that validation cannot see."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation.results import Results, recompute
from benchmarkzoo.leaderboard.store import add, build
from benchmarkzoo.leaderboard.validate import validate_file
from benchmarkzoo.leaderboard.verify import (
    VerifyError,
    add_verified,
    content_digest,
    read_record,
    record_path,
    select_episodes,
    verify_file,
)

POLICIES = Path(__file__).resolve().parents[2] / "leaderboard" / "policies"


def _plausible_forgery(source: Path, out: Path) -> tuple[Path, int]:
    """A failed maze-test episode claimed solved, with the return, length and metrics of a maze this policy did
    solve (so every plausibility rule holds: a solved maze returns exactly goal + (L - 1) * step): valid, false."""
    results = Results.read(source)
    episodes = list(results.tasks[0].episodes)
    index = next(e.index for e in episodes if not e.success)
    donor = next(e for e in episodes if e.success)
    episodes[index] = episodes[index].model_copy(
        update={
            "episode_return": donor.episode_return,
            "length": donor.length,
            "success": True,
            "metrics": donor.metrics,
        }
    )
    tasks = list(results.tasks)
    tasks[0] = tasks[0].model_copy(update={"episodes": episodes})
    recompute(results.model_copy(update={"tasks": tasks})).write(out)
    validate_file(out)  # the forgery passes every check that recomputes aggregates or bounds outcomes
    return out, index


def test_selection_is_a_function_of_the_content():
    digest = hashlib.sha256(b"a").hexdigest()
    chosen = select_episodes(digest, "maze-test", 50, 4)
    assert chosen == sorted(chosen) and len(set(chosen)) == 4 and all(0 <= i < 50 for i in chosen)
    assert select_episodes(digest, "maze-test", 50, 4) == chosen
    others = {tuple(select_episodes(hashlib.sha256(bytes([b])).hexdigest(), "maze-test", 50, 4)) for b in range(20)}
    assert len(others) > 10  # another file's digest selects other episodes
    assert select_episodes(digest, "maze-ood", 50, 4) != chosen or select_episodes(digest, "x", 50, 4) != chosen
    assert select_episodes(digest, "maze-test", 50, None) == list(range(50))
    assert select_episodes(digest, "maze-test", 3, 10) == [0, 1, 2]


def test_genuine_random_and_baseline_files_verify(quickstart_results):
    for policy in ("random", "baseline"):
        found = verify_file(quickstart_results[policy], episodes=3)
        assert found.verified, found.mismatch
        assert found.replayed_episodes == 6 and found.total_episodes == 100
        assert found.exact == {"maze-test": True, "maze-ood": True}  # Maze's actions are Discrete
        results = Results.read(quickstart_results[policy])
        assert found.episodes["maze-test"] == select_episodes(content_digest(results), "maze-test", 50, 3)


def test_a_plausible_forgery_fails_and_names_the_episode(quickstart_results, tmp_path):
    forged, index = _plausible_forgery(quickstart_results["random"], tmp_path / "random.json")
    found = verify_file(forged, episodes=None)
    assert not found.verified
    mismatch = found.mismatch
    claimed = Results.read(forged).tasks[0].episodes[index].length
    # the first field compared that differs: the claimed solved maze's length
    assert (mismatch.task, mismatch.episode, mismatch.field) == ("maze-test", index, "length")
    assert mismatch.claimed == claimed
    genuine = Results.read(quickstart_results["random"]).tasks[0].episodes[index]
    assert mismatch.replayed == genuine.length  # the replay recovers the true value, bit for bit

    result = CliRunner().invoke(cli, ["leaderboard", "verify", str(forged), "--episodes", "all"])
    assert result.exit_code == 1
    assert f"task maze-test, episode {index}: length claimed {claimed}, replayed {genuine.length!r}" in result.output


def test_a_forged_entry_never_gets_the_badge(quickstart_results, tmp_path):
    """add --verify refuses the forgery and writes nothing; added unverified, it is ranked and shown self-reported."""
    root = tmp_path / "board"
    forged, _ = _plausible_forgery(quickstart_results["random"], tmp_path / "forged.json")
    shutil.copy(quickstart_results["baseline"], tmp_path / "baseline.json")
    runner = CliRunner()
    args = ["--reference", "--verify", "--episodes", "all", "--root", str(root)]
    result = runner.invoke(cli, ["leaderboard", "add", str(forged), *args])
    assert result.exit_code == 1 and "replay does not match" in result.output
    assert not (root / "submissions").exists() and not (root / "verification").exists()

    result = runner.invoke(
        cli,
        [
            "leaderboard",
            "add",
            str(tmp_path / "baseline.json"),
            "--reference",
            "--verify",
            "--episodes",
            "2",
            "--root",
            str(root),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "verified (4 of 100 replayed)" in result.output
    stored_forgery = add(forged, root, reference=True)  # a maintainer may still list it, as self-reported
    assert read_record(root, stored_forgery) is None

    board = json.loads(build(root)[0].read_text())
    entries = board["suites"]["quickstart-v0"]["entries"]
    by_policy = {e["policy"]: e for e in entries}
    assert by_policy["baseline"]["verified"] is True and by_policy["baseline"]["replayed_episodes"] == 4
    assert by_policy["random"]["verified"] is False and by_policy["random"]["replayed_episodes"] == 0
    assert [e["policy"] for e in entries] == ["baseline", "random"]  # verified first

    result = runner.invoke(cli, ["leaderboard", "site", "--root", str(root)])
    assert result.exit_code == 0, result.output
    html = (root / "site" / "quickstart-v0" / "index.html").read_text()
    rows = {e["policy"]: html.split(f'data-policy="{e["policy"]}"', 1)[1].split("</tr>", 1)[0] for e in entries}
    assert "verified (4 of 100 replayed)" in rows["baseline"] and "self-reported" not in rows["baseline"]
    assert "self-reported" in rows["random"] and "verified (" not in rows["random"]


def test_editing_a_verified_submission_drops_the_badge(quickstart_results, tmp_path):
    root = tmp_path / "board"
    dest, found = add_verified(quickstart_results["random"], root, episodes=1, reference=True)
    assert found.verified and read_record(root, dest)["replayed_episodes"] == 2
    record = json.loads(record_path(root, dest).read_text())
    assert record["file_sha256"] == hashlib.sha256(dest.read_bytes()).hexdigest()
    dest.write_text(dest.read_text().replace('"wall_time_s"', '"wall_time_s" ', 1))  # same data, other bytes
    assert read_record(root, dest) is None
    assert json.loads(build(root)[0].read_text())["suites"]["quickstart-v0"]["entries"][0]["verified"] is False


def test_code_policies_need_trust(tmp_path):
    """A file.py: policy is replayed only with --trust-policy-code, and only if its file is the one evaluated."""
    from benchmarkzoo.evaluation.protocol import evaluate

    script = tmp_path / "east.py"
    script.write_text("import numpy as np\n\ndef policy(obs):\n    return np.full(len(obs['view']), 1)\n")
    out = tmp_path / "east.json"
    evaluate("quickstart-v0", f"{script}:policy", num_envs=16, out=out)
    runner = CliRunner()
    result = runner.invoke(cli, ["leaderboard", "verify", str(out)])
    assert result.exit_code == 2 and "arbitrary code" in result.output and "--trust-policy-code" in result.output
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--trust-policy-code", "--episodes", "2"])
    assert result.exit_code == 0, result.output
    assert "verified (4 of 100 replayed" in result.output
    script.write_text(script.read_text() + "# changed\n")
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--trust-policy-code"])
    assert result.exit_code == 2 and "content hash" in result.output


def test_onnx_submission_is_stored_by_hash_and_replayed(tmp_path):
    """An onnx: entry carries its model: add --verify stores it by hash, and verify finds it there."""
    from benchmarkzoo.evaluation.protocol import evaluate

    pytest.importorskip("onnxruntime", reason="needs the eval extra (onnxruntime)")
    model = tmp_path / "ppo-maze.onnx"
    shutil.copy(POLICIES / "ppo-maze.onnx", model)
    out = tmp_path / "ppo-maze.json"
    evaluate("quickstart-v0", f"onnx:{model}", num_envs=16, out=out)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    root = tmp_path / "board"
    runner = CliRunner()
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--root", str(root)])
    assert result.exit_code == 2 and "--policy MODEL.onnx" in result.output  # not stored yet
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--policy", str(POLICIES / "ppo-mapf.onnx")])
    assert result.exit_code == 2 and "has sha256" in result.output  # another model
    result = runner.invoke(
        cli,
        [
            "leaderboard",
            "add",
            str(out),
            "--reference",
            "--verify",
            "--policy",
            str(model),
            "--episodes",
            "2",
            "--root",
            str(root),
        ],
    )
    assert result.exit_code == 0, result.output
    stored = root / "models" / f"{digest}.onnx"
    assert stored.read_bytes() == model.read_bytes() and (stored.stat().st_mode & 0o777) == 0o644
    model.unlink()
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--root", str(root), "--episodes", "3"])
    assert result.exit_code == 0, result.output
    assert "verified (6 of 100 replayed; maze-test exactly, maze-ood exactly)" in result.output


def test_refusals(quickstart_results, tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["leaderboard", "verify", str(quickstart_results["random"]), "--episodes", "0"])
    assert result.exit_code == 2 and "positive number of episodes per task or 'all'" in result.output
    result = runner.invoke(cli, ["leaderboard", "verify", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "no such file" in result.output
    with pytest.raises(VerifyError, match="built in"):
        verify_file(quickstart_results["random"], policy="random")
    renamed = Results.read(quickstart_results["random"])
    renamed = renamed.model_copy(update={"policy": renamed.policy.model_copy(update={"name": "my-random"})})
    renamed.write(tmp_path / "renamed.json")
    with pytest.raises(VerifyError, match="built-in policy is named"):
        verify_file(tmp_path / "renamed.json")
