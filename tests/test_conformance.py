"""Every registered env, and nothing else, against the shipped conformance checks.

The env list comes from ``benchmarkzoo.list_envs()`` alone: registering an env enrols it here.
"""

from __future__ import annotations

import pytest
from gymnasium.vector import AutoresetMode

import benchmarkzoo
from benchmarkzoo.registration import EnvSpec
from benchmarkzoo.testing import (
    check_env,
    check_generator,
    check_parallel_env,
    check_parallel_vector_matches_single,
    check_pickle,
    check_vector_matches_single,
)

SPECS = benchmarkzoo.list_envs()
SINGLE_KINDS = ("single", "mo")
#: Families whose envs run an external simulator (SUMO, PyBullet): fewer steps and worlds keep CI
#: in budget; they still cross several episode ends, which the checks assert.
#: Each is longer than the family's episodes (TrafficSignal-v0: 360 steps; Panda: 50).
HEAVY_STEPS = {"traffic": 400, "robotics": 300}
HEAVY_FAMILIES = tuple(HEAVY_STEPS)
#: Envs whose steps are long SUMO simulations (RESCO's city networks, thousands of vehicles;
#: Routing, where a step is a departure slot of a simulated day): shorter rollouts, episodes cut
#: to ``max_cycles`` so that resets are still crossed, and two worlds. Routing at the default
#: settings took 200 s per autoreset mode for the vector check alone.
#: TrafficGrid and MO-TrafficGrid truncate after ``max_cycles`` (360 registered): at that length 400
#: steps crossed one episode end per rollout, and their cases were the suite's slowest (~280 s of test
#: time on CI). Cut to 40 cycles, 100 steps cross two, through the same truncation and reset code.
#: The first matching prefix wins: Ingolstadt's 21 signals are the largest network (90-100 s per check).
#: MO-Beach's episodes are one step of 100 agents: 60 steps end 60 episodes; at 500 the kit's per-agent
#: action draws (a copy of the space per agent and step) took 80-160 s per check.
SHORT_EPISODES = {
    "benchmarkzoo/MO-Beach-v0": (60, 100),
    "benchmarkzoo/TrafficRESCO-ingolstadt21-": (50, 20),
    "benchmarkzoo/TrafficRESCO-": (100, 40),
    "benchmarkzoo/Routing-v0": (60, 20),
    "benchmarkzoo/TrafficGrid-v0": (100, 40),
    "benchmarkzoo/MO-TrafficGrid-v0": (100, 40),
}


def short_episodes(env_spec: EnvSpec) -> tuple[int | None, dict]:
    """``(steps, make kwargs)`` for envs of :data:`SHORT_EPISODES`, else ``(None, {})``."""
    for prefix, (steps, cycles) in SHORT_EPISODES.items():
        if env_spec.id.startswith(prefix):
            return steps, {"max_cycles": cycles}
    return None, {}


#: Envs whose random-policy episodes outlast the shorter rollouts (the async check's 300 steps):
#: a FightingLadder run is a match per rung, and a random policy wins the first (the passive bot)
#: on time, 240 steps, so its runs end after 300 to 700 steps.
LONG_EPISODES = {"benchmarkzoo/FightingLadder-v0": 1000}


def steps_for(env_spec: EnvSpec, default: int = 1000) -> int:
    return LONG_EPISODES.get(env_spec.id, HEAVY_STEPS.get(env_spec.family, default))


def worlds_for(env_spec: EnvSpec, default: int) -> int:
    return min(default, 4) if env_spec.family in HEAVY_FAMILIES else default


def require_extras(env_spec: EnvSpec) -> None:
    for extra in env_spec.missing_extras:
        pytest.skip(f"needs extra {extra}: pip install 'benchmarkzoo[{extra}]'")


