"""An ONNX model as an evaluation policy (``--policy onnx:path/to/model.onnx``): a policy that is data, not code.

The model runs in onnxruntime on the CPU with one intra-op and one inter-op thread and sequential
execution, so the same file gives the same actions on the same observations, run after run; a
leaderboard maintainer can replay it without running anything the submitter wrote. A model whose
tensors live in external files is refused (they could name any file on the maintainer's disk).

The contract (what :func:`benchmarkzoo.adapters.onnx_export.export_sb3` writes):

- **Inputs.** A ``Box``, ``Discrete``, ``MultiDiscrete`` or ``MultiBinary`` observation space is
  one input (any name) of shape ``(B, *obs_shape)``. A ``Dict`` observation space is one input per
  key, named by the key, each ``(B, *shape)`` as the env returns it (not flattened: flattening, like
  any preprocessing such as one-hot encoding, belongs inside the graph). Each observation is cast
  to the element type the input declares (``float`` for ``Box``, ``int64`` for discrete spaces
  in the exporter's models); a dimension the model fixes must equal the space's.
- **Batch.** ``B`` is dynamic: every world of the vector env at once. For ``parallel`` and ``moma``
  envs the ``(B, N, ...)`` observations are fed as ``(B * N, ...)`` (one network shared by every
  agent, as :mod:`benchmarkzoo.adapters.sb3_multiagent` trains it) and the actions reshaped back
  to ``(B, N, ...)``.
- **Output.** The first output decides the action, by the env's action space:

  ============================  ====================================  ======================================
  action space                  output                                action
  ============================  ====================================  ======================================
  ``Discrete(n, start)``        ``(B, n)`` float logits               ``start + argmax`` (first maximum)
  ``MultiDiscrete(nvec)``       ``(B, sum(nvec))`` float logits       ``start + argmax`` of each segment
  ``MultiBinary(n)``            ``(B, n)`` float logits               ``logit > 0``
  ``Box(low, high, shape)``     ``(B, *shape)`` float actions         clipped to ``[low, high]`` (SB3's
                                                                      ``predict`` clips too)
  hybrid ``Dict`` / ``Tuple``   ``(B, n + d)`` float: the ``Box``     decoded as SB3 trained on it: the
  (one ``Discrete(n)`` and      of ``HybridActionCodec``              argmax score's choice, parameters
  ``Box`` es of ``d`` values)   (benchmarkzoo.wrappers.hybrid)        rescaled to their bounds
  ============================  ====================================  ======================================

  A discrete space's output may also be the actions themselves, ``(B,)`` or ``(B, len(nvec))``
  integers, used as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.policies import Policy, PolicyError, reshape_leading
from benchmarkzoo.registration import EnvSpec
from benchmarkzoo.wrappers.hybrid import HybridActionCodec, is_hybrid

PREFIX = "onnx:"
#: The largest model loaded (and stored beside a leaderboard submission): a policy network is
#: kilobytes to a few megabytes; anything near this is not a policy meant for these envs.
MAX_BYTES = 50 * 1024 * 1024
#: onnxruntime's element type names -> numpy dtypes (the types a policy input may declare).
_DTYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(int16)": np.int16,
    "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8,
    "tensor(bool)": np.bool_,
}


def read_model(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of an ONNX model file, refused when missing, too large or not self-contained.

    Raises:
        PolicyError: with what was expected, what arrived and what to do.
    """
    if not path.is_file():
        raise PolicyError(f"ONNX model file {str(path)!r} does not exist.")
    size = path.stat().st_size
    if size > max_bytes:
        raise PolicyError(
            f"ONNX model {str(path)!r} is {size:,} bytes, over the {max_bytes:,}-byte limit for policies; "
            "export a smaller network (weights in float32, no training-only parts)."
        )
    return check_model(path.read_bytes(), path)


def check_model(data: bytes, path: Path) -> bytes:
    """``data`` if it is a self-contained ONNX model (``path`` names it in messages); see :func:`read_model`."""
    onnx = require("onnx", "eval", "reading ONNX policies")
    try:
        model = onnx.load_model_from_string(data)
    except Exception as error:  # protobuf's DecodeError and friends: the file is not an ONNX model
        raise PolicyError(f"{str(path)!r} is not an ONNX model ({type(error).__name__}: {error}).") from error
    from onnx.external_data_helper import _get_all_tensors, uses_external_data

    external = [t.name for t in _get_all_tensors(model) if uses_external_data(t)]
    if external:
        raise PolicyError(
            f"ONNX model {str(path)!r} keeps tensors {external[:3]} in external files; a policy must be one "
            "self-contained file: export with external_data=False (benchmarkzoo export-onnx does)."
        )
    return data


