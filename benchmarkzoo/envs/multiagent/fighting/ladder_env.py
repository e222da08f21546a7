"""``benchmarkzoo/FightingLadder-v0``: seat 0 of FightingDuel playing up the ladder of scripted bots.

A variant of ``FightingDuel-v0`` (:mod:`~benchmarkzoo.envs.multiagent.fighting.env`): the same
simulator, observation, actions, masks and reward of seat 0, with seat 1 the bot of the current
rung. Both forms are here (config, the Gymnasium env and its native vector form), over one
:func:`climb`, which is all the ladder adds to the duel: after a step, a won match loads the next
rung's match into the world, and a match not won ends the run.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, cast

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.config import arg, integer
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_discrete_batch
from benchmarkzoo.envs.multiagent.fighting import bots, sim
from benchmarkzoo.envs.multiagent.fighting.env import FightingConfig, build_spaces, make_renderer, seat_actions
from benchmarkzoo.envs.multiagent.fighting.generator import LadderGenerator, LadderScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata

#: The longest match of the registered settings is 3 rounds of 480 frames, 4 frames a step: 360
#: steps. A full run of the ten rungs is at most 3600; the limit never cuts one short.
TIME_LIMIT = 4000


@dataclasses.dataclass(frozen=True)
class LadderParams(sim.Params):
    """:class:`sim.Params` of a ladder (seat 1 always a bot), with the rung every run starts on."""

    start_rung: int = 0


class FightingLadderConfig(FightingConfig):
    """The arguments of FightingLadder-v0 (both forms): FightingDuel-v0's, a ladder generator and the start rung."""

    generator: str | Generator = "fighting/ladder"
    start_rung: int = arg(default=0, check=integer(0, len(bots.BOTS) - 1))

    generator_type: ClassVar[type] = LadderGenerator
    generator_needs: ClassVar[str] = "a fighting ladder generator"
    time_limit: ClassVar[int] = TIME_LIMIT

    @override
    def sim_params(self, generator: Any, env_id: str) -> LadderParams:  # the config's generator_type: a ladder
        if self.start_rung >= len(generator.bots):
            raise ValueError(
                f"{env_id}: start_rung must be a rung of the ladder, 0 .. {len(generator.bots) - 1} for bots "
                f"{generator.bots}; got {self.start_rung}. Lower start_rung or add bots to the generator."
            )
        duel = super().sim_params(generator.match, env_id)  # a generator without opponents: learners=2
        return LadderParams(**{**dataclasses.asdict(duel), "learners": 1}, start_rung=self.start_rung)

    @override
    def check_scenario(  # type: ignore[override]  # a ladder's scenario is a run of FightingDuel's, not one
        self, scenario: Any, generator: Any, params: sim.Params, env_id: str
    ) -> LadderScenario:
        start = cast(LadderParams, params).start_rung  # this config's sim_params made them
        if not isinstance(scenario, LadderScenario):
            raise ScenarioError(
                f"{env_id}: options['scenario'] must be a LadderScenario (one FightingScenario per rung, e.g. "
                f"LadderScenario((FightingScenario(opponent='passive'),))); got {scenario!r:.80}."
            )
        if len(scenario.matches) <= start:
            raise ScenarioError(
                f"{env_id} starts on rung {start}; options['scenario'] has only "
                f"{len(scenario.matches)} rung(s). Pass a LadderScenario with more matches, or lower start_rung."
            )
        return scenario


@dataclasses.dataclass
class Climb:
    """Where each world's run is: ``(B,)`` int64 arrays, and the ladders the worlds play.

    Attributes:
        rung: the rung being played (the index of its match in the ladder).
        won: matches won in this run.
        size: rungs of the world's ladder.
        ladders: each world's :class:`LadderScenario` (``None`` before its first load).
    """

    rung: np.ndarray
    won: np.ndarray
    size: np.ndarray
    ladders: list[LadderScenario | None]

    @classmethod
    def empty(cls, num_worlds: int) -> Climb:
        """``num_worlds`` worlds with no ladder yet."""

        def zeros() -> np.ndarray:
            return np.zeros(num_worlds, dtype=np.int64)

        return cls(rung=zeros(), won=zeros(), size=zeros(), ladders=[None] * num_worlds)

    def start(self, state: sim.State, world: int, ladder: LadderScenario, params: LadderParams) -> None:
        """Begin a run of ``ladder`` in ``world``: its ``start_rung`` match loaded, no match won."""
        self.ladders[world] = ladder
        self.rung[world], self.won[world], self.size[world] = params.start_rung, 0, len(ladder.matches)
        sim.load(state, world, ladder.matches[params.start_rung], params)

    def info(self, state: sim.State, masks: np.ndarray, cleared: np.ndarray) -> dict[str, np.ndarray]:
        """The batched info of the worlds as they are now (``masks``: ``(B, 2, A)``, ``cleared``: ``(B,)``).

        ``action_mask`` ``(B, A)`` (seat 0's), ``rung``, ``opponent`` (object: names), ``matches_won``
        and ``is_success`` (``cleared``), each ``(B,)``.
        """
        opponent = np.empty(state.num_worlds, dtype=object)
        opponent[:] = [bots.BOTS[i] if i >= 0 else None for i in state.opponent.tolist()]
        return {
            "action_mask": masks[:, 0],
            "rung": self.rung.copy(),
            "opponent": opponent,
            "matches_won": self.won.copy(),
            "is_success": cleared,
        }


