"""The Stable-Baselines3 adapter: SB3's VecEnv contract over native vector envs, and training that learns."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="needs the sb3 extra: pip install 'benchmarkzoo[sb3]'")

import gymnasium as gym
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.vec_env import VecFrameStack, VecMonitor, VecNormalize

import benchmarkzoo  # noqa: F401
from benchmarkzoo import registration
from benchmarkzoo.adapters.sb3 import make_single_env, make_vec_env, tag_model
from benchmarkzoo.adapters.sb3_policy import SB3Policy, guess_algorithm, load_sb3_policy, read_zip_data
from benchmarkzoo.core.errors import UnknownEnvError
from benchmarkzoo.evaluation.policies import PolicyError

MAZE = "benchmarkzoo/Maze-v0"
MAPF = "benchmarkzoo/MAPF-v0"
PLATFORM = "benchmarkzoo/Platform-v0"
SMALL_MAZE = {"generator_kwargs": {"height": 7, "width": 7, "min_goal_distance": 4}, "max_episode_steps": 12}
SMALL_MAPF = {"generator_kwargs": {"height": 8, "width": 8, "num_agents": 4, "density": 0.1}, "max_cycles": 32}


def _equal(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _world(obs, i):
    return {k: v[i] for k, v in obs.items()} if isinstance(obs, dict) else obs[i]


def _weights(spec) -> np.ndarray | None:
    if spec.kind != "mo":
        return None
    k = registration.make(spec.id).unwrapped.reward_space.shape[0]
    return np.full(k, 1.0 / k)


# ---- the single-agent VecEnv contract ----------------------------------------------------------------


def test_same_step_reset_matches_the_single_env():
    """World i equals the single env seeded 0 + i: terminal_observation is its last obs, then its reset obs."""
    kwargs = {"generator_kwargs": {"height": 7, "width": 7, "min_goal_distance": 2}, "max_episode_steps": 25}
    env = make_vec_env(MAZE, 3, seed=0, env_kwargs=kwargs)
    single = registration.make(MAZE, **kwargs)
    obs = env.reset()
    single_obs, _ = single.reset(seed=1)
    assert _equal(_world(obs, 1), single_obs)
    rng = np.random.default_rng(0)
    ends = {"terminated": 0, "truncated": 0}
    ret, length = 0.0, 0
    for _ in range(500):
        actions = rng.integers(0, 4, size=3)
        obs, rewards, dones, infos = env.step(actions)
        single_obs, reward, terminated, truncated, info = single.step(int(actions[1]))
        ret, length = ret + reward, length + 1
        assert np.float32(reward) == rewards[1]
        assert dones[1] == (terminated or truncated)
        # SB3's flag: set on a truncation only, never on a termination (nor on an ordinary step)
        assert infos[1]["TimeLimit.truncated"] == (truncated and not terminated)
        assert infos[1]["is_success"] == info["is_success"]
        if dones[1]:
            ends["terminated" if terminated else "truncated"] += 1
            assert _equal(infos[1]["terminal_observation"], single_obs)
            assert infos[1]["episode"]["l"] == length == (kwargs["max_episode_steps"] if truncated else length)
            assert infos[1]["episode"]["r"] == pytest.approx(ret, abs=1e-5)
            single_obs, _ = single.reset()
            ret, length = 0.0, 0
        else:
            assert "terminal_observation" not in infos[1] and "episode" not in infos[1]
        assert _equal(_world(obs, 1), single_obs)
    assert ends["terminated"] > 0 and ends["truncated"] > 0


@pytest.mark.parametrize("backend", ["dummy", "subproc"])
def test_native_equals_sb3_vec_envs(backend):
    """Same seed and actions: the native adapter gives exactly what DummyVecEnv / SubprocVecEnv give."""
    native = make_vec_env(MAZE, 4, seed=7, env_kwargs=SMALL_MAZE)
    other = make_vec_env(MAZE, 4, seed=7, backend=backend, env_kwargs=SMALL_MAZE)
    try:
        assert _equal(native.reset(), other.reset())
        rng = np.random.default_rng(1)
        for _ in range(60):
            actions = rng.integers(0, 4, size=4)
            a, b = native.step(actions), other.step(actions)
            assert _equal(a[0], b[0]) and np.array_equal(a[2], b[2])
            assert np.array_equal(a[1], np.asarray(b[1], dtype=np.float32))  # SubprocVecEnv stacks float64
            for info_a, info_b in zip(a[3], b[3]):
                assert info_a["TimeLimit.truncated"] == info_b["TimeLimit.truncated"]
                assert ("terminal_observation" in info_a) == ("terminal_observation" in info_b)
                if "terminal_observation" in info_a:
                    assert _equal(info_a["terminal_observation"], info_b["terminal_observation"])
                    assert info_a["episode"]["r"] == pytest.approx(info_b["episode"]["r"])
                    assert info_a["episode"]["l"] == info_b["episode"]["l"]
    finally:
        native.close()
        other.close()


def test_seeds_reproduce_rollouts():
    def rollout(env, steps=50):
        out = [env.reset()]
        rng = np.random.default_rng(3)
        for _ in range(steps):
            obs, rewards, dones, _ = env.step(rng.integers(0, 4, size=env.num_envs))
            out += [obs, rewards, dones]
        return out

    a, b = make_vec_env(MAZE, 4, seed=11, env_kwargs=SMALL_MAZE), make_vec_env(MAZE, 4, seed=11, env_kwargs=SMALL_MAZE)
    first = rollout(a)
    assert all(_equal(x, y) for x, y in zip(first, rollout(b)))
    # seed() acts at the next reset, world i with seed + i, as in SB3
    assert list(a.seed(11)) == [11, 12, 13, 14]
    assert all(_equal(x, y) for x, y in zip(first, rollout(a)))
    a.seed(12)
    shifted = a.reset()
    assert _equal(_world(shifted, 0), _world(first[0], 1))  # world 0 seeded 12 = world 1 seeded 11
    assert not _equal(shifted, first[0])


def test_per_world_reset_options():
    """SB3's set_options with one dict per world: world 1 plays the given scenario, the others their seeds."""
    env = make_vec_env(MAZE, 3, seed=4, env_kwargs=SMALL_MAZE)
    reference = make_vec_env(MAZE, 3, seed=4, env_kwargs=SMALL_MAZE)
    scenario = registration.make_generator("maze/dfs", SMALL_MAZE["generator_kwargs"]).sample(99)
    env.set_options([{}, {"scenario": scenario}, {}])
    obs, expected = env.reset(), reference.reset()
    hashes = [s.content_hash for s in env.get_attr("scenario")]
    assert hashes[1] == scenario.content_hash
    assert hashes[0::2] == [s.content_hash for s in reference.get_attr("scenario")][0::2]
    assert _equal(_world(obs, 0), _world(expected, 0)) and _equal(_world(obs, 2), _world(expected, 2))
    assert env.reset_infos[1] == {"is_success": False}