def by_id(specs: list[EnvSpec]):
    """Parametrize over ``specs``; external-simulator envs are marked ``slow`` (tests/conftest.py runs them first)."""
    params = [pytest.param(s, id=s.id, marks=pytest.mark.slow if s.family in HEAVY_FAMILIES else ()) for s in specs]
    return pytest.mark.parametrize("env_spec", params)


def make_one(env_spec: EnvSpec):
    if env_spec.kind in SINGLE_KINDS:
        return benchmarkzoo.make(env_spec.id)
    return benchmarkzoo.make_parallel(env_spec.id)


def test_registry_is_not_empty():
    assert any(s.id == "benchmarkzoo/Maze-v0" for s in SPECS)


@by_id(SPECS)
def test_api_and_determinism(env_spec: EnvSpec):
    require_extras(env_spec)
    if env_spec.kind in SINGLE_KINDS:
        check_env(env_spec.id, seed=0, steps=steps_for(env_spec), strict=True)
    else:
        steps, kwargs = short_episodes(env_spec)
        check_parallel_env(
            lambda: benchmarkzoo.make_parallel(env_spec.id, **kwargs), seed=0, steps=steps or 500, strict=True
        )


@by_id(SPECS)
def test_pickle(env_spec: EnvSpec):
    require_extras(env_spec)
    env = make_one(env_spec)
    steps, _ = short_episodes(env_spec)
    try:
        check_pickle(env, seed=0, steps_after=steps or 300, strict=True)
    finally:
        env.close()


def test_every_env_has_a_native_vector_form():
    assert [s.id for s in SPECS if not s.has_native_vector] == []


@by_id([s for s in SPECS if s.has_native_vector])
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
def test_native_vector_matches_sync(env_spec: EnvSpec, mode: AutoresetMode):
    require_extras(env_spec)
    if env_spec.kind not in SINGLE_KINDS:
        # Gymnasium has no sync vector form of a PettingZoo env: compare with separate ParallelEnvs.
        if mode == AutoresetMode.SAME_STEP:
            with pytest.raises(ValueError, match="supports autoreset_mode NEXT_STEP or DISABLED"):
                benchmarkzoo.make_vec(env_spec.id, num_envs=2, autoreset_mode=mode)
            return
        steps, kwargs = short_episodes(env_spec)
        summary = check_parallel_vector_matches_single(
            env_spec.id,
            num_envs=2 if steps else worlds_for(env_spec, 6),
            steps=steps or steps_for(env_spec, 400),
            seed=0,
            autoreset_mode=mode,
            **kwargs,
        )
        assert summary["episodes_ended"] > 0, "the rollout never ended an episode, so autoreset went untested"
        return
    num_envs = worlds_for(env_spec, 16 if mode == AutoresetMode.NEXT_STEP else 8)
    summary = check_vector_matches_single(
        env_spec.id, num_envs=num_envs, steps=steps_for(env_spec), seed=0, autoreset_mode=mode
    )
    assert summary["episodes_ended"] > 0, "the rollout never ended an episode, so autoreset went untested"


@by_id([s for s in SPECS if s.has_native_vector and s.kind in SINGLE_KINDS])
def test_native_vector_matches_async(env_spec: EnvSpec):
    require_extras(env_spec)
    summary = check_vector_matches_single(
        env_spec.id,
        num_envs=4,
        steps=steps_for(env_spec, 300),
        seed=3,
        autoreset_mode=AutoresetMode.SAME_STEP,
        backends=("async",),
    )
    assert summary["episodes_ended"] > 0


@by_id(SPECS)
def test_generator(env_spec: EnvSpec):
    require_extras(env_spec)
    if "generator" not in env_spec.kwargs:
        pytest.skip(f"{env_spec.id} draws no scenarios from a generator")
    generator = benchmarkzoo.make_generator(env_spec.kwargs["generator"], env_spec.kwargs.get("generator_kwargs"))
    hashes = check_generator(generator, seeds=range(20))
    assert len(set(hashes.values())) == 20
