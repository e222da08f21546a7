"""``benchmarkzoo/MicroCombat-v0``: the PettingZoo ``ParallelEnv`` view on the MicroCombat simulator (one world)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, one_of
from benchmarkzoo.core.errors import IllegalActionError, InvalidAgentError, ResetNeededError, ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.combat import sim, units
from benchmarkzoo.envs.multiagent.combat.generator import CombatScenario, LineupGenerator, RandomCombatGenerator
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

#: Keys added to every agent's info on the step its world's episode ends.
METRIC_KEYS = ("won", "allies_alive", "enemies_killed", "masked_actions")
#: What a masked action does: ``"stop"`` (executed as stop and counted) or ``"raise"`` (an error).
ILLEGAL_ACTION_MODES = ("stop", "raise")
CombatGenerator = LineupGenerator | RandomCombatGenerator


class CombatConfig(EnvConfig):
    """The arguments of MicroCombat-v0 (both forms); see :class:`MicroCombatEnv`."""

    generator: str | Generator = "combat/random"
    generator_kwargs: dict[str, Any] | None = None
    illegal_actions: str = arg(default="stop", check=one_of(ILLEGAL_ACTION_MODES))

    generator_type: ClassVar[tuple[type, ...]] = (LineupGenerator, RandomCombatGenerator)
    generator_needs: ClassVar[str] = "a combat generator ('combat/lineup' or 'combat/random')"
    time_limit: ClassVar[int] = 100

    @override
    def sim_params(self, generator: CombatGenerator, env_id: str) -> sim.Params:
        return sim.Params(
            num_allies=generator.num_allies, num_enemies=generator.num_enemies, map_size=generator.map_size
        )

    @override
    def possible_agents(self, params: sim.Params) -> list[str]:
        return [f"agent_{i}" for i in range(params.num_allies)]  # our units; the enemy is scripted

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> CombatScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` fits this env (map size, our army's size, enemy slots)."""
        fits = (
            isinstance(scenario, CombatScenario)
            and scenario.map_size == params.map_size
            and scenario.num_allies == params.num_allies
            and scenario.num_enemies <= params.num_enemies
        )
        if not fits:
            raise ScenarioError(
                f"{env_id} was made for {params.num_allies} units of ours against at most {params.num_enemies} on a "
                f"{params.map_size:g} map; options['scenario'] is {scenario!r:.80}. Make the env with a generator "
                "of that shape, or pass a matching CombatScenario."
            )
        return scenario


def action_name(action: int) -> str:
    """A readable name of ``action`` (a move, or ``attack enemy <k>``)."""
    return sim.ACTION_NAMES[action] if action < sim.ATTACK else f"attack enemy {action - sim.ATTACK}"


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Discrete, spaces.Box]:
    """One agent's observation and action spaces, and the global state's space."""
    observation_space = spaces.Box(-1.0, 1.0, shape=(params.obs_size,), dtype=np.float32)
    state_space = spaces.Box(-1.0, 1.0, shape=(params.state_size,), dtype=np.float32)
    return observation_space, spaces.Discrete(params.num_actions), state_space


def illegal_action_message(
    env_id: str, state: sim.State, params: sim.Params, world: int, unit: int, action: int, mask: np.ndarray, who: str
) -> str:
    """Why ``action`` is masked for our unit ``unit`` of ``world``, and what is legal instead."""
    if action == sim.NOOP:
        reason = "no-op is legal only for dead units; send 1 (stop) to stay in place"
    else:
        j = action - sim.ATTACK
        slot = params.num_allies + j
        if j >= int(state.enemies[world]):
            reason = f"this scenario has only {int(state.enemies[world])} enemy units (enemy {j} is padding)"
        elif not state.alive[world, slot]:
            reason = f"enemy {j} is dead"
        else:
            distance = float(np.hypot(*(state.pos[world, slot] - state.pos[world, unit])))
            reach = float(units.ATTACK_RANGE[state.kind[world, unit]])
            reason = f"enemy {j} is {distance:.2f} away, beyond this unit's attack range {reach:g}"
    legal = [f"{a} ({action_name(a)})" for a in np.flatnonzero(mask).tolist()]
    return (
        f"{env_id}: {who} sent {action} ({action_name(action)}), which its action mask forbids: {reason}. Legal "
        f"now: {', '.join(legal)}. Read infos[agent]['action_mask'] and sample with "
        "env.action_space(agent).sample(mask=...), or make the env with illegal_actions='stop'."
    )