def test_get_attr_env_method_set_attr_are_per_world():
    env = make_vec_env(MAZE, 3, seed=5, env_kwargs={**SMALL_MAZE, "render_mode": "rgb_array"})
    env.reset()
    singles = [registration.make(MAZE, **SMALL_MAZE) for _ in range(3)]
    for i, single in enumerate(singles):
        single.reset(seed=5 + i)
    scenarios = env.get_attr("scenario")
    assert [s.content_hash for s in scenarios] == [s.unwrapped.scenario.content_hash for s in singles]
    assert env.get_attr("scenario", indices=2)[0].content_hash == singles[2].unwrapped.scenario.content_hash
    assert env.get_attr("observation_space") == [singles[0].observation_space] * 3
    rngs = env.env_method("world_rng", indices=[0, 2])
    assert rngs[0] is env.unwrapped.native.world_rng(0) and rngs[1] is env.unwrapped.native.world_rng(2)
    assert env.env_method("get_wrapper_attr", "scenario", indices=[1])[0] is scenarios[1]
    frames = env.env_method("render")
    assert len(frames) == 3 and frames[0].ndim == 3 and not np.array_equal(frames[0], frames[1])
    assert env.render().ndim == 3  # SB3 tiles the worlds' frames
    env.set_attr("some_flag", 3)
    assert env.get_attr("some_flag") == [3, 3, 3]
    assert env.has_attr("scenario") and not env.has_attr("no_such_attribute")


