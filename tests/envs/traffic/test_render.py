"""The traffic envs' top-down frames: shape, motion, signal colours, queues, and no effect on episodes."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from pettingzoo.test import render_test
from pettingzoo.utils.conversions import parallel_to_aec

from benchmarkzoo.envs.traffic import session
from benchmarkzoo.envs.traffic.geometry import network_geometry
from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv
from benchmarkzoo.envs.traffic.render import AGENT, HUD, MOVING, QUEUED, SIGNAL_COLOURS, frame_size
from benchmarkzoo.envs.traffic.routing.env import RoutingEnv
from benchmarkzoo.envs.traffic.routing.sim import AGENT_PREFIX
from benchmarkzoo.envs.traffic.runner import WorkerRunner
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv

GRID = {"generator_kwargs": {"duration": 300, "rate": 500}}


def colour(frame: np.ndarray, pixel: tuple[int, int]) -> tuple[int, int, int]:
    x, y = pixel
    return tuple(int(c) for c in frame[y, x])


def stop_line_colours(env, state_of):
    """Per stop-line piece of the last frame: its pixel and the colours its lane's links show.

    A piece is a link's share of its lane's width, a pixel or two at these scales, so a piece's
    centre may be painted by its neighbour: it must show one of its lane's links' colours, and a
    lane whose links all show one character (``"rrr"``) must show exactly that character's.
    """
    lanes: dict[str, list] = {}
    for line, pixel in env._renderer.stop_pixels:
        lanes.setdefault(line.lane, []).append((pixel, state_of(line.tls)[line.link]))
    return [(pixel, {SIGNAL_COLOURS[c] for _, c in lane}) for lane in lanes.values() for pixel, _ in lane]


def test_frame_shape_dtype_and_motion():
    env = TrafficSignalEnv(render_mode="rgb_array")
    try:
        env.reset(seed=0)
        for _ in range(20):
            env.step(0)
        first = env.render()
        before = env._renderer.vehicle_centres(env._runner.snapshot())
        geometry = network_geometry(env.scenario)
        assert first.dtype == np.uint8 and first.shape == (*frame_size(geometry.bounds)[::-1], 3) == (744, 720, 3)
        env.step(0)
        second = env.render()
        after = env._renderer.vehicle_centres(env._runner.snapshot())
        assert second.shape == first.shape
        moved = np.any(first[HUD:] != second[HUD:], axis=2)  # below the text strip
        assert moved.sum() > 20
        # every changed pixel belongs to a vehicle of one frame or the other: nothing else moves
        centres = np.concatenate([before, after])
        ys, xs = np.nonzero(moved)
        near = np.hypot(xs[:, None] - centres[None, :, 0], ys[:, None] + HUD - centres[None, :, 1]).min(axis=1)
        assert near.max() < 6
    finally:
        env.close()


def test_stop_lines_show_the_signal_state_and_follow_a_phase_change():
    env = TrafficSignalEnv(render_mode="rgb_array")
    try:
        env.reset(seed=0)
        greens = env.layout.greens[0]
        sampled = {}
        for action in (0, 1):
            env.step(action)  # the minimum green (5 s) has passed after one step: the change is honoured
            assert env._measurement.phase[0] == action
            frame = env.render()
            pieces = stop_line_colours(env, lambda tls: greens[env._measurement.phase[0]])
            assert len(pieces) == len(greens[0])  # one piece per link of the light
            assert all(colour(frame, pixel) in allowed for pixel, allowed in pieces)
            sampled[action] = {pixel: colour(frame, pixel) for pixel, _ in pieces}
        assert set(sampled[0].values()) >= {SIGNAL_COLOURS["G"], SIGNAL_COLOURS["r"]}
        red = SIGNAL_COLOURS["r"]
        # the phase change turned every red piece non-red and the others red
        assert all((sampled[0][p] == red) != (sampled[1][p] == red) for p in sampled[0])
    finally:
        env.close()


def test_halted_vehicles_are_drawn_in_the_queue_colour_where_they_are():
    env = TrafficSignalEnv(render_mode="rgb_array")
    try:
        env.reset(seed=0)
        for _ in range(30):
            env.step(0)  # north-south green throughout: queues build east and west
        frame = env.render()
        snapshot = env._runner.snapshot()  # the same moment: no step between
        centres = env._renderer.vehicle_centres(snapshot).astype(int)
        lines = np.array([pixel for _, pixel in env._renderer.stop_pixels])
        clear = np.hypot(*(centres[:, None, :] - lines[None]).transpose(2, 0, 1)).min(axis=1) > 4
        halted = snapshot.halted & clear
        assert halted.sum() >= 5 and env._measurement.halting.sum() >= 5
        assert all(colour(frame, tuple(c)) == QUEUED for c in centres[halted])
        queued_centres = centres[snapshot.halted]
        far = np.hypot(*(centres[:, None, :] - queued_centres[None]).transpose(2, 0, 1)).min(axis=1) > 6
        moving = ~snapshot.halted & clear & far
        assert moving.sum() >= 3
        assert all(colour(frame, tuple(c)) == MOVING for c in centres[moving])
    finally:
        env.close()


def test_grid_stop_lines_match_every_signal():
    env = TrafficGridEnv(render_mode="rgb_array", max_cycles=20, **GRID)
    try:
        env.reset(seed=0)
        env.step({"A0": 1, "A1": 0, "B0": 0, "B1": 1})  # two signals switch, two keep their green
        frame = env.render()
        layout, phase = env.layout, env._measurement.phase
        state = {tls: layout.greens[k][phase[k]] for k, tls in enumerate(layout.tls_ids)}
        pieces = stop_line_colours(env, state.__getitem__)
        assert len({line.tls for line, _ in env._renderer.stop_pixels}) == 4
        assert len(pieces) == sum(len(s) for s in state.values())
        shown = [colour(frame, pixel) for pixel, _ in pieces]
        assert all(c in allowed for c, (_, allowed) in zip(shown, pieces))
        assert {SIGNAL_COLOURS["r"], SIGNAL_COLOURS["G"]} <= set(shown)
    finally:
        env.close()


def test_routing_draws_its_agents_apart_from_the_humans():
    env = RoutingEnv(render_mode="rgb_array", generator_kwargs={"num_agents": 8})
    try:
        env.reset(seed=0)
        for _ in range(4):
            env.step(dict.fromkeys(env.agents, 0))
        frame = env.render()
        snapshot = env._runner.snapshot()
        centres = env._renderer.vehicle_centres(snapshot).astype(int)
        agents = np.array([v.startswith(AGENT_PREFIX) for v in snapshot.vehicles])
        lines = np.array([pixel for _, pixel in env._renderer.stop_pixels])
        others = np.hypot(*(centres[:, None, :] - centres[None]).transpose(2, 0, 1))
        np.fill_diagonal(others, np.inf)
        clear = (np.hypot(*(centres[:, None, :] - lines[None]).transpose(2, 0, 1)).min(axis=1) > 4) & (
            others.min(axis=1) > 6
        )  # no stop line and no other vehicle drawn over the centre
        moving = ~snapshot.halted & clear
        assert (agents & moving).sum() >= 1 and (~agents & moving).sum() >= 3
        assert all(colour(frame, tuple(c)) == AGENT for c in centres[agents & moving])
        assert all(colour(frame, tuple(c)) == MOVING for c in centres[~agents & moving])
    finally:
        env.close()


def _signal_rollout(render_mode, steps=40):
    env = TrafficSignalEnv(render_mode=render_mode)
    actions = np.random.default_rng(1).integers(0, 2, steps)
    try:
        obs, _ = env.reset(seed=3)
        out = [obs]
        for a in actions.tolist():
            obs, reward, *_ = env.step(a)
            out += [obs, np.array([reward])]
            if render_mode is not None:
                env.render()
        return out
    finally:
        env.close()


def _grid_rollout(render_mode, steps=30):
    env = TrafficGridEnv(render_mode=render_mode, max_cycles=steps, **GRID)
    rng = np.random.default_rng(1)
    try:
        observations, _ = env.reset(seed=3)
        out = [observations[a] for a in env.possible_agents]
        while env.agents:
            observations, rewards, *_ = env.step({a: int(rng.integers(2)) for a in env.agents})
            out += [observations[a] for a in observations] + [np.array([rewards[a] for a in env.possible_agents])]
            if render_mode is not None:
                env.render()
        return out
    finally:
        env.close()


@pytest.mark.parametrize("rollout", [_signal_rollout, _grid_rollout], ids=["signal", "grid"])
def test_rendering_does_not_change_the_episode(rollout):
    plain, rendered = rollout(None), rollout("rgb_array")
    assert len(plain) == len(rendered) > 60
    assert all(np.array_equal(a, b) for a, b in zip(plain, rendered))
    assert any(np.any(x != 0) for x in plain[2::2])  # the episode has non-zero rewards to compare


def test_no_render_mode_draws_nothing(monkeypatch):
    def refuse(*args):
        raise AssertionError("read for a frame without a render_mode")

    monkeypatch.setattr(WorkerRunner, "snapshot", refuse)
    monkeypatch.setattr(session, "network_geometry", refuse)
    env = TrafficSignalEnv()
    try:
        env.reset(seed=0)
        for _ in range(5):
            env.step(1)
        with pytest.warns(UserWarning, match="without a render_mode"):
            assert env.render() is None
        assert env._renderer is None
    finally:
        env.close()


def test_human_mode_draws_a_window_after_every_step():
    env = TrafficGridEnv(render_mode="human", max_cycles=3, **GRID)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.reset(seed=0)
            while env.agents:
                env.step(dict.fromkeys(env.agents, 0))
        assert env._renderer is not None and env._renderer.render_mode == "human" and env.render() is None
    finally:
        env.close()


def test_traci_frames_equal_the_workers():
    frames = []
    for backend in ("libsumo", "traci"):
        env = TrafficSignalEnv(render_mode="rgb_array", backend=backend)
        try:
            env.reset(seed=2)
            for _ in range(15):
                env.step(0)
            frames.append(env.render())
        finally:
            env.close()
    assert np.array_equal(frames[0], frames[1])


def test_invalid_render_mode_is_refused(signal_env_id):
    refused = r"render_mode must be one of \['rgb_array', 'human'\] or None; got 'ansi'"
    with pytest.warns(UserWarning, match="not in the possible render_modes"), pytest.raises(ValueError, match=refused):
        gym.make(signal_env_id, render_mode="ansi")
    with pytest.raises(ValueError, match=r"TrafficGrid-v0: render_mode must be one of"):
        TrafficGridEnv(render_mode="rgb")


def test_gymnasiums_render_check_passes(signal_env_id):
    env = gym.make(signal_env_id, render_mode="rgb_array")  # with a spec, the checker also tries "human"
    try:
        gymnasium_check_env(env.unwrapped)
    finally:
        env.close()


def test_pettingzoos_render_test_passes():
    render_test(lambda render_mode=None: parallel_to_aec(TrafficGridEnv(render_mode=render_mode, max_cycles=4, **GRID)))
