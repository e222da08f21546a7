"""Quadrotor-v0 / Quadrotor-Goal-v0: physics on hand-written scenarios, generators, the PID baseline, rendering.

API conformance, pickling and native-vs-sync equality under every autoreset mode come from
``tests/test_conformance.py`` (it enrols every registered env); here the native-vs-sync check is
repeated in the regime random actions never reach: long controlled flights.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from benchmarkzoo.core.errors import GeneratorArgumentError, InvalidActionError, ScenarioError
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.control.quadrotor import sim
from benchmarkzoo.envs.control.quadrotor.baseline import CascadedPIDPolicy
from benchmarkzoo.envs.control.quadrotor.env import QuadrotorEnv
from benchmarkzoo.envs.control.quadrotor.generator import (
    GRAVITY,
    GoalGenerator,
    HoverGenerator,
    QuadrotorScenario,
)
from benchmarkzoo.envs.control.quadrotor.vector_env import QuadrotorVectorEnv
from benchmarkzoo.testing import check_generator

HOVER_ID = "benchmarkzoo/Quadrotor-v0"
GOAL_ID = "benchmarkzoo/Quadrotor-Goal-v0"
IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
MASS = 0.03
MAX_THRUST = 2.0 * MASS * GRAVITY / 4.0  # thrust-to-weight 2: the hover command is exactly 0
INERTIA = (1.4e-5, 1.5e-5, 2.2e-5)


def scenario(**overrides) -> QuadrotorScenario:
    """A vehicle at rest, upright, at its goal 2 m above the floor, without linear drag."""
    fields = {
        "mass": MASS,
        "arm_length": 0.046,
        "inertia": INERTIA,
        "max_thrust": MAX_THRUST,
        "torque_coef": 0.006,
        "drag": 0.0,
        "start_pos": (0.0, 0.0, 2.0),
        "start_vel": (0.0, 0.0, 0.0),
        "start_rot": IDENTITY,
        "start_ang_vel": (0.0, 0.0, 0.0),
        "goal": (0.0, 0.0, 2.0),
    }
    return QuadrotorScenario(**{**fields, **overrides})


def make_env(frame: str = "x", **scenario_overrides) -> QuadrotorEnv:
    env = QuadrotorEnv(generator=HoverGenerator(), frame=frame)
    env.reset(seed=0, options={"scenario": scenario(**scenario_overrides)})
    return env


def act(*commands: float) -> np.ndarray:
    return np.array(commands, dtype=np.float32)


HOVER = act(0.0, 0.0, 0.0, 0.0)


# ---- physics ------------------------------------------------------------------------------------


def test_free_fall_follows_the_semi_implicit_euler_parabola():
    env = make_env(start_pos=(0.0, 0.0, 3.0))
    p = env.params
    steps = 40
    for _ in range(steps):
        _, _, terminated, _, _ = env.step(act(-1, -1, -1, -1))  # zero thrust
        assert not terminated
    m, h, t = steps * p.substeps, p.h, steps * p.dt
    z, vz = env.state.pos[2, 0], env.state.vel[2, 0]
    assert z == pytest.approx(3.0 - GRAVITY * h * h * m * (m + 1) / 2, abs=1e-12)
    assert vz == pytest.approx(-GRAVITY * t, abs=1e-12)
    # ... which is the continuous z0 - g t^2 / 2 up to the method's first-order error g h t / 2.
    assert abs(z - (3.0 - GRAVITY * t * t / 2)) <= GRAVITY * h * t / 2 + 1e-12
    np.testing.assert_array_equal(env.state.pos[:2, 0], [0.0, 0.0])
    np.testing.assert_array_equal(env.state.ang_vel[:, 0], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("frame", ["x", "plus"])
def test_equal_thrusts_equal_to_the_weight_hover(frame):
    env = make_env(frame)
    _, reward, *_ = env.step(HOVER)
    assert abs(env.state.vel[2, 0]) < 1e-9  # zero acceleration (up to float32 rounding of the command)
    # At the goal, upright and still, only the effort term costs: u = 1/2 on every motor.
    assert reward == pytest.approx(1.0 - 0.1 * 0.25, abs=1e-12)
    for _ in range(99):
        _, _, terminated, _, info = env.step(HOVER)
    assert not terminated and info["is_success"]
    np.testing.assert_allclose(env.state.pos[:, 0], [0.0, 0.0, 2.0], atol=1e-7)
    np.testing.assert_allclose(env.state.vel[:, 0], 0.0, atol=1e-7)
    np.testing.assert_array_equal(env.state.ang_vel[:, 0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(env.state.rot[:, :, 0], np.eye(3), atol=1e-12)


def test_hover_command_balances_gravity_for_drawn_vehicles():
    env = QuadrotorEnv(generator=HoverGenerator(init_pos=0.0, init_vel=0.0, init_tilt=0.0, init_ang_vel=0.0))
    for seed in range(5):
        env.reset(seed=seed)
        env.step(np.full(4, env.scenario.hover_command, dtype=np.float32))
        assert abs(env.state.vel[2, 0]) < 1e-6


DELTA = 0.05
TORQUE_CASES = {  # frame -> axis -> (motor pattern, lever arm factor)
    "x": {
        0: ((1, 1, -1, -1), 4 / math.sqrt(2)),  # left motors up: roll, right side down
        1: ((-1, 1, 1, -1), 4 / math.sqrt(2)),  # back motors up: pitch, nose down
        2: ((1, -1, 1, -1), None),  # clockwise-spinning motors up: yaw counter-clockwise
    },
    "plus": {
        0: ((0, 1, 0, -1), 2.0),  # left up, right down
        1: ((-1, 0, 1, 0), 2.0),  # back up, front down
        2: ((1, -1, 1, -1), None),
    },
}


@pytest.mark.parametrize("frame", ["x", "plus"])
@pytest.mark.parametrize("axis", [0, 1, 2], ids=["roll", "pitch", "yaw"])
def test_differential_thrust_gives_a_torque_of_the_expected_sign_and_size(frame, axis):
    pattern, lever = TORQUE_CASES[frame][axis]
    env = make_env(frame)
    env.step(act(*(DELTA * s for s in pattern)))
    rates = env.state.ang_vel[:, 0]
    df = MAX_THRUST * DELTA / 2  # thrust change of one motor
    torque = 0.046 * lever * df if lever is not None else 0.006 * 4 * df
    expected = torque / INERTIA[axis] * env.params.dt
    assert rates[axis] == pytest.approx(expected, rel=0.02)  # angular drag takes about 1 % off
    assert np.abs(np.delete(rates, axis)).max() < 1e-6 * abs(expected)


def test_pitching_nose_down_accelerates_forward():
    env = make_env()
    env.step(act(-0.1, 0.1, 0.1, -0.1))  # a short pitch impulse, then level thrust
    for _ in range(20):
        env.step(HOVER)
    assert env.state.rot[0, 2, 0] > 0  # body z tips towards +x
    assert env.state.vel[0, 0] > 0


def test_hitting_the_floor_fast_is_a_crash():
    env = make_env(start_pos=(0.0, 0.0, 1.0))
    for steps in range(1, 100):  # noqa: B007 (read after the loop)
        _, reward, terminated, truncated, info = env.step(act(-1, -1, -1, -1))
        if terminated:
            break
    assert terminated and not truncated and info["crashed"] and not info["out_of_bounds"]
    assert steps == pytest.approx(math.sqrt(2 * 1.0 / GRAVITY) / env.params.dt, abs=2)
    assert reward < -9.0  # the crash penalty
    assert env.state.pos[2, 0] == 0.0


def test_a_slow_floor_contact_lands_and_can_take_off_again():
    env = make_env(start_pos=(0.0, 0.0, 0.02))  # lands at 0.63 m/s, below the 1 m/s crash speed
    for _ in range(50):
        _, _, terminated, _, info = env.step(act(-1, -1, -1, -1))
        assert not terminated and not info["crashed"]
    assert env.state.pos[2, 0] == 0.0 and env.state.vel[2, 0] == 0.0
    for _ in range(20):
        env.step(act(0.5, 0.5, 0.5, 0.5))
    assert env.state.pos[2, 0] > 0.01 and env.state.vel[2, 0] > 0


def test_tilting_past_the_limit_is_a_crash():
    env = make_env()
    for _ in range(200):
        _, _, terminated, _, info = env.step(act(1, 1, -1, -1))
        if terminated:
            break
    assert terminated and info["crashed"]
    assert env.state.rot[2, 2, 0] < math.cos(env.params.max_tilt)


@pytest.mark.parametrize(
    "start, velocity",
    [((2.9, 0.0, 2.0), (2.0, 0.0, 0.0)), ((0.0, -2.9, 2.0), (0.0, -2.0, 0.0)), ((0.0, 0.0, 3.9), (0.0, 0.0, 2.0))],
    ids=["+x wall", "-y wall", "ceiling"],
)
def test_leaving_the_arena_terminates(start, velocity):
    env = make_env(start_pos=start, start_vel=velocity)
    for _ in range(20):
        _, reward, terminated, _, info = env.step(HOVER)
        if terminated:
            break
    assert terminated and info["out_of_bounds"] and not info["crashed"]
    assert reward < -9.0


def test_success_needs_the_goal_close_and_low_speed():
    assert make_env().step(HOVER)[4]["is_success"]
    assert not make_env(start_pos=(0.15, 0.0, 2.0)).step(HOVER)[4]["is_success"]
    assert not make_env(start_vel=(0.3, 0.0, 0.0)).step(HOVER)[4]["is_success"]


def test_observation_layout():
    rot = tuple(np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]).ravel())  # yawed 90 degrees
    env = QuadrotorEnv(generator=HoverGenerator())
    obs, info = env.reset(
        options={
            "scenario": scenario(
                start_pos=(0.5, -0.25, 1.0), start_vel=(0.1, 0.2, 0.3), start_rot=rot, start_ang_vel=(1.0, 2.0, 3.0)
            )
        }
    )
    expected = [0.5, -0.25, -1.0, 0.1, 0.2, 0.3, *rot, 1.0, 2.0, 3.0]
    np.testing.assert_array_equal(obs, np.array(expected, dtype=np.float32))
    assert obs in env.observation_space and info == {"is_success": False, "crashed": False, "out_of_bounds": False}


# ---- invalid input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [act(1.5, 0, 0, 0), act(np.nan, 0, 0, 0), act(0, 0, 0), np.zeros(4), np.zeros((1, 4), dtype=np.float32), None],
    ids=["above 1", "NaN", "shape (3,)", "float64", "shape (1, 4)", "None"],
)
def test_invalid_actions_raise(action):
    env = make_env()
    with pytest.raises(InvalidActionError, match="Quadrotor-v0 expects actions in Box"):
        env.step(action)


def test_invalid_vector_actions_raise_and_name_the_world():
    env = QuadrotorVectorEnv(num_envs=4)
    env.reset(seed=0)
    bad = np.zeros((4, 4), dtype=np.float32)
    bad[2, 1] = np.nan
    with pytest.raises(InvalidActionError, match=r"world 2 sent .*NaN"):
        env.step(bad)
    bad[2, 1] = -1.01
    with pytest.raises(InvalidActionError, match="world 2 sent"):
        env.step(bad)
    with pytest.raises(InvalidActionError, match="float32 array of shape \\(4, 4\\)"):
        env.step(np.zeros((4, 4)))
    with pytest.raises(InvalidActionError, match="shape \\(4, 4\\)"):
        env.step(np.zeros((3, 4), dtype=np.float32))
    env.step(np.zeros((4, 4), dtype=np.float32).tolist())  # nested lists cast like Box.contains does


def test_bad_env_arguments_and_scenarios_are_refused():
    with pytest.raises(ValueError, match="frame must be one of"):
        QuadrotorEnv(frame="h")
    with pytest.raises(ValueError, match="pos_weight"):
        QuadrotorEnv(pos_weight=-1.0)
    env = QuadrotorEnv(generator=HoverGenerator())
    with pytest.raises(ScenarioError, match="outside the arena"):
        env.reset(options={"scenario": scenario(goal=(0.0, 0.0, 9.0))})
    with pytest.raises(ScenarioError, match="rotation matrix"):
        scenario(start_rot=(2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    with pytest.raises(ScenarioError, match="mass must be positive"):
        scenario(mass=-0.1)
    with pytest.raises(ScenarioError, match="9 finite numbers"):
        scenario(start_rot=(1.0, 0.0))


# ---- generators ---------------------------------------------------------------------------------


@pytest.mark.parametrize("generator", [HoverGenerator(), GoalGenerator()], ids=["hover", "goal"])
def test_generator_contract(generator):
    check_generator(generator)


def test_generator_hashes_are_pinned():
    # A change here alters every recorded scenario: bump the env versions (see DESIGN.md).
    assert HoverGenerator().sample(0).content_hash[:16] == "9d23b100950fb1af"
    assert GoalGenerator().sample(0).content_hash[:16] == "3dffcf576a1ab47f"


def test_drawn_parameters_respect_their_ranges():
    hover, goal = HoverGenerator(), GoalGenerator()
    for seed in range(200):
        s = hover.sample(seed)
        assert 0.025 <= s.mass <= 0.035 and 0.040 <= s.arm_length <= 0.052
        assert 1.8 <= 4 * s.max_thrust / (s.mass * GRAVITY) <= 2.5
        assert 0.005 <= s.torque_coef <= 0.007 and 0.0 <= s.drag <= 0.2
        assert math.dist(s.start_pos, s.goal) <= 0.5 and math.hypot(*s.start_vel) <= 0.5
        assert s.start_rot[8] >= math.cos(0.5) - 1e-12  # tilt within init_tilt
        g = goal.sample(seed)
        assert 0.5 - 1e-9 <= math.dist(g.goal, (0.0, 0.0, 2.0)) <= 2.0 + 1e-9
        assert max(abs(g.goal[0]), abs(g.goal[1])) <= 2.5 and 0.5 <= g.goal[2] <= 3.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mass": (-0.1, 0.03)}, "mass must be a range"),
        ({"mass": (0.04, 0.03)}, "low <= high"),
        ({"mass": 0.03}, "mass must be a range"),
        ({"thrust_to_weight": (0.9, 1.5)}, "thrust_to_weight"),
        ({"arm_length": (0.04, float("nan"))}, "arm_length"),
        ({"drag": (-1.0, 0.0)}, "drag"),
        ({"init_pos": 5.0}, "init_pos"),
        ({"init_tilt": 2.0}, "init_tilt"),
        ({"hover_height": 3.9}, "hover_height"),
        ({"arena_height": 1.0, "init_pos": 0.3}, "does not fit"),
    ],
)
def test_hover_generator_arguments_are_checked(kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        HoverGenerator(**kwargs)


def test_goal_generator_arguments_are_checked():
    with pytest.raises(GeneratorArgumentError, match="goal_distance"):
        GoalGenerator(goal_distance=(0.5, 10.0))
    with pytest.raises(GeneratorArgumentError, match="goal_min_height"):
        GoalGenerator(goal_min_height=3.9)
    wide = GoalGenerator(mass=(0.02, 0.05), thrust_to_weight=(1.5, 3.0), goal_distance=(2.0, 2.5))  # an ood tier
    assert wide.kwargs["goal_distance"] == (2.0, 2.5)


# ---- native vector env --------------------------------------------------------------------------


def test_native_vector_matches_sync_in_long_controlled_flights():
    """1000 steps of 16 worlds flown by the PID plus noise: every episode runs to its time limit."""
    num_envs, steps = 16, 1001  # step 501 is the autoreset step, so the second time limit falls on step 1001
    native = gym.make_vec(GOAL_ID, num_envs, vectorization_mode="vector_entry_point")
    sync = gym.make_vec(GOAL_ID, num_envs, vectorization_mode="sync")
    policy, rng = CascadedPIDPolicy(), np.random.default_rng(0)
    np.testing.assert_array_equal(native.reset(seed=7)[0], sync.reset(seed=7)[0])
    truncations = 0
    for _ in range(steps):
        noise = rng.uniform(-0.05, 0.05, size=(num_envs, 4)).astype(np.float32)
        actions = np.clip(policy(native) + noise, -1.0, 1.0)
        out_n, out_s = native.step(actions), sync.step(actions)
        for a, b in zip(out_n[:4], out_s[:4]):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        assert out_n[4].keys() == out_s[4].keys()
        for key in out_n[4]:
            np.testing.assert_array_equal(out_n[4][key], out_s[4][key])
        truncations += int(out_n[3].sum())
    assert truncations == 2 * num_envs  # two full 500-step episodes per world, no crash
    native.close()
    sync.close()


# ---- the baseline -------------------------------------------------------------------------------


def fly(env_id: str, seed: int, num_envs: int = 100, **kwargs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One episode per world with the PID: success on the last step, terminations, tail errors.

    Returns:
        success ``(num_envs,)`` bool, terminated ``(num_envs,)`` bool, and the distance to the
        goal over the last 200 steps (2 s), ``(200, num_envs)``.
    """
    env = gym.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point", **kwargs)
    policy = CascadedPIDPolicy()
    env.reset(seed=seed)
    horizon = env.unwrapped.max_episode_steps
    tail = []
    for t in range(horizon):
        obs, _, terminated, truncated, info = env.step(policy(env))
        if t >= horizon - 200:
            tail.append(np.linalg.norm(obs[:, :3].astype(np.float64), axis=1))
    env.close()
    return info["is_success"] & truncated, terminated, np.array(tail)