def climb(run: Climb, state: sim.State, params: LadderParams, was_done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ladder's rule after a step: ``(terminated, cleared)``, ``(B,)`` bool.

    A world whose match ended on this step (``state.done`` now, not in ``was_done``) and was won
    (more rounds than the bot) moves up a rung, its next match loaded at once; won on the top rung,
    the run is over and cleared. A match lost or drawn ends the run.
    """
    over = state.done & ~was_done
    won = over & (state.wins[:, 0] > state.wins[:, 1])
    run.won += won
    top = run.rung + 1 >= run.size
    for w in np.flatnonzero(won & ~top).tolist():
        run.rung[w] += 1
        ladder = run.ladders[w]
        assert ladder is not None  # a world that played a match was started
        sim.load(state, w, ladder.matches[run.rung[w]], params)
    cleared = won & top
    return over & ~(won & ~top), cleared


class FightingLadderEnv(SingleAgentEnvView):
    """FightingDuel's seat 0 against the scripted ladder, one rung after another: win to move up.

    ## Description

    The agent is ``player_0`` of ``benchmarkzoo/FightingDuel-v0``
    (:class:`~benchmarkzoo.envs.multiagent.fighting.env.FightingDuelEnv`, whose docstring gives
    the game) and plays up the ladder of scripted bots
    (:data:`~benchmarkzoo.envs.multiagent.fighting.bots.BOTS`, weakest first: ``passive``,
    ``masher``, ``jumper``, ``zoner``, ``mixer``, ``rushdown``, ``anti_air``, ``punisher``,
    ``blocker``, ``champion``). A run starts against the bot of rung ``start_rung`` (0, the
    lowest). Each rung is one FightingDuel match (best of three rounds); winning it (more rounds
    than the bot) moves the agent up a rung, whose match starts on the next step. The run ends at
    the first match not won, or when the top rung's match is won (the ladder is cleared).

    The scenario (``"fighting/ladder"``, a ``LadderScenario``) holds one FightingDuel match per
    rung: characters, stage, start and the bot's random seed drawn as FightingDuel's generator
    draws them, in rung order from the one seed; the ``ood`` split's matches are the held-out
    pairs (zoner against grappler) on the narrow bridge.

    ## Action Space

    FightingDuel's, seat 0's: ``Discrete(54)``, ``direction * 6 + button``. ``info["action_mask"]``
    (``(54,)`` int8, 1 = legal) every step; a masked action is played as 0 (neutral), as in
    FightingDuel. An action outside ``Discrete(54)`` raises ``InvalidActionError``.

    ## Observation Space

    FightingDuel's ``player_0`` observation, unchanged: ``Box(-1, 1, (66,), float32)``. It holds
    no rung: the bot is told apart from play, as in FightingDuel's scored form, so a policy of
    FightingDuel's seat 0 plays the ladder as it is (the rung is in ``info``).

    ## Rewards

    FightingDuel's seat-0 reward, nothing added: each step ``damage dealt / the bot's max health
    - damage taken / own max health`` plus ``round_reward`` (1.0) for a round won, minus it for a
    round lost. A run returns the sum of its matches' returns, at most ``(1 + round_reward) *
    (2 * rounds_to_win - 1)`` per match in absolute value.

    ## Episode End

    * Termination: on the step a match ends not won (lost, or drawn on rounds), or the top rung's
      match ends won.
    * Truncation: after ``max_episode_steps`` steps (4000 in the registered spec: longer than any
      run of the registered settings, 3600 steps).
    * Every step (and reset), ``info`` holds ``action_mask``, ``rung`` (the rung of the match now
      being played: on the step a match is won it is already the next one's), ``opponent`` (its
      bot's name), ``matches_won`` (in this run) and ``is_success`` (the ladder cleared).

    ## Arguments

    ```python
    gymnasium.make("benchmarkzoo/FightingLadder-v0", generator="fighting/ladder",
                   generator_kwargs={"bots": None, "characters": None, "stages": None, "pairs": "train",
                                     "max_offset": 500, "max_meter": 0},
                   frame_skip=4, round_frames=480, rounds_to_win=2, round_reward=1.0, start_rung=0,
                   render_mode=None)
    ```

    * ``generator_kwargs["bots"]``: the ladder, lowest rung first: distinct bot names in any order
      (default all ten, in the measured order); the other generator arguments are FightingDuel's.
    * ``start_rung``: the rung a run starts on (``0 .. len(bots) - 1``).
    * FightingDuel's ``frame_skip``, ``round_frames``, ``rounds_to_win`` and ``round_reward``.
    * ``reset(options={"scenario": LadderScenario(...)})`` plays a given ladder.

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The native vector form is
    ``gym.make_vec("benchmarkzoo/FightingLadder-v0", num_envs, vectorization_mode="vector_entry_point")``
    (:class:`FightingLadderVectorEnv`). The baseline is ``bots.BotPolicy()``, the ``champion``, in seat 0.

    ## Rendering

    FightingDuel's (``render_mode="rgb_array"`` or ``"human"``; the ``render`` extra): the match
    being played.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.fighting.ladder_env import FightingLadderEnv
    >>> env = FightingLadderEnv()
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, info["rung"], info["opponent"], info["matches_won"]
    ((66,), 0, 'passive', 0)
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 15}
    config_type = FightingLadderConfig
    params: LadderParams
    state: sim.State

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        self.state = sim.init_state(self.params, 1)
        self.run = Climb.empty(1)
        self._action = np.zeros((1, 1), dtype=np.int64)
        self._masks = np.zeros((1, 2, sim.NUM_ACTIONS), dtype=np.int8)
        self._not_cleared = np.zeros(1, dtype=bool)

    def _load(self, scenario: LadderScenario) -> tuple[np.ndarray, dict[str, Any]]:
        self.scenario = scenario
        self.run.start(self.state, 0, scenario, self.params)
        return self._observe(), self._info(self._not_cleared)

    def _step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if type(action) is not int or not 0 <= action < sim.NUM_ACTIONS:  # plain ints skip the generic check
            check_action(self.env_id, self.action_space, action)
        self._action[0, 0] = action
        played = seat_actions(self.state, self.params, self._action, self._masks)
        was_done = self.state.done.copy()
        reward = float(sim.step(self.state, played, self.params)[0])
        terminated, cleared = climb(self.run, self.state, self.params, was_done)
        return self._observe(), reward, bool(terminated[0]), False, self._info(cleared)

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state, self.params)[0, 0]  # (66,), fresh

    def _info(self, cleared: np.ndarray) -> dict[str, Any]:
        self._masks = sim.action_masks(self.state)  # (1, 2, A), kept for the next step's actions
        info = self.run.info(self.state, self._masks, cleared)
        return {
            "action_mask": info["action_mask"][0],
            "rung": int(info["rung"][0]),
            "opponent": info["opponent"][0],
            "matches_won": int(info["matches_won"][0]),
            "is_success": bool(info["is_success"][0]),
        }

    def _make_renderer(self):
        return make_renderer(self.params, self.render_mode)


