"""What every single-agent env view shares: the episode plumbing around one batch-of-one simulator.

A view states only what is its own (its simulator, spaces, rewards, infos) in three hooks:
:meth:`SingleAgentEnvView._check_scenario`, :meth:`SingleAgentEnvView._load` and
:meth:`SingleAgentEnvView._step`. This base owns the rest, so every env refuses misuse the same way:

* ``render_mode`` checked against ``metadata["render_modes"]``;
* ``reset``: the seed (Gymnasium's rule, a non-negative int), the option keys (``"scenario"``
  and any a view adds to :attr:`reset_options`), ``np_random`` seeded as ``gymnasium.Env.reset``
  does, and the scenario: ``options["scenario"]`` checked, or the first draw of ``np_random``
  (so the scenario of seed ``s`` is ``generator.sample(s)``);
* ``step`` refused before the first ``reset``, after the episode ended (the step returned
  ``terminated`` or ``truncated``; a ``TimeLimit`` wrapper's truncation is the wrapper's, which
  the env cannot see) and after ``close``; ``"human"`` rendering after every reset and step;
* ``render`` (lazy renderer of world 0) and an idempotent ``close``.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

import gymnasium as gym
import numpy as np
from typing_extensions import override

from benchmarkzoo.core.config import keyword
from benchmarkzoo.core.errors import ClosedEnvError, ResetNeededError
from benchmarkzoo.core.options import check_options
from benchmarkzoo.core.seeding import check_seed
from benchmarkzoo.envs.configured import ConfiguredView

# Episode phases. One attribute compared on every step: the hot path pays one comparison.
NEEDS_RESET, RUNNING, ENDED, CLOSED = range(4)


class SingleAgentEnvView(ConfiguredView, gym.Env):
    """Base of the single-agent (``single`` and ``mo``) views.

    A view that sets ``config_type`` (its env's :class:`~benchmarkzoo.core.config.EnvConfig`) is
    constructed with the config's fields and ``render_mode``
    (:mod:`benchmarkzoo.envs.configured`) and builds its spaces and state in :meth:`_setup`.
    A view without one calls this constructor itself.

    Args:
        generator: the env's scenario generator (already resolved from its name).
        params: the simulator's frozen parameters (``None`` for a view that keeps its own).
        render_mode: one of ``metadata["render_modes"]`` or ``None``.
        env_id: the id messages name; defaults to the class attribute :attr:`env_id`.

    Subclasses implement :meth:`_load` and :meth:`_step` (and :meth:`_check_scenario` unless the
    config does), :meth:`_make_renderer` (or :meth:`_render_frame`) when they render, and
    :meth:`_close_sim` when they hold a simulator process or connection.
    """

    # An instance attribute, as gymnasium.Env declares it (a wrapper or an env may replace it per instance).
    metadata: dict[str, Any] = {"render_modes": []}
    state: Any  # the simulator state :meth:`_load` sets (what the default :meth:`_render_frame` draws)
    #: The keys ``reset(options=...)`` reads; any other key is refused.
    reset_options: ClassVar[tuple[str, ...]] = ("scenario",)

    @classmethod
    def _trailing_parameters(cls) -> tuple[Any, ...]:
        return (keyword("render_mode", None, "str | None"),)

    def _configured_init(self, *args: Any, **kwargs: Any) -> None:
        own = self._configure(args, kwargs)
        SingleAgentEnvView.__init__(self, self.generator, self.params, own["render_mode"], self.env_id)
        self._setup()

    def __init__(self, generator: Any, params: Any, render_mode: str | None, env_id: str | None = None):
        if env_id is not None:
            self.env_id = env_id
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            if not modes:
                raise ValueError(
                    f"{self.env_id}: rendering is not available yet; render_mode must be None, got {render_mode!r}."
                )
            raise ValueError(f"{self.env_id}: render_mode must be one of {modes} or None; got {render_mode!r}.")
        self.generator = generator
        self.params = params
        self.render_mode = render_mode
        self.scenario: Any = None
        self._renderer: Any = None
        self._phase = NEEDS_RESET

    # ---- hooks --------------------------------------------------------------------------------

    def _draw_scenario(self) -> Any:
        """The scenario of a reset without ``options["scenario"]``: the first draw of ``np_random``."""
        return self.generator(self.np_random)

    def _load(self, scenario: Any) -> tuple[Any, dict[str, Any]]:
        """Start an episode of ``scenario``; set :attr:`scenario`; return the first observation and info."""
        raise NotImplementedError

    def _step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Validate ``action`` and advance the simulator one step (Gymnasium's five-tuple)."""
        raise NotImplementedError

    def _make_renderer(self) -> Any:
        raise NotImplementedError

    def _render_frame(self) -> Any:
        """The frame of the current state; by default ``renderer.draw(state, 0)`` of a lazy renderer."""
        if self._renderer is None:
            self._renderer = self._make_renderer()
        return self._renderer.draw(self.state, 0)

    def _close_sim(self) -> None:
        """Release the simulator's resources (processes, connections); called once, by :meth:`close`."""

    # ---- the Gymnasium API ----------------------------------------------------------------------

    @override
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if self._phase == CLOSED:
            self._refuse_closed("reset")
        checked = check_options(self.env_id, options, self.reset_options)
        super().reset(seed=check_seed(self.env_id, seed))
        scenario = checked.get("scenario")
        scenario = self._draw_scenario() if scenario is None else self._check_scenario(scenario)
        self._phase = NEEDS_RESET  # until the load succeeds (a simulator may fail to start)
        observation, info = self._load(scenario)
        self._phase = RUNNING
        if self.render_mode == "human":
            self.render()
        return observation, info

    @override
    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        if self._phase != RUNNING:
            self._refuse_step()
        result = self._step(action)
        if result[2] or result[3]:
            self._phase = ENDED
        if self.render_mode == "human":
            self.render()
        return result

    @override
    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn(
                f"{self.env_id}: render() called without a render_mode; pass render_mode='rgb_array' to gym.make."
            )
            return None
        if self._phase == CLOSED:
            self._refuse_closed("render")
        if self.scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before render().")
        return self._render_frame()

    @override
    def close(self) -> None:
        """Release the renderer and the simulator; safe to call twice. The env refuses every call after it."""
        if self._phase == CLOSED:
            return
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self._phase = CLOSED
        self._close_sim()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._phase == CLOSED

    # ---- refusals -------------------------------------------------------------------------------

    def _refuse_step(self) -> None:
        if self._phase == CLOSED:
            self._refuse_closed("step")
        if self._phase == ENDED:
            raise ResetNeededError(
                f"{self.env_id}: the episode has ended (the last step returned terminated or truncated); call "
                "reset() to start a new one before step()."
            )
        raise ResetNeededError(f"{self.env_id}: call reset() before step().")

    def _refuse_closed(self, method: str) -> NoReturn:
        raise ClosedEnvError(
            f"{self.env_id}: {method}() called after close(); a closed env has released its simulator. "
            "Make a new env (gym.make) to keep going."
        )


def episode_info(values: dict[str, np.ndarray]) -> dict[str, bool]:
    """World 0's entries of a batched ``(1,)`` bool info dict, as Python bools."""
    return {key: bool(value[0]) for key, value in values.items()}
