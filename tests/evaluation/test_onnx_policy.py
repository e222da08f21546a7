"""The ``onnx:`` policy kind: the exported reference policies act exactly as their SB3 models do."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="needs the eval extra (onnxruntime)")
pytest.importorskip("stable_baselines3", reason="needs the sb3 extra")
pytest.importorskip("onnxscript", reason="needs the sb3 extra (onnxscript, for torch's ONNX exporter)")

from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.adapters.onnx_export import export_sb3
from benchmarkzoo.adapters.sb3_policy import SB3Policy
from benchmarkzoo.evaluation.onnx_policy import OnnxPolicy, read_model
from benchmarkzoo.evaluation.policies import PolicyError, load_policy
from benchmarkzoo.evaluation.protocol import evaluate

POLICIES = Path(__file__).resolve().parents[2] / "leaderboard" / "policies"
#: Reference policy -> the env it acts in (with the suite's settings for its test split).
REFERENCES = {
    "ppo-maze": "benchmarkzoo/Maze-v0",
    "ppo-mapf": "benchmarkzoo/MAPF-v0",
    "ppo-treasure": "benchmarkzoo/MO-Treasure-v0",
}
#: Continuous actions: onnxruntime and torch may differ in the last bits of a float32 matmul.
BOX_ATOL = 1e-5


def _rollout_observations(env_id: str, policy, steps: int = 40, worlds: int = 8):
    """Observations the policy itself meets (``steps`` batches of ``worlds`` worlds), stepping with its actions."""
    spec = registration.spec(env_id)
    kwargs = {} if spec.kind in ("parallel", "moma") else {"vectorization_mode": "vector_entry_point"}
    env = registration.make_vec(env_id, worlds, autoreset_mode=AutoresetMode.NEXT_STEP, **kwargs)
    policy.setup(env, spec)
    observations, _ = env.reset(seed=list(range(worlds)))
    seen = []
    for _ in range(steps):
        seen.append(observations)
        observations, *_ = env.step(policy.act(observations, env))
    return env, spec, seen


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_committed_onnx_acts_as_the_sb3_model(name):
    """Every action of the committed .onnx equals the SB3 model's deterministic action, on observations it meets."""
    sb3 = SB3Policy(POLICIES / f"{name}.zip")
    onnx = load_policy(f"onnx:{POLICIES / f'{name}.onnx'}")
    assert onnx.kind == "onnx" and onnx.name == name
    env, spec, seen = _rollout_observations(REFERENCES[name], sb3)
    onnx.setup(env, spec)
    distinct = set()
    for observations in seen:
        expected = np.asarray(sb3.act(observations, env))
        got = onnx.act(observations, env)
        assert got.shape == expected.shape and got.dtype == env.single_action_space.dtype
        np.testing.assert_array_equal(got, expected)
        distinct.update(np.unique(expected).tolist())
    assert len(distinct) > 1, "the rollout must exercise more than one action"
    env.close()


def test_export_writes_the_committed_bytes(tmp_path):
    """export_sb3 is deterministic: the committed ppo-treasure.onnx is what the helper writes today."""
    out = export_sb3(POLICIES / "ppo-treasure.zip", tmp_path / "ppo-treasure.onnx")
    assert out.read_bytes() == (POLICIES / "ppo-treasure.onnx").read_bytes()
    model = __import__("onnx").load(out)
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["benchmarkzoo.algorithm"] == "PPO"
    assert (
        meta["benchmarkzoo.source_sha256"]
        == __import__("hashlib").sha256((POLICIES / "ppo-treasure.zip").read_bytes()).hexdigest()
    )


