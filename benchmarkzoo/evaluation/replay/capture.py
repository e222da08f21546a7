"""Filming an episode while the evaluation's runner replays it: a policy wrapper that takes pictures.

The runner calls the policy once per step, with the env in the state the action is chosen in
(after the reset, then after each step), and the replay's ``on_episode`` callback once the episode
has ended: so a picture before every action plus one at the end gives ``length + 1`` pictures, the
last one the final state. The episode is played by :func:`~benchmarkzoo.evaluation.runner.run_episodes`
itself, on one world, so the filmed episode is the recorded one and not a second implementation of it.
"""

from __future__ import annotations

import math
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from typing_extensions import override

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.replay.scenes import GRID_WORLDS, Scene, reader_for
from benchmarkzoo.leaderboard.verify import RecordingPolicy

T = TypeVar("T", covariant=True)
P = TypeVar("P")


class ReplayError(BenchmarkZooError, ValueError):
    """An episode that cannot be replayed or filmed as asked (the message says what to pass instead)."""


class Camera(Protocol[T]):
    """Takes a picture of world 0 of a vector env.

    Attributes:
        render_mode: the render mode the env must be made with for :meth:`take` (``None``: none).
    """

    render_mode: str | None = None

    def aim(self, env: Any, spec: registration.EnvSpec) -> None:
        """Refuse, before the episode starts, an env this camera cannot film."""

    def take(self, env: Any) -> T:
        """The picture of world 0 now."""


class FrameCamera(Camera[np.ndarray]):
    """``rgb_array`` frames, shrunk so that neither side exceeds ``max_side`` pixels."""

    render_mode = "rgb_array"

    def __init__(self, max_side: int):
        self.max_side = max_side

    @override
    def aim(self, env: Any, spec: registration.EnvSpec) -> None:
        if getattr(env, "render_mode", None) != "rgb_array":
            raise ReplayError(
                f"{spec.id}: its vector env does not render rgb_array frames; write an .svg if it is a grid world."
            )

    @override
    def take(self, env: Any) -> np.ndarray:
        from benchmarkzoo.evaluation.replay.video import fit

        return fit(np.asarray(env.render()[0]), self.max_side)  # (H, W, 3) uint8


class SceneCamera(Camera[Scene]):
    """Grid scenes (walls, agents, goals) read from the simulator state, for the animated SVG."""

    @override
    def aim(self, env: Any, spec: registration.EnvSpec) -> None:
        if reader_for(getattr(env, "unwrapped", env)) is None:
            raise ReplayError(
                f"--out .svg draws grid worlds ({GRID_WORLDS}); {spec.id} is not one. Write a .gif instead."
            )

    @override
    def take(self, env: Any) -> Scene:
        base = getattr(env, "unwrapped", env)  # the multi-agent native vector env is not a gymnasium VectorEnv
        reader = reader_for(base)
        assert reader is not None, "aim() refused every env without a reader"
        return reader(base, 0)


class Filming(RecordingPolicy, Generic[P]):
    """``inner``, plus a picture before every ``stride``-th action and one of the final state.

    Args:
        inner: the policy that acts.
        camera: what a picture is (a frame, a scene).
        stride: keep every ``stride``-th picture (the final one always), to cap long episodes.
    """

    def __init__(self, inner: Policy, camera: Camera[P], stride: int = 1):
        super().__init__(inner)
        self.camera, self.stride = camera, stride
        self.pictures: list[P] = []
        self.offered = 0  # pictures offered so far: the steps played, plus one once the episode ended
        self.env: Any = None

    @override
    def setup(self, env: Any, spec: registration.EnvSpec) -> None:
        self.camera.aim(env, spec)
        self.env, self.pictures, self.offered = env, [], 0  # a fresh env (a replayed crash) starts a fresh film
        super().setup(env, spec)

    @override
    def act(self, observations: Any, env: Any) -> Any:
        if self.offered % self.stride == 0:
            self.pictures.append(self.camera.take(env))
        self.offered += 1
        return super().act(observations, env)

    def ended(self) -> None:
        """The episode is over: picture its final state."""
        self.pictures.append(self.camera.take(self.env))
        self.offered += 1


def stride_for(length: int, max_frames: int) -> int:
    """The stride that keeps at most ``max_frames`` of an episode's ``length + 1`` pictures."""
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2 (the first and the final state); got {max_frames}.")
    # every stride-th of the first `length` pictures, plus the final one
    return max(1, math.ceil(length / (max_frames - 1)))
