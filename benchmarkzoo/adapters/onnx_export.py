"""Export a Stable-Baselines3 policy to the ONNX contract of :mod:`benchmarkzoo.evaluation.onnx_policy`.

``export_sb3(model_or_zip, out)`` (or ``benchmarkzoo export-onnx MODEL.zip OUT.onnx``) writes a
self-contained ``.onnx`` file whose graph holds SB3's observation preprocessing (casts, one-hot
encoding of discrete observations, image scaling, ``Dict`` feature extraction) and the actor:

- PPO / A2C (``ActorCriticPolicy``): the action head's output: logits for discrete actions, the
  Gaussian mean for ``Box`` actions (SB3's deterministic action; the policy clips it to the bounds).
  A model trained on a hybrid ``Dict`` action (Platform-v0's) through
  :class:`~benchmarkzoo.wrappers.hybrid.HybridActionCodec` has the codec's ``Box`` as its action
  space, so it exports like any ``Box`` model; the ``onnx:`` policy decodes that ``Box`` with the
  same codec on the env's ``Dict`` space.
- DQN: the Q-values (argmax is the greedy action).
- SAC / TD3 / DDPG: the deterministic squashed action, rescaled from ``[-1, 1]`` to the bounds.

The export uses ``torch.onnx.export(..., dynamo=True)`` (torch's default exporter since 2.9; it
needs onnxscript) with a dynamic batch axis and ``external_data=False``, so the weights are inside
the one file. The SB3 zip is unpickled to do this: export only models you trust. The ``.onnx`` it
writes is data, safe for anyone to evaluate.

An RLlib (new API stack) torch policy exports through :func:`export_module` too; there is no
helper for it yet and these steps are untested (the SB3 path is): restore the module
(``RLlibPolicy(checkpoint).module``, i.e. ``RLModule.from_checkpoint``) and wrap it in a torch
module whose ``forward(*observations)``

1. flattens each input to ``(B, -1)`` float32 and concatenates them in the ``Dict``'s key order,
   which is what RLlib's ``FlattenObservations`` connector feeds the module (``Box`` parts; a
   discrete part is one-hot encoded there);
2. returns ``module.forward_inference({"obs": flat})["action_dist_inputs"]``: the logits for
   discrete actions; for ``Box`` actions its first ``prod(shape)`` columns (the means, before the
   log-stds), rescaled ``low + (mean + 1) / 2 * (high - low)`` as RLlib's ``normalize_actions`` does;

then ``export_module(wrapper, env.single_observation_space, "policy.onnx", metadata)``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import click
import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.policies import PolicyError

#: Batch size of the example inputs: 1 would be specialized away by torch.export, so use more.
_EXAMPLE_BATCH = 4
#: ONNX opset written; onnxruntime 1.17 and later run it.
OPSET = 18


def _input_spaces(observation_space: spaces.Space) -> list[tuple[str, spaces.Space]]:
    """``(input name, space)`` of each model input: one per ``Dict`` key, else one named ``obs``."""
    if isinstance(observation_space, spaces.Dict):
        return list(observation_space.spaces.items())
    if isinstance(observation_space, spaces.Box | spaces.Discrete | spaces.MultiDiscrete | spaces.MultiBinary):
        return [("obs", observation_space)]
    raise PolicyError(f"ONNX export reads Box, discrete and Dict observations; this model has {observation_space}.")


def _example(space: spaces.Space, torch: Any) -> Any:
    """A ``(_EXAMPLE_BATCH, *shape)`` tensor of ``space``'s samples, in the dtype the model input declares."""
    samples = np.stack([space.sample() for _ in range(_EXAMPLE_BATCH)])
    discrete = isinstance(space, spaces.Discrete | spaces.MultiDiscrete)
    return torch.as_tensor(samples.astype(np.int64 if discrete else np.float32))


def export_module(module: Any, observation_space: spaces.Space, out: str | Path, metadata: dict[str, str]) -> Path:
    """Export a torch module ``forward(*observations) -> first output`` to ``out`` (atomically).

    Args:
        module: takes one tensor per input of :func:`_input_spaces` (``(B, *shape)``, float32 for
            ``Box`` and ``MultiBinary``, int64 for ``Discrete`` and ``MultiDiscrete``), in that order.
        observation_space: the env's single-agent observation space.
        out: the ``.onnx`` file written.
        metadata: written into the model's ``metadata_props`` (provenance: source hash, algorithm, env).
    """
    torch = require("torch", "sb3", "ONNX export")
    onnx = require("onnx", "sb3", "ONNX export")
    require("onnxscript", "sb3", "ONNX export (torch's dynamo exporter)")
    inputs = _input_spaces(observation_space)
    for _, space in inputs:
        space.seed(0)  # example inputs only trace shapes, but keep the export reproducible
    examples = tuple(_example(space, torch) for _, space in inputs)
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    module = module.eval()  # forward(*tensors): torch.export sees one varargs argument, hence the nesting below
    with torch.no_grad():
        program = torch.onnx.export(
            module,
            examples,
            output_names=["action"],
            dynamic_shapes=(tuple({0: batch} for _ in inputs),),
            opset_version=OPSET,
            dynamo=True,
            external_data=False,
            verbose=False,
        )
    _name_inputs(program.model, [name for name, _ in inputs])
    model = program.model_proto
    _strip_trace(model)
    for key, value in sorted(metadata.items()):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    out = Path(out)
    atomic_write(out, model.SerializeToString())
    return out