def test_vec_normalize_keeps_raw_rewards_and_observations():
    raw = make_vec_env(MAZE, 4, seed=2, env_kwargs=SMALL_MAZE)
    norm = VecNormalize(make_vec_env(MAZE, 4, seed=2, env_kwargs=SMALL_MAZE), gamma=0.9)
    raw_obs, norm_obs = raw.reset(), norm.reset()
    assert _equal(norm.get_original_obs(), raw_obs)
    assert not _equal(norm_obs, raw_obs)
    rng = np.random.default_rng(0)
    saw_done = False
    for _ in range(40):
        actions = rng.integers(0, 4, size=4)
        raw_obs, raw_rewards, raw_dones, raw_infos = raw.step(actions)
        _, _, norm_dones, norm_infos = norm.step(actions)
        assert np.array_equal(norm.get_original_reward(), raw_rewards)
        assert _equal(norm.get_original_obs(), raw_obs)
        assert np.array_equal(norm_dones, raw_dones)
        for i in np.flatnonzero(raw_dones):
            saw_done = True
            expected = norm.normalize_obs(raw_infos[i]["terminal_observation"])
            assert _equal(norm_infos[i]["terminal_observation"], expected)
    assert saw_done


@pytest.mark.parametrize("episode_stats", [True, False])
def test_vec_monitor_sees_the_same_episodes(episode_stats):
    inner = make_vec_env(MAZE, 4, seed=1, env_kwargs=SMALL_MAZE, episode_stats=episode_stats)
    if episode_stats:  # our Monitor-like statistics are there already: SB3 says VecMonitor's replace them
        with pytest.warns(UserWarning, match="already wrapped with a `Monitor`"):
            env = VecMonitor(inner)
    else:
        env = VecMonitor(inner)
    ours = make_vec_env(MAZE, 4, seed=1, env_kwargs=SMALL_MAZE)
    env.reset(), ours.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(40):
        actions = rng.integers(0, 4, size=4)
        _, _, dones, infos = env.step(actions)
        _, _, _, our_infos = ours.step(actions)
        for i in np.flatnonzero(dones):
            episodes += 1
            assert infos[i]["episode"]["r"] == pytest.approx(our_infos[i]["episode"]["r"], abs=1e-5)
            assert infos[i]["episode"]["l"] == our_infos[i]["episode"]["l"]
    assert episodes > 0


def test_vec_frame_stack_stacks_dict_observations():
    env = VecFrameStack(make_vec_env(MAZE, 2, seed=0, env_kwargs=SMALL_MAZE), n_stack=3)
    obs = env.reset()
    assert obs["view"].shape == (2, 2, 5, 15) and obs["goal_direction"].shape == (2, 6)
    for _ in range(SMALL_MAZE["max_episode_steps"]):
        obs, _, dones, infos = env.step(np.zeros(2, dtype=np.int64))
    assert dones.all()  # staying in place never reaches the goal: truncated
    terminal = infos[0]["terminal_observation"]
    assert terminal["goal_direction"].shape == (6,)
    assert np.array_equal(obs["goal_direction"][0, :4], np.zeros(4))  # the stack restarts after a reset
    model = PPO("MultiInputPolicy", env, n_steps=8, batch_size=16, n_epochs=1, seed=0)
    model.learn(16)


