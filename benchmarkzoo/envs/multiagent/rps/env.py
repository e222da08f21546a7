"""The RPS envs: repeated rock-paper-scissors against a scripted bot, or between two learners.

``benchmarkzoo/RPSPopulation-v0`` plays against a bot of the scripted population (a Gymnasium
env); ``benchmarkzoo/RPSSelfPlay-v0`` is the same game between two learners (a PettingZoo
ParallelEnv).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, cast

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.generator import (
    RPSPopulationGenerator,
    RPSScenario,
    RPSSelfPlayGenerator,
    RPSSelfPlayScenario,
)
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

ACTION_NAMES = sim.MOVE_NAMES
#: The self-play agents, in the order of the simulator's player axis.
AGENTS = ("player_0", "player_1")
RENDER_MODES = ["rgb_array", "human"]
RENDER_FPS = 4


class RPSPopulationConfig(EnvConfig):
    """The arguments of RPSPopulation-v0 (both forms); see :class:`RPSPopulationEnv`."""

    generator: str | Generator = "rps/population"
    generator_kwargs: dict[str, Any] | None = None
    history: int = arg(default=5, check=integer(1, 64))

    generator_type: ClassVar[type | tuple[type, ...]] = RPSPopulationGenerator  # self-play takes two kinds
    generator_needs: ClassVar[str] = "an RPS population generator"
    time_limit: ClassVar[int] = 100

    @override
    def sim_params(self, generator: Any, env_id: str) -> sim.Params:
        return sim.Params(history=self.history)

    @override
    def check_scenario(
        self, scenario: Any, generator: Any, params: sim.Params, env_id: str
    ) -> RPSScenario | RPSSelfPlayScenario:  # the self-play config's are RPSSelfPlayScenarios
        if not isinstance(scenario, RPSScenario):
            raise ScenarioError(f"{env_id}: options['scenario'] must be an RPSScenario; got {scenario!r:.80}.")
        return scenario


@dataclasses.dataclass(frozen=True)
class SelfPlayParams(sim.Params):
    """:class:`sim.Params` of RPSSelfPlay-v0, with who plays seat 1.

    Attributes:
        learners: ``2``, both seats are agents (self-play); ``1``, ``player_0`` is the only agent and
            seat 1 is the scenario's population bot (the env was given a population generator).
    """

    learners: int = 2


class RPSSelfPlayConfig(RPSPopulationConfig):
    """The arguments of RPSSelfPlay-v0 (both forms): RPSPopulation-v0's, with a self-play generator.

    A population generator (``"rps/population"``) instead puts the scenario's bot in seat 1 and
    leaves ``player_0`` the only agent: the scored form (see :class:`RPSSelfPlayEnv`, Scoring).
    """

    generator: str | Generator = "rps/self-play"

    generator_type: ClassVar[tuple[type, ...]] = (RPSSelfPlayGenerator, RPSPopulationGenerator)
    generator_needs: ClassVar[str] = (
        "an RPS self-play generator (two learners), or an RPS population generator (player_1 the scenario's bot)"
    )

    @override
    def sim_params(self, generator: Any, env_id: str) -> SelfPlayParams:
        return SelfPlayParams(history=self.history, learners=1 if isinstance(generator, RPSPopulationGenerator) else 2)

    @override
    def possible_agents(self, params: SelfPlayParams) -> list[str]:
        return list(AGENTS[: params.learners])

    @override
    def check_scenario(
        self, scenario: Any, generator: Any, params: sim.Params, env_id: str
    ) -> RPSSelfPlayScenario | RPSScenario:
        if cast(SelfPlayParams, params).learners == 1:  # this config's sim_params made them
            if not isinstance(scenario, RPSScenario):
                raise ScenarioError(
                    f"{env_id} with a population generator plays player_0 against a bot: options['scenario'] must "
                    f"be an RPSScenario (e.g. RPSScenario(bot='markov')); got {scenario!r:.80}."
                )
            return scenario
        if not isinstance(scenario, RPSSelfPlayScenario):
            raise ScenarioError(
                f"{env_id}: options['scenario'] must be an RPSSelfPlayScenario (e.g. "
                f"RPSSelfPlayScenario(noise=0.0, seed=0)); got {scenario!r:.80}. An RPSScenario (a bot in "
                "seat 1) needs generator='rps/population'."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation space (the one-hot history) and the action space (the three moves)."""
    return spaces.Box(0.0, 1.0, shape=(params.obs_size,), dtype=np.float32), spaces.Discrete(sim.NUM_MOVES)