@pytest.mark.parametrize("algorithm", ["PPO", "SAC"])
def test_continuous_actions_within_tolerance(tmp_path, algorithm):
    """Box actions (an untrained PPO's Gaussian mean; SAC's squashed, rescaled action) match SB3 within BOX_ATOL."""
    import stable_baselines3

    import benchmarkzoo

    single = benchmarkzoo.make("benchmarkzoo/Quadrotor-v0")
    model = getattr(stable_baselines3, algorithm)("MlpPolicy", single, seed=0, device="cpu")
    path = export_sb3(model, tmp_path / f"{algorithm}.onnx")
    policy = OnnxPolicy(path)
    env = registration.make_vec("benchmarkzoo/Quadrotor-v0", 8, vectorization_mode="vector_entry_point")
    policy.setup(env, registration.spec("benchmarkzoo/Quadrotor-v0"))
    observations, _ = env.reset(seed=list(range(8)))
    rng = np.random.default_rng(0)
    for _ in range(20):
        expected, _ = model.predict(observations, deterministic=True)
        got = policy.act(observations, env)
        assert got.dtype == env.single_action_space.dtype
        np.testing.assert_allclose(got, expected, atol=BOX_ATOL, rtol=0)
        assert np.all(got <= env.single_action_space.high) and np.all(got >= env.single_action_space.low)
        observations, *_ = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
    env.close()


def test_evaluate_with_onnx_equals_sb3(tmp_path):
    """The protocol's results with onnx: equal those with sb3: episode for episode (a few per task)."""
    onnx = evaluate(
        "quickstart-v0", f"onnx:{POLICIES / 'ppo-maze.onnx'}", episodes=6, num_envs=4, out=tmp_path / "onnx.json"
    )
    sb3 = evaluate("quickstart-v0", f"sb3:{POLICIES / 'ppo-maze.zip'}", episodes=6, num_envs=4)
    for a, b in zip(onnx.tasks, sb3.tasks):
        assert a.status == b.status == "ok"
        assert [e.model_dump() for e in a.episodes] == [e.model_dump() for e in b.episodes]
    written = json.loads((tmp_path / "onnx.json").read_text())
    assert written["policy"]["kind"] == "onnx"
    assert (
        written["policy"]["content_hash"]
        == __import__("hashlib").sha256((POLICIES / "ppo-maze.onnx").read_bytes()).hexdigest()
    )


def test_refusals_name_what_was_expected(tmp_path):
    """Missing, oversize, non-ONNX and externally stored models, and mismatched inputs, are refused with reasons."""
    with pytest.raises(PolicyError, match="does not exist"):
        load_policy(f"onnx:{tmp_path / 'nope.onnx'}")
    with pytest.raises(PolicyError, match="needs a path"):
        load_policy("onnx:")
    with pytest.raises(PolicyError, match="over the 1,000-byte limit"):
        read_model(POLICIES / "ppo-maze.onnx", max_bytes=1000)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00not a model" * 10)
    with pytest.raises(PolicyError, match="not an ONNX model"):
        OnnxPolicy(junk)

    import onnx

    model = onnx.load(POLICIES / "ppo-treasure.onnx")
    external = tmp_path / "external.onnx"
    onnx.save_model(
        model,
        external,
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=0,
    )
    with pytest.raises(PolicyError, match="external files"):
        OnnxPolicy(external)

    # Maze's Dict observations need inputs named after its keys; the treasure model has one input.
    env = registration.make_vec("benchmarkzoo/Maze-v0", 2, vectorization_mode="vector_entry_point")
    with pytest.raises(PolicyError, match="Dict with keys"):
        OnnxPolicy(POLICIES / "ppo-treasure.onnx").setup(env, registration.spec("benchmarkzoo/Maze-v0"))
    env.close()
    # MAPF's 'view' is (3, 11, 11); the maze model's is (2, 5, 5).
    env = registration.make_vec("benchmarkzoo/MAPF-v0", 2)
    with pytest.raises(PolicyError, match="input 'view'"):
        OnnxPolicy(POLICIES / "ppo-maze.onnx").setup(env, registration.spec("benchmarkzoo/MAPF-v0"))
    env.close()


def test_a_dict_entry_that_is_no_array_is_refused_by_name():
    """A Dict observation whose entry has no shape (a nested Dict) is refused naming it, not with a TypeError."""
    from types import SimpleNamespace

    from gymnasium import spaces

    env = registration.make_vec("benchmarkzoo/Maze-v0", 2, vectorization_mode="vector_entry_point")
    observation, action = env.single_observation_space, env.single_action_space
    env.close()
    first = next(iter(observation.spaces))
    nested = spaces.Dict({**observation.spaces, first: spaces.Dict({"inner": observation[first]})})
    fake = SimpleNamespace(single_observation_space=nested, single_action_space=action)
    with pytest.raises(PolicyError, match=f"entries are Box or discrete; benchmarkzoo/Maze-v0's '{first}' is Dict"):
        OnnxPolicy(POLICIES / "ppo-maze.onnx").setup(fake, registration.spec("benchmarkzoo/Maze-v0"))