def test_ppo_logs_episode_statistics_without_vec_monitor():
    env = make_vec_env(MAZE, 4, seed=0, env_kwargs=SMALL_MAZE)
    model = PPO("MultiInputPolicy", env, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    assert len(model.ep_info_buffer) > 0 and all(e["l"] <= 12 for e in model.ep_info_buffer)


# ---- SB3's checker, multi-objective weights, bad input -------------------------------------------------


@pytest.mark.parametrize(
    "spec", registration.list_envs(kind="single") + registration.list_envs(kind="mo"), ids=lambda s: s.id
)
def test_sb3_check_env_passes(spec):
    if spec.missing_extras:
        pytest.skip(f"needs the {spec.missing_extras[0]} extra")
    env = make_single_env(spec.id, {}, _weights(spec))
    # SB3's checker calls compute_reward on the env it gets; Gymnasium 1.x wrappers no longer forward
    # attributes, so a goal env is checked unwrapped (SB3's VecEnvs reach it via get_wrapper_attr).
    target = env.unwrapped if hasattr(env.unwrapped, "compute_reward") else env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice about image-like float views, not failures
        check_env(target)
    env.close()


# the dummy backend's single env returns the vector reward to Gymnasium's checker, before LinearReward
@pytest.mark.filterwarnings("ignore:.*reward returned by `step\\(\\)` must be a float")
def test_multi_objective_scalarization_and_metadata():
    spec = registration.spec("benchmarkzoo/MO-Treasure-v0")
    if spec.missing_extras:
        pytest.skip("needs the mo extra")
    with pytest.raises(ValueError, match=r"scalarize=np\.array"):
        make_vec_env(spec.id, 2)
    with pytest.raises(ValueError, match="one per objective"):
        make_vec_env(spec.id, 2, scalarize=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="scalar reward"):
        make_vec_env(MAZE, 2, scalarize=[1.0])
    weights = np.array([0.8, 0.2])
    env = make_vec_env(spec.id, 3, seed=0, scalarize=weights)
    dummy = make_vec_env(spec.id, 3, seed=0, scalarize=weights, backend="dummy")
    assert np.array_equal(env.scalarization_weights, weights)
    assert env.benchmarkzoo_metadata["scalarize"] == [0.8, 0.2]
    assert _equal(env.reset(), dummy.reset())
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = rng.integers(0, env.action_space.n, size=3)
        _, rewards, _, infos = env.step(actions)
        _, dummy_rewards, _, _ = dummy.step(actions)
        assert np.array_equal(rewards, dummy_rewards)
        for i in range(3):
            assert rewards[i] == np.float32(infos[i]["vector_reward"] @ weights)
    model = PPO(
        "MlpPolicy" if not isinstance(env.observation_space, gym.spaces.Dict) else "MultiInputPolicy",
        VecNormalize(env),
        n_steps=8,
        batch_size=24,
        n_epochs=1,
        seed=0,
    )
    assert tag_model(model)["scalarize"] == [0.8, 0.2]


def test_bad_input_errors_name_the_fix():
    with pytest.raises(UnknownEnvError, match="Maze-v0"):
        make_vec_env("benchmarkzoo/Maze-v9", 2)
    with pytest.raises(ValueError, match="backend must be one of"):
        make_vec_env(MAZE, 2, backend="ray")
    with pytest.raises(ValueError, match="parameter sharing"):
        make_vec_env(MAPF, 2, backend="subproc")
    with pytest.raises(ValueError, match="positive integer"):
        make_vec_env(MAZE, 0)


# ---- hybrid (Dict) action spaces: Platform-v0 through the codec -------------------------------------


def test_hybrid_actions_are_a_box_decoded_alike_on_every_backend():
    """SB3 sees HybridActionCodec's Box; the native and dummy backends decode it to the same Dict actions."""
    from benchmarkzoo.adapters.sb3 import HYBRID_CODEC

    env = make_vec_env(PLATFORM, 3, seed=0)
    dummy = make_vec_env(PLATFORM, 3, seed=0, backend="dummy")
    box = gym.spaces.Box(-1.0, 1.0, (4,), np.float32)
    assert env.action_space == box and dummy.action_space == box and env.get_attr("action_space") == [box] * 3
    assert env.benchmarkzoo_metadata["action_codec"] == HYBRID_CODEC == dummy.benchmarkzoo_metadata["action_codec"]
    assert _equal(env.reset(), dummy.reset())
    rng, ends = np.random.default_rng(0), 0
    for _ in range(40):
        actions = rng.uniform(-1.2, 1.2, size=(3, 4)).astype(np.float32)  # past the bounds too: clipped
        obs, rewards, dones, infos = env.step(actions)
        dummy_obs, dummy_rewards, dummy_dones, dummy_infos = dummy.step(actions)
        assert _equal(obs, dummy_obs) and np.array_equal(rewards, dummy_rewards) and np.array_equal(dones, dummy_dones)
        for i in np.flatnonzero(dones):
            assert _equal(infos[i]["terminal_observation"], dummy_infos[i]["terminal_observation"])
        ends += int(dones.sum())
    assert ends >= 3  # random moves fall: episodes ended and reset on both backends


@pytest.mark.slow
def test_ppo_learns_platform_through_the_hybrid_codec(one_torch_thread, tmp_path):
    """PPO on the codec's Box beats its untrained self and the random policy on the test split, by far."""
    from benchmarkzoo.evaluation.policies import CallablePolicy, RandomPolicy
    from benchmarkzoo.evaluation.runner import plan_episodes, run_episodes
    from benchmarkzoo.evaluation.suites import Task
    from benchmarkzoo.scenario_sets import load_set

    env = make_vec_env(PLATFORM, 8, seed=0)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=10, learning_rate=1e-3, seed=0)
    codec = env.codec
    split = load_set("control/platform").split("test")
    task = Task(id="platform-test", env=PLATFORM, scenario_set="control/platform", split="test", episodes=40)
    plans = plan_episodes(task, 0, list(split.seeds))

    def mean_return(policy) -> float:
        return float(np.mean([o.episode_return for o in run_episodes(task, split, plans, policy, num_envs=8)]))

    def ppo_policy() -> CallablePolicy:  # the model acts in the Box; the env takes the decoded Dict
        return CallablePolicy(lambda obs: codec.decode_batch(model.predict(obs, deterministic=True)[0]), "ppo", None)

    untrained = mean_return(ppo_policy())
    random = mean_return(RandomPolicy())
    model.learn(8_192)
    trained = mean_return(ppo_policy())
    print(f"Platform test split: random {random:.3f}, untrained PPO {untrained:.3f}, PPO after 8k steps {trained:.3f}")
    # Saved, it evaluates as an sb3: policy, and its continuous powers do not depend on the batch (about 2e-8 did).
    tag_model(model)
    model.save(tmp_path / "platform.zip")
    saved = {
        n: [
            o.episode_return for o in run_episodes(task, split, plans, SB3Policy(tmp_path / "platform.zip"), num_envs=n)
        ]
        for n in (8, 1)
    }
    assert saved[8] == saved[1] and np.mean(saved[8]) == pytest.approx(trained, abs=1e-6)
    # measured: random 0.14, untrained 0.11, trained 1.64 (the planner: 2.0) after 8k steps (about 4 s of training)
    assert trained > max(random, untrained) + 0.8


