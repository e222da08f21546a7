"""Every registered env refuses misuse with benchmarkzoo's errors and a message that says what to do.

Parametrized over ``list_envs()`` alone, in all four forms: the single (``gym.make``) env, the
PettingZoo ``ParallelEnv``, and both native vector forms. The refusals live in the bases
(:class:`~benchmarkzoo.envs.view.SingleAgentEnvView`, ``ParallelEnvView``, ``NativeVectorEnv``,
``NativeMultiAgentVectorEnv``) and in ``core/spaces.py``, so these tests hold for any env built on them.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import benchmarkzoo
from benchmarkzoo.core.errors import (
    ClosedEnvError,
    InvalidActionError,
    InvalidSeedError,
    ResetNeededError,
    UnknownOptionError,
)
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.registration import EnvSpec

SPECS = benchmarkzoo.list_envs()
SINGLE = [s for s in SPECS if s.kind in ("single", "mo")]
PARALLEL = [s for s in SPECS if s.kind in ("parallel", "moma")]
#: External simulators: fewer steps looking for an episode's end (each SUMO/PyBullet step is slow).
HEAVY = ("traffic", "robotics")
#: Seeds Gymnasium's rule refuses (a non-negative Python int or None), and what a caller would catch.
BAD_SEEDS = [1.5, "x", -1, np.float64(2.0)]
#: Every dtype the Box rule is checked for.
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64"]


def by_id(specs: list[EnvSpec]):
    return pytest.mark.parametrize("env_spec", specs, ids=[s.id for s in specs])


def require_extras(env_spec: EnvSpec) -> None:
    for extra in env_spec.missing_extras:
        pytest.skip(f"needs extra {extra}: pip install 'benchmarkzoo[{extra}]'")


def short(env_spec: EnvSpec) -> dict:
    """Make kwargs that keep the episodes of parallel city networks short (SUMO's slowest envs)."""
    return {"max_cycles": 10} if env_spec.id.startswith("benchmarkzoo/TrafficRESCO-") else {}


def make_vec(env_spec: EnvSpec, num_envs: int = 2):
    return benchmarkzoo.make_vec(env_spec.id, num_envs=num_envs, **short(env_spec))


def big_int_action(space: spaces.Space) -> object | None:
    """An out-of-range Discrete action too large for int64, or ``None`` for other spaces."""
    return 2**70 if isinstance(space, spaces.Discrete) else None


def assert_refused_seeds(reset, env_id: str) -> None:
    for seed in BAD_SEEDS:
        with pytest.raises(InvalidSeedError, match="non-negative int") as caught:
            reset(seed=seed)
        # Gymnasium's own type for bad seeds, and the builtins a caller might catch instead
        assert isinstance(caught.value, gym.error.Error | ValueError | TypeError)
        assert env_id in str(caught.value) and repr(seed)[:3] in str(caught.value)


def assert_refused_option(reset, env_id: str, known: tuple[str, ...]) -> None:
    with pytest.raises(UnknownOptionError, match="senario") as caught:
        reset(seed=0, options={"senario": None})
    message = str(caught.value)
    assert env_id in message and "Did you mean 'scenario'" in message
    assert all(repr(key) in message for key in known)
    assert isinstance(caught.value, KeyError | ValueError)


# ---- single-agent envs -----------------------------------------------------------------------------


@by_id(SINGLE)
def test_single_refuses_misuse(env_spec: EnvSpec):
    require_extras(env_spec)
    env = benchmarkzoo.make(env_spec.id)
    base = env.unwrapped
    assert isinstance(base, SingleAgentEnvView)
    with pytest.raises(ResetNeededError, match=r"call reset\(\) before step\(\)"):
        base.step(env.action_space.sample())
    assert_refused_seeds(base.reset, env_spec.id)
    assert_refused_option(base.reset, env_spec.id, ("scenario",))
    with pytest.raises(UnknownOptionError, match="takes a dict"):
        base.reset(options=["scenario"])
    env.reset(seed=0)
    if (action := big_int_action(env.action_space)) is not None:
        with pytest.raises(InvalidActionError, match=r"Discrete\(\d+\) actions are integers in"):
            base.step(action)
        with pytest.raises(InvalidActionError):
            base.step(-(2**70))
    env.step(env.action_space.sample())  # a refusal leaves the episode running
    env.close()
    for method, call in (("step", lambda: base.step(env.action_space.sample())), ("reset", lambda: base.reset())):
        with pytest.raises(ClosedEnvError, match=rf"{method}\(\) called after close\(\).*Make a new env") as caught:
            call()
        assert isinstance(caught.value, RuntimeError | gym.error.ClosedEnvironmentError)
    env.close()  # twice is harmless


@by_id(SINGLE)
def test_single_refuses_step_after_the_episode_ended(env_spec: EnvSpec):
    """Random play until the env itself ends the episode (terminated), then one step more."""
    require_extras(env_spec)
    env = env_spec.load_entry_point()(**env_spec.kwargs)  # no TimeLimit: only the env's own endings
    env.action_space.seed(0)
    env.reset(seed=0)
    try:
        for _ in range(300 if env_spec.family in HEAVY else 5000):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                break
        else:
            pytest.skip(f"{env_spec.id}: random play did not end an episode (it ends by its time limit only)")
        with pytest.raises(ResetNeededError, match=r"the episode has ended.*call reset\(\)"):
            env.step(env.action_space.sample())
        env.reset()
        env.step(env.action_space.sample())  # reset() starts a new one
    finally:
        env.close()


@pytest.mark.parametrize("truncate", [False, True], ids=["terminated", "truncated"])
def test_view_base_refuses_a_step_after_either_ending(truncate: bool):
    """A view whose own time limit truncates is refused as one that terminated."""

    class OneStep(SingleAgentEnvView):
        metadata = {"render_modes": []}
        env_id = "test/OneStep-v0"
        observation_space = spaces.Discrete(2)
        action_space = spaces.Discrete(2)

        def _draw_scenario(self):
            return "s"

        def _load(self, scenario):
            self.scenario = scenario
            return 0, {}

        def _step(self, action):
            return 1, 0.0, not truncate, truncate, {}

    env = OneStep(None, None, None)
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ResetNeededError, match="test/OneStep-v0: the episode has ended"):
        env.step(0)
    env.reset()
    assert env.step(0)[0] == 1
    with pytest.raises(ValueError, match="render_mode must be None"):
        OneStep(None, None, "human")


