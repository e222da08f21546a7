"""``benchmarkzoo/RPSPopulation-v0``: repeated rock-paper-scissors against a bot of the scripted population."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import ResetNeededError, ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.generator import RPSPopulationGenerator, RPSScenario
from benchmarkzoo.generators.base import Generator

ENV_ID = "benchmarkzoo/RPSPopulation-v0"
ACTION_NAMES = sim.MOVE_NAMES


def make_generator(generator: str | Generator, generator_kwargs: dict[str, Any] | None) -> RPSPopulationGenerator:
    """Resolve the ``generator`` argument (a registered name or an instance) to an RPS population generator."""
    from benchmarkzoo.registration import make_generator as lookup  # the registry imports this module's siblings

    if isinstance(generator, str):
        if generator == "rps/population":  # usable before (and without) the catalogue entry
            gen = RPSPopulationGenerator(**(generator_kwargs or {}))
        else:
            gen = lookup(generator, generator_kwargs)
    else:
        gen = generator
    if not isinstance(gen, RPSPopulationGenerator):
        raise ScenarioError(f"{ENV_ID} needs an RPS population generator ('rps/population'); got {gen!r}.")
    return gen


def build_params(history: int) -> sim.Params:
    if isinstance(history, bool) or not isinstance(history, int | np.integer) or not 1 <= history <= 64:
        raise ValueError(f"{ENV_ID}: history must be an integer in [1, 64]; got {history!r}.")
    return sim.Params(history=int(history))


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete]:
    return spaces.Box(0.0, 1.0, shape=(params.obs_size,), dtype=np.float32), spaces.Discrete(sim.NUM_MOVES)


def check_scenario(scenario: Any) -> RPSScenario:
    if not isinstance(scenario, RPSScenario):
        raise ScenarioError(f"{ENV_ID}: options['scenario'] must be an RPSScenario; got {scenario!r:.80}.")
    return scenario


class RPSPopulationEnv(gym.Env):
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
      per round that a best response to the agent's empirical move frequencies so far would get
      (0 for a uniform mix, 1 for a constant agent).

    Population metrics (average return, per-bot return, exploitability) are computed by
    :func:`benchmarkzoo.envs.multiagent.rps.baseline.evaluate_population`.

    ## Baseline

    ``baseline.PatternMatchingPolicy`` (beat the bot's most frequent move after the same last
    round), 20 noiseless matches of 100 rounds per bot, return per round
    (``evaluate_population``): mean 0.53 (train bots 0.54, ood bots 0.49), exploitability 0.25.
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
             generator_kwargs={"bots": None, "max_noise": 0.0}, history=5)
    ```

    * ``generator_kwargs["bots"]``: the bots to draw from (default the 19 training bots).
    * ``reset(options={"scenario": RPSScenario(bot="markov", noise=0.0, seed=0)})`` plays a given bot.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv
    >>> from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario
    >>> env = RPSPopulationEnv()
    >>> obs, info = env.reset(seed=0, options={"scenario": RPSScenario(bot="rock")})
    >>> obs.shape
    (30,)
    >>> _, reward, terminated, truncated, info = env.step(1)  # paper beats rock
    >>> reward, info["bot_move"], info["exploitability"]
    (1.0, 0, 1.0)
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        generator: str | Generator = "rps/population",
        generator_kwargs: dict[str, Any] | None = None,
        history: int = 5,
        render_mode: str | None = None,
    ):
        if render_mode is not None:
            raise ValueError(f"{ENV_ID}: render_mode must be None (no rendering yet); got {render_mode!r}.")
        self.render_mode = None
        self.generator = make_generator(generator, generator_kwargs)
        self.params = build_params(history)
        self.observation_space, self.action_space = build_spaces(self.params)
        self.reward_range = (-1.0, 1.0)
        self.state = sim.init_state(self.params, 1)
        self.scenario: RPSScenario | None = None
        self._action = np.zeros(1, dtype=np.int64)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        scenario = (options or {}).get("scenario")
        if scenario is None:
            scenario = self.generator(self.np_random)
        self.scenario = check_scenario(scenario)
        sim.load(self.state, 0, self.scenario)
        return sim.observe(self.state)[0], {}

    def step(self, action: Any):
        if self.scenario is None:
            raise ResetNeededError(f"{ENV_ID}: call reset() before step().")
        if type(action) is not int or not 0 <= action < sim.NUM_MOVES:
            check_action(ENV_ID, self.action_space, action)
        self._action[0] = int(action)
        bot = sim.bot_moves(self.state)
        reward = sim.play(self.state, self._action, bot)
        info = {"bot_move": int(bot[0]), "exploitability": float(sim.exploitability(self.state)[0])}
        return sim.observe(self.state)[0], float(reward[0]), False, False, info
