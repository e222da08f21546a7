"""Replay verification: play again episodes of a submission that its submitter did not choose.

Determinism makes every episode of a results file re-playable from its seed and scenario. A
submission is *verified* when episodes picked from its own content (per task, the ``K`` indices
whose ``sha256(<file digest>:<task>:<index>)`` are smallest, where the file digest is the sha256
of the file's canonical JSON) replay to the outcomes it claims, with the policy it names:

- ``random`` and ``baseline`` are benchmarkzoo's own code, so anyone can replay them: they are
  verifiable by construction (and a forged ``random`` file fails like any other).
- ``onnx`` policies are data: onnxruntime runs the graph, nothing from the file runs as Python. The
  model is ``--policy MODEL.onnx`` or the one stored under ``<root>/models/<sha256>.onnx`` whose
  hash is the submission's ``policy.content_hash``. A bundle (one model per env,
  :mod:`benchmarkzoo.evaluation.onnx_bundle`) is ``--policy FOLDER/`` or ``<root>/models/<sha256>/``,
  its hash the manifest's; every task replays with its own model.
- Code policies (``module:``, ``file.py:``, ``sb3:``, ``rllib:``) run arbitrary code on the
  maintainer's machine when loaded (imports, unpickling); they are replayed only with
  ``trust_policy_code=True`` (``--trust-policy-code``), from ``--policy`` or the file's own
  ``policy.spec``, and only if the loaded file's hash is the one the submission names.

Replay is the evaluation's own code path: :func:`~benchmarkzoo.evaluation.runner.plan_episodes`
then :func:`~benchmarkzoo.evaluation.runner.run_episodes` on the selected plans. Outcomes are
compared field by field: exactly for tasks whose actions are discrete, and for continuous
actions with :data:`CONTINUOUS_TOLERANCE` on returns and metrics (lengths, success and scenario
hashes always exactly), since onnxruntime or torch on another CPU may round an action's last bit
differently.

The selection cannot be chosen, but it can be re-rolled: any change to a file (its start time)
gives another digest, so a submitter who forged one episode of ``n`` could try files until none
of their forged episodes is selected. Replaying ``K`` of ``n`` catches a forgery of ``f`` episodes
with probability about ``1 - (1 - K/n)^f`` per try; ``--episodes all`` leaves no room at all.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from pathlib import Path
from typing import Any

from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo import registration
from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.core.scenario import canonical_json
from benchmarkzoo.evaluation.policies import BUILTINS, Policy, load_policy
from benchmarkzoo.evaluation.results import Episode, Results
from benchmarkzoo.evaluation.runner import EpisodeOutcome, TaskFailedError, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import load_suite, suite_path
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file
from benchmarkzoo.scenario_sets import load_set

#: Episodes replayed per task unless told otherwise.
DEFAULT_EPISODES = 4
#: ``math.isclose`` tolerances of returns and metrics for tasks with continuous actions.
CONTINUOUS_TOLERANCE = {"rel_tol": 1e-5, "abs_tol": 1e-6}
#: Where verification records live: ``<root>/verification/<suite>/<submission stem>.json`` (not beside
#: the submissions, whose folder holds results files only).
VERIFICATION_DIR = "verification"
#: Where ONNX policies of submissions live, by content hash: ``<root>/models/<sha256>.onnx``.
MODELS_DIR = "models"


class VerifyError(BenchmarkZooError, ValueError):
    """A submission that cannot be replayed here (no policy to replay, code not trusted, another model)."""


class ReplayMismatchError(SubmissionError):
    """``add --verify`` refused a submission whose replay did not match; ``verification`` says where."""

    def __init__(self, message: str, verification: Verification):
        super().__init__(message)
        self.verification = verification


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """The first replayed episode whose outcome differs from the claimed one."""

    task: str
    episode: int
    field: str
    claimed: Any
    replayed: Any

    def __str__(self) -> str:
        return (
            f"task {self.task}, episode {self.episode}: {self.field} claimed {self.claimed!r}, "
            f"replayed {self.replayed!r}"
        )


@dataclasses.dataclass
class Verification:
    """What a replay checked and found.

    Attributes:
        submission_sha256: sha256 of the file's canonical JSON; it seeds the selection.
        episodes: task id -> the episode indices replayed (ascending).
        total_episodes: episodes in the submission.
        mismatch: the first difference, or ``None`` when every replayed episode matched.
        exact: task id -> whether it was compared exactly (discrete actions) or within the tolerance.
    """

    submission_sha256: str
    policy_kind: str
    policy_hash: str | None
    episodes: dict[str, list[int]]
    total_episodes: int
    mismatch: Mismatch | None = None
    exact: dict[str, bool] = dataclasses.field(default_factory=dict)

    @property
    def verified(self) -> bool:
        """Every replayed episode matched."""
        return self.mismatch is None

    @property
    def replayed_episodes(self) -> int:
        """Episodes replayed, over all tasks."""
        return sum(len(v) for v in self.episodes.values())

    def record(self, file_sha256: str) -> dict[str, Any]:
        """The JSON record stored by ``leaderboard add --verify``; ``file_sha256`` names the stored file's bytes."""
        return {
            "verified": self.verified,
            "replayed_episodes": self.replayed_episodes,
            "total_episodes": self.total_episodes,
            "episodes": self.episodes,
            "exact": self.exact,
            "tolerance": CONTINUOUS_TOLERANCE,
            "policy_kind": self.policy_kind,
            "policy_hash": self.policy_hash,
            "submission_sha256": self.submission_sha256,
            "file_sha256": file_sha256,
            "mismatch": None
            if self.mismatch is None
            else {
                **dataclasses.asdict(self.mismatch),
                "claimed": repr(self.mismatch.claimed),
                "replayed": repr(self.mismatch.replayed),
            },
        }