# ---- parameter sharing ----------------------------------------------------------------------------------


def test_parameter_sharing_matches_the_parallel_env_with_documented_padding():
    """World 1 of the VecEnv equals MapfEnv seeded 3 + 1; agents that left are padding until the world resets."""
    env = make_vec_env(MAPF, 2, seed=3, env_kwargs=SMALL_MAPF)
    n = 4
    assert env.num_envs == 2 * n
    par = registration.make_parallel(MAPF, **SMALL_MAPF)
    obs = env.reset()
    par_obs, _ = par.reset(seed=4)
    names = par.possible_agents
    for a, name in enumerate(names):
        assert _equal(_world(obs, n + a), par_obs[name])
    rng = np.random.default_rng(0)
    left_seen = closed_seen = worlds_ended = 0
    returns = dict.fromkeys(names, 0.0)
    for _ in range(150):
        actions = rng.integers(0, 5, size=env.num_envs)
        padding_before = env.padding[n:]
        obs, rewards, dones, infos = env.step(actions)
        par_actions = {name: int(actions[n + a]) for a, name in enumerate(names) if name in par.agents}
        par_obs, par_rewards, par_term, par_trunc, _ = par.step(par_actions)
        world_ended = not par.agents
        for a, name in enumerate(names):
            e = n + a
            info = infos[e]
            if padding_before[a]:  # padding: zero reward, ignored action, done only when the world resets
                assert info["padding"] and rewards[e] == 0.0 and "episode" not in info
                assert dones[e] == world_ended
                if dones[e]:
                    closed_seen += 1
                    assert not info["TimeLimit.truncated"]
                    assert all(not v.any() for v in info["terminal_observation"].values())
                continue
            assert rewards[e] == np.float32(par_rewards[name])
            returns[name] += par_rewards[name]
            ended = par_term[name] or par_trunc[name]
            assert dones[e] == ended and info["TimeLimit.truncated"] == (par_trunc[name] and not par_term[name])
            if ended:
                left_seen += 1
                assert _equal(info["terminal_observation"], par_obs[name])
                assert info["episode"]["r"] == pytest.approx(returns[name], abs=1e-5)
                assert info["is_success"] == bool(par_term[name])
                returns[name] = 0.0
            if not world_ended:  # alive: the agent's observation; just left: zeros from now on
                zeros = {k: np.zeros_like(v) for k, v in par_obs[name].items()}
                expected = par_obs[name] if name in par.agents else zeros
                assert _equal(_world(obs, e), expected)
        if world_ended:
            worlds_ended += 1
            par_obs, _ = par.reset()
            for a, name in enumerate(names):
                assert _equal(_world(obs, n + a), par_obs[name])
    assert left_seen > 0 and closed_seen > 0 and worlds_ended > 0


def test_parameter_sharing_seeding_and_per_world_attributes():
    env = make_vec_env(MAPF, 2, seed=0, env_kwargs=SMALL_MAPF)
    assert list(env.seed(10)) == [10] * 4 + [11] * 4
    env.reset()
    hashes = [s.content_hash for s in env.get_attr("scenario")]
    assert hashes[:4] == [hashes[0]] * 4 and hashes[4:] == [hashes[4]] * 4 and hashes[0] != hashes[4]
    single = registration.make_vec(MAPF, 1, **SMALL_MAPF)
    single.reset(seed=11)
    assert hashes[4] == single.scenarios[0].content_hash  # world 1 was seeded 10 + 1
    par = registration.make_parallel(MAPF, **SMALL_MAPF)
    assert env.get_attr("action_space", indices=[5]) == [par.action_space("agent_0")]