class FightingLadderVectorEnv(NativeVectorEnv):
    """``num_envs`` FightingLadder-v0 runs stepped together; see :class:`FightingLadderEnv` for the task.

    Actions ``(B,)`` int, observations ``(B, 66)`` float32, rewards ``(B,)`` float64. Infos hold
    ``action_mask`` ``(B, 54)`` int8, ``rung`` and ``matches_won`` ``(B,)`` int64, ``opponent``
    ``(B,)`` object (bot names) and ``is_success`` ``(B,)`` bool, as ``SyncVectorEnv`` lays out the
    single env's. World ``i`` is seeded with ``seed + i`` and redraws its ladder from its own
    generator on autoreset, so rollouts equal ``SyncVectorEnv``'s over the single env bit for bit.
    """

    metadata = vector_metadata(FightingLadderEnv.metadata)
    config_type = FightingLadderConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    params: LadderParams
    state: sim.State  # made by the default _setup

    def _setup(self) -> None:
        super()._setup()
        self.run = Climb.empty(self.num_envs)
        self._masks = np.zeros((self.num_envs, 2, sim.NUM_ACTIONS), dtype=np.int8)

    def _load_world(self, state: sim.State, world: int, scenario: LadderScenario) -> None:
        self.run.start(state, world, scenario, self.params)

    def _reset_info(self) -> dict[str, np.ndarray]:
        return self._info(np.zeros(self.num_envs, dtype=bool))

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, sim.NUM_ACTIONS, self.num_envs)
        # worlds that ended on the last step (NEXT_STEP) are finished matches, which stand still until reloaded
        played = seat_actions(self.state, self.params, actions[:, None], self._masks)
        was_done = self.state.done.copy()
        rewards = sim.step(self.state, played, self.params)
        terminated, cleared = climb(self.run, self.state, self.params, was_done)
        return rewards, terminated, self._info(cleared)

    def _info(self, cleared: np.ndarray) -> dict[str, np.ndarray]:
        self._masks = sim.action_masks(self.state)  # (B, 2, A), kept for the next step's actions
        return self.run.info(self.state, self._masks, cleared)

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state, self.params)[:, 0]  # (B, 66)

    def _make_renderer(self):
        return make_renderer(self.params, "rgb_array")