class MicroCombatEnv(ParallelEnvView):
    """StarCraft-micro style combat without the engine: our units against a scripted enemy army.

    ## Description

    Two armies meet on an open square map (32 x 32 by default), in the spirit of SMAC
    (Samvelyan et al., 2019) and SMAX (JaxMARL, Rutherford et al., 2023). Each of our units is
    an agent; the enemy units follow a script. Units are points on a continuous map with the
    health, damage, attack range, cooldown, speed and sight of their type
    (:mod:`benchmarkzoo.envs.multiagent.combat.units`):

    | type | health | damage | attack range | cooldown (steps) | speed (per step) |
    |---|---:|---:|---:|---:|---:|
    | marine | 45 | 6 | 5.0 | 1 | 1.5 |
    | marauder | 125 | 10 | 6.0 | 2 | 1.5 |
    | stalker | 160 | 13 | 6.0 | 3 | 2.0 |
    | zealot (melee) | 150 | 16 | 1.5 | 2 | 1.5 |

    Every type sees 9.0 units far. A step is half a second of game time; all units act at once
    (see :mod:`benchmarkzoo.envs.multiagent.combat.sim` for the exact order: simultaneous
    attacks from the start-of-step positions, then moves; the map edge is a wall; units do not
    collide). The scripted enemy plays one of two strategies, chosen by the scenario:
    ``closest`` (every enemy unit attacks the nearest of our units, walking towards it until it
    is in range) and ``focus`` (every enemy unit attacks the weakest of our units in its range,
    or walks towards the nearest one).

    Scenarios come from a generator: ``"combat/random"`` (the default: random compositions of
    the four types, 5 against 5, armies drawn on their own) or ``"combat/lineup"`` (SMAC-style
    line-ups: ``3m``, ``8m``, ``5m_vs_6m``, ``10m_vs_11m``, ``2s3z``, ``3s5z``, ``1r4m``,
    ``3s_vs_3z``, ``3s_vs_4z``; start positions jittered per seed).

    ## Action Space

    ``Discrete(6 + E)`` per agent, ``E`` the number of enemy slots (SMAC's layout):

    | Num | Action |
    |-----|--------|
    | 0   | no-op (legal only for dead units) |
    | 1   | stop |
    | 2   | move north (+y) |
    | 3   | move south (-y) |
    | 4   | move east (+x) |
    | 5   | move west (-x) |
    | 6 + j | attack enemy j |

    Every step, each agent's info holds ``action_mask`` (``(6 + E,)`` int8, 1 = legal): stop and
    the moves for a live unit; ``attack enemy j`` when ``j`` is alive and within the unit's
    attack range (whatever its cooldown: an attack during the cooldown holds the unit in place
    and fires nothing). A dying agent's last mask allows only no-op.

    A masked action is, by default (``illegal_actions="stop"``), executed as ``stop`` and counted
    in the episode metric ``masked_actions``; with ``illegal_actions="raise"`` it raises
    ``IllegalActionError`` naming the agent, why the action is masked and what is legal (SMAC's
    strictness). ``"stop"`` is the registered default because PettingZoo's ``parallel_seed_test``,
    Stable-Baselines3's PPO and the evaluation's random policy sample actions without masks.

    ``step`` takes a dict with exactly one action per agent in ``env.agents``. An unknown name, a
    missing agent or a dead agent raises ``InvalidAgentError``; an action outside the action space
    (float, NaN, out of range, array, ``None``) raises ``InvalidActionError``. Nothing is clipped.

    ## Observation Space

    ``Box(-1, 1, (F,), float32)`` per agent, SMAC's layout, ``T = 4`` unit types, ``s`` the
    agent's sight range, ``F = (4 + T) + (N - 1)(5 + T) + E(6 + T)`` (94 for 5 against 5):

    * own: health / max health, cooldown / its type's cooldown, ``x / map_size``, ``y / map_size``,
      type one-hot;
    * each other ally, in index order: visible, ``dx / s``, ``dy / s``, distance / ``s``,
      health / max health, type one-hot;
    * each enemy slot: visible, attackable (its ``action_mask`` entry), ``dx / s``, ``dy / s``,
      distance / ``s``, health / max health, type one-hot.

    A unit is visible when alive and within ``s``; invisible slots are zeros (padding flags are
    the visibility flags). A dead agent's last observation is all zeros. ``state()`` returns the
    global state (``state_space``, ``Box(-1, 1, ((N + E)(5 + T),), float32)``): per unit slot
    alive, health / max, cooldown / max, position relative to the map centre / half the side, type.

    ## Rewards

    One team reward, the same for every agent in the step's dicts (SMAC's shaped reward with
    ``reward_only_positive``): ``(damage dealt to enemy units (beyond their remaining health not
    counted) + 10 per enemy killed + 200 on a win) * 20 / max_reward`` with ``max_reward = total
    enemy health + 10 E + 200``. A flawless win sums to 20 per agent; damage taken costs nothing.

    ## Episode End

    * Termination, per agent: the agent's unit dies (health reaches 0): it is in that step's
      dicts, terminated, and then leaves ``env.agents``. Every remaining agent terminates when
      the last enemy unit dies (a win) or when both armies die on the same step (a draw).
    * Truncation: after ``max_cycles`` steps (100 in the registered spec), not a win; every
      agent of that step is truncated, one that also terminates on it included.
    * On the step the episode ends every agent in the dicts gets the episode's metrics: ``won``
      (the win rate of an evaluation), ``allies_alive`` and ``enemies_killed`` (fractions of the
      two armies), ``masked_actions`` (masked actions the team sent, executed as stop).

    ## Baseline

    ``baseline.FocusFirePolicy`` (privileged: reads the simulator): every unit attacks the enemy
    nearest our army's centre when in range, else the weakest enemy in range, else walks towards
    that enemy. Win rates on ``scenarios/multiagent/micro-combat.yaml`` (every seed of the split,
    registered defaults), measured by ``bench/bench_combat.py --win-rates``:

    | split | episodes | uniformly random legal actions | FocusFirePolicy |
    |---|---:|---:|---:|
    | train (random compositions, 5 vs 5) | 200 | 0.00 | 0.47 |
    | test (random compositions, 5 vs 5) | 100 | 0.00 | 0.48 |
    | ood (random compositions, 10 vs 10) | 100 | 0.00 | 0.35 |
    | lineup-3m | 50 | 0.00 | 0.32 |
    | lineup-5m-vs-6m | 50 | 0.00 | 0.00 |
    | lineup-2s3z | 50 | 0.00 | 0.32 |

    Against the ``focus`` script a symmetric line-up is a mirror match: the baseline fights the
    enemy's own way and both armies die on the same step (a draw, not a win); against
    ``closest`` it wins most of them (3m: 0.80 on 30 seeds). Room for learned micro: stepping
    out of range during a cooldown, pulling damaged units back, spreading melee damage.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MicroCombat-v0", generator="combat/random",
                               generator_kwargs={"num_allies": 5, "num_enemies": 5, "enemy_strategy": "random"},
                               illegal_actions="stop", max_cycles=100, render_mode=None)
    ```

    * ``generator``: ``"combat/random"``, ``"combat/lineup"`` (``generator_kwargs={"lineup": "2s3z"}``)
      or a generator instance; ``generator_kwargs`` are its arguments (army sizes, unit types,
      ``enemy_strategy`` ``"closest"``, ``"focus"`` or ``"random"``, ``map_size``).
    * ``illegal_actions``: ``"stop"`` or ``"raise"`` (see Action Space).
    * ``reset(options={"scenario": s})`` plays the given ``CombatScenario`` (our army of ``N``
      units, at most ``E`` enemy units, the same map size).
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The AEC form is
    ``benchmarkzoo.make_aec("benchmarkzoo/MicroCombat-v0")``; the native multi-world form is
    ``benchmarkzoo.make_vec("benchmarkzoo/MicroCombat-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.combat.vector_env.MicroCombatVectorEnv`).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.combat.env import MicroCombatEnv
    >>> from benchmarkzoo.envs.multiagent.combat.generator import CombatScenario, RandomCombatGenerator
    >>> env = MicroCombatEnv(generator=RandomCombatGenerator(num_allies=1, num_enemies=1))
    >>> scenario = CombatScenario(map_size=32.0, ally_types=[0], ally_pos=[[10.0, 16.0]], enemy_types=[0],
    ...                           enemy_pos=[[14.0, 16.0]], enemy_strategy="closest")  # a marine each, 4 apart
    >>> observations, infos = env.reset(seed=0, options={"scenario": scenario})
    >>> infos["agent_0"]["action_mask"].tolist()  # stop, 4 moves, attack enemy 0 (in range 5)
    [0, 1, 1, 1, 1, 1, 1]
    >>> _, rewards, terminations, _, _ = env.step({"agent_0": 6})  # both fire: 45 - 6 health left each
    >>> env.sim_state.health[0].tolist(), round(rewards["agent_0"], 4)
    ([39.0, 39.0], 0.4706)
    """

    metadata = {
        "name": "micro_combat_v0",
        "render_modes": ["rgb_array", "human"],
        "render_fps": 4,
        "is_parallelizable": True,
    }
    config_type = CombatConfig
    config: CombatConfig

    metric_keys = METRIC_KEYS

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)

    def _setup(self) -> None:
        self.illegal_actions = self.config.illegal_actions
        self._observation_space, self._action_space, self.state_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.num_allies), dtype=np.int64)
        self._mask = np.zeros((self.params.num_allies, self.params.num_actions), dtype=np.int8)

    def _load(self, scenario: CombatScenario) -> None:
        sim.load(self.sim_state, 0, scenario, self.params)
        self._mask = sim.action_masks(self.sim_state, self.params)[0]  # (N, A), fresh

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: {"action_mask": self._mask[i]} for i, agent in enumerate(self.agents)}

    @override
    def step(self, actions: dict[str, Any]):
        self._check_agents(actions)
        acting = list(self.agents)
        n_actions = self.params.num_actions
        for agent in acting:
            action = actions[agent]
            if type(action) is not int or not 0 <= action < n_actions:  # plain ints skip the generic check
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
        self._actions[:] = sim.NOOP  # dead units' slots
        for agent in acting:  # every action is valid: now check them against the masks
            i, action = self._index[agent], int(actions[agent])
            if not self._mask[i, action]:
                if self.illegal_actions == "raise":
                    raise IllegalActionError(
                        illegal_action_message(
                            self.env_id, self.sim_state, self.params, 0, i, action, self._mask[i], f"agent {agent!r}"
                        )
                    )
                self.sim_state.masked[0] += 1
                action = sim.STOP
            self._actions[0, i] = action
        reward, died, done = self._advance()
        self.num_steps += 1
        over = bool(done[0])
        limit = self.num_steps >= self.max_cycles
        self._mask = sim.action_masks(self.sim_state, self.params)[0]
        observations = self._observations(acting)
        rewards, terminations, infos = {}, {}, {}
        for agent in acting:
            i = self._index[agent]
            rewards[agent] = self._reward_of(reward, i)
            terminations[agent] = over or bool(died[0, i])
            infos[agent] = {"action_mask": self._mask[i]}
        return self._finish_step(acting, observations, rewards, terminations, infos, limit)

    def _advance(self) -> tuple[Any, np.ndarray, np.ndarray]:
        """Step world 0 with ``self._actions``: the step's rewards (the view's form), ``died`` ``(1, N)``, ``done``."""
        reward, died, done, _ = sim.step(self.sim_state, self._actions, self.params)
        return float(reward[0]), died, done

    def _reward_of(self, reward: Any, unit: int) -> Any:
        """Agent ``unit``'s reward from :meth:`_advance`'s: the team reward, a float."""
        return reward

    def _check_agents(self, actions: Any) -> None:
        if isinstance(actions, dict):
            live = set(self.agents)
            for name in actions:
                if name in self._index and name not in live:
                    raise InvalidAgentError(
                        f"{self.env_id}: agent {name!r} is dead (its unit's health reached 0) and has left "
                        f"env.agents; send actions only for env.agents ({', '.join(self.agents)})."
                    )
        check_action_dict(self.env_id, actions, self.agents, self._index, "send 1 to stop")

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        batch = sim.observe(self.sim_state, self.params)[0]  # (N, F), fresh
        return {agent: batch[self._index[agent]] for agent in agents}

    def state(self) -> np.ndarray:
        """The global state (PettingZoo's ``state()``); see ``state_space``."""
        if self.scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before state().")
        return sim.global_state(self.sim_state, self.params)[0]

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.combat.render import CombatRenderer

        return CombatRenderer(self.params, self.render_mode, self.metadata["render_fps"])
