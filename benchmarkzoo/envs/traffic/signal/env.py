"""``benchmarkzoo/TrafficSignal-v0``: one signalized intersection on the real SUMO simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import ResetNeededError, ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.config import SignalConfig, Signals
from benchmarkzoo.envs.traffic.generators import SingleIntersectionGenerator
from benchmarkzoo.envs.traffic.networks import signal_shapes
from benchmarkzoo.envs.traffic.render import RENDER_METADATA
from benchmarkzoo.envs.traffic.scenario import TrafficScenario
from benchmarkzoo.envs.traffic.signals import SignalEpisode
from benchmarkzoo.envs.view import SingleAgentEnvView


class TrafficSignalConfig(SignalConfig):
    """The arguments of TrafficSignal-v0 (both forms); see :class:`TrafficSignalEnv`."""

    generator_type: ClassVar[type] = SingleIntersectionGenerator
    generator_needs: ClassVar[str] = "a single-intersection generator"
    time_limit: ClassVar[int] = 360  # the native vector form's default: 1800 s of the default demand

    def shapes(self, generator: Any, env_id: str) -> dict[str, tuple[int, int]]:
        """The one traffic light of ``generator``'s network (``ScenarioError`` if it has another number)."""
        path, _ = generator.network()
        shapes = signal_shapes(path)
        if len(shapes) != 1:
            raise ScenarioError(f"{env_id} controls exactly one traffic light; {generator!r} makes {len(shapes)}.")
        return shapes


def build_spaces(params: Signals) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation and action spaces of the intersection's signal."""
    return spaces.Box(0.0, 1.0, shape=(params.observation_size,), dtype=np.float32), spaces.Discrete(params.num_phases)


