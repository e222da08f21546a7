"""A bundle of ONNX models as one policy (``--policy onnx:folder/``): one model per env id, or per task.

A suite of several envs (single-agent-v1: Maze, MazeKeys, Quadrotor, Quadrotor-Goal) cannot be played
by one network; a bundle is a folder holding a manifest and the models it names::

    ppo-single-agent/
      manifest.json
      maze.onnx
      quadrotor.onnx

``manifest.json`` (at most :data:`MAX_MANIFEST_BYTES`, strict JSON, checked by :class:`Manifest`)::

    {
      "format": "benchmarkzoo.onnx-bundle/1",
      "name": "ppo-single-agent",
      "models": {"maze.onnx": "<sha256 of maze.onnx>", "quadrotor.onnx": "<sha256>"},
      "envs": {"benchmarkzoo/Maze-v0": "maze.onnx", "benchmarkzoo/Quadrotor-v0": "quadrotor.onnx"},
      "tasks": {"maze-rooms-test": "maze.onnx"}
    }

A task plays the model of its task id in ``tasks`` if there is one (two tasks of one env that need
different models), else the model of its env id in ``envs``; a task with neither is a
:class:`~benchmarkzoo.evaluation.policies.PolicyError` naming the env and the manifest.

The manifest is untrusted input (a leaderboard maintainer replays submitted bundles): model names are
plain file names (no folder part, so every model stays inside the bundle's folder), each read with
``O_NOFOLLOW`` (a symbolic link is refused, so nothing outside the folder is reached), each checked
against the sha256 the manifest records, and the folder may hold no ``.onnx`` file the manifest does
not name. The bundle's content hash (``policy.content_hash`` of a results file) is the manifest's
sha256: it pins every model's bytes through their recorded hashes.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from typing_extensions import override

from benchmarkzoo.evaluation.onnx_policy import MAX_BYTES, OnnxPolicy
from benchmarkzoo.evaluation.policies import Policy, PolicyError
from benchmarkzoo.registration import EnvSpec

#: The manifest's file name inside a bundle folder.
MANIFEST = "manifest.json"
#: The one manifest format this version reads.
FORMAT = "benchmarkzoo.onnx-bundle/1"
#: A manifest names a few models and tasks; anything larger is not a manifest.
MAX_MANIFEST_BYTES = 64 * 1024
#: Most models in one bundle (one per env of the largest suite, with room to spare).
MAX_MODELS = 64
#: A model's file name: a plain name ending in ``.onnx``, no folder part, no leading dot.
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.onnx")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]{0,199}")


class Manifest(BaseModel):
    """The schema of ``manifest.json`` (see the module docstring).

    Attributes:
        format: :data:`FORMAT`.
        name: the policy's name in results files and on the leaderboard.
        models: model file name -> its sha256 (lower-case hex).
        envs: env id -> the model file its tasks play.
        tasks: task id -> the model file that task plays (overrides ``envs``).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    format: str
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    models: dict[str, str] = Field(min_length=1, max_length=MAX_MODELS)
    envs: dict[str, str] = Field(default_factory=dict, max_length=MAX_MODELS)
    tasks: dict[str, str] = Field(default_factory=dict, max_length=4 * MAX_MODELS)

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value != FORMAT:
            raise ValueError(f"format {value[:60]!r} is not {FORMAT!r}, the one this version of benchmarkzoo reads")
        return value

    @field_validator("models")
    @classmethod
    def _model_files(cls, value: dict[str, str]) -> dict[str, str]:
        for name, digest in value.items():
            if not _MODEL_NAME.fullmatch(name):
                raise ValueError(
                    f"model name {name[:60]!r} is not a plain file name ending in .onnx (letters, digits, '.', '_', "
                    "'-'; no folder part)"
                )
            if not _SHA256.fullmatch(digest):
                raise ValueError(
                    f"model {name!r} has hash {digest[:70]!r}; give its sha256 as 64 lower-case hex digits"
                )
        return value

    @field_validator("envs", "tasks")
    @classmethod
    def _keys(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not _KEY.fullmatch(key):
                raise ValueError(f"{key[:60]!r} is not an env or task id")
        return value

    @model_validator(mode="after")
    def _named_models(self) -> Manifest:
        for table in ("envs", "tasks"):
            for key, model in getattr(self, table).items():
                if model not in self.models:
                    raise ValueError(f"{table}[{key!r}] names model {model[:60]!r}, which models does not list")
        if not self.envs and not self.tasks:
            raise ValueError("envs and tasks are both empty: say which env (or task) each model plays")
        unused = sorted(set(self.models) - set(self.envs.values()) - set(self.tasks.values()))
        if unused:
            raise ValueError(f"models {unused} are listed but no env or task plays them")
        return self


def _read(folder: Path, name: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``folder/name``, refusing a symbolic link, a non-file or an oversized file."""
    from benchmarkzoo.leaderboard.validate import SubmissionError, read_bytes

    try:
        return read_bytes(folder / name, max_bytes, follow_links=False)
    except SubmissionError as error:
        raise PolicyError(f"ONNX bundle {str(folder)!r}: {name} {error}") from error


def load_manifest(folder: Path) -> tuple[Manifest, bytes]:
    """The checked manifest of bundle ``folder`` and its bytes.

    Raises:
        PolicyError: no manifest, or one that is not strict JSON or not of the schema (the first problem named).
    """
    from benchmarkzoo.leaderboard.untrusted_json import SubmissionError, parse

    raw = _read(folder, MANIFEST, MAX_MANIFEST_BYTES)
    try:
        data = parse(raw)
    except SubmissionError as error:
        raise PolicyError(f"ONNX bundle {str(folder)!r}: {MANIFEST}: {error}") from error
    try:
        return Manifest.model_validate(data), raw
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise PolicyError(
            f"ONNX bundle {str(folder)!r}: {MANIFEST} at {where}: {first['msg']}. The format is in "
            "benchmarkzoo/evaluation/onnx_bundle.py's docstring."
        ) from error


def read_bundle(folder: str | Path) -> tuple[Manifest, dict[str, bytes]]:
    """The manifest of ``folder`` and the verified bytes of every file in it (manifest included), by name.

    Raises:
        PolicyError: a bad manifest, a missing, linked, oversized or unlisted model, or a model whose sha256
            is not the recorded one.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise PolicyError(f"ONNX bundle {str(folder)!r} is not a folder (a bundle is a folder with a {MANIFEST}).")
    manifest, raw = load_manifest(folder)
    unlisted = sorted(p.name for p in folder.iterdir() if p.name.endswith(".onnx") and p.name not in manifest.models)
    if unlisted:
        raise PolicyError(
            f"ONNX bundle {str(folder)!r} holds {unlisted[:3]}, which {MANIFEST} does not list; list every model "
            "with its sha256, or remove the file."
        )
    files = {MANIFEST: raw}
    for name, expected in manifest.models.items():
        data = _read(folder, name, MAX_BYTES)
        found = hashlib.sha256(data).hexdigest()
        if found != expected:
            raise PolicyError(
                f"ONNX bundle {str(folder)!r}: {name} has sha256 {found[:12]}, {MANIFEST} records {expected[:12]}; "
                "rewrite the manifest (benchmarkzoo.evaluation.onnx_bundle.write_bundle) after changing a model."
            )
        files[name] = data
    return manifest, files


def write_bundle(
    folder: str | Path,
    name: str,
    models: dict[str, bytes],
    envs: dict[str, str],
    tasks: dict[str, str] | None = None,
) -> Path:
    """Write a bundle: ``models`` (file name -> ONNX bytes) and the manifest mapping each env id to one.

    ``tasks`` maps the task ids that play another model than their env's (a manifest's ``tasks``).

    Returns:
        The manifest's path. The manifest is canonical (sorted keys), so equal models give equal bytes.
    """
    from benchmarkzoo.core.atomic import atomic_write

    folder = Path(folder)
    manifest = Manifest(
        format=FORMAT,
        name=name,
        models={k: hashlib.sha256(v).hexdigest() for k, v in models.items()},
        envs=envs,
        tasks=dict(tasks or {}),
    )  # checked before anything is written
    folder.mkdir(parents=True, exist_ok=True)
    for file, data in models.items():
        atomic_write(folder / file, data)
    text = json.dumps(manifest.model_dump(exclude_defaults=True), indent=1, sort_keys=True) + "\n"
    atomic_write(folder / MANIFEST, text.encode())
    return folder / MANIFEST


class OnnxBundlePolicy(Policy):
    """A folder of ONNX models, each task playing its env's (or its own) model: see the module docstring.

    Args:
        folder: the bundle's folder.
    """

    kind = "onnx"
    source: Path

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.manifest, self.files = read_bundle(self.folder)
        self.name = self.manifest.name
        self.source = self.folder / MANIFEST
        self._hash = hashlib.sha256(self.files[MANIFEST]).hexdigest()
        self._loaded: dict[str, OnnxPolicy] = {}
        self._task: str | None = None
        self._active: OnnxPolicy | None = None

    @override
    def content_hash(self) -> str:
        """sha256 of the manifest this policy was loaded from (not re-read: the bytes it verified)."""
        return self._hash

    @override
    def start_task(self, task_id: str) -> None:
        self._task = task_id

    def model_for(self, env_id: str, task_id: str | None = None) -> str:
        """The model file a task plays: ``tasks[task_id]``, else ``envs[env_id]``.

        Raises:
            PolicyError: neither is in the manifest.
        """
        if task_id is not None and task_id in self.manifest.tasks:
            return self.manifest.tasks[task_id]
        if env_id in self.manifest.envs:
            return self.manifest.envs[env_id]
        task = f"task {task_id!r} of " if task_id else ""
        tasks = f", its tasks {sorted(self.manifest.tasks)}" if self.manifest.tasks else ""
        raise PolicyError(
            f"ONNX bundle {str(self.source)!r} has no model for {task}env {env_id}: its envs are "
            f"{sorted(self.manifest.envs)}{tasks}. Add the env's model to the bundle (models and envs of {MANIFEST})."
        )

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        name = self.model_for(spec.id, self._task)
        if name not in self._loaded:
            self._loaded[name] = OnnxPolicy(self.folder / name, data=self.files[name])
        self._active = self._loaded[name]
        self._active.setup(env, spec)

    @override
    def act(self, observations: Any, env: Any) -> Any:
        if self._active is None:
            raise PolicyError("OnnxBundlePolicy.act before setup: the evaluation sets up each task first.")
        return self._active.act(observations, env)


__all__ = [
    "FORMAT",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "Manifest",
    "OnnxBundlePolicy",
    "load_manifest",
    "read_bundle",
    "write_bundle",
]