def _session(data: bytes, path: Path) -> Any:
    """An onnxruntime session on the CPU, single-threaded and sequential, so actions are deterministic."""
    ort = require("onnxruntime", "eval", "ONNX policies")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: warnings about unused initializers are not the user's business
    try:
        return ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own Fail / InvalidGraph types
        raise PolicyError(f"onnxruntime cannot load {str(path)!r}: {type(error).__name__}: {error}") from error


def _decode(action_space: spaces.Space, output: np.ndarray) -> Any:
    """Actions ``(B, ...)`` in ``action_space`` from the model's first output ``(B, ...)`` (the table above).

    A hybrid space's actions are its batch form, ``{key: (B, ...)}`` (a tuple of arrays for a ``Tuple``).
    """
    integer = np.issubdtype(output.dtype, np.integer) or output.dtype == np.bool_
    batch = output.shape[0] if output.ndim else 0
    if is_hybrid(action_space):
        # the one codec SB3 trained through (benchmarkzoo.adapters.sb3), so the decoded actions are the sb3: policy's
        codec = HybridActionCodec(action_space)
        if not integer and output.shape == (batch, *codec.space.shape):
            return codec.decode_batch(output)
        expected = f"(B, {codec.space.shape[0]}) float scores and parameters (HybridActionCodec's Box)"
    elif isinstance(action_space, spaces.Discrete):
        if integer and output.shape == (batch,):
            return output.astype(action_space.dtype)
        if output.shape == (batch, action_space.n):
            return (action_space.start + np.argmax(output, axis=1)).astype(action_space.dtype)
        expected = f"(B, {action_space.n}) logits or (B,) actions"
    elif isinstance(action_space, spaces.MultiDiscrete) and action_space.nvec.ndim == 1:
        nvec = action_space.nvec
        if integer and output.shape == (batch, len(nvec)):
            return output.astype(action_space.dtype)
        if output.shape == (batch, int(nvec.sum())):
            segments = np.split(output, np.cumsum(nvec)[:-1], axis=1)  # len(nvec) x (B, nvec[i])
            picks = np.stack([np.argmax(s, axis=1) for s in segments], axis=1)  # (B, len(nvec))
            return (action_space.start + picks).astype(action_space.dtype)
        expected = f"(B, {int(nvec.sum())}) logits or (B, {len(nvec)}) actions"
    elif isinstance(action_space, spaces.MultiBinary) and len(action_space.shape) == 1:
        if output.shape == (batch, action_space.n):
            return (output > 0 if not integer else output != 0).astype(action_space.dtype)
        expected = f"(B, {action_space.n}) logits"
    elif isinstance(action_space, spaces.Box):
        if output.shape == (batch, *action_space.shape):
            return np.clip(output, action_space.low, action_space.high).astype(action_space.dtype)
        expected = f"(B, {', '.join(map(str, action_space.shape))}) actions"
    else:
        raise PolicyError(
            f"ONNX policies act in Discrete, MultiDiscrete, MultiBinary, Box and hybrid (a Dict or Tuple of one "
            f"Discrete and Boxes) action spaces; the env has {action_space}."
        )
    raise PolicyError(
        f"for actions in {action_space} the model's first output must be {expected} (B = {batch}); it returned "
        f"shape {output.shape}, dtype {output.dtype}."
    )


