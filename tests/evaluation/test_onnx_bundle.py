"""ONNX bundles (``--policy onnx:folder/``): one model per env or task, one hash, hostile manifests refused."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="needs the eval extra (onnxruntime)")
pytest.importorskip("onnx", reason="needs the eval extra (onnx)")

from benchmarkzoo import registration
from benchmarkzoo.evaluation.onnx_bundle import FORMAT, MANIFEST, OnnxBundlePolicy, write_bundle
from benchmarkzoo.evaluation.policies import PolicyError, load_policy
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.suites import load_suite, suite_path

from .onnx_models import constant_model

MAZE, KEYS = "benchmarkzoo/Maze-v0", "benchmarkzoo/MazeKeys-v0"


@pytest.fixture(scope="module")
def models() -> dict[str, bytes]:
    """``right.onnx`` (Maze, always action 1) and ``down.onnx`` (MazeKeys, always action 2)."""
    return {"right.onnx": constant_model(MAZE, 1), "down.onnx": constant_model(KEYS, 2)}


@pytest.fixture
def bundle(tmp_path, models) -> Path:
    """A valid bundle folder: Maze plays right.onnx, MazeKeys down.onnx."""
    folder = tmp_path / "bundle"
    write_bundle(folder, "two-mazes", models, {MAZE: "right.onnx", KEYS: "down.onnx"})
    return folder


def _actions(policy, env_id: str, task: str | None = None) -> np.ndarray:
    env = registration.make_vec(env_id, 3, vectorization_mode="vector_entry_point")
    if task is not None:
        policy.start_task(task)
    policy.setup(env, registration.spec(env_id))
    observations, _ = env.reset(seed=[0, 1, 2])
    actions = policy.act(observations, env)
    env.close()
    return np.asarray(actions)


def test_each_env_plays_its_model_and_one_hash_pins_them(bundle):
    policy = load_policy(f"onnx:{bundle}/")
    assert isinstance(policy, OnnxBundlePolicy) and policy.kind == "onnx" and policy.name == "two-mazes"
    assert policy.content_hash() == hashlib.sha256((bundle / MANIFEST).read_bytes()).hexdigest()
    manifest = json.loads((bundle / MANIFEST).read_text())
    assert manifest["models"]["right.onnx"] == hashlib.sha256((bundle / "right.onnx").read_bytes()).hexdigest()
    np.testing.assert_array_equal(_actions(policy, MAZE), [1, 1, 1])
    np.testing.assert_array_equal(_actions(policy, KEYS), [2, 2, 2])
    np.testing.assert_array_equal(_actions(policy, MAZE), [1, 1, 1])  # back to the first model


def test_a_task_entry_overrides_its_env(tmp_path, models):
    folder = tmp_path / "tasks"
    write_bundle(folder, "per-task", {"right.onnx": models["right.onnx"]}, {MAZE: "right.onnx"})
    left = constant_model(MAZE, 3)
    (folder / "left.onnx").write_bytes(left)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["models"]["left.onnx"] = hashlib.sha256(left).hexdigest()
    manifest["tasks"] = {"maze-ood": "left.onnx"}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    policy = OnnxBundlePolicy(folder)
    np.testing.assert_array_equal(_actions(policy, MAZE, task="maze-ood"), [3, 3, 3])
    np.testing.assert_array_equal(_actions(policy, MAZE, task="maze-test"), [1, 1, 1])


def test_write_bundle_records_the_tasks_that_play_another_model(tmp_path, models):
    folder = tmp_path / "written"
    left = constant_model(MAZE, 3)
    write_bundle(
        folder, "per-task", {"right.onnx": models["right.onnx"], "left.onnx": left}, {MAZE: "right.onnx"},
        tasks={"maze-ood": "left.onnx"},
    )  # fmt: skip
    assert json.loads((folder / MANIFEST).read_text())["tasks"] == {"maze-ood": "left.onnx"}
    policy = OnnxBundlePolicy(folder)
    np.testing.assert_array_equal(_actions(policy, MAZE, task="maze-ood"), [3, 3, 3])
    np.testing.assert_array_equal(_actions(policy, MAZE, task="maze-test"), [1, 1, 1])


def test_an_env_without_a_model_names_the_env_and_the_manifest(tmp_path, bundle):
    """Evaluating single-agent-v1 (Quadrotor tasks too) with a two-maze bundle: the task fails, saying why."""
    suite = load_suite(suite_path("single-agent-v1"))
    suite = suite.model_copy(
        update={"tasks": [t for t in suite.tasks if t.id in ("maze-test", "quadrotor-hover-test")]}
    )
    results = evaluate(suite, f"onnx:{bundle}", episodes=2, num_envs=2)
    status = {t.id: t for t in results.tasks}
    assert status["maze-test"].status == "ok"
    failed = status["quadrotor-hover-test"]
    assert failed.status == "failed"
    assert "no model for task 'quadrotor-hover-test' of env benchmarkzoo/Quadrotor-v0" in failed.error
    assert str(bundle / MANIFEST) in failed.error and "benchmarkzoo/Maze-v0" in failed.error


def test_results_name_the_bundle_and_play_its_models(bundle):
    suite = load_suite(suite_path("single-agent-v1"))
    suite = suite.model_copy(update={"tasks": [t for t in suite.tasks if t.id in ("maze-test", "maze-keys-test")]})
    results = evaluate(suite, f"onnx:{bundle}", episodes=2, num_envs=2)
    assert results.policy.kind == "onnx" and results.policy.name == "two-mazes"
    assert results.policy.content_hash == hashlib.sha256((bundle / MANIFEST).read_bytes()).hexdigest()
    # constant actions never reach a goal at least 4 (6) steps away in these mazes: every episode times out
    limits = {"maze-test": 200, "maze-keys-test": 300}
    for task in results.tasks:
        assert task.status == "ok"
        assert [e.length for e in task.episodes] == [limits[task.id]] * 2
        assert all(not e.success for e in task.episodes)


def _manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST).read_text())


def _rewrite(folder: Path, **changes) -> None:
    manifest = {**_manifest(folder), **changes}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def _escape_by_name(folder: Path) -> None:
    outside = folder.parent / "outside.onnx"
    outside.write_bytes((folder / "right.onnx").read_bytes())
    digest = hashlib.sha256(outside.read_bytes()).hexdigest()
    _rewrite(folder, models={"../outside.onnx": digest, "down.onnx": _manifest(folder)["models"]["down.onnx"]})


def _escape_by_link(folder: Path) -> None:
    outside = folder.parent / "outside.onnx"
    outside.write_bytes((folder / "right.onnx").read_bytes())
    (folder / "right.onnx").unlink()
    os.symlink(outside, folder / "right.onnx")


def _linked_manifest(folder: Path) -> None:
    real = folder.parent / "real-manifest.json"
    real.write_bytes((folder / MANIFEST).read_bytes())
    (folder / MANIFEST).unlink()
    os.symlink(real, folder / MANIFEST)


def _absolute_name(folder: Path) -> None:
    digest = _manifest(folder)["models"]["right.onnx"]
    _rewrite(folder, models={str(folder / "right.onnx"): digest}, envs={MAZE: str(folder / "right.onnx")})


def _swapped_model(folder: Path) -> None:
    (folder / "right.onnx").write_bytes((folder / "down.onnx").read_bytes())


def _unlisted_model(folder: Path) -> None:
    (folder / "extra.onnx").write_bytes((folder / "right.onnx").read_bytes())


def _duplicate_key(folder: Path) -> None:
    text = (folder / MANIFEST).read_text()
    (folder / MANIFEST).write_text(text.replace('"name":', '"name": "other", "name":', 1))


def _model_is_a_fifo(folder: Path) -> None:
    (folder / "right.onnx").unlink()
    os.mkfifo(folder / "right.onnx")


#: (how the bundle is broken, a phrase the refusal must contain)
HOSTILE = {
    "name with a folder part": (_escape_by_name, "is not a plain file name ending in .onnx"),
    "absolute name": (_absolute_name, "is not a plain file name ending in .onnx"),
    "model is a symbolic link out of the folder": (_escape_by_link, "symbolic link"),
    "manifest is a symbolic link": (_linked_manifest, "symbolic link"),
    "model is a FIFO": (_model_is_a_fifo, "not a regular file"),
    "model swapped after hashing": (_swapped_model, "right.onnx has sha256"),
    "unlisted model in the folder": (_unlisted_model, "holds ['extra.onnx'], which manifest.json does not list"),
    "duplicate key": (_duplicate_key, "'name' appears twice"),
    "unknown field": (lambda f: _rewrite(f, run="rm -rf /"), "run: Extra inputs are not permitted"),
    "other format": (lambda f: _rewrite(f, format="benchmarkzoo.onnx-bundle/9"), f"is not {FORMAT!r}"),
    "bad hash": (
        lambda f: _rewrite(f, models={**_manifest(f)["models"], "right.onnx": "abc"}),
        "give its sha256 as 64 lower-case hex digits",
    ),
    "env names an unlisted model": (
        lambda f: _rewrite(f, envs={**_manifest(f)["envs"], MAZE: "ghost.onnx"}),
        "names model 'ghost.onnx', which models does not list",
    ),
    "model no env plays": (lambda f: _rewrite(f, envs={KEYS: "down.onnx"}), "['right.onnx'] are listed but no env"),
    "name is a path": (lambda f: _rewrite(f, name="../../etc"), "name: String should match pattern"),
    "models is a list": (lambda f: _rewrite(f, models=["right.onnx"]), "models: Input should be a valid dictionary"),
    "not JSON": (lambda f: (f / MANIFEST).write_bytes(b"\xff{"), "not valid JSON"),
    "too large": (lambda f: (f / MANIFEST).write_bytes(b" " * 70_000), "over the 65536-byte limit"),
    "no manifest": (lambda f: (f / MANIFEST).unlink(), "no such file"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_bundles_are_refused_with_the_reason(bundle, case):
    breaks, phrase = HOSTILE[case]
    breaks(bundle)
    with pytest.raises(PolicyError) as caught:
        load_policy(f"onnx:{bundle}")
    assert phrase in str(caught.value)
    assert str(bundle) in str(caught.value)


POLICIES = Path(__file__).resolve().parents[2] / "leaderboard" / "policies"
ADD_OPTIONS = ("--episodes", "2", "--submitter", "tester")


def test_add_verify_stores_the_bundle_and_replays_each_task_with_its_model(tmp_path):
    """quickstart-v0 with ppo-maze on maze-test and a constant model on maze-ood: stored by hash, replayed."""
    from click.testing import CliRunner

    from benchmarkzoo.cli import cli

    folder = tmp_path / "mixed"
    maze = (POLICIES / "ppo-maze.onnx").read_bytes()
    write_bundle(folder, "mixed-maze", {"ppo-maze.onnx": maze}, {MAZE: "ppo-maze.onnx"})
    right = constant_model(MAZE, 1)
    (folder / "right.onnx").write_bytes(right)
    _rewrite(
        folder,
        models={**_manifest(folder)["models"], "right.onnx": hashlib.sha256(right).hexdigest()},
        tasks={"maze-ood": "right.onnx"},
    )
    out = tmp_path / "mixed.json"
    results = evaluate("quickstart-v0", f"onnx:{folder}", num_envs=16, out=out)
    ood = next(t for t in results.tasks if t.id == "maze-ood")
    assert {e.length for e in ood.episodes} == {800}  # the constant model never reaches a goal (800-step limit)
    digest = hashlib.sha256((folder / MANIFEST).read_bytes()).hexdigest()
    root = tmp_path / "board"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["leaderboard", "add", str(out), "--verify", "--policy", str(folder), "--root", str(root), *ADD_OPTIONS],
    )
    assert result.exit_code == 0, result.output
    stored = root / "models" / digest
    assert sorted(p.name for p in stored.iterdir()) == [MANIFEST, "ppo-maze.onnx", "right.onnx"]
    assert (stored / "right.onnx").read_bytes() == right
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--root", str(root), "--episodes", "3"])
    assert result.exit_code == 0, result.output
    assert "verified (6 of 100 replayed; maze-test exactly, maze-ood exactly)" in result.output
    # a bundle whose maze-ood model is swapped for ppo-maze no longer replays maze-ood's outcomes
    (stored / "right.onnx").write_bytes(maze)
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--root", str(root)])
    assert result.exit_code == 2 and "right.onnx has sha256" in result.output
    _rewrite(stored, models={**_manifest(stored)["models"], "right.onnx": hashlib.sha256(maze).hexdigest()})
    result = runner.invoke(cli, ["leaderboard", "verify", str(out), "--policy", str(stored)])
    assert result.exit_code == 2 and "the submission was evaluated with" in result.output