def _assert_hybrid_actions_equal(got, expected) -> None:
    """Platform-v0's Dict actions: the moves equal, the powers within BOX_ATOL (float32 matmuls)."""
    assert got.keys() == expected.keys() == {"move", "power"}
    assert got["move"].dtype == expected["move"].dtype and got["power"].dtype == np.float32
    np.testing.assert_array_equal(got["move"], expected["move"])
    np.testing.assert_allclose(got["power"], expected["power"], atol=BOX_ATOL, rtol=0)


def _hybrid_rollout(onnx: OnnxPolicy, sb3: SB3Policy, steps: int = 40, worlds: int = 8) -> set[int]:
    """Step Platform-v0 with the sb3: policy's actions; on every batch the onnx: policy acts alike. The moves made."""
    env, spec, seen = _rollout_observations("benchmarkzoo/Platform-v0", sb3, steps, worlds)
    onnx.setup(env, spec)
    moves: set[int] = set()
    powers: set[float] = set()
    for observations in seen:  # steps * worlds = 320 observations
        expected = sb3.act(observations, env)
        _assert_hybrid_actions_equal(onnx.act(observations, env), expected)
        moves.update(expected["move"].tolist())
        powers.update(expected["power"].ravel().tolist())
    env.close()
    assert len(powers) > steps, "the powers must vary with the observation, or equal powers prove little"
    return moves


def test_export_onnx_of_a_hybrid_codec_model(tmp_path):
    """`benchmarkzoo export-onnx` of a PPO trained on Platform-v0 through the hybrid codec: the onnx: policy's
    Dict actions are the sb3: policy's (its moves are all leaps here; the committed model's test below varies them)."""
    import stable_baselines3
    from click.testing import CliRunner

    from benchmarkzoo.adapters.onnx_export import export_onnx_command
    from benchmarkzoo.adapters.sb3 import make_vec_env, tag_model

    model = stable_baselines3.PPO("MlpPolicy", make_vec_env("benchmarkzoo/Platform-v0", 4, seed=0), n_steps=64, seed=0)
    model.learn(512)
    tag_model(model)
    model.save(tmp_path / "platform.zip")
    result = CliRunner().invoke(export_onnx_command, [str(tmp_path / "platform.zip"), str(tmp_path / "platform.onnx")])
    assert result.exit_code == 0, result.output
    meta = {p.key: p.value for p in __import__("onnx").load(tmp_path / "platform.onnx").metadata_props}
    assert meta["benchmarkzoo.action_space"] == "Box(-1.0, 1.0, (4,), float32)"
    _hybrid_rollout(OnnxPolicy(tmp_path / "platform.onnx"), SB3Policy(tmp_path / "platform.zip"))


def test_committed_platform_model_acts_as_its_zip():
    """The bundle's ppo-sa-platform.onnx gives ppo-sa-platform.zip's actions on the observations it meets."""
    bundle = POLICIES / "ppo-single-agent"
    onnx = OnnxPolicy(bundle / "ppo-sa-platform.onnx")
    moves = _hybrid_rollout(onnx, SB3Policy(POLICIES / "ppo-sa-platform.zip"))
    assert len(moves) > 1, "the trained policy runs, hops and leaps"


def test_a_hybrid_output_of_the_wrong_width_is_refused():
    from gymnasium import spaces

    from benchmarkzoo.evaluation.onnx_policy import _decode

    space = spaces.Dict({"move": spaces.Discrete(3), "power": spaces.Box(0.0, 1.0, (1,), np.float32)})
    with pytest.raises(PolicyError, match=r"\(B, 4\) float scores"):
        _decode(space, np.zeros((2, 3), np.float32))
