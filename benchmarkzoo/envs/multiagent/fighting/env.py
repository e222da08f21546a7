"""``benchmarkzoo/FightingDuel-v0``: the PettingZoo ``ParallelEnv`` view on the FightingDuel simulator (one world)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer, number
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.fighting import bots, sim
from benchmarkzoo.envs.multiagent.fighting.generator import FightingGenerator, FightingScenario
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

#: The agents, in the order of the simulator's seat axis.
AGENTS = ("player_0", "player_1")
#: Keys added to every agent's info on the step the match ends (seat 0's view; see the env's docstring).
METRIC_KEYS = ("rounds_won", "rounds_lost", "won", "masked_actions")
RENDER_FPS = 15


class FightingConfig(EnvConfig):
    """The arguments of FightingDuel-v0 (both forms); see :class:`FightingDuelEnv`."""

    generator: str | Generator = "fighting/duel"
    generator_kwargs: dict[str, Any] | None = None
    frame_skip: int = arg(default=4, check=integer(1, 16))
    round_frames: int = arg(default=480, check=integer(60, 36000))
    rounds_to_win: int = arg(default=2, check=integer(1, 5))
    round_reward: float = arg(default=1.0, check=number(low=0.0))

    generator_type: ClassVar[type] = FightingGenerator
    generator_needs: ClassVar[str] = "a fighting generator"
    time_limit: ClassVar[int] = 400

    @override
    def sim_params(self, generator: FightingGenerator, env_id: str) -> sim.Params:
        return sim.Params(
            frame_skip=self.frame_skip,
            round_frames=self.round_frames,
            rounds_to_win=self.rounds_to_win,
            max_rounds=2 * self.rounds_to_win - 1,
            round_reward=float(self.round_reward),
            learners=1 if generator.opponents is not None else 2,
        )

    @override
    def possible_agents(self, params: sim.Params) -> list[str]:
        return list(AGENTS[: params.learners])

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> FightingScenario:
        if not isinstance(scenario, FightingScenario):
            raise ScenarioError(f"{env_id}: options['scenario'] must be a FightingScenario; got {scenario!r:.80}.")
        if (scenario.opponent is not None) != (params.learners == 1):
            has = "a bot in seat 1" if params.learners == 1 else "two learners"
            raise ScenarioError(
                f"{env_id} was made for {has}; options['scenario'] has opponent={scenario.opponent!r}. Pass a "
                "FightingScenario with opponent set (a generator with opponents) or None (two learners) to match."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete]:
    """One agent's observation and action spaces."""
    return spaces.Box(-1.0, 1.0, shape=(sim.OBS_SIZE,), dtype=np.float32), spaces.Discrete(sim.NUM_ACTIONS)


def make_renderer(params: sim.Params, render_mode: str):
    """The pygame renderer of a FightingDuel world."""
    from benchmarkzoo.envs.multiagent.fighting.render import FightingRenderer

    return FightingRenderer(params, render_mode, RENDER_FPS)