def content_digest(results: Results) -> str:
    """sha256 of the results' canonical JSON (sorted keys, no spaces): the same for every byte layout."""
    return hashlib.sha256(canonical_json(results.model_dump(mode="json", by_alias=True)).encode()).hexdigest()


def select_episodes(digest: str, task_id: str, n: int, k: int | None) -> list[int]:
    """The ``k`` (all if ``None``) of ``n`` episode indices a file of digest ``digest`` replays, ascending.

    Ranks each index by ``sha256(digest:task:index)``: stable across numpy and Python versions.
    """
    if k is None or k >= n:
        return list(range(n))
    rank = sorted(range(n), key=lambda i: hashlib.sha256(f"{digest}:{task_id}:{i}".encode()).digest())
    return sorted(rank[:k])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_path(root: Path, content_hash: str) -> Path:
    """Where the ONNX model of hash ``content_hash`` is stored under ``root``."""
    return root / MODELS_DIR / f"{content_hash}.onnx"


def bundle_path(root: Path, content_hash: str) -> Path:
    """Where the ONNX bundle whose manifest has hash ``content_hash`` is stored under ``root`` (a folder)."""
    return root / MODELS_DIR / content_hash


def _onnx_policy(info: Any, policy: str | Path | None, root: Path) -> Policy:
    """The ONNX model or bundle of hash ``info.content_hash``: ``policy`` if given, else the stored one."""
    from benchmarkzoo.evaluation.onnx_bundle import MANIFEST, OnnxBundlePolicy
    from benchmarkzoo.evaluation.onnx_policy import PREFIX, OnnxPolicy

    if info.content_hash is None:
        raise VerifyError("the file's onnx policy has no content_hash; it cannot be matched to a model.")
    if policy is not None:
        text = str(policy)
        path = Path(text[len(PREFIX) :] if text.startswith(PREFIX) else text)
    elif bundle_path(root, info.content_hash).is_dir():
        path = bundle_path(root, info.content_hash)
    else:
        path = model_path(root, info.content_hash)
        if not path.is_file():
            raise VerifyError(
                f"no stored ONNX model {info.content_hash[:12]} under {root / MODELS_DIR}; pass the submission's "
                "model with --policy MODEL.onnx (or its bundle, --policy FOLDER/)."
            )
    if path.is_dir():
        # the manifest's hash is checked against the bytes the bundle verified its models with, not re-read
        loaded: Policy = OnnxBundlePolicy(path)
        found, what = loaded.content_hash(), f"ONNX bundle {str(path)!r} ({MANIFEST})"
    elif path.is_file():
        found, what = _sha256(path), f"ONNX model {str(path)!r}"
        loaded = OnnxPolicy(path)
    else:
        raise VerifyError(f"ONNX model {str(path)!r} does not exist.")
    if found != info.content_hash:
        raise VerifyError(
            f"{what} has sha256 {str(found)[:12]}; the submission was evaluated with {info.content_hash[:12]}. "
            "Pass the model the results were made with."
        )
    return loaded


