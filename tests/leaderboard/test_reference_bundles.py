"""The committed ONNX bundles (leaderboard/policies/<name>/): each task of their suites has a model of its spaces.

A bundle maps env ids (and task ids, where one env's tasks differ in spaces) to models; a suite task whose
observation or action space its model does not take fails the evaluation, which `make leaderboard` runs only
after training. Setting each task's model up on the task's env catches that here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="needs the eval extra (onnxruntime)")

from benchmarkzoo import registration
from benchmarkzoo.evaluation.onnx_bundle import OnnxBundlePolicy
from benchmarkzoo.evaluation.runner import make_task_env
from benchmarkzoo.evaluation.suites import load_suite, suite_path
from benchmarkzoo.scenario_sets import load_set

POLICIES = Path(__file__).resolve().parents[2] / "leaderboard" / "policies"
#: bundle -> the suites `make leaderboard` evaluates it on.
PLAYS = {"ppo-single-agent": ("single-agent-v1", "generalization-v1", "single-agent-v2"), "ppo-marl": ("marl-v1",)}


@pytest.mark.parametrize(("bundle", "suite"), [(b, s) for b, suites in PLAYS.items() for s in suites])
def test_every_task_plays_a_model_that_takes_its_spaces(bundle, suite):
    policy = OnnxBundlePolicy(POLICIES / bundle)
    for task in load_suite(suite_path(suite)).tasks:
        env = make_task_env(task, load_set(task.scenario_set).split(task.split), "native", 2)
        try:
            policy.start_task(task.id)
            policy.setup(env, registration.spec(task.env))  # raises on a space the model does not take
            observations, _ = env.reset(seed=[0, 1])
            actions = policy.act(observations, env)
            space = env.single_action_space
            if isinstance(actions, dict):  # a Dict action (Platform-v0's): {key: (B, ...)}, checked world by world
                worlds = [{k: v[i] for k, v in actions.items()} for i in range(2)]
                assert all(space.contains(world) for world in worlds), task.id
                continue
            flat = np.asarray(actions).reshape(-1, *(space.shape or ()))
            assert len(flat) == 2 * getattr(env, "num_agents", 1), task.id
            assert all(space.contains(a.astype(space.dtype)) for a in flat), task.id
        finally:
            env.close()
