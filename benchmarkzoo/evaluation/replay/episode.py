"""One recorded episode of a results file: found, replayed with a policy, and compared with the record.

An episode is determined by its seed, its scenario and the policy (the determinism contract), and a
results file records the first two (``seed``, ``scenario_seed``, ``scenario_hash``) but no actions.
So the replay plays the recorded plan through the evaluation's own
:func:`~benchmarkzoo.evaluation.runner.run_episodes` on one world, with the policy the file names
where it can be rebuilt without running code from elsewhere (``random``, ``baseline``, or an ONNX
model whose sha256 is the file's ``policy.content_hash``: :func:`~benchmarkzoo.leaderboard.verify.resolve_policy`,
as ``leaderboard verify`` does), or with ``--policy``. The outcome is compared field by field with
:func:`~benchmarkzoo.leaderboard.verify.compare`: equal means this is the recorded episode; a
difference means another policy (or a policy that is not deterministic).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.policies import BUILTINS, Policy, load_policy
from benchmarkzoo.evaluation.replay.capture import Camera, Filming, ReplayError, stride_for
from benchmarkzoo.evaluation.results import Episode, Results, TaskResult
from benchmarkzoo.evaluation.runner import EpisodeOutcome, EpisodePlan, run_episodes
from benchmarkzoo.evaluation.suites import Suite, SuiteError, Task, load_suite, suite_path
from benchmarkzoo.leaderboard.verify import Mismatch, compare, discrete, replay_backend, resolve_policy
from benchmarkzoo.scenario_sets import load_set

#: Frames per second of an env that declares no ``render_fps``.
DEFAULT_FPS = 8


@dataclasses.dataclass(frozen=True)
class Recorded:
    """An episode as its results file records it, with the suite task it was played under."""

    path: Path
    results: Results
    task: Task
    result: TaskResult
    episode: Episode


@dataclasses.dataclass(frozen=True)
class Replayed:
    """What a replay played and filmed.

    Attributes:
        outcome: the replayed episode's outcome.
        mismatch: the first field in which it differs from the recorded one, or ``None``.
        exact: compared bit for bit (discrete actions) rather than within the continuous-action tolerance.
        pictures: frames or scenes, the first before the first action, the last the final state.
        stride: every ``stride``-th step is pictured (1: all ``length + 1`` states).
        fps: frames per second to show them at (the env's ``render_fps``; a stride plays faster).
    """

    outcome: EpisodeOutcome
    mismatch: Mismatch | None
    exact: bool
    pictures: list[Any]
    stride: int
    fps: float


def _describe_indices(indices: list[int]) -> str:
    if not indices:
        return "no episodes"
    if indices == list(range(indices[0], indices[-1] + 1)):
        return f"episodes {indices[0]} to {indices[-1]}"
    shown = ", ".join(str(i) for i in indices[:8])
    return f"episodes {shown}{', ...' if len(indices) > 8 else ''}"


def _suite(results: Results, path: Path, suite_file: Path | None) -> Suite:
    """The suite the file was evaluated on: the shipped one it names, or ``suite_file`` (a custom suite's YAML)."""
    if suite_file is None:
        try:
            return load_suite(suite_path(results.suite))
        except SuiteError as error:
            raise ReplayError(
                f"{path} was evaluated on suite {results.suite!r}, which is not a shipped suite; pass its YAML "
                "with --suite PATH."
            ) from error
    from benchmarkzoo.leaderboard.validate import load_custom_suite

    suite = load_custom_suite(suite_file)
    if suite.name != results.suite:
        raise ReplayError(f"--suite {suite_file} is suite {suite.name!r}; {path} was evaluated on {results.suite!r}.")
    return suite


def load_recorded(path: str | Path, task_id: str, index: int, suite_file: str | Path | None = None) -> Recorded:
    """Episode ``index`` of task ``task_id`` in the results file ``path``.

    Raises:
        ReplayError: not a results file, no such task or episode, or its suite cannot be found.
    """
    from benchmarkzoo.leaderboard.validate import load_submission

    path = Path(path)
    try:
        results = load_submission(path)  # a size-limited, strict read: the file may come from anyone
    except BenchmarkZooError as error:
        raise ReplayError(
            f"{path}: expected a results file written by `benchmarkzoo evaluate --out`; {error}"
        ) from error
    by_id = {t.id: t for t in results.tasks}
    if task_id not in by_id:
        raise ReplayError(f"{path} has no task {task_id!r}; its tasks: {', '.join(by_id)}. Pass one with --task.")
    result = by_id[task_id]
    episodes = {e.index: e for e in result.episodes}
    if index not in episodes:
        raise ReplayError(
            f"task {task_id} of {path} records {_describe_indices(sorted(episodes))}; got --episode {index}."
        )
    suite = _suite(results, path, None if suite_file is None else Path(suite_file))
    task = suite.task(task_id)
    recorded = (result.env_id, result.scenario_set, result.split)
    if (task.env, task.scenario_set, task.split) != recorded:
        raise ReplayError(
            f"task {task_id} of suite {suite.name} plays {task.env} on {task.scenario_set}:{task.split}; {path} "
            f"records {recorded[0]} on {recorded[1]}:{recorded[2]}. Pass the suite file it was evaluated with."
        )
    return Recorded(path, results, task, result, episodes[index])


def replay_policy(results: Results, spec: str | None) -> Policy:
    """``--policy spec`` if given; else the file's own policy where it can be rebuilt without running its code.

    Raises:
        ReplayError: the file's policy is code (or an ONNX model not found here): pass ``--policy``.
    """
    if spec is not None:
        return load_policy(spec)
    info = results.policy
    if info.kind in BUILTINS or info.kind == "onnx":
        model = info.spec.partition(":")[2] if info.kind == "onnx" else None
        try:  # the ONNX model where it was evaluated, else the leaderboard's stored copy; its hash must match
            return resolve_policy(results, model if model and Path(model).exists() else None)
        except BenchmarkZooError as error:
            raise ReplayError(f"cannot rebuild the file's policy {info.name!r}: {error}") from error
    raise ReplayError(
        f"the file's policy {info.name!r} is code (kind {info.kind!r}) and a results file holds no actions: pass "
        f"--policy (e.g. --policy {info.spec}, which runs that code; any other policy replays the same seed and "
        "scenario)."
    )


def replay(recorded: Recorded, policy: Policy, camera: Camera[Any], max_frames: int) -> Replayed:
    """Play ``recorded``'s episode again with ``policy``, filming it with ``camera``.

    Args:
        recorded: the episode (:func:`load_recorded`).
        policy: who acts (:func:`replay_policy`).
        camera: a :class:`~benchmarkzoo.evaluation.replay.capture.FrameCamera` or ``SceneCamera``; the
            env is made with its ``render_mode``.
        max_frames: at most this many pictures (long episodes are pictured every few steps).

    Raises:
        ReplayError: the env cannot render ``rgb_array`` frames.
        TaskFailedError: the policy raised or sent an action the env refused.
    """
    task, episode = recorded.task, recorded.episode
    spec = registration.spec(task.env)
    spec.require_extras()
    metadata = getattr(spec.load_entry_point(), "metadata", {})
    mode = camera.render_mode
    if mode is not None:
        if mode not in metadata.get("render_modes", ()):
            raise ReplayError(
                f"{spec.id} has no {mode} render mode (its modes: {list(metadata.get('render_modes', ()))}), so "
                "its episodes cannot be filmed; `benchmarkzoo leaderboard verify` checks outcomes without pictures."
            )
        # The render mode only adds pictures: the dynamics, and so the outcome, are the same without it.
        task = task.model_copy(update={"env_kwargs": {**task.env_kwargs, "render_mode": mode}})
    stride = stride_for(episode.length, max_frames)
    film = Filming(policy, camera, stride)
    split = load_set(task.scenario_set).split(task.split)
    plan = EpisodePlan(episode.index, episode.seed, episode.scenario_seed)
    [outcome] = run_episodes(
        task, split, [plan], film, replay_backend(spec), num_envs=1, on_episode=lambda _o, _s: film.ended()
    )
    exact = film.action_space is not None and discrete(film.action_space)
    fps = float(metadata.get("render_fps") or DEFAULT_FPS)
    return Replayed(
        outcome=outcome,
        mismatch=compare(task.id, episode, outcome, exact),
        exact=exact,
        pictures=film.pictures,
        stride=stride,
        fps=fps,
    )