def resolve_policy(
    results: Results,
    policy: str | Path | None = None,
    root: str | Path = "leaderboard",
    trust_policy_code: bool = False,
) -> Policy:
    """The policy that replays ``results``; see the module docstring for which is used when.

    Raises:
        VerifyError: no such policy here, its hash is not the submission's, or it is code and not trusted.
    """
    info = results.policy
    root = Path(root)
    if info.kind in BUILTINS:
        if info.spec != info.kind or info.name != info.kind:
            raise VerifyError(
                f"the file says policy kind {info.kind!r} but names it {info.name!r} with spec {info.spec!r}; the "
                f"built-in policy is named and specified {info.kind!r}."
            )
        if policy is not None:
            raise VerifyError(f"{info.kind!r} is built in; --policy is for onnx and code policies only.")
        return load_policy(info.kind)
    if info.kind == "onnx":
        return _onnx_policy(info, policy, root)
    if not trust_policy_code:
        raise VerifyError(
            f"policy kind {info.kind!r} is code: replaying it imports or unpickles files that run arbitrary code on "
            "this machine. Review it, then pass --trust-policy-code (or ask for an ONNX export: "
            "`benchmarkzoo export-onnx`)."
        )
    spec = str(policy) if policy is not None else info.spec
    loaded = load_policy(spec)
    if loaded.kind != info.kind:
        raise VerifyError(f"--policy {spec!r} is of kind {loaded.kind!r}; the submission's is {info.kind!r}.")
    loaded_hash = loaded.content_hash()
    if info.content_hash is not None and loaded_hash != info.content_hash:
        raise VerifyError(
            f"policy {spec!r} has content hash {str(loaded_hash)[:12]}; the submission was evaluated with "
            f"{info.content_hash[:12]}."
        )
    return loaded


class RecordingPolicy(Policy):
    """A policy that also remembers the action space of the task it is set up for (exact or tolerant comparison)."""

    def __init__(self, inner: Policy):
        self.inner, self.name, self.kind, self.source = inner, inner.name, inner.kind, inner.source
        self.action_space: spaces.Space | None = None

    @override
    def start_task(self, task_id: str) -> None:
        self.inner.start_task(task_id)

    @override
    def setup(self, env: Any, spec: registration.EnvSpec) -> None:
        self.action_space = env.single_action_space
        self.inner.setup(env, spec)

    @override
    def start_episodes(self, worlds: Any, seeds: list[int]) -> None:
        self.inner.start_episodes(worlds, seeds)

    @override
    def act(self, observations: Any, env: Any) -> Any:
        return self.inner.act(observations, env)


def replay_backend(spec: registration.EnvSpec) -> str:
    """Where episodes of ``spec`` replay: its native vector env if any (multi-agent kinds have only it), else sync."""
    return "native" if spec.has_native_vector or spec.kind in ("parallel", "moma") else "sync"


