"""The shipped checks pass on correct envs and fail, with a useful message, on planted bugs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from toy_envs import CounterEnv, LineParallelEnv

import benchmarkzoo
from benchmarkzoo.envs.gridworld.maze.generator import DFSMazeGenerator, MazeScenario
from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv
from benchmarkzoo.testing import (
    check_env,
    check_generator,
    check_parallel_env,
    check_pickle,
    check_vector_matches_single,
)
from benchmarkzoo.testing._compare import assert_same


def test_assert_same_names_the_path_and_index():
    assert_same({"a": np.arange(3), "b": (1.0, None)}, {"b": (1.0, None), "a": np.arange(3)}, "x")
    with pytest.raises(AssertionError, match=r"x\['a'\]: arrays differ at 1 position\(s\); first at index \(2,\)"):
        assert_same({"a": np.arange(3)}, {"a": np.array([0, 1, 5])}, "x")
    with pytest.raises(AssertionError, match="dtype int64 != shape"):
        assert_same(np.arange(3), np.arange(3).astype(np.int32), "y")
    with pytest.raises(AssertionError, match="types differ"):
        assert_same(1.0, np.float64(1.0), "z")
    assert_same(np.array([np.nan]), np.array([np.nan]), "nan is equal to itself here")


# ---- check_env ----------------------------------------------------------------------------------


def test_check_env_passes_a_correct_env():
    check_env(lambda: CounterEnv(), steps=100)
    check_env(lambda: CounterEnv(), steps=100, strict=True)


def test_check_env_catches_nondeterminism_after_the_first_step():
    # Gymnasium's own checker compares a single step only; the bug starts at step 5
    with pytest.raises(AssertionError, match=r"step 4 \(episode 0\): reward"):
        check_env(lambda: CounterEnv(leak_after=5), steps=50)


def test_check_env_catches_accepted_invalid_actions():
    check_env(lambda: CounterEnv(accept_anything=True), steps=10)  # Gymnasium asks no refusal: a strict-mode check
    with pytest.raises(AssertionError, match=r"CounterEnv instance>: action None \(None\) was accepted; expected Inv"):
        check_env(lambda: CounterEnv(accept_anything=True), steps=10, strict=True)


def test_check_env_is_multi_objective_aware():
    with pytest.warns(UserWarning, match="must be a float"):  # what the filter removes, and only that
        gymnasium_check_env(CounterEnv(objectives=2), skip_render_check=True)
    check_env(lambda: CounterEnv(objectives=2), steps=50)  # the scalar-reward warning is not a failure
    with pytest.raises(AssertionError, match=r"step 0: reward .* outside reward_space"):
        check_env(lambda: CounterEnv(objectives=2, reward_outside=True), steps=50)


def test_check_env_accepts_an_env_made_by_gym_make():
    check_env(gym.make("benchmarkzoo/Maze-v0"), steps=50, strict=True)


# ---- check_parallel_env -------------------------------------------------------------------------


def test_check_parallel_env_passes_the_toy_env():
    check_parallel_env(lambda: LineParallelEnv(), steps=200)
    check_parallel_env(lambda: LineParallelEnv(), steps=200, strict=True)


def test_check_parallel_env_catches_accepted_invalid_actions():
    check_parallel_env(lambda: LineParallelEnv(skip_action_check=True), steps=50)  # a strict-mode check
    with pytest.raises(AssertionError, match=r"agent 'walker_0' sending None raised TypeError.*expected InvalidAction"):
        check_parallel_env(lambda: LineParallelEnv(skip_action_check=True), steps=50, strict=True)


def test_check_pickle_on_a_parallel_env():
    check_pickle(LineParallelEnv(), steps_after=100, strict=True)


# ---- check_pickle -------------------------------------------------------------------------------


class ForgetfulEnv(CounterEnv):
    """Loses its random state when pickled, so the copy diverges."""

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_np_random"] = np.random.default_rng(12345)
        return state


class AmnesiacEnv(CounterEnv):
    """Pickles as a default CounterEnv: its copies lose the constructor argument ``objectives``."""

    def __reduce__(self):
        return CounterEnv, ()


def test_check_pickle_catches_lost_random_state():
    check_pickle(CounterEnv(), strict=True)
    check_pickle(ForgetfulEnv())  # a seeded reset heals it: only strict mode wants the episode to travel
    with pytest.raises(AssertionError, match="after a pickle round trip, step 0"):
        check_pickle(ForgetfulEnv(), strict=True)


def test_check_pickle_catches_a_copy_that_is_another_env():
    check_pickle(CounterEnv(objectives=2))
    with pytest.raises(
        AssertionError, match=r"after a pickle round trip, step 0\[1\]: expected a ndarray, got a float"
    ):
        check_pickle(AmnesiacEnv(objectives=2))


# ---- check_vector_matches_single ----------------------------------------------------------------


class OffByOneSeedMaze(MazeVectorEnv):
    """Seeds world i with s + i + 1: the kind of bug that breaks vector/single equality."""

    def reset(self, *, seed=None, options=None):
        return super().reset(seed=None if seed is None else seed + 1, options=options)


class NoFinalObsMaze(MazeVectorEnv):
    """Forgets ``final_obs`` in SAME_STEP mode."""

    def step(self, actions):
        obs, rew, term, trunc, info = super().step(actions)
        info.pop("final_obs", None)
        info.pop("_final_obs", None)
        return obs, rew, term, trunc, info


@pytest.fixture
def broken_vector_id(request):
    env_id = f"benchmarkzoo-test/{request.param.__name__}-v0"
    gym.register(
        env_id,
        entry_point="benchmarkzoo.envs.gridworld.maze.env:MazeEnv",
        vector_entry_point=f"{__name__}:{request.param.__name__}",
        max_episode_steps=200,
    )
    yield env_id
    del gym.registry[env_id]


@pytest.mark.parametrize("broken_vector_id", [OffByOneSeedMaze], indirect=True)
def test_check_vector_catches_wrong_world_seeds(broken_vector_id):
    with pytest.raises(AssertionError, match=r"reset\(seed=0\).*\['(view|goal_direction)'\]: arrays differ"):
        check_vector_matches_single(broken_vector_id, num_envs=4, steps=10)


@pytest.mark.parametrize("broken_vector_id", [NoFinalObsMaze], indirect=True)
def test_check_vector_catches_missing_final_obs(broken_vector_id):
    check_vector_matches_single(broken_vector_id, num_envs=4, steps=250, autoreset_mode="NextStep")
    missing = r"keys differ; only in expected \[\], only in actual \['_final_obs', 'final_obs'\]"
    with pytest.raises(AssertionError, match=r"SameStep\] step \d+: infos \(native vs sync\): " + missing):
        check_vector_matches_single(broken_vector_id, num_envs=4, steps=250, autoreset_mode="SameStep")


# ---- check_generator ----------------------------------------------------------------------------


class ConstantMaze(DFSMazeGenerator):
    """Ignores its rng after the first draw: every seed gives the same maze."""

    def __call__(self, rng):
        return super().__call__(np.random.default_rng(0))


class GlobalRandomMaze(DFSMazeGenerator):
    """Draws from a generator it does not own: the same seed gives different mazes."""

    _shared = np.random.default_rng(0)

    def __call__(self, rng):
        return super().__call__(self._shared)


def test_check_generator_returns_distinct_hashes_for_a_good_generator():
    hashes = check_generator(benchmarkzoo.make_generator("maze/obstacles", {"height": 9, "width": 9}), range(20))
    assert len(set(hashes.values())) == 20
    assert all(len(h) == 64 for h in hashes.values())


def test_check_generator_catches_seed_independence():
    with pytest.raises(AssertionError, match=r"19 seed\(s\) repeat an earlier scenario.*\(0, 1\)"):
        check_generator(ConstantMaze(), range(20))
    check_generator(ConstantMaze(), range(3), max_equal=2)


def test_check_generator_catches_unowned_randomness():
    with pytest.raises(AssertionError, match="seed 0 gave two different scenarios"):
        check_generator(GlobalRandomMaze(), range(3))


def test_scenario_round_trip_is_exact():
    walls = np.ones((5, 5), dtype=bool)
    walls[1:4, 1:4] = False
    scenario = MazeScenario(walls=walls, start=(1, 1), goal=(3, 3))
    assert MazeScenario.from_dict(scenario.to_dict()) == scenario
    assert scenario.to_json().startswith('{"fields":{"goal":[3,3],"start":[1,1],"walls":{"data":[1,1,1,1,1,1,0,0,0,1,')