def test_checkers_and_autoreset_still_pass():
    """Gymnasium's and SB3's env checkers, and every autoreset mode of SyncVectorEnv, over a refusing env."""
    from gymnasium.utils.env_checker import check_env

    check_env(benchmarkzoo.make("benchmarkzoo/Maze-v0").unwrapped, skip_render_check=True)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(benchmarkzoo.make("benchmarkzoo/Maze-v0").unwrapped, warn=False)
    for mode in gym.vector.AutoresetMode:  # motors off: the quadrotor falls and crashes (terminated) in ~60 steps
        vec = gym.make_vec(
            "benchmarkzoo/Quadrotor-v0", 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )
        vec.reset(seed=0)
        ended = 0
        for _ in range(150):
            _, _, terminated, truncated, _ = vec.step(-np.ones((2, 4), dtype=np.float32))
            ended += int((terminated | truncated).sum())
            if mode == gym.vector.AutoresetMode.DISABLED and (terminated | truncated).any():
                vec.reset(options={"reset_mask": terminated | truncated})
        vec.close()
        assert ended >= 2, f"{mode}: no episode ended, so autoreset went untested"


# ---- the one Box dtype rule, single and vector ---------------------------------------------------


BOX_SINGLE = [s for s in SINGLE if s.family not in HEAVY or s.id == "benchmarkzoo/PandaReach-v0"]