class TrafficSignalEnv(SignalEpisode, SingleAgentEnvView):
    """Control one signalized intersection of the SUMO traffic simulator by choosing its green phase.

    ## Description

    A four-arm intersection generated with SUMO's ``netgenerate``; vehicles arrive on every
    arm by a seeded demand profile (``uniform``, ``peak`` or ``directional``) and cross, turn
    left or turn right. Every step the agent picks which green phase to show for the next
    ``delta_time`` simulated seconds (5 by default). A change of green goes through
    ``yellow_time`` seconds of yellow, and a green must show for at least ``min_green``
    seconds before it can be ended: until then the choice is ignored. SUMO itself simulates
    every vehicle (car-following, lane changing, insertion), seeded with the scenario's seed.

    ## Action Space

    ``Discrete(P)``: the index of the green phase to show, ``P`` = 2 for the default
    ``layout="opposites"`` (0: north-south, 1: east-west; left turns yield) and 4 for
    ``layout="incoming"`` (one approach at a time).

    ## Observation Space

    ``Box(0, 1, (P + 1 + 2L,), float32)``, ``L`` = incoming lanes (8 by default):

    | Slice | Meaning |
    |-------|---------|
    | ``[0, P)`` | one-hot current green (the upcoming one during yellow) |
    | ``P`` | 1 if the minimum green has passed (a change would be honoured) |
    | ``[P+1, P+1+L)`` | density of each incoming lane: vehicles / lane capacity (lane length / 7.5 m) |
    | ``[P+1+L, P+1+2L)`` | queue of each incoming lane: halting vehicles / lane capacity |

    ## Rewards

    Selected with ``reward=``:

    * ``"diff-waiting-time"`` (default): the decrease of the summed waiting time of the
      vehicles on the incoming lanes over the step, in hundreds of seconds (as in sumo-rl);
    * ``"pressure"``: vehicles on the outgoing lanes minus vehicles on the incoming lanes;
    * ``"queue"``: minus the number of halting vehicles on the incoming lanes.

    ``info`` holds ``sim_time``, ``queue``, ``waiting_time`` and ``arrived``, and the episode's
    metrics so far (so the last step's info holds the episode's):

    | Key | Meaning |
    |-----|---------|
    | ``mean_waiting_time`` | SUMO's mean waiting time of completed trips (s) |
    | ``mean_travel_time`` | SUMO's mean duration of completed trips (s) |
    | ``throughput`` | completed trips |
    | ``mean_queue`` | halting vehicles on the incoming lanes, averaged over the steps |
    | ``total_co2`` | grams of CO2 emitted by every vehicle (only with ``emissions=True``) |

    Baselines on the test split of ``traffic/single-intersection`` (seeds 100000-100009 of the
    50, 360 steps, ``emissions=True``; measured with SUMO 1.28, means over the 10 episodes):

    | Controller | mean waiting time (s) | mean travel time (s) | throughput | mean queue | total CO2 (g) |
    |------------|-----------------------|----------------------|------------|------------|---------------|
    | fixed-time (30 s greens) | 8.16 | 51.34 | 775.1 | 3.29 | 85,166 |
    | max-pressure | 3.66 | 46.03 | 776.7 | 1.42 | 78,200 |

    ## Rendering

    ``render_mode="rgb_array"`` returns ``(H, W, 3)`` uint8 frames (720 pixels on the long side,
    plus a 24-pixel text strip: simulated time, vehicles, queued vehicles); ``"human"`` shows the
    same in a pygame window after every reset and step (the ``render`` extra). A top-down view of
    the network (:mod:`benchmarkzoo.envs.traffic.render`): every vehicle at its SUMO position and
    heading, white while moving and red when halting (slower than 0.1 m/s, what ``queue``
    counts), and at the end of each signal-controlled lane its stop line, one piece per link in
    SUMO-gui's colour of that link's state character (green ``G``/``g``, yellow, red). A frame
    reads SUMO only when drawn; an episode is the same rendered or not. With ``backend="traci"``
    SUMO runs as a ``sumo`` process; no argument selects ``sumo-gui`` yet.

    ## Episode End

    * Termination: never (traffic keeps flowing).
    * Truncation: ``max_episode_steps`` steps (360 in the registered spec: 1800 simulated
      seconds at ``delta_time=5``, the length of the default demand).

    ## Arguments

    ```python
    gym.make("benchmarkzoo/TrafficSignal-v0", generator="traffic/single-intersection",
             generator_kwargs={"rate": 400, "profile": "uniform"}, delta_time=5, yellow_time=2,
             min_green=5, reward="diff-waiting-time", backend="libsumo", in_process=None,
             emissions=False, render_mode=None)
    ```

    * ``generator``/``generator_kwargs``: the scenario generator (``SingleIntersectionGenerator``:
      lanes, arm length, layout, demand rate, duration, profile, turning).
    * ``backend``: ``"libsumo"`` (default, fast) or ``"traci"`` (a ``sumo`` process over a socket).
    * ``in_process``: with libsumo, ``None``/``False`` (default) runs each simulation in a fresh
      fork of a worker process, so every episode of a seed is the same whatever ran before it;
      ``True`` runs SUMO in this process: several times faster per step on small networks, but
      libsumo allows one simulation per process at a time and a process's later simulations can
      differ from the same ones in a fresh process (it warns), so use it for speed, not for results.
    * ``emissions``: account CO2 second by second (``info["total_co2"]``); about 20% slower.
    * ``render_mode``: ``None``, ``"rgb_array"`` or ``"human"`` (see Rendering).
    * ``reset(options={"scenario": s})`` plays the given ``TrafficScenario`` instead of drawing one.

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)`` (network, vehicles and SUMO's
    ``--seed``), so the same seed gives the same trajectory on every backend. A SUMO failure
    (or a killed SUMO process) raises ``TrafficSimulationError`` naming the scenario and quoting
    SUMO; ``reset()`` then starts afresh. ``close()`` stops SUMO and removes every temporary file;
    a closed env refuses ``reset`` and ``step`` (``ClosedEnvError``).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/TrafficSignal-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape
    (19,)
    >>> obs, reward, terminated, truncated, info = env.step(1)
    >>> info["sim_time"]
    5.0
    >>> env.close()
    """

    metadata = {**RENDER_METADATA}
    config_type = TrafficSignalConfig
    config: TrafficSignalConfig
    rng_attribute = "_np_random"
    pickled_attributes = ("spec", "_np_random_seed", "_phase")

    def _setup(self) -> None:
        self._init_simulation()
        self.observation_space, self.action_space = build_spaces(self.params)
        self._num_phases, self._num_lanes = self.params.num_phases, self.params.num_lanes

    # ---- the Gymnasium API -------------------------------------------------------------------

    def _load(self, scenario: TrafficScenario) -> tuple[np.ndarray, dict[str, Any]]:
        self._start(scenario)
        return self._observation(), self._info()

    def _step(self, action: Any):
        if self._measurement is None:
            raise ResetNeededError(f"{self.env_id}: the last SUMO step failed; call reset() to start a new simulation.")
        if type(action) is not int or not 0 <= action < self._num_phases:
            check_action(self.env_id, self.action_space, action)
            action = int(action)
        self._advance(np.array([action], dtype=np.int64))
        reward = self._reward()
        self._previous_waiting = sim.total_waiting(self.layout, self._measurement)
        return self._observation(), reward, False, False, self._info()

    def _reward(self) -> Any:
        return sim.reward(self.reward_kind, self.layout, self._measurement, self._previous_waiting)

    def _info(self) -> dict[str, Any]:
        return {
            **sim.step_info(self.layout, self._measurement),
            **sim.episode_metrics(self._measurement, self._totals, self.emissions),
        }

    def _close_sim(self) -> None:
        self._close_simulation()

    # ---- the simulation (SignalEpisode's hooks) ------------------------------------------------

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> float:
        return sim.total_waiting(layout, m)

    def _check_layout(self, layout: sim.Layout, scenario: TrafficScenario) -> None:
        num_phases, num_lanes = layout.num_phases(0), len(layout.incoming[0])
        if len(layout.tls_ids) != 1 or (num_phases, num_lanes) != (self._num_phases, self._num_lanes):
            raise ScenarioError(
                f"{self.env_id} was made for {self._num_phases} green phases and {self._num_lanes} incoming lanes; "
                f"{scenario.label} has {num_phases} and {num_lanes}. Pass a scenario of this env's generator."
            )

    def _observation(self) -> np.ndarray:
        return sim.observe(self.layout, self._measurement)