def discrete(space: spaces.Space) -> bool:
    """Whether every part of ``space`` is discrete (then replayed outcomes must be bit-identical)."""
    if isinstance(space, spaces.Dict | spaces.Tuple):
        parts = space.spaces.values() if isinstance(space, spaces.Dict) else space.spaces
        return all(discrete(s) for s in parts)
    return isinstance(space, spaces.Discrete | spaces.MultiDiscrete | spaces.MultiBinary)


def _same(claimed: Any, replayed: Any, tolerance: dict[str, float] | None) -> bool:
    if isinstance(claimed, list) and isinstance(replayed, list):
        return len(claimed) == len(replayed) and all(_same(a, b, tolerance) for a, b in zip(claimed, replayed))
    if isinstance(claimed, bool) or isinstance(replayed, bool) or claimed is None or replayed is None:
        return claimed == replayed
    if tolerance is not None and isinstance(claimed, int | float) and isinstance(replayed, int | float):
        return math.isclose(claimed, replayed, **tolerance)
    return claimed == replayed


def compare(task_id: str, claimed: Episode, replayed: EpisodeOutcome, exact: bool) -> Mismatch | None:
    """The first field in which ``replayed`` differs from ``claimed``, or ``None``."""
    tolerance = None if exact else CONTINUOUS_TOLERANCE
    fields = [
        ("scenario_hash", claimed.scenario_hash, replayed.scenario_hash, None),
        ("length", claimed.length, replayed.length, None),
        ("success", claimed.success, replayed.success, None),
        ("return", claimed.episode_return, replayed.episode_return, tolerance),
        ("team_return", claimed.team_return, replayed.team_return, tolerance),
        ("metrics (names)", sorted(claimed.metrics), sorted(replayed.metrics), None),
    ]
    fields += [(f"metrics.{k}", v, replayed.metrics.get(k), tolerance) for k, v in sorted(claimed.metrics.items())]
    for name, a, b, tol in fields:
        if not _same(a, b, tol):
            return Mismatch(task_id, claimed.index, name, a, b)
    return None


def verify_results(
    results: Results, policy: Policy, episodes: int | None = DEFAULT_EPISODES, num_envs: int = 8
) -> Verification:
    """Replay the selected episodes of ``results`` (validated) with ``policy``; stops at the first mismatch.

    Args:
        results: a validated results file.
        policy: the policy that replays it (:func:`resolve_policy`).
        episodes: per task, how many episodes to replay; ``None``: all of them.
        num_envs: worlds per vector env (the outcomes are the same for any).

    Returns:
        What was replayed, and the first mismatch if there was one.
    """
    digest = content_digest(results)
    suite = load_suite(suite_path(results.suite))
    recording = RecordingPolicy(policy)
    found = Verification(
        submission_sha256=digest,
        policy_kind=results.policy.kind,
        policy_hash=results.policy.content_hash,
        episodes={},
        total_episodes=sum(len(t.episodes) for t in results.tasks),
    )
    for task, claimed in zip(suite.tasks, results.tasks):
        split = load_set(task.scenario_set).split(task.split)
        plans = plan_episodes(task, results.protocol_seed, list(split.seeds))
        chosen = select_episodes(digest, task.id, len(plans), episodes)
        backend = replay_backend(registration.spec(task.env))
        try:
            outcomes = run_episodes(task, split, [plans[i] for i in chosen], recording, backend, num_envs)
        except TaskFailedError as error:
            found.episodes[task.id] = []
            found.mismatch = Mismatch(task.id, chosen[0], "status", "ok", f"failed: {error}")
            return found
        found.episodes[task.id] = chosen
        exact = found.exact[task.id] = recording.action_space is not None and discrete(recording.action_space)
        for outcome in outcomes:
            mismatch = compare(task.id, claimed.episodes[outcome.index], outcome, exact)
            if mismatch is not None:
                found.mismatch = mismatch
                return found
    return found


