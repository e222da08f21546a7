"""The one vector core: what the single-agent and multi-agent native vector bases share.

:class:`~benchmarkzoo.vector.base.NativeVectorEnv` (Gymnasium's ``VectorEnv``) and
:class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv` (``(B, N)`` agent arrays) differ
in their step loops only. Everything else is here, once: the checks of ``num_envs``, the time
limit, ``autoreset_mode`` and ``render_mode``; world ``i``'s own generator seeded like the single
env's ``reset(seed=s + i)``; the steps since each world's reset and the worlds that ended; the
reset options and ``reset_mask``; the refusals of a step before reset, after close and (autoreset
``DISABLED``) of an ended world; the constructor from the env's config; a default
:meth:`VectorCore._load_worlds` over ``sim.load``; lazy per-world rendering.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar, NoReturn

import numpy as np
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.config import keyword
from benchmarkzoo.core.errors import ClosedEnvError, ResetNeededError
from benchmarkzoo.core.options import check_options
from benchmarkzoo.core.seeding import np_random, world_seeds
from benchmarkzoo.envs.configured import ConfiguredView

#: The keys a native vector env's ``reset(options=...)`` reads (both vector bases).
VECTOR_RESET_OPTIONS = ("scenario", "reset_mask")


def refuse_closed(env_id: str, method: str) -> NoReturn:
    """Raise :class:`ClosedEnvError` for ``method`` called on a closed vector env."""
    raise ClosedEnvError(
        f"{env_id}: {method}() called after close(); a closed vector env has released its simulators. "
        "Make a new one (gym.make_vec or benchmarkzoo.make_vec) to keep going."
    )


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool) and bool(value >= 1)


def check_reset_mask(env_id: str, mask: Any, num_envs: int, has_reset: bool) -> np.ndarray:
    """``options["reset_mask"]``: a ``(num_envs,)`` bool array selecting at least one world (``None``: all)."""
    if mask is None:
        return np.ones(num_envs, dtype=bool)
    if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (num_envs,)):
        raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({num_envs},); got {mask!r}.")
    if not mask.any():
        raise ValueError("options['reset_mask'] selects no world; pass at least one True, or no mask to reset all.")
    if not has_reset and not mask.all():
        raise ResetNeededError(f"{env_id}: the first reset must reset every world; drop reset_mask.")
    return mask


def vector_metadata(single: Mapping[str, Any]) -> dict[str, Any]:
    """A native vector form's ``metadata``, from its single env's (declared once, there).

    Next-step autoreset by default (the constructor records the mode it is given), ``rgb_array``
    rendering only (a batch renders frames of its worlds, never a window) and the single env's
    frame rate, if it has one.
    """
    metadata = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [mode for mode in single.get("render_modes", ()) if mode == "rgb_array"],
    }
    if "render_fps" in single:
        metadata["render_fps"] = single["render_fps"]
    return metadata


class VectorCore(ConfiguredView):
    """Per-world state and plumbing of a native vector env; see the module docstring.

    A subclass with a ``config_type`` is constructed as ``(num_envs, <config fields>, <time limit>,
    autoreset_mode, render_mode)`` and builds its spaces and simulator state in :meth:`_setup`
    (by default from ``build_spaces`` and ``sim.init_state``); it sets ``sim`` (the simulator
    module) to use the default :meth:`_load_worlds`.
    """

    # An instance attribute, as Gymnasium's ``VectorEnv`` declares it: the constructor sets the autoreset mode in it.
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    closed: bool  # set by the vector base (Gymnasium's ``VectorEnv.closed`` for the single-agent one)
    #: The keys ``reset(options=...)`` reads; any other key is refused.
    reset_options: ClassVar[tuple[str, ...]] = VECTOR_RESET_OPTIONS
    #: The autoreset modes the base implements.
    autoreset_modes: ClassVar[tuple[AutoresetMode, ...]] = tuple(AutoresetMode)
    #: The constructor's name for the time limit (``max_episode_steps`` or ``max_cycles``).
    time_limit_name: ClassVar[str] = "max_episode_steps"
    #: The simulator module of the default :meth:`_load_worlds` (``load(state, world, scenario, params)``)
    #: and, with :attr:`build_spaces`, of the default :meth:`_setup` (``init_state(params, num_worlds)``).
    sim: Any = None
    #: The env's ``build_spaces(params) -> (observation space, action space)``, as a ``staticmethod``.
    build_spaces: Any = None
    #: The attribute holding the simulator state (``sim_state`` where a parallel view's ``state()`` takes the name).
    state_attribute: ClassVar[str] = "state"
    _leading_parameters = (keyword("num_envs", 1, "int"),)

    @classmethod
    def _trailing_parameters(cls) -> tuple[inspect.Parameter, ...]:
        limit = cls.config_type.time_limit if cls.config_type is not None else None
        return (
            keyword(cls.time_limit_name, limit, "int | None"),
            keyword("autoreset_mode", AutoresetMode.NEXT_STEP, "AutoresetMode | str"),
            keyword("render_mode", None, "str | None"),
        )

    def _configured_init(self, *args: Any, **kwargs: Any) -> None:
        own = self._configure(args, kwargs)
        type(self)._base_init(
            self, own["num_envs"], own[self.time_limit_name], own["autoreset_mode"], own["render_mode"]
        )
        self.scenarios: list[Any] = [None] * self.num_envs
        self._setup()

    @classmethod
    def _base_init(cls, env: Any, num_envs: int, limit: int | None, autoreset_mode: Any, render_mode: Any) -> None:
        """The base's plain constructor (each vector base's ``__init__`` takes these four)."""
        raise NotImplementedError

    def _init_worlds(
        self, num_envs: Any, limit: Any, autoreset_mode: AutoresetMode | str, render_mode: str | None
    ) -> AutoresetMode:
        """Check the base's own arguments and create the per-world state; return the autoreset mode."""
        if not _is_positive_int(num_envs):
            raise ValueError(f"num_envs must be a positive integer; got {num_envs!r}.")
        if limit is not None and not _is_positive_int(limit):
            raise ValueError(
                f"{self.env_id}: {self.time_limit_name} must be a positive integer or None; got {limit!r}."
            )
        mode = AutoresetMode(autoreset_mode)
        if mode not in self.autoreset_modes:
            names = " or ".join(m.name for m in self.autoreset_modes)
            raise ValueError(
                f"{self.env_id}: the multi-agent vector form supports autoreset_mode {names}; got {mode.value!r}. "
                "Use NEXT_STEP (final observations come with each agent's termination)."
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None; got {render_mode!r}."
            )
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self._rngs: list[np.random.Generator | None] = [None] * self.num_envs
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)  # steps since each world's reset
        self._ended = np.zeros(self.num_envs, dtype=bool)  # the world's episode ended on the last step
        self._has_reset = False
        self._renderer: Any = None
        return mode

    # ---- hooks --------------------------------------------------------------------------------

    def _draw_world(self, world: int) -> Any:
        """World ``world``'s next scenario when none is passed: a draw from its own generator."""
        return self.generator(self.world_rng(world))

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        """Load ``options["scenario"]`` (checked) or a fresh :meth:`_draw_world` into each world of ``worlds``.

        Returns:
            the reset info as a dict of ``(num_envs, ...)`` arrays; only entries at ``worlds`` are read.
        """
        state = getattr(self, self.state_attribute)
        for i, scenario in zip(worlds, self._next_scenarios(worlds, options), strict=True):
            self._load_world(state, i, scenario)
        return self._reset_info()

    def _next_scenarios(self, worlds: np.ndarray, options: dict[str, Any] | None) -> list[Any]:
        """Set and return the scenarios of ``worlds``: ``options["scenario"]`` (checked), else :meth:`_draw_world`'s."""
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            self._check_scenario(fixed)
        for i in worlds:
            self.scenarios[i] = fixed if fixed is not None else self._draw_world(i)
        return [self.scenarios[i] for i in worlds]

    def _load_world(self, state: Any, world: int, scenario: Any) -> None:
        """Load ``scenario`` into world ``world`` of ``state``: ``sim.load(state, world, scenario, params)``."""
        self.sim.load(state, world, scenario, self.params)

    def _reset_info(self) -> dict[str, np.ndarray]:
        """The info of the worlds just loaded by the default :meth:`_load_worlds`."""
        return {}

    def _make_renderer(self) -> Any:
        raise NotImplementedError

    def _setup(self) -> None:
        """By default: the spaces of :attr:`build_spaces` and ``num_envs`` worlds of ``sim.init_state``."""
        if self.build_spaces is not None:
            self._set_spaces(*self.build_spaces(self.params))
            setattr(self, self.state_attribute, self.sim.init_state(self.params, self.num_envs))

    def _set_spaces(self, single_observation_space: Any, single_action_space: Any) -> None:
        """Set the spaces of one world (one agent's, multi-agent) and their batches; each vector base has its own."""
        raise NotImplementedError

    # ---- shared plumbing ----------------------------------------------------------------------

    def world_rng(self, world: int) -> np.random.Generator:
        """World ``world``'s generator (created from OS entropy on first use if never seeded)."""
        rng = self._rngs[world]
        if rng is None:
            rng = self._rngs[world] = np_random(None)
        return rng

    def _reset_worlds(self, seed: Any, options: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """The shared part of ``reset``: check ``seed`` and ``options``, reseed and reload the selected worlds.

        Returns:
            the ``(num_envs,)`` mask of the worlds reset, their indices and their reset info.
        """
        if self.closed:
            refuse_closed(self.env_id, "reset")
        seeds = world_seeds(seed, self.num_envs, self.env_id)
        options = dict(check_options(self.env_id, options, self.reset_options))
        mask = check_reset_mask(self.env_id, options.pop("reset_mask", None), self.num_envs, self._has_reset)
        worlds = np.flatnonzero(mask)
        for i in worlds:
            if seeds[i] is not None:
                self._rngs[i] = np_random(seeds[i])
        info = self._load_worlds(worlds, options or None)
        self._elapsed[worlds] = 0
        self._ended[worlds] = False
        self._has_reset = True
        return mask, worlds, info

    def _refuse_step(self) -> None:
        """Raise for a step that cannot run: before reset, after close, or into an ended world under ``DISABLED``."""
        if not self._has_reset:
            if self.closed:
                refuse_closed(self.env_id, "step")
            raise ResetNeededError(f"{self.env_id}: call reset() before step().")
        raise ResetNeededError(
            f"{self.env_id}: worlds {np.flatnonzero(self._ended).tolist()} have ended and autoreset is "
            "DISABLED; call reset(options={'reset_mask': ended}) before stepping them."
        )

    def render(self) -> tuple[Any, ...] | None:
        """One ``rgb_array`` frame per world (``None`` without a ``render_mode``)."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            self._renderer = self._make_renderer()
        state = getattr(self, self.state_attribute)
        return tuple(self._renderer.draw(state, i) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        """Release the renderer; subclasses holding simulator processes release them too."""
        if getattr(self, "_renderer", None) is not None:  # __del__ also runs after a failed __init__
            self._renderer.close()
            self._renderer = None