def seat_actions(state: sim.State, params: sim.Params, actions: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(B, 2)`` int64 actions as played: masked ones replaced by 0 (and counted), seat 1 the bot if there is one.

    Args:
        state: the worlds (``masked`` counted).
        params: the env's constants (``learners``).
        actions: ``(B, learners)`` int64, valid members of the action space.
        masks: ``(B, 2, A)``, :func:`sim.action_masks` of ``state`` as it is (the views keep the last one).
    """
    full = np.zeros((state.num_worlds, 2), dtype=np.int64)
    full[:, : params.learners] = actions
    legal = np.take_along_axis(masks, full[..., None], axis=2)[..., 0] == 1
    learner = np.arange(2) < params.learners
    state.masked += ~legal & learner
    full = np.where(legal, full, 0)
    if params.learners == 1:
        full[:, 1] = bots.opponent_actions(state)
    return full


class FightingDuelEnv(ParallelEnvView):
    """A side-view two-player fighting game: three characters, frame data, blocks, throws, supers.

    ## Description

    Two fighters face off on a stage between two walls (the side view of Street Fighter-like
    games; FightLadder, Li et al. 2024, benchmarks agents on those). Each fighter has health,
    position, velocity, facing, a stance (standing, crouching, airborne), a super meter and a
    character's move table (:mod:`~benchmarkzoo.envs.multiagent.fighting.characters`): moves with
    startup, active and recovery frames, hit boxes against hurt boxes, damage, hit-stun,
    block-stun and knockback. Blocking is high and low: hold back to block standing (mids and
    high air attacks), down-back to block crouching (mids and lows); throws beat blocks. Three
    characters make different match-ups: the ``striker`` (rush-down: fast, a dashing punch, an
    invulnerable rush super), the ``zoner`` (slow, long pokes, a fireball and a beam super) and
    the ``grappler`` (slow and heavy, a long command grab and a super grab). The rules, frame by
    frame, are in :mod:`~benchmarkzoo.envs.multiagent.fighting.sim`.

    A match is best of three rounds (``rounds_to_win=2``); a round ends by knock-out or after
    ``round_frames`` frames (480, 8 seconds at 60 frames a second), won by the higher health
    fraction (equal: a draw round). An env step is ``frame_skip`` frames (4).

    Scenarios (``"fighting/duel"``) draw the character pair, the stage (five widths), the start
    (gap and offset) and the starting meter; the ``ood`` split plays held-out pairs (zoner
    against grappler) on the unseen narrow stage.

    ## Action Space

    ``Discrete(54)`` per agent: ``direction * 6 + button``, directions relative to facing
    (forward is towards where the fighter faces) and buttons:

    | direction | index | | button | index |
    |---|---:|---|---|---:|
    | neutral | 0 | | none | 0 |
    | forward | 1 | | light | 1 |
    | back (block standing) | 2 | | heavy | 2 |
    | down (crouch) | 3 | | special | 3 |
    | down-forward | 4 | | throw | 4 |
    | down-back (block crouching) | 5 | | super | 5 |
    | up (jump) | 6 | | | |
    | up-forward | 7 | | | |
    | up-back | 8 | | | |

    The direction is held for the step's frames, the button pressed on its first. A button with a
    down direction gives the crouching normal (low jab, sweep); in the air light and heavy are the
    air attacks. Every step, each agent's info holds ``action_mask`` (``(54,)`` int8, 1 = legal): a
    fighter in a move, in stun or whose match is over may only send 0 (every action does the same
    then); in the air special, throw and super are masked; on the ground the super needs a full
    meter, and a projectile special or super is masked while the fighter's projectile is on
    screen. A masked action is played as 0 and counted in the episode metric ``masked_actions``
    (PettingZoo's ``parallel_seed_test``, SB3's PPO and the evaluation's random policy sample
    without masks). ``step`` takes one action per agent of ``env.agents``; an unknown or missing
    agent raises ``InvalidAgentError``, an action outside ``Discrete(54)`` ``InvalidActionError``.

    ## Observation Space

    ``Box(-1, 1, (66,), float32)`` per agent, symmetric: each agent sees itself first, then its
    opponent, then the round timer and the rounds played; ``player_1`` sees the stage mirrored
    (``x -> width - x``, velocities and facing negated), so forward means the same for both and a
    world and its mirror image with the seats swapped give the agents each other's observations.
    The 32 features of a fighter are listed in :func:`~benchmarkzoo.envs.multiagent.fighting.sim.observe`
    (position, velocity, facing, stance, health, meter, stun, the move, its phase and frame, the
    character, rounds won, its projectile).

    ## Rewards

    Zero-sum: each step ``damage dealt / opponent's max health - damage taken / own max health``
    plus ``round_reward`` (1.0) for a round won, minus it for a round lost; ``player_1`` gets the
    negative of ``player_0``'s reward. A match returns at most ``(1 + round_reward) *
    (2 * rounds_to_win - 1)`` in absolute value.

    ## Episode End

    * Termination: both agents, when the match is over (a fighter won ``rounds_to_win`` rounds,
      or ``2 * rounds_to_win - 1`` rounds were played).
    * Truncation: after ``max_cycles`` steps (400 in the registered spec: longer than any match
      of the registered settings, 360 steps).
    * On the step the match ends, each agent's info holds ``rounds_won``, ``rounds_lost``,
      ``won`` (1.0 if ``player_0`` won more rounds) and ``masked_actions`` (``player_0``'s), all
      from ``player_0``'s seat.

    ## Scoring: a seat against a bot

    As in ``RPSSelfPlay-v0``: a generator with ``opponents`` (bot names of
    :data:`~benchmarkzoo.envs.multiagent.fighting.bots.BOTS`) puts the scenario's bot in seat 1
    and leaves ``player_0`` the only agent, whose return a suite scores.

    ## Baseline and the ladder

    Ten scripted bots of rising strength (:mod:`~benchmarkzoo.envs.multiagent.fighting.bots`:
    ``passive``, ``masher``, ``jumper``, ``zoner``, ``mixer``, ``rushdown``, ``anti_air``,
    ``punisher``, ``blocker``, ``champion``), ordered by measurement: each wins at least 60% of 40
    matches against the one below it (0.625 to 1.0 over three seed sets; bench/RESULTS.md). The
    registered baseline is ``bots.BotPolicy()``, the ``champion``, in every learner seat. Scored
    against a ladder bot the scenario draws (``competitive-v2``'s ``fighting-duel-bots-test``,
    50 episodes at calibration seed 1), player_0's return: random -0.66 [-1.34, 0.03], the
    baseline 2.19 [1.71, 2.62].

    ## Rendering

    ``render_mode="rgb_array"`` (or ``"human"``; the ``render`` extra), 800 x 420 pixels: the stage,
    both fighters (legs straight standing, bent crouching, tucked airborne; the guard raised while
    blocking; the hitting limb while a move is active), projectiles, hit sparks and block flashes,
    health and meter bars, round wins, the timer, and "K.O." / "TIME" / the winner at a round's
    and the match's end (:mod:`~benchmarkzoo.envs.multiagent.fighting.render`). The native vector
    form renders one frame per world.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/FightingDuel-v0", generator="fighting/duel",
                               generator_kwargs={"characters": None, "stages": None, "pairs": "train",
                                                 "max_offset": 500, "max_meter": 0, "opponents": None},
                               frame_skip=4, round_frames=480, rounds_to_win=2, round_reward=1.0,
                               max_cycles=400, render_mode=None)
    ```

    ``reset(options={"scenario": FightingScenario(...)})`` plays a given match. The native
    multi-world form is ``benchmarkzoo.make_vec("benchmarkzoo/FightingDuel-v0", num_envs)``.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.fighting.env import FightingDuelEnv
    >>> from benchmarkzoo.envs.multiagent.fighting.generator import FightingScenario
    >>> env = FightingDuelEnv()
    >>> observations, infos = env.reset(seed=0, options={"scenario": FightingScenario(gap=800)})
    >>> env.agents, observations["player_0"].shape, infos["player_0"]["action_mask"].sum()
    (['player_0', 'player_1'], (66,), np.int64(45))
    >>> _, rewards, _, _, _ = env.step({"player_0": 1, "player_1": 0})  # a jab (light): startup 4, hits on frame 5
    >>> rewards
    {'player_0': 0.0, 'player_1': 0.0}
    >>> _, rewards, _, _, _ = env.step({"player_0": 0, "player_1": 0})
    >>> rewards  # 40 of the striker's 1000 health
    {'player_0': 0.04, 'player_1': -0.04}
    """

    metadata = {
        "name": "fighting_duel_v0",
        "render_modes": ["rgb_array", "human"],
        "render_fps": RENDER_FPS,
        "is_parallelizable": True,
    }
    config_type = FightingConfig
    agent_noun = "player"
    metric_keys = METRIC_KEYS

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.learners), dtype=np.int64)
        self._mask = np.zeros((2, sim.NUM_ACTIONS), dtype=np.int8)

    def _load(self, scenario: FightingScenario) -> None:
        sim.load(self.sim_state, 0, scenario, self.params)
        self._mask = sim.action_masks(self.sim_state)[0]

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: {"action_mask": self._mask[i]} for i, agent in enumerate(self.agents)}

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    @override
    def step(self, actions: dict[str, Any]):
        check_action_dict(self.env_id, actions, self.agents, self._index, "send 0 (neutral, no button) to wait")
        acting = list(self.agents)
        for agent in acting:
            action = actions[agent]
            if type(action) is not int or not 0 <= action < sim.NUM_ACTIONS:  # plain ints skip the generic check
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            self._actions[0, self._index[agent]] = action
        played = seat_actions(self.sim_state, self.params, self._actions, self._mask[None])
        reward = float(sim.step(self.sim_state, played, self.params)[0])
        self.num_steps += 1
        self._mask = sim.action_masks(self.sim_state)[0]
        over = bool(self.sim_state.done[0])
        rewards = dict(zip(self.possible_agents, (reward, 0.0 - reward)))  # 0.0 - r: no negative zero
        terminations = dict.fromkeys(acting, over)
        infos = {agent: {"action_mask": self._mask[i]} for i, agent in enumerate(acting)}
        limit = self.num_steps >= self.max_cycles
        return self._finish_step(acting, self._observations(acting), rewards, terminations, infos, limit)

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        batch = sim.observe(self.sim_state, self.params)[0]  # (2, F), fresh
        return {agent: batch[self._index[agent]] for agent in agents}

    def _make_renderer(self):
        return make_renderer(self.params, self.render_mode)