@by_id(BOX_SINGLE)
def test_box_dtype_rule_is_the_same_single_and_vector(env_spec: EnvSpec):
    require_extras(env_spec)
    env = benchmarkzoo.make(env_spec.id)
    if not isinstance(env.action_space, spaces.Box):
        env.close()
        pytest.skip(f"{env_spec.id} has a {type(env.action_space).__name__} action space")
    vec = make_vec(env_spec)
    env.reset(seed=0)
    vec.reset(seed=0)
    try:
        for name in DTYPES:
            dtype = np.dtype(name)
            safe = np.can_cast(dtype, env.action_space.dtype)
            single, batch = np.zeros(env.action_space.shape, dtype), np.zeros(vec.action_space.shape, dtype)
            for step, action in ((env.unwrapped.step, single), (vec.step, batch)):
                if safe:
                    step(action)
                    continue
                with pytest.raises(InvalidActionError, match=f"dtype {name} does not cast safely.*astype"):
                    step(action)
    finally:
        env.close()
        vec.close()


# ---- parallel envs -------------------------------------------------------------------------------


@by_id(PARALLEL)
def test_parallel_refuses_misuse(env_spec: EnvSpec):
    require_extras(env_spec)
    env = benchmarkzoo.make_parallel(env_spec.id, **short(env_spec))
    assert_refused_seeds(env.reset, env_spec.id)
    assert_refused_option(env.reset, env_spec.id, ("scenario",))
    env.reset(seed=0, options={"options": 1})  # PettingZoo's parallel_api_test probe: unknown, not a near miss
    agent = env.agents[0]
    actions = {a: env.action_space(a).sample() for a in env.agents}
    if (action := big_int_action(env.action_space(agent))) is not None:
        with pytest.raises(InvalidActionError, match=str(2**70)):
            env.step({**actions, agent: action})
    env.step(actions)
    env.close()
    for method, call in (("step", lambda: env.step(actions)), ("reset", lambda: env.reset(seed=0))):
        with pytest.raises(ClosedEnvError, match=rf"{method}\(\) called after close\(\).*Make a new env"):
            call()
    env.close()


# ---- native vector forms -------------------------------------------------------------------------


@by_id([s for s in SPECS if s.has_native_vector])
def test_native_vector_refuses_misuse(env_spec: EnvSpec):
    require_extras(env_spec)
    vec = make_vec(env_spec)
    native = vec.unwrapped if hasattr(vec, "unwrapped") else vec
    for seed in [*BAD_SEEDS, [0], [0, 1.5], [0, -3], "ab"]:
        with pytest.raises(InvalidSeedError, match=r"non-negative int|one seed per world") as caught:
            native.reset(seed=seed)
        assert isinstance(caught.value, gym.error.Error | ValueError | TypeError)
        assert env_spec.id in str(caught.value)
    assert_refused_option(native.reset, env_spec.id, ("scenario", "reset_mask"))
    with pytest.raises(UnknownOptionError, match="'options'"):
        native.reset(seed=0, options={"options": 1})  # vector forms have no PettingZoo probe to pass
    native.reset(seed=[0, None])
    space = native.single_action_space
    if isinstance(space, spaces.Discrete):
        actions = np.zeros(native.action_space.shape, dtype=np.int64).tolist()
        flat = actions if native.action_space.shape == (native.num_envs,) else actions[0]
        flat[0] = 2**70
        with pytest.raises(InvalidActionError, match=str(2**70)):
            native.step(actions)
    native.step(native.action_space.sample())
    vec.close()
    for method, call in (("step", lambda: native.step(native.action_space.sample())), ("reset", native.reset)):
        with pytest.raises(ClosedEnvError, match=rf"{method}\(\) called after close\(\).*Make a new one"):
            call()
    vec.close()