class OnnxPolicy(Policy):
    """An ONNX model file, run by onnxruntime on the CPU (one thread, sequential): see the module docstring.

    Args:
        path: the ``.onnx`` file (self-contained, at most :data:`MAX_BYTES`).
        data: the file's bytes, already read and checked by the caller (a bundle checks each model's sha256
            and hands over the bytes it hashed, so nothing is read twice).
    """

    kind = "onnx"
    source: Path
    _action_space: spaces.Space  # the env's, set by setup()

    def __init__(self, path: str | Path, data: bytes | None = None):
        self.source = Path(path)
        self.name = self.source.stem
        self._session = _session(
            read_model(self.source) if data is None else check_model(data, self.source), self.source
        )
        self._inputs = self._session.get_inputs()
        self._output = self._session.get_outputs()[0].name
        self._shared = False
        self._keys: list[str] | None = None  # Dict observations: the input of each key, in input order

    @override
    def setup(self, env: Any, spec: EnvSpec) -> None:
        self._shared = spec.kind in ("parallel", "moma")
        self._action_space = env.single_action_space
        space = env.single_observation_space
        names = [i.name for i in self._inputs]
        if isinstance(space, spaces.Dict):
            if sorted(names) != sorted(space.keys()):
                raise PolicyError(
                    f"{spec.id} observations are a Dict with keys {sorted(space.keys())}; ONNX model "
                    f"{self.source.name!r} has inputs {names}. Name one input after each key."
                )
            self._keys = names
            pairs = [(i, space[i.name]) for i in self._inputs]
        elif isinstance(space, spaces.Box | spaces.Discrete | spaces.MultiDiscrete | spaces.MultiBinary):
            if len(names) != 1:
                dims = ", ".join(map(str, space.shape or ()))
                raise PolicyError(
                    f"{spec.id} observations are one {type(space).__name__}; ONNX model {self.source.name!r} has "
                    f"{len(names)} inputs {names}. Give it one input of shape (B, {dims})."
                )
            pairs = [(self._inputs[0], space)]
        else:
            raise PolicyError(f"ONNX policies read Box, discrete and Dict observations; {spec.id} gives {space}.")
        for model_input, sub in pairs:
            if sub.shape is None:  # a Dict entry that is no array (a nested Dict, a Tuple)
                raise PolicyError(
                    f"ONNX policies read Dict observations whose entries are Box or discrete; {spec.id}'s "
                    f"{model_input.name!r} is {sub}."
                )
            shape = sub.shape
            fixed = list(model_input.shape[1:])
            if (
                model_input.type not in _DTYPES
                or len(fixed) != len(shape)
                or any(isinstance(d, int) and d != s for d, s in zip(fixed, shape))
            ):
                raise PolicyError(
                    f"ONNX model {self.source.name!r} input {model_input.name!r} is {model_input.type} of shape "
                    f"{model_input.shape}; {spec.id} gives {sub}, fed as (B, {', '.join(map(str, shape))})."
                )

    def _feed(self, observations: Any, lead: int) -> dict[str, np.ndarray]:
        """``{input name: (B', *shape) array}``; ``lead`` is 2 for ``(B, N, ...)`` multi-agent arrays."""

        def batch(array: Any, model_input: Any) -> np.ndarray:
            array = np.asarray(array)
            return array.reshape(-1, *array.shape[lead:]).astype(_DTYPES[model_input.type], copy=False)

        if self._keys is not None:
            return {i.name: batch(observations[i.name], i) for i in self._inputs}
        return {self._inputs[0].name: batch(observations, self._inputs[0])}

    @override
    def act(self, observations: Any, env: Any) -> Any:
        lead = 2 if self._shared else 1
        (output,) = self._session.run([self._output], self._feed(observations, lead))
        actions = _decode(self._action_space, np.asarray(output))  # (B * N, ...) or (B, ...)
        if self._shared:
            shape = (env.num_envs, env.num_agents)
            if isinstance(actions, tuple):  # a hybrid Tuple space's batch: one array per part
                return tuple(reshape_leading(part, shape, 1) for part in actions)
            return reshape_leading(actions, shape, 1)
        return actions


def load_onnx_policy(target: str) -> Policy:
    """``load_policy``'s hook: ``"onnx:model.onnx"`` -> :class:`OnnxPolicy`; ``"onnx:folder/"`` -> a bundle.

    A folder is an :class:`~benchmarkzoo.evaluation.onnx_bundle.OnnxBundlePolicy` (one model per env id).
    """
    path = target[len(PREFIX) :] if target.startswith(PREFIX) else target
    if not path:
        raise PolicyError("The onnx policy needs a path: --policy onnx:path/to/model.onnx (or onnx:bundle-folder/).")
    if Path(path).is_dir():
        from benchmarkzoo.evaluation.onnx_bundle import OnnxBundlePolicy

        return OnnxBundlePolicy(path)
    return OnnxPolicy(path)


__all__ = ["MAX_BYTES", "PREFIX", "OnnxPolicy", "check_model", "load_onnx_policy", "read_model"]