def test_pid_hovers_within_tolerance():
    success, terminated, tail = fly(HOVER_ID, seed=10_000)
    assert not terminated.any() and success.all()
    assert np.sqrt(np.mean(tail**2)) < 0.05  # RMS position error over the last 2 s, all 100 worlds
    assert tail.max() < 0.05


def test_pid_reaches_goals():
    success, terminated, _ = fly(GOAL_ID, seed=10_000)
    assert not terminated.any()
    assert success.mean() >= 0.95


@pytest.mark.parametrize("frame", ["x", "plus"])
def test_pid_in_a_single_env_flies_the_plus_frame_too(frame):
    env = gym.make(GOAL_ID, frame=frame)
    policy = CascadedPIDPolicy()
    env.reset(seed=3)
    for _ in range(500):
        _, _, terminated, truncated, info = env.step(policy(env))
        assert not terminated
    assert truncated and info["is_success"]
    env.close()


# ---- rendering ----------------------------------------------------------------------------------


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_render_draws_three_views():
    env = gym.make(HOVER_ID, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (240, 720, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 3
    env.close()
    vector = QuadrotorVectorEnv(num_envs=2, render_mode="rgb_array")
    vector.reset(seed=0)
    frames = vector.render()
    assert len(frames) == 2 and frames[0].shape == (240, 720, 3)
    vector.close()


def test_sim_batches_are_independent_of_batch_size():
    """World k of a batch of 7 evolves exactly as the same world alone (no batch-size-dependent arithmetic)."""
    gen = GoalGenerator()
    scenarios = [gen.sample(seed) for seed in range(7)]
    params = sim.Params()
    batch = sim.init_state(7)
    sim.load(batch, np.arange(7), scenarios)
    alone = sim.init_state(1)
    sim.load(alone, [0], [scenarios[4]])
    rng = np.random.default_rng(1)
    for _ in range(300):
        actions = rng.uniform(-0.2, 0.2, size=(7, 4)).astype(np.float32)
        out_batch = sim.step(batch, actions, params)
        out_alone = sim.step(alone, actions[4:5], params)
        assert out_batch[0][4] == out_alone[0][0]
    np.testing.assert_array_equal(sim.observe(batch, params)[4], sim.observe(alone, params)[0])