def make_renderer(params: sim.Params, render_mode: str):
    """The pygame renderer of an RPS world."""
    from benchmarkzoo.envs.multiagent.rps.render import RPSRenderer

    return RPSRenderer(params, render_mode, RENDER_FPS)


class RPSPopulationEnv(SingleAgentEnvView):
    """Repeated rock-paper-scissors against one scripted bot of a population of 25.

    ## Description

    Each episode is a match of repeated rock-paper-scissors (100 rounds in the registered spec)
    against one bot, drawn by the scenario generator from a population of scripted strategies
    in the tradition of the RoShamBo programming competitions: constant players, cycles, fixed
    mixtures, reactions to the last move or outcome (copy, beat, win-stay-lose-shift),
    frequency counters, pattern matchers (Markov models over the last move, the last round or
    the last two moves), second-guessers, a mixture, and adaptive bots (a meta-predictor that
    scores nine candidate strategies, a switcher that drops a strategy that loses, regret
    matching). Bots are not told apart in the observation: the agent must identify and exploit
    its opponent from play, and avoid being exploited by the bots that model it.

    Bots (``generator.BOTS``): ``rock``, ``paper``, ``scissors``, ``cycle_up`` (R P S ...),
    ``cycle_down`` (R S P ...), ``cycle_double`` (R R P P S S ...), ``biased`` (50/30/20%),
    ``uniform``, ``copy_last``, ``beat_last``, ``lose_to_last`` (the agent's last move),
    ``win_stay_lose_shift``, ``win_stay_lose_beat``, ``frequency``, ``frequency_recent``
    (decayed counts), ``frequency_sampled`` (fictitious play with a sampled prediction),
    ``markov``, ``markov_pair``, ``markov_two``, ``second_guess``, ``beat_beat_last``,
    ``mixture``, ``meta_predictor``, ``switcher``, ``regret_matching``. Held out of training
    (``OOD_BOTS``, the ``ood`` split): ``lose_to_last``, ``beat_beat_last``, ``second_guess``
    and the three adaptive bots. A scenario may add noise: with probability ``noise`` the bot
    plays a uniformly random move. Bot randomness comes from a hash of the scenario's ``seed``
    and the round, so a scenario always plays the same way against the same moves.

    ## Action Space

    ``Discrete(3)``: 0 rock, 1 paper, 2 scissors. Anything else raises ``InvalidActionError``.

    ## Observation Space

    ``Box(0, 1, (6K,), float32)``, ``K = history`` (5): for each of the last ``K`` rounds, most
    recent first, the one-hot of the agent's move then the one-hot of the bot's; zeros for
    rounds before the match started.

    ## Rewards

    +1 for a win, 0 for a draw, -1 for a loss, every round.

    ## Episode End

    * Termination: never.
    * Truncation: ``max_episode_steps`` rounds (100 in the registered spec).
    * ``info["bot_move"]`` is the bot's move of the round; ``info["exploitability"]`` the return
      per round so far of an opponent that sees sequences, shadowing the agent's moves: the
      follow-the-leader of six online n-gram best responders (contexts: the agent's last 0 to 3
      moves, the last 1 or 2 whole rounds; see :mod:`~benchmarkzoo.envs.multiagent.rps.responders`).
      Near 1 for a constant agent or a deterministic R, P, S cycle (0.96 over 100 rounds), an
      expected 0 for a uniformly random one; in ``[-1, 1]`` (negative: the responders lose to the agent).

    Population metrics (average return, per-bot return, exploitability with bootstrap intervals)
    are computed by :func:`benchmarkzoo.envs.multiagent.rps.baseline.evaluate_population`; the
    responder really playing a policy (rather than shadowing its matches) by
    :func:`~benchmarkzoo.envs.multiagent.rps.baseline.played_exploitability`.

    ## Rendering

    ``render_mode="rgb_array"`` (or ``"human"``; needs the ``render`` extra) draws a scoreboard,
    ``400 x (72 + 40K)`` pixels (wide x high): the agent's and the bot's names (``bot: markov``), the score
    (rounds won by each), the round and the draws, then the last ``K`` rounds, most recent on
    top, as move icons (rock a grey stone, paper a white sheet, scissors red blades) on a row
    tinted green where the agent won, red where it lost, grey on a draw. The native vector
    form renders one frame per world (``"rgb_array"``).

    ## Baseline

    ``baseline.PatternMatchingPolicy`` (beat the bot's most frequent move after the same last
    round), 20 noiseless matches of 100 rounds per bot, return per round
    (``evaluate_population``): mean 0.53 (train bots 0.54, ood bots 0.49), exploitability 0.64
    [0.62, 0.67] (shadowing its matches against the bots; the best single responder, ``pair-1``,
    0.63): it is deterministic given the history, so the responders learn it. Played against it
    (``played_exploitability``) the responder gets 0.21 a round: the pattern matcher adapts to
    the responder too. A uniform random player: -0.00 [-0.01, 0.01]; the cycle: 0.96. The
    trained best response (:mod:`~benchmarkzoo.envs.multiagent.rps.best_response`, 20 training
    matches, scored on 20 others) gets 1.00 against the cycle and -0.01 against the baseline.
    Per bot: rock 1.00, paper 0.99, scissors 0.98, cycle_up 0.97, cycle_down 0.97,
    cycle_double 0.46, biased 0.22, uniform 0.03, copy_last 0.88, beat_last 0.87,
    lose_to_last 0.95, win_stay_lose_shift 0.93, win_stay_lose_beat 0.88, frequency 0.46,
    frequency_recent 0.42, frequency_sampled 0.00, markov 0.09, markov_pair 0.00, markov_two
    0.01, second_guess 0.91, beat_beat_last 0.94, mixture 0.10, meta_predictor -0.01,
    switcher 0.06, regret_matching 0.09. A uniform random player gets 0.00 +- 0.05 against
    every bot.

    ## Arguments

    ```python
    gym.make("benchmarkzoo/RPSPopulation-v0", generator="rps/population",
             generator_kwargs={"bots": None, "max_noise": 0.1}, history=5, render_mode=None)
    ```

    * ``generator_kwargs["bots"]``: the bots to draw from (default the 19 training bots);
      ``max_noise``: the highest bot noise (0.1 in the registered spec, 0.0 by default).
    * ``history``: ``K``, the rounds in an observation.
    * ``reset(options={"scenario": RPSScenario(bot="markov", noise=0.0, seed=0)})`` plays a given bot.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (see Rendering).

    The same game between two learners is ``benchmarkzoo/RPSSelfPlay-v0``
    (:class:`RPSSelfPlayEnv`).

    ## Version History

    * v0: Initial version. Rendering came later without changing any seeded rollout; so did the
      sequence-aware ``info["exploitability"]`` (it was the best response to the agent's move
      frequencies, which scored a deterministic cycle 0.0); observations, rewards and the bots'
      moves are unchanged.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv
    >>> from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario
    >>> env = RPSPopulationEnv()
    >>> obs, info = env.reset(seed=0, options={"scenario": RPSScenario(bot="rock")})
    >>> obs.shape
    (30,)
    >>> _, reward, terminated, truncated, info = env.step(1)  # paper beats rock
    >>> reward, info["bot_move"], info["exploitability"]  # the responders knew nothing, guessed rock: a draw
    (1.0, 0, 0.0)
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}
    config_type = RPSPopulationConfig

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        self.reward_range = (-1.0, 1.0)
        self.state = sim.init_state(self.params, 1)
        self._action = np.zeros(1, dtype=np.int64)

    def _draw_scenario(self) -> RPSScenario:
        return self._check_scenario(self.generator(self.np_random))

    def _load(self, scenario: RPSScenario) -> tuple[np.ndarray, dict[str, Any]]:
        self.scenario = scenario
        sim.load(self.state, 0, scenario)
        return sim.observe(self.state)[0], {}

    def _step(self, action: Any):
        if type(action) is not int or not 0 <= action < sim.NUM_MOVES:
            check_action(self.env_id, self.action_space, action)
        self._action[0] = int(action)
        bot = sim.bot_moves(self.state)
        reward = sim.play(self.state, self._action, bot)
        info = {"bot_move": int(bot[0]), "exploitability": float(sim.exploitability(self.state)[0])}
        return sim.observe(self.state)[0], float(reward[0]), False, False, info

    def _make_renderer(self):
        return make_renderer(self.params, self.render_mode)


class RPSSelfPlayEnv(ParallelEnvView):
    """Repeated rock-paper-scissors between two learners: the self-play form of ``RPSPopulation-v0``.

    ## Description

    ``player_0`` and ``player_1`` play a match of repeated rock-paper-scissors (100 rounds in
    the registered spec) with the rules, observations and statistics of
    :class:`RPSPopulationEnv`: the same simulator, with player 1 a learner instead of a
    scripted bot. A policy trained here can be scored against the population in
    ``RPSPopulation-v0``; a population bot can be replayed here as ``player_1`` (its moves are
    ``info["bot_move"]`` there), and the two envs then agree round for round.

    A scenario (``RPSSelfPlayScenario``) sets the trembling hand: with probability ``noise``
    each player's move is replaced by a uniformly random move, independently per player and
    round, drawn from a hash of the scenario's ``seed`` and the round (as a bot's noise is in
    the population env). The registered generator (``"rps/self-play"``) draws ``noise``
    uniformly in ``[0, 0.1]``; ``noise=0`` is pure rock-paper-scissors.

    ## Action Space

    ``Discrete(3)`` per agent: 0 rock, 1 paper, 2 scissors. ``step`` takes a dict with exactly
    one action per agent in ``env.agents``: an unknown name, a missing agent or an agent whose
    match is over raises ``InvalidAgentError``; anything outside ``Discrete(3)`` (float, out of
    range, array, ``None``) raises ``InvalidActionError``.

    ## Observation Space

    ``Box(0, 1, (6K,), float32)`` per agent, ``K = history`` (5), the population env's layout
    from each player's own point of view: for each of the last ``K`` rounds, most recent first,
    the one-hot of the player's own move then the one-hot of the opponent's (the moves actually
    played, after any tremble); zeros for rounds before the match started. So ``player_1``'s
    observation is ``player_0``'s with the two halves of every round swapped.

    ## Rewards

    Zero-sum, every round: +1 to the winner, -1 to the loser, 0 to both on a draw (of the
    moves actually played).

    ## Episode End

    * Termination: never.
    * Truncation: both agents after ``max_cycles`` rounds (100 in the registered spec).
    * Every step, each agent's info holds ``move`` (its move as played, after any tremble),
      ``opponent_move``, and ``exploitability``: the return per round so far of the
      sequence-aware responder of ``RPSPopulation-v0`` shadowing this agent's moves (near 1 for
      a constant player or a deterministic cycle, an expected 0 for a uniformly random one).

    ## Rendering

    ``render_mode="rgb_array"`` (or ``"human"``; needs the ``render`` extra): the scoreboard of
    ``RPSPopulation-v0`` with ``player_0`` on the left and ``player_1`` on the right; rows are
    tinted by ``player_0``'s outcome. The native vector form renders one frame per world.

    ## Scoring: a seat against the scenario's bot

    A match of a policy against itself is zero-sum: its team return is 0 for every policy, and
    so is the mean of its two seats' returns, so no suite can rank policies by a self-play match.
    What a leaderboard user of a self-play env expects instead is the return of the seat the
    policy plays against opponents it did not train with. Given a population generator
    (``generator="rps/population"``, the bots and scenarios of ``RPSPopulation-v0``), the env
    puts the scenario's bot in seat 1 and ``player_0`` is its only agent (``possible_agents ==
    ["player_0"]``; the native vector form's agent axis has length 1): the team return is then
    ``player_0``'s return, which suite tasks score (``competitive-v1``'s ``rps-self-play-test``,
    scenario set ``multiagent/rps-self-play-bots``). Seat 0 it is, rather than both seats
    averaged: the game is symmetric, the bots are written for seat 1, and the observation is
    each player's own view, so a seat-1 score would measure the same thing. The bot plays as in
    ``RPSPopulation-v0`` (its own noise; no tremble), so with the same actions both envs agree
    round for round. A self-play generator (the default) gives the two-learner game above.

    ## Baseline

    ``baseline.PatternMatchingPolicy`` on both seats: each player predicts the other's move
    from its moves after the same last round and plays what beats it. Against itself it
    mirrors its opponent and every noiseless round is a draw (return 0.00 for both); it is
    meant as an opponent for a learner, which can exploit it as it exploits the population's
    pattern matchers.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/RPSSelfPlay-v0", generator="rps/self-play",
                               generator_kwargs={"max_noise": 0.1}, history=5, max_cycles=100,
                               render_mode=None)
    ```

    * ``generator``: ``"rps/self-play"`` or an ``RPSSelfPlayGenerator``; ``generator_kwargs``:
      ``max_noise``, the highest tremble probability (0.0 by default, 0.1 in the registered spec).
      ``"rps/population"`` or an ``RPSPopulationGenerator``: seat 1 is the scenario's bot (see Scoring).
    * ``history``: ``K``, the rounds in an observation.
    * ``reset(options={"scenario": RPSSelfPlayScenario(noise=0.0, seed=0)})`` plays a given match;
      with a population generator, ``RPSScenario(bot="markov")`` plays ``player_0`` against that bot.

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The native multi-world form
    is ``benchmarkzoo.make_vec("benchmarkzoo/RPSSelfPlay-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.rps.vector_env.RPSSelfPlayVectorEnv`).

    ## Version History

    * v0: Initial version. ``info["exploitability"]`` became sequence-aware later (as in
      ``RPSPopulation-v0``) without changing observations, rewards or trembles.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.rps.env import RPSSelfPlayEnv
    >>> from benchmarkzoo.envs.multiagent.rps.generator import RPSSelfPlayScenario
    >>> env = RPSSelfPlayEnv()
    >>> observations, infos = env.reset(seed=0, options={"scenario": RPSSelfPlayScenario(noise=0.0)})
    >>> env.agents, observations["player_0"].shape
    (['player_0', 'player_1'], (30,))
    >>> observations, rewards, terminations, truncations, infos = env.step({"player_0": 2, "player_1": 1})
    >>> rewards  # scissors cut paper
    {'player_0': 1.0, 'player_1': -1.0}
    >>> observations["player_0"][:6].tolist(), observations["player_1"][:6].tolist()
    ([0.0, 0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    >>> infos["player_1"]
    {'move': 1, 'opponent_move': 2, 'exploitability': 0.0}
    """

    metadata = {
        "name": "rps_self_play_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": True,
    }
    config_type = RPSSelfPlayConfig
    agent_noun = "player"

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._moves = np.zeros((1, 2), dtype=np.int64)

    def _load(self, scenario: RPSSelfPlayScenario | RPSScenario) -> None:
        sim.load(self.sim_state, 0, scenario)

    @override
    def step(self, actions: dict[str, Any]):
        check_action_dict(
            self.env_id, actions, self.agents, self._index, "both players move every round: 0 rock, 1 paper, 2 scissors"
        )
        for agent in self.agents:
            action = actions[agent]
            if type(action) is not int or not 0 <= action < sim.NUM_MOVES:  # plain ints skip the generic check
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            self._moves[0, self._index[agent]] = action
        if self.params.learners == 1:  # seat 1 is the scenario's bot
            self._moves[0, 1] = sim.bot_moves(self.sim_state)[0]
        moves = sim.tremble(self.sim_state, self._moves)  # (1, 2) as played
        reward = float(sim.play(self.sim_state, moves[:, 0], moves[:, 1])[0])
        self.num_steps += 1
        limit = self.num_steps >= self.max_cycles
        played = moves[0].tolist()
        exploitability = sim.exploitability(self.sim_state, None)[0].tolist()
        # zip stops at the agents: player_1's entries exist only when it is a learner
        rewards = dict(zip(self.possible_agents, (reward, 0.0 - reward)))  # 0.0 - r: no negative zero on a draw
        infos = {
            agent: {"move": played[p], "opponent_move": played[1 - p], "exploitability": exploitability[p]}
            for p, agent in enumerate(self.possible_agents)
        }
        observations = self._observations()
        terminations = {agent: False for agent in self.possible_agents}
        truncations = self._end_step(self.possible_agents, terminations, limit)
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _observations(self, agents: list[str] | None = None) -> dict[str, np.ndarray]:
        return {agent: sim.observe(self.sim_state, p)[0] for p, agent in enumerate(self.possible_agents)}

    def _make_renderer(self):
        return make_renderer(self.params, self.render_mode)