# ---- the evaluation hook ---------------------------------------------------------------------------


def _tiny_suite(tmp_path):
    import yaml

    path = tmp_path / "sb3-tiny-v0.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "sb3-tiny-v0",
                "description": "One short Maze task for the SB3 policy test.",
                "tasks": [
                    {"id": "maze-test", "env": MAZE, "scenario_set": "gridworld/maze", "split": "test", "episodes": 6}
                ],
            }
        )
    )
    return path


def test_sb3_policy_evaluates_a_saved_model(tmp_path):
    from benchmarkzoo.evaluation import protocol

    env = make_vec_env(MAZE, 4, seed=0, env_kwargs=SMALL_MAZE)
    model = PPO("MultiInputPolicy", env, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    tag_model(model)
    path = tmp_path / "maze-ppo.zip"
    model.save(path)
    assert guess_algorithm(read_zip_data(path)) == "PPO"
    assert read_zip_data(path)["benchmarkzoo"]["env_id"] == MAZE

    results = protocol.evaluate(_tiny_suite(tmp_path), f"sb3:{path}", num_envs=3)
    assert results.policy.kind == "sb3"
    assert results.policy.content_hash == hashlib.sha256(path.read_bytes()).hexdigest()
    task = results.tasks[0]
    assert task.status == "ok" and len(task.episodes) == 6
    again = protocol.evaluate(_tiny_suite(tmp_path), f"sb3:{path}", num_envs=2)  # deterministic acting
    assert [e.episode_return for e in again.tasks[0].episodes] == [e.episode_return for e in task.episodes]


def test_sb3_policy_guesses_the_algorithm_and_refuses_other_spaces(tmp_path):
    env = make_vec_env(MAZE, 2, seed=0, env_kwargs=SMALL_MAZE)
    model = DQN("MultiInputPolicy", env, learning_starts=0, buffer_size=100, seed=0)
    path = tmp_path / "dqn.zip"
    model.save(path)  # untagged: the algorithm comes from the saved policy class
    policy = SB3Policy(path)
    assert policy.algorithm == "DQN"
    assert type(policy.model).__name__ == "DQN"
    keys = registration.make_vec("benchmarkzoo/MazeKeys-v0", 2)
    with pytest.raises(PolicyError, match="MazeKeys-v0"):
        policy.setup(keys, registration.spec("benchmarkzoo/MazeKeys-v0"))
    with pytest.raises(PolicyError, match="does not exist"):
        load_sb3_policy("sb3:" + str(tmp_path / "missing.zip"))
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(PolicyError, match="not a Stable-Baselines3 model zip"):
        load_sb3_policy(f"sb3:{tmp_path / 'bad.zip'}")


def test_sb3_policy_acts_for_every_agent_of_a_parallel_env(tmp_path):
    env = make_vec_env(MAPF, 2, seed=0, env_kwargs=SMALL_MAPF)
    model = PPO("MultiInputPolicy", env, n_steps=8, batch_size=16, n_epochs=1, seed=0)
    path = tmp_path / "mapf.zip"
    tag_model(model)
    model.save(path)
    native = registration.make_vec(MAPF, 3, **SMALL_MAPF)
    policy = SB3Policy(path)
    policy.setup(native, registration.spec(MAPF))
    obs, _ = native.reset(seed=0)
    actions = policy.act(obs, native)
    assert actions.shape == (3, 4)
    native.step(actions)


def test_sb3_policy_decodes_a_hybrid_model_for_the_dict_env(tmp_path):
    """A model trained on the codec's Box evaluates on Platform-v0's Dict actions, decoded as in training."""
    env = make_vec_env(PLATFORM, 2, seed=0)
    model = PPO("MlpPolicy", env, n_steps=8, batch_size=16, n_epochs=1, seed=0)
    path = tmp_path / "platform.zip"
    tag_model(model)
    model.save(path)
    native = registration.make_vec(PLATFORM, 3)
    policy = SB3Policy(path)
    policy.setup(native, registration.spec(PLATFORM))
    obs, _ = native.reset(seed=0)
    actions = policy.act(obs, native)
    assert native.action_space.contains(actions)
    expected = env.codec.decode_batch(model.predict(obs, deterministic=True)[0])
    assert actions["move"].tolist() == expected["move"].tolist()
    assert np.allclose(actions["power"], expected["power"], atol=1e-6)  # one row at a time vs one batch
    native.step(actions)


# ---- training for real ------------------------------------------------------------------------------


def _split(generator: str, kwargs: dict, seeds: range):
    from benchmarkzoo.scenario_sets import Split

    gen = registration.make_generator(generator, kwargs)
    return Split("train", generator, kwargs, seeds, {s: gen.sample(s).content_hash for s in seeds})


@pytest.fixture
def one_torch_thread():
    """Small MLPs train fastest on one thread; more only fight the env (and other tests) for cores."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
def test_ppo_learns_maze(one_torch_thread):
    """PPO through make_vec_env(..., 16) on 7x7 mazes beats the random policy on the train split, by far."""
    from benchmarkzoo.evaluation.policies import CallablePolicy, RandomPolicy
    from benchmarkzoo.evaluation.runner import plan_episodes, run_episodes
    from benchmarkzoo.evaluation.suites import Task

    generator_kwargs = {"height": 7, "width": 7, "min_goal_distance": 4}
    env_kwargs = {"generator_kwargs": generator_kwargs, "max_episode_steps": 50}
    env = make_vec_env(MAZE, 16, seed=0, env_kwargs=env_kwargs)
    model = PPO(
        "MultiInputPolicy",
        env,
        n_steps=64,
        batch_size=256,
        n_epochs=4,
        learning_rate=1e-3,
        ent_coef=0.01,
        gamma=0.9,
        gae_lambda=0.95,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
    )
    model.learn(60_000)

    split = _split("maze/dfs", generator_kwargs, range(0, 200))
    task = Task(
        id="maze-7x7-train",
        env=MAZE,
        scenario_set="inline",
        split="train",
        episodes=200,
        env_kwargs={"max_episode_steps": 50},
    )
    plans = plan_episodes(task, 0, list(split.seeds))
    ppo = CallablePolicy(lambda obs: model.predict(obs, deterministic=True)[0], "ppo", None)
    random_outcomes = run_episodes(task, split, plans, RandomPolicy(), num_envs=16)
    ppo_outcomes = run_episodes(task, split, plans, ppo, num_envs=16)
    random_return = np.mean([o.episode_return for o in random_outcomes])
    ppo_return = np.mean([o.episode_return for o in ppo_outcomes])
    random_success = np.mean([o.success for o in random_outcomes])
    ppo_success = np.mean([o.success for o in ppo_outcomes])
    print(
        f"Maze 7x7 train split: random return {random_return:.3f} success {random_success:.2f}; "
        f"PPO return {ppo_return:.3f} success {ppo_success:.2f}"
    )
    # measured: random -0.25 to -0.31 / 0.15 to 0.21; PPO 0.23 / 0.51 after 60k steps (0.28 / 0.53 after
    # 100k, 0.17 / 0.46 after 40k): 60k keeps the margins of 100k over both bars at 60% of the training.
    assert ppo_return > random_return + 0.3
    assert ppo_success > 2 * random_success and ppo_success >= 0.35


def _individual_success(env_kwargs: dict, act, worlds: int = 32, seed: int = 1_000) -> float:
    """Fraction of the agents of ``worlds`` fresh episodes (seeds seed + w) that reach their goal."""
    env = make_vec_env(MAPF, worlds, seed=seed, env_kwargs=env_kwargs)
    n = env.num_envs // worlds
    obs = env.reset()
    first = np.ones(worlds, dtype=bool)  # still in the world's first episode
    outcomes: list[bool] = []
    while first.any():
        obs, _, dones, infos = env.step(act(obs, env.num_envs))
        for e in np.flatnonzero(dones):
            if first[e // n] and "episode" in infos[e]:
                outcomes.append(bool(infos[e]["is_success"]))
        first &= ~dones.reshape(worlds, n).all(axis=1)  # every entry done at once: the world ended
    assert len(outcomes) == worlds * n
    return float(np.mean(outcomes))


@pytest.mark.slow
def test_ppo_with_parameter_sharing_learns_mapf(one_torch_thread):
    env_kwargs = {**SMALL_MAPF, "view_radius": 3}
    env = make_vec_env(MAPF, 8, seed=0, env_kwargs=env_kwargs)
    rng = np.random.default_rng(0)
    random_rate = _individual_success(env_kwargs, lambda obs, k: rng.integers(0, 5, size=k))
    model = PPO(
        "MultiInputPolicy",
        env,
        n_steps=64,
        batch_size=256,
        n_epochs=4,
        learning_rate=1e-3,
        ent_coef=0.01,
        gamma=0.95,
        gae_lambda=0.95,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
    )
    model.learn(60_000)
    ppo_rate = _individual_success(env_kwargs, lambda obs, k: model.predict(obs, deterministic=True)[0])
    print(f"MAPF 8x8, 4 agents: individual success random {random_rate:.2f}, PPO {ppo_rate:.2f}")
    assert ppo_rate > random_rate + 0.3


NAV = "benchmarkzoo/Navigation-v0"
SMALL_NAV = {"generator_kwargs": {"num_agents": 2, "num_obstacles": 1}, "max_cycles": 40}


def _first_episode_returns(env_id: str, env_kwargs: dict, act, worlds: int = 32, seed: int = 1_000) -> list[float]:
    """Every agent's return in the first episode of ``worlds`` fresh worlds (seeds seed + w)."""
    env = make_vec_env(env_id, worlds, seed=seed, env_kwargs=env_kwargs)
    n = env.num_envs // worlds
    obs = env.reset()
    first = np.ones(worlds, dtype=bool)
    returns: list[float] = []
    while first.any():
        obs, _, dones, infos = env.step(act(obs, env.num_envs))
        for e in np.flatnonzero(dones):
            if first[e // n] and "episode" in infos[e]:
                returns.append(infos[e]["episode"]["r"])
        first &= ~dones.reshape(worlds, n).all(axis=1)
    assert len(returns) == worlds * n
    return returns


@pytest.mark.slow
def test_ppo_with_parameter_sharing_improves_navigation(one_torch_thread):
    """Shared PPO on 2 robots / 1 obstacle: the agents' mean return goes from about -0.1 (random) to about 0.9.

    The policy is evaluated stochastically: with acceleration control the deterministic (mean)
    action can leave two robots, or a robot and an obstacle, pushing against each other for the
    rest of the episode (measured: -0.2 after 100k steps), which sampling breaks.
    """
    env = make_vec_env(NAV, 8, seed=0, env_kwargs=SMALL_NAV)
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=512,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=0.95,
        gae_lambda=0.95,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
    )
    model.learn(40_000)
    rng = np.random.default_rng(0)
    random_returns = _first_episode_returns(
        NAV, SMALL_NAV, lambda obs, k: rng.uniform(-1, 1, size=(k, 2)).astype(np.float32)
    )
    model.set_random_seed(1)
    ppo_returns = _first_episode_returns(NAV, SMALL_NAV, lambda obs, k: model.predict(obs, deterministic=False)[0])
    random_mean, ppo_mean = float(np.mean(random_returns)), float(np.mean(ppo_returns))
    print(f"Navigation 2 robots, 1 obstacle: mean agent return random {random_mean:.3f}, PPO {ppo_mean:.3f}")
    # measured: random -0.11, PPO 0.88 after 40k steps (1.02 after 100k): a margin of 0.39 over the bar
    assert ppo_mean > random_mean + 0.6


@pytest.mark.slow
def test_sac_her_learns_panda_reach(one_torch_thread):
    """SAC + HerReplayBuffer straight on the native vector env (compute_reward through env_method)."""
    from stable_baselines3 import SAC, HerReplayBuffer

    reach = "benchmarkzoo/PandaReach-v0"
    if registration.spec(reach).missing_extras:
        pytest.skip(f"needs the {registration.spec(reach).missing_extras[0]} extra")
    env = make_vec_env(reach, 4, seed=0)
    model = SAC(
        "MultiInputPolicy",
        env,
        replay_buffer_class=HerReplayBuffer,
        replay_buffer_kwargs={"n_sampled_goal": 4, "goal_selection_strategy": "future"},
        learning_starts=500,
        batch_size=256,
        gamma=0.95,
        learning_rate=1e-3,
        tau=0.05,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
    )
    model.learn(12_000)
    evaluation = make_vec_env(reach, 8, seed=10_000)
    obs, successes = evaluation.reset(), []
    while len(successes) < 40:
        obs, _, dones, infos = evaluation.step(model.predict(obs, deterministic=True)[0])
        successes += [bool(info["is_success"]) for info, done in zip(infos, dones) if done]
    rate = float(np.mean(successes))
    print(f"PandaReach-v0 SAC+HER (12k steps): success {rate:.2f} over {len(successes)} episodes")
    # measured: 0.83; the random policy: about 0.0
    assert rate >= 0.6
