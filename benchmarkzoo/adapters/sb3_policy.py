"""A saved Stable-Baselines3 model as an evaluation policy (``--policy sb3:path/to/model.zip``).

The algorithm is read from the zip: first the ``"benchmarkzoo"`` record that
:func:`benchmarkzoo.adapters.sb3.tag_model` stores, then the module of the saved policy class
(``dqn`` -> DQN, ``sac`` -> SAC, ``td3`` -> TD3, actor-critic -> PPO, which also loads A2C
models), and failing both each of SB3's algorithms in turn. The model acts deterministically.

Parameter-sharing models (trained on :class:`~benchmarkzoo.adapters.sb3_multiagent.ParameterSharingVecEnv`)
act for ``parallel`` envs: the ``(B, N, ...)`` observations are flattened to ``B * N`` entries,
and the actions reshaped back to ``(B, N)``.

**Security**: an SB3 zip holds pickled Python objects, and loading one runs code from it. Load
only models you trust; never load one that came with a leaderboard submission.

Observation normalization (``VecNormalize``) is not part of the model zip: a model trained
under ``VecNormalize`` needs its saved statistics, which this policy does not apply.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.policies import Policy, PolicyError, reshape_leading
from benchmarkzoo.registration import EnvSpec
from benchmarkzoo.vector.base import world_slice
from benchmarkzoo.wrappers.hybrid import HybridActionCodec, is_hybrid

PREFIX = "sb3:"
#: The algorithms tried, in order, when the zip does not say which one saved it.
ALGORITHMS = ("PPO", "A2C", "DQN", "SAC", "TD3", "DDPG")
_POLICY_MODULES = {"dqn": "DQN", "sac": "SAC", "td3": "TD3", "common": "PPO", "ppo": "PPO", "a2c": "A2C"}


def read_zip_data(path: Path) -> dict[str, Any]:
    """The JSON ``data`` member of an SB3 zip (nothing is unpickled)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return json.loads(archive.read("data"))
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as error:
        raise PolicyError(
            f"{str(path)!r} is not a Stable-Baselines3 model zip (no readable 'data' member: {error}). "
            "Save the model with model.save(path)."
        ) from error


def guess_algorithm(data: dict[str, Any]) -> str | None:
    """The algorithm's class name, from the benchmarkzoo record or the saved policy class."""
    record = data.get("benchmarkzoo")
    if isinstance(record, dict) and record.get("algorithm") in ALGORITHMS:
        return record["algorithm"]
    module = str((data.get("policy_class") or {}).get("__module__", ""))
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "stable_baselines3":
        return _POLICY_MODULES.get(parts[1])
    return None


class SB3Policy(Policy):
    """A Stable-Baselines3 model zip, acting deterministically on batched observations.

    Args:
        path: the ``.zip`` written by ``model.save``.
        device: torch device for inference.
    """

    kind = "sb3"
    source: Path

    def __init__(self, path: str | Path, device: str = "cpu"):
        self.source = Path(path)
        if not self.source.is_file():
            raise PolicyError(f"SB3 model file {str(self.source)!r} does not exist.")
        self.data = read_zip_data(self.source)
        record = self.data.get("benchmarkzoo")
        self.metadata: dict[str, Any] = dict(record) if isinstance(record, dict) else {}
        self.algorithm = guess_algorithm(self.data)
        self.name = self.source.stem
        self.device = device
        self._model: Any = None
        self._shared = False
        self._codec: HybridActionCodec | None = None

    @property
    def model(self) -> Any:
        """The loaded SB3 model (loaded on first use: this unpickles the zip)."""
        if self._model is None:
            self._model = self._load()
        return self._model

    def _load(self) -> Any:
        sb3 = require("stable_baselines3", "sb3", f"the sb3 policy {str(self.source)!r}")
        order = [self.algorithm] if self.algorithm else []
        order += [name for name in ALGORITHMS if name not in order]
        errors = []
        for name in order:
            try:
                model = getattr(sb3, name).load(self.source, device=self.device)
            except Exception as error:  # a wrong algorithm fails in many ways; try the next one
                errors.append(f"{name}: {type(error).__name__}: {error}")
                continue
            self.algorithm = name
            return model
        raise PolicyError(f"{str(self.source)!r} could not be loaded by any of {order}: {'; '.join(errors)}")

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        model = self.model
        self._shared = spec.kind in ("parallel", "moma")
        # A hybrid (Dict/Tuple) action space trained through make_vec_env's codec: the model acts in its Box.
        self._codec = HybridActionCodec(env.single_action_space) if is_hybrid(env.single_action_space) else None
        action_space = env.single_action_space if self._codec is None else self._codec.space
        for what, theirs, ours in (
            ("observation", model.observation_space, env.single_observation_space),
            ("action", model.action_space, action_space),
        ):
            if what == "observation" and theirs != ours and _same_layout(theirs, ours):
                # Larger out-of-distribution maps widen an observation's bounds, not its layout: the
                # network can still read it, which is exactly what a generalization test measures.
                warnings.warn(
                    f"sb3 model {self.source.name!r} saw observations in {theirs}; {spec.id} here gives {ours} "
                    "(same shapes and dtypes, other bounds).",
                    stacklevel=2,
                )
                continue
            if theirs != ours:
                trained_on = self.metadata.get("env_id", "another env")
                raise PolicyError(
                    f"sb3 model {self.source.name!r} was trained on {trained_on} with {what} space {theirs}; "
                    f"{spec.id} here has {ours}. Evaluate it on the env it was trained on, or train on {spec.id}."
                )

    @override
    def act(self, observations: Any, env: Any) -> Any:
        if not self._shared:
            actions = self._predict_rows(observations, env.num_envs)
            return actions if self._codec is None else self._codec.decode_batch(actions)
        worlds, agents = env.num_envs, env.num_agents
        flat = reshape_leading(observations, (worlds * agents,), 2)
        actions = self._predict_rows(flat, worlds * agents)
        return actions.reshape(worlds, agents, *actions.shape[1:])

    def _predict_rows(self, observations: Any, rows: int) -> np.ndarray:
        """``predict`` one observation at a time, so that actions do not depend on ``num_envs``.

        torch's float32 matmul rounds differently for other batch sizes; a continuous action carries
        that into the episode (about 2e-8 on Platform-v0's returns between 8 worlds and 1).
        """
        return np.stack(
            [np.asarray(self.model.predict(world_slice(observations, i), deterministic=True)[0]) for i in range(rows)]
        )


def _same_layout(a: Any, b: Any) -> bool:
    """Whether two spaces differ at most in the bounds of their ``Box`` parts."""
    if isinstance(a, spaces.Dict) and isinstance(b, spaces.Dict):
        return a.keys() == b.keys() and all(_same_layout(a[k], b[k]) for k in a)
    if isinstance(a, spaces.Box) and isinstance(b, spaces.Box):
        return a.shape == b.shape and a.dtype == b.dtype
    return a == b


def load_sb3_policy(target: str) -> SB3Policy:
    """``load_policy``'s hook: ``"sb3:path/to/model.zip"`` -> :class:`SB3Policy`."""
    path = target[len(PREFIX) :] if target.startswith(PREFIX) else target
    if not path:
        raise PolicyError("The sb3 policy needs a path: --policy sb3:path/to/model.zip.")
    return SB3Policy(path)


__all__ = ["ALGORITHMS", "PREFIX", "SB3Policy", "guess_algorithm", "load_sb3_policy", "read_zip_data"]
