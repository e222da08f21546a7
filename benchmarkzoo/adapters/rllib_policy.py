"""An RLlib checkpoint as an evaluation policy (``--policy rllib:path/to/checkpoint``).

Only the trained RLModule is restored (``RLModule.from_checkpoint``), not the whole Algorithm:
no EnvRunner, Learner or env is built, so loading takes a second and needs no Ray cluster.
The path may be an Algorithm checkpoint (``algo.save_to_path(dir)``; the module is read from
``learner_group/learner/rl_module/<module id>``), a MultiRLModule checkpoint, or one RLModule's
own folder. The module id is the one :func:`benchmarkzoo.adapters.rllib.ppo_config` trains
(``default_policy`` for single-agent envs, ``shared`` for multi-agent ones), or the only one
in the checkpoint.

The module acts deterministically (the mode of its action distribution). Observations are
flattened as RLlib's ``FlattenObservations`` connector does (``Dict`` spaces such as Maze's),
and ``Box`` actions unsquashed from ``[-1, 1]`` to the action space and clipped, as RLlib's
default ``normalize_actions=True`` does. ``parallel`` envs: the ``(B, N, ...)`` observations
of every agent slot go through the shared module as ``B * N`` entries.

**Security**: an RLlib checkpoint holds pickled Python objects, and loading one runs code from
it. Load only checkpoints you trust; never load one that came with a leaderboard submission.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from typing_extensions import override

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.policies import LOADERS, Policy, PolicyError, reshape_leading
from benchmarkzoo.registration import EnvSpec

PREFIX = "rllib:"
#: Module ids tried, in order, when the checkpoint holds several.
MODULE_IDS = ("default_policy", "shared")
_MODULE_FILES = ("class_and_ctor_args.pkl", "module_state.pkl")


def checkpoint_hash(path: Path) -> str:
    """sha256 over the checkpoint folder: every file's relative path and contents, in sorted path order."""
    digest = hashlib.sha256()
    for file in sorted(p for p in Path(path).rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode())
        digest.update(b"\0")
        digest.update(file.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _is_module(folder: Path) -> bool:
    return all((folder / name).is_file() for name in _MODULE_FILES)


def find_module(path: Path, module_id: str | None = None) -> Path:
    """The folder of the RLModule to restore inside an Algorithm, MultiRLModule or RLModule checkpoint."""
    for root in (path / "learner_group" / "learner" / "rl_module", path / "rl_module", path):
        if not root.is_dir():
            continue
        modules = sorted(p.name for p in root.iterdir() if p.is_dir() and _is_module(p))
        if not modules:
            continue
        wanted = [module_id] if module_id else [m for m in MODULE_IDS if m in modules] or modules[:1]
        if len(modules) > 1 and not module_id and not set(MODULE_IDS) & set(modules):
            raise PolicyError(
                f"RLlib checkpoint {str(path)!r} holds several modules {modules}; name one: "
                f"--policy rllib:{path}#<module id>."
            )
        if wanted[0] not in modules:
            raise PolicyError(f"RLlib checkpoint {str(path)!r} has no module {wanted[0]!r}; it holds {modules}.")
        return root / wanted[0]
    if _is_module(path):
        return path
    raise PolicyError(
        f"{str(path)!r} is not an RLlib checkpoint (no RLModule found under learner_group/learner/rl_module). "
        "Save one with algo.save_to_path(dir)."
    )


class RLlibPolicy(Policy):
    """A trained RLlib RLModule (new API stack, torch), acting deterministically on batched observations.

    Args:
        path: the checkpoint folder (see the module doc).
        module_id: which module of a multi-module checkpoint; ``None`` picks as the module doc says.
    """

    kind = "rllib"
    source: Path
    _obs_space: gym.Space  # the env's, set by setup()
    _action_space: gym.Space

    def __init__(self, path: str | Path, module_id: str | None = None):
        self.source = Path(path)
        if not self.source.is_dir():
            raise PolicyError(f"RLlib checkpoint folder {str(self.source)!r} does not exist.")
        self.module_dir = find_module(self.source, module_id)
        self.name = self.source.name
        self._module: Any = None
        self._shared = False

    @override
    def content_hash(self) -> str:
        return checkpoint_hash(self.source)

    @property
    def module(self) -> Any:
        """The restored RLModule (restored on first use: this unpickles the checkpoint)."""
        if self._module is None:
            require("torch", "rllib", f"the rllib policy {str(self.source)!r}")
            rl_module = require("ray.rllib.core.rl_module.rl_module", "rllib", f"the rllib policy {self.source}")
            try:
                self._module = rl_module.RLModule.from_checkpoint(self.module_dir)
            except Exception as error:  # a corrupt or foreign folder fails in many ways
                raise PolicyError(
                    f"RLlib module {str(self.module_dir)!r} could not be restored: {type(error).__name__}: {error}"
                ) from error
            self._module.eval()
        return self._module

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        module = self.module
        self._shared = spec.kind in ("parallel", "moma")
        self._obs_space = env.single_observation_space
        self._action_space = env.single_action_space
        ours = (gym.spaces.flatdim(self._obs_space),)
        theirs = getattr(module.observation_space, "shape", None)
        if theirs != ours or module.action_space != self._action_space:
            raise PolicyError(
                f"rllib module {self.module_dir.name!r} of {self.source.name!r} was trained with observations "
                f"{module.observation_space} and actions {module.action_space}; {spec.id} here has "
                f"{self._obs_space} (flattened to {ours}) and {self._action_space}. Evaluate it on the env it was "
                f"trained on, or train on {spec.id}."
            )

    @override
    def act(self, observations: Any, env: Any) -> Any:
        import torch
        from ray.rllib.utils.numpy import flatten_inputs_to_1d_tensor
        from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space, unsquash_action

        lead = (env.num_envs, env.num_agents) if self._shared else (env.num_envs,)
        batch = int(np.prod(lead))
        entries = reshape_leading(observations, (batch,), len(lead))
        if isinstance(self._obs_space, gym.spaces.Box):
            flat = np.asarray(entries, dtype=np.float32).reshape(batch, -1)
        else:
            flat = np.asarray(  # numpy in, numpy out (the annotation allows a tensor too)
                flatten_inputs_to_1d_tensor(
                    entries, spaces_struct=get_base_struct_from_space(self._obs_space), batch_axis=True
                ),
                dtype=np.float32,
            )
        with torch.no_grad():
            # One row at a time: torch's float32 matmul rounds differently for other batch sizes (about 4e-8
            # on these MLPs), which a continuous action (Platform-v0's power) carries into the episode, so
            # results would depend on num_envs; the distribution inputs of a row alone do not.
            rows = [self.module.forward_inference({"obs": torch.from_numpy(row[None])}) for row in flat]
            inputs = torch.cat([out["action_dist_inputs"] for out in rows])
            dist = self.module.get_inference_action_dist_cls().from_logits(inputs)
            sample = dist.to_deterministic().sample()
        if isinstance(self._action_space, gym.spaces.Dict | gym.spaces.Tuple):
            return self._composite(sample, lead)
        actions = sample.cpu().numpy()
        if isinstance(self._action_space, gym.spaces.Box):
            actions = unsquash_action(actions, self._action_space).astype(self._action_space.dtype)
        else:
            actions = actions.astype(self._action_space.dtype)
        return actions.reshape(*lead, *actions.shape[1:])

    def _composite(self, sample: Any, lead: tuple[int, ...]) -> Any:
        """A ``Dict`` or ``Tuple`` action sample (Platform-v0's), part by part as the env runner unsquashes it."""
        from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space, unsquash_action

        actions = unsquash_action(_numpy_parts(sample), get_base_struct_from_space(self._action_space))
        return _cast_parts(actions, self._action_space, lead)


def _numpy_parts(sample: Any) -> Any:
    """A nested dict/tuple of torch tensors as the same nest of numpy arrays."""
    if isinstance(sample, dict):
        return {key: _numpy_parts(value) for key, value in sample.items()}
    if isinstance(sample, tuple | list):
        return tuple(_numpy_parts(value) for value in sample)
    return sample.cpu().numpy()


def _cast_parts(actions: Any, space: gym.Space, lead: tuple[int, ...]) -> Any:
    """``actions`` (nested as ``space``) with each part in its space's dtype and ``lead`` leading axes."""
    if isinstance(space, gym.spaces.Dict):
        return {key: _cast_parts(actions[key], part, lead) for key, part in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(_cast_parts(a, part, lead) for a, part in zip(actions, space.spaces, strict=True))
    array = np.asarray(actions).astype(space.dtype)
    return array.reshape(*lead, *array.shape[1:])


def load_rllib_policy(target: str) -> RLlibPolicy:
    """``load_policy``'s hook: ``"rllib:path/to/checkpoint"`` (``"...#module_id"`` picks a module)."""
    path = target[len(PREFIX) :] if target.startswith(PREFIX) else target
    path, _, module_id = path.partition("#")
    if not path:
        raise PolicyError("The rllib policy needs a checkpoint folder: --policy rllib:path/to/checkpoint.")
    return RLlibPolicy(path, module_id or None)


LOADERS.setdefault("rllib", load_rllib_policy)

__all__ = ["MODULE_IDS", "PREFIX", "RLlibPolicy", "checkpoint_hash", "find_module", "load_rllib_policy"]