def verify_file(
    path: str | Path,
    policy: str | Path | None = None,
    episodes: int | None = DEFAULT_EPISODES,
    trust_policy_code: bool = False,
    root: str | Path = "leaderboard",
    num_envs: int = 8,
) -> Verification:
    """Validate ``path``, then replay its selected episodes (see the module docstring).

    Raises:
        SubmissionError: the file is refused by validation.
        VerifyError: it cannot be replayed here.
    """
    results = validate_file(path)
    return verify_results(results, resolve_policy(results, policy, root, trust_policy_code), episodes, num_envs)


def record_path(root: Path, submission: Path) -> Path:
    """Where the verification record of the stored submission ``submission`` lives."""
    return root / VERIFICATION_DIR / submission.parent.name / f"{submission.stem}.json"


def read_record(root: Path, submission: Path) -> dict[str, Any] | None:
    """The verification record of ``submission`` if it verifies exactly these bytes; else ``None``.

    A record of other bytes (the submission was edited after ``add --verify``) or an unreadable one counts
    as no verification: the entry is then self-reported.
    """
    path = record_path(root, submission)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("file_sha256") != _sha256(submission):
        return None
    if record.get("verified") is not True or not isinstance(record.get("replayed_episodes"), int):
        return None
    return record


def _store_model(chosen: Policy, root: Path, content_hash: str) -> None:
    """Store the ONNX model (or bundle: the bytes it verified) that replayed a submission, by its hash."""
    from benchmarkzoo.evaluation.onnx_bundle import OnnxBundlePolicy

    if isinstance(chosen, OnnxBundlePolicy):
        folder = bundle_path(root, content_hash)
        if chosen.folder.resolve() != folder.resolve():
            for name, data in chosen.files.items():  # names checked by the manifest's schema: plain file names
                atomic_write(folder / name, data)
        return
    model = chosen.source
    stored_model = model_path(root, content_hash)
    if model is not None and Path(model).resolve() != stored_model.resolve():
        atomic_write(stored_model, Path(model).read_bytes())


def add_verified(
    path: str | Path,
    root: str | Path = "leaderboard",
    policy: str | Path | None = None,
    episodes: int | None = DEFAULT_EPISODES,
    trust_policy_code: bool = False,
    num_envs: int = 8,
    submitter: str | None = None,
    reference: bool = False,
) -> tuple[Path, Verification]:
    """``leaderboard add --verify``: validate, replay, and only if the replay matches store the submission.

    Stored are the submission (through :func:`benchmarkzoo.leaderboard.store.add`, with ``submitter``
    and ``reference``), its ONNX model or bundle (by content hash, when ``policy`` is one) and the
    verification record.

    Raises:
        SubmissionError: refused by validation; :class:`ReplayMismatchError` if its replay did not match
            (nothing is written either way).
        VerifyError: it cannot be replayed here (nothing is written).
    """
    from benchmarkzoo.leaderboard.store import add

    root = Path(root)
    results = validate_file(path)
    chosen = resolve_policy(results, policy, root, trust_policy_code)
    found = verify_results(results, chosen, episodes, num_envs)
    if not found.verified:
        raise ReplayMismatchError(f"{path}: replay does not match: {found.mismatch}.", found)
    dest = add(path, root, submitter, reference)  # identity refusals come before anything is written
    if results.policy.kind == "onnx" and results.policy.content_hash is not None:  # resolve_policy refused none
        _store_model(chosen, root, results.policy.content_hash)
    record = found.record(_sha256(dest))
    atomic_write(record_path(root, dest), (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())
    return dest, found


__all__ = [
    "CONTINUOUS_TOLERANCE",
    "DEFAULT_EPISODES",
    "Mismatch",
    "RecordingPolicy",
    "ReplayMismatchError",
    "Verification",
    "VerifyError",
    "add_verified",
    "compare",
    "content_digest",
    "discrete",
    "read_record",
    "replay_backend",
    "resolve_policy",
    "select_episodes",
    "verify_file",
    "verify_results",
]