def _strip_trace(model: Any) -> None:
    """Drop the exporter's per-node metadata (stack traces with absolute paths and line numbers, module scopes).

    They make the bytes, and so the content hash a results file cites, depend on where and from which
    revision of this file the export ran; without them the same weights give the same file.
    """
    graph = model.graph
    parts = [*graph.node, *graph.input, *graph.output, *graph.value_info, *graph.initializer, graph, model]
    for part in parts:
        if hasattr(part, "metadata_props"):
            del part.metadata_props[:]


def _name_inputs(model: Any, names: list[str]) -> None:
    """Name the graph's inputs ``names`` (the Dict keys), renaming first any inner value already so named.

    torch's exporter names inner values after the ops that make them (``view``, ``cat``), which may be
    a key of the observation Dict; onnx_ir updates every use of a value when its name changes.
    """
    taken = set(names)
    for node in model.graph:
        for value in node.outputs:
            if value.name in taken:
                value.name = f"{value.name}_inner"
    for value, name in zip(model.graph.inputs, names):
        value.name = name


def _sb3_actor(model: Any, torch: Any) -> Any:
    """A torch module ``forward(*observations) -> (B, ...)`` of the table in the module docstring."""
    sb3 = require("stable_baselines3", "sb3", "ONNX export of SB3 models")
    from stable_baselines3.common.policies import ActorCriticPolicy

    policy = model.policy
    space = model.observation_space
    keys = list(space.spaces) if isinstance(space, spaces.Dict) else None
    action_space = model.action_space

    def observation(tensors: tuple[Any, ...]) -> Any:
        return dict(zip(keys, tensors)) if keys is not None else tensors[0]

    if isinstance(policy, ActorCriticPolicy):
        if policy.squash_output:
            raise PolicyError("ONNX export of squashed gSDE actor-critic policies is not supported.")

        class Actor(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.policy = policy

            def forward(self, *tensors):
                features = self.policy.extract_features(observation(tensors), self.policy.pi_features_extractor)
                return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))

        return Actor()
    if isinstance(model, sb3.DQN):

        class QValues(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.q_net = policy.q_net

            def forward(self, *tensors):
                return self.q_net(observation(tensors))

        return QValues()
    if isinstance(model, sb3.SAC | sb3.TD3 | sb3.DDPG) and isinstance(action_space, spaces.Box):
        sac = isinstance(model, sb3.SAC)
        low = torch.as_tensor(action_space.low, dtype=torch.float32)
        high = torch.as_tensor(action_space.high, dtype=torch.float32)

        class Squashed(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = policy.actor
                self.register_buffer("low", low)
                self.register_buffer("high", high)

            def forward(self, *tensors):
                obs = observation(tensors)
                # SAC: the squashed Gaussian's mode, tanh(mean) (its forward goes through a distribution object)
                squashed = torch.tanh(self.actor.get_action_dist_params(obs)[0]) if sac else self.actor(obs)
                return self.low + 0.5 * (squashed + 1.0) * (self.high - self.low)  # SB3's unscale_action

        return Squashed()
    raise PolicyError(f"ONNX export supports PPO, A2C, DQN, SAC, TD3 and DDPG; this model is {type(model).__name__}.")


def export_sb3(model_or_zip: Any, out: str | Path) -> Path:
    """Export a Stable-Baselines3 model (or the path of its ``.zip``) to ``out``; returns ``out``.

    The written graph computes, for a batch of raw observations, the output that
    :class:`benchmarkzoo.evaluation.onnx_policy.OnnxPolicy` turns into the same actions as the
    model's ``predict(obs, deterministic=True)``.
    """
    torch = require("torch", "sb3", "ONNX export")
    metadata = {"benchmarkzoo.exported_from": "stable-baselines3"}
    if isinstance(model_or_zip, str | Path):
        from benchmarkzoo.adapters.sb3_policy import SB3Policy

        path = Path(model_or_zip)
        wrapped = SB3Policy(path)
        model = wrapped.model
        metadata["benchmarkzoo.source_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        for key, value in sorted(wrapped.metadata.items()):
            metadata[f"benchmarkzoo.{key}"] = str(value)
    else:
        model = model_or_zip
    metadata["benchmarkzoo.algorithm"] = type(model).__name__
    metadata["benchmarkzoo.observation_space"] = str(model.observation_space)
    metadata["benchmarkzoo.action_space"] = str(model.action_space)
    model.policy.to("cpu")
    return export_module(_sb3_actor(model, torch), model.observation_space, out, metadata)


@click.command("export-onnx")
@click.argument("model", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def export_onnx_command(model: Path, out: Path) -> None:
    """Export the SB3 model zip MODEL (PPO, A2C, DQN, SAC, TD3, DDPG) to OUT.onnx, for `--policy onnx:OUT.onnx`.

    MODEL is unpickled (it runs code from the file): export only models you trust.
    """
    written = export_sb3(model, out)
    size = written.stat().st_size
    digest = hashlib.sha256(written.read_bytes()).hexdigest()
    click.echo(f"wrote {written} ({size:,} bytes, sha256 {digest[:12]}); evaluate it with --policy onnx:{written}")


__all__ = ["OPSET", "export_module", "export_onnx_command", "export_sb3"]
