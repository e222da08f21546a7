"""Run a task of any kind: schedule its episodes on the worlds of a vector env and collect raw outcomes.

Episode ``k`` of task ``t`` is seeded with ``derive_seed(protocol_seed, t, k)`` and plays the
scenario of the ``k``-th seed of the task's split (cycling if there are more episodes than
scenarios). Worlds run with autoreset DISABLED; a world that finishes an episode is reset with
the next episode's seed and scenario (worlds finishing on the same step share one ``reset`` call
per scenario), so an episode's outcome depends on its seed and scenario alone: not on the world
it ran in, the number of worlds, the backend, or what ran beside it. Multi-agent tasks run on
their native multi-agent vector form, and a world's episode ends when it has no active agent
left; what the loop sums and records for each kind is its
:class:`~benchmarkzoo.evaluation.accounting.Accounting`.

That is also what makes a crashed simulator harmless: when a SUMO or PyBullet process dies
(:class:`~benchmarkzoo.core.errors.SimulatorError`), the episodes it interrupted are replayed
from their plans on a fresh env, at most :data:`SIMULATOR_RETRIES` times each, and their
outcomes are the undisturbed run's. Each outcome counts its replays
(:attr:`EpisodeOutcome.simulator_restarts`); only a simulator that dies on every try fails the task.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import iterate

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError, ScenarioSetError, SimulatorError
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.accounting import Accounting, accounting_for
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split

#: Where the worlds of a task live: in one native simulator, or Gymnasium's sync / async vector envs.
ENV_BACKENDS = ("native", "sync", "async")
#: ``--backend`` choices: an env backend, or ``ray`` (shares of episodes on Ray workers, native there).
BACKENDS = (*ENV_BACKENDS, "ray")
#: Replays of an episode whose simulator died (a SUMO or PyBullet process: killed, crashed, out of
#: memory) before its task fails: so 1 + SIMULATOR_RETRIES tries. Each replay starts a fresh env from
#: the episode's seed and scenario, so a crash that does not recur leaves the outcomes unchanged.
SIMULATOR_RETRIES = 2


class TaskFailedError(BenchmarkZooError, RuntimeError):
    """The policy raised or sent an action the env refused, or the simulator died on every try (the message says)."""


class SimulatorCrashError(Exception):
    """A :class:`SimulatorError` in a play of episodes, with the plans that were running when it struck.

    Internal to the runners: :func:`replaying` catches it and replays those plans.
    """

    def __init__(self, error: SimulatorError, running: list[EpisodePlan]):
        super().__init__(str(error))
        self.error, self.running = error, running


@dataclasses.dataclass(frozen=True)
class EpisodePlan:
    """What determines one episode: its index, its seed, and the scenario it plays."""

    index: int
    seed: int
    scenario_seed: int


@dataclasses.dataclass
class EpisodeOutcome:
    """Raw outcome of one episode, of any kind of env; aggregates are computed from these alone.

    Its fields are those of the results file's :class:`~benchmarkzoo.evaluation.results.Episode`
    (which reads them by name), plus the run's own count of simulator restarts. What
    ``episode_return`` and ``team_return`` hold per kind: :mod:`benchmarkzoo.evaluation.accounting`.
    """

    index: int
    seed: int
    scenario_seed: int
    scenario_hash: str
    episode_return: float | list[float]
    length: int
    success: bool | None
    metrics: dict[str, float]
    team_return: float | None = None
    #: Times this episode was replayed on a fresh env because its simulator died (the outcome is the last try's).
    simulator_restarts: int = 0


def plan_episodes(task: Task, protocol_seed: int, scenario_seeds: list[int]) -> list[EpisodePlan]:
    """The task's episodes in index order."""
    return [
        EpisodePlan(k, derive_seed(protocol_seed, task.id, k), scenario_seeds[k % len(scenario_seeds)])
        for k in range(task.episodes)
    ]


def make_task_env(task: Task, split: Split, backend: str, num_envs: int) -> gym.vector.VectorEnv:
    """The vector env a task runs on, drawing from the task split's generator."""
    if backend not in ENV_BACKENDS:
        raise ValueError(f"backend must be one of {ENV_BACKENDS}; got {backend!r}.")
    spec = registration.spec(task.env)
    spec.require_extras()
    kwargs = {**split.env_kwargs(), **task.env_kwargs}
    if spec.kind in ("parallel", "moma"):
        if backend != "native":
            raise TaskFailedError(
                f"{spec.id} is a multi-agent env: it runs on its native multi-agent vector form only; "
                "use --backend native (or ray, which runs native)."
            )
        return registration.make_vec(spec.id, num_envs, autoreset_mode=AutoresetMode.DISABLED, **kwargs)
    if backend == "native":
        if not spec.has_native_vector:
            raise ValueError(f"{spec.id} has no native vector form; use --backend sync or async.")
        return registration.make_vec(
            spec.id, num_envs, vectorization_mode="vector_entry_point", autoreset_mode=AutoresetMode.DISABLED, **kwargs
        )
    return gym.make_vec(
        spec.id,
        num_envs,
        vectorization_mode=backend,
        vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        **kwargs,
    )


def _describe(actions: Any) -> str:
    """A short, one-line description of what a policy returned (for error messages)."""
    array = np.asarray(actions, dtype=object) if actions is None else actions
    shape = getattr(array, "shape", None)
    dtype = getattr(array, "dtype", None)
    layout = f", shape {tuple(shape)}, dtype {dtype}" if shape is not None else ""
    return f"{type(actions).__name__}{layout}"


def _check_batch(env: gym.vector.VectorEnv, actions: Any) -> None:
    """Refuse a batch without one action per world before a Gymnasium vector env splits it.

    ``SyncVectorEnv`` would silently pair a (2, 3) array's rows with the first two worlds, and
    ``AsyncVectorEnv`` would send part of the batch to its workers before noticing. The native
    vector envs check their whole batch themselves.
    """
    try:
        count = sum(1 for _ in iterate(env.action_space, actions))
    except Exception as error:
        raise TaskFailedError(
            f"expected a batch of {env.num_envs} actions in {env.action_space}; got {_describe(actions)} ({error})."
        ) from error
    if count != env.num_envs:
        raise TaskFailedError(
            f"expected a batch of {env.num_envs} actions in {env.action_space}; got {count} ({_describe(actions)})."
        )


#: Scenarios kept per process, keyed by (generator, kwargs, seed): each is generated and hashed once,
#: not once per episode (a task of 1,000 episodes over a split of 100 seeds plays each ten times).
_SCENARIOS: dict[tuple[str, str, int], tuple[Any, str]] = {}
_SCENARIOS_LIMIT = 4096


def clear_scenario_cache() -> None:
    """Forget this process's generated scenarios (benchmarks time a cold start with it)."""
    _SCENARIOS.clear()


def _kwargs_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=lambda v: dict(v) if isinstance(v, Mapping) else repr(v))


class ScenarioSource:
    """The scenarios a task's episodes play, each refused unless its hash is the one the set records.

    A scenario is generated (and hashed) once per process and seed, then reused: the recorded
    hash is still compared for every episode. Envs copy a scenario into their state and never
    modify it (checked by the tests).
    """

    def __init__(self, task: Task, split: Split):
        self._task, self._split = task, split
        self._key = (split.generator, _kwargs_key(dict(split.kwargs)))
        self._generator: Any = None

    def get(self, scenario_seed: int) -> tuple[Any, str]:
        """``(scenario, content_hash)`` of ``scenario_seed``."""
        key = (*self._key, scenario_seed)
        found = _SCENARIOS.get(key)
        if found is None:
            if self._generator is None:
                self._generator = self._split.make_generator()
            scenario = self._generator.sample(scenario_seed)
            found = (scenario, scenario.content_hash)
            if len(_SCENARIOS) >= _SCENARIOS_LIMIT:
                del _SCENARIOS[next(iter(_SCENARIOS))]
            _SCENARIOS[key] = found
        expected = self._split.hashes.get(scenario_seed)
        # A calibration twin's hashes are recorded in the calibration record, which `check` compares.
        if expected != found[1] and not self._split.is_calibration_twin:
            raise ScenarioSetError(
                f"{self._task.scenario_set}/{self._task.split}: seed {scenario_seed} now generates "
                f"{found[1][:12]}, the set records {str(expected)[:12]}. "
                "Run `benchmarkzoo scenarios verify`."
            )
        return found


class Scheduler:
    """Which planned episode each world plays, and the resets that start them.

    Worlds that start episodes on the same step are reset together, one ``reset`` call per
    distinct scenario (the native envs take one ``scenario`` per call); worlds left idle at the
    end of the plan are reset in the same call, or in one call of their own, with a scenario
    already at hand (an idle world's outputs are ignored, so which one does not matter).
    """

    def __init__(self, env: Any, task: Task, split: Split, plans: list[EpisodePlan], policy: Policy):
        self.env, self.policy = env, policy
        self.num_envs = env.num_envs
        self.scenarios = ScenarioSource(task, split)
        self.queue = deque(plans)
        self.running: list[EpisodePlan | None] = [None] * self.num_envs
        self.hashes: list[str | None] = [None] * self.num_envs
        self.active = 0  # worlds playing an episode
        self._idle_scenario: Any = None

    def in_flight(self) -> list[EpisodePlan]:
        """The plans started and not finished, in world order."""
        return [plan for plan in self.running if plan is not None]

    def start(self, worlds: list[int], idle: list[int] | None = None, first: bool = False) -> Any:
        """Start the next planned episodes on ``worlds`` (ascending) and reset ``idle`` worlds; the observations."""
        idle = [] if idle is None else idle  # a list: a tuple would index the mask as several axes
        groups: dict[int, list[int]] = {}
        seeds: list[int | None] = [None] * self.num_envs
        episode_seeds: list[int] = []  # of ``worlds``, in order
        for world in worlds:
            plan = self.queue.popleft()
            self.running[world] = plan
            seeds[world] = plan.seed
            episode_seeds.append(plan.seed)
            groups.setdefault(plan.scenario_seed, []).append(world)
        self.active += len(worlds)
        observations = None
        for n, (scenario_seed, group) in enumerate(groups.items()):
            scenario, digest = self.scenarios.get(scenario_seed)
            for world in group:
                self.hashes[world] = digest
            self._idle_scenario = scenario
            if first and n == 0:  # the first reset must reset every world: all are seeded, one scenario
                observations, _ = self.env.reset(seed=seeds, options={"scenario": scenario})
                continue
            mask = np.zeros(self.num_envs, dtype=bool)
            mask[group] = True
            if n == 0 and len(idle):
                mask[idle] = True
            group_seeds: list[int | None] = [None] * self.num_envs
            for world in group:
                group_seeds[world] = seeds[world]
            observations, _ = self.env.reset(seed=group_seeds, options={"reset_mask": mask, "scenario": scenario})
        if not groups and len(idle):
            mask = np.zeros(self.num_envs, dtype=bool)
            mask[idle] = True
            observations, _ = self.env.reset(options={"reset_mask": mask, "scenario": self._idle_scenario})
        if worlds:
            self.policy.start_episodes(np.asarray(worlds), episode_seeds)
        return observations

    def finish(self, world: int) -> tuple[EpisodePlan, str]:
        """World ``world``'s episode is over: its plan and its scenario's hash."""
        plan, digest = self.running[world], self.hashes[world]
        if plan is None or digest is None:  # the loop's own bug, never the user's
            raise RuntimeError(f"world {world} has no episode to finish")
        self.running[world] = None
        self.active -= 1
        return plan, digest


def call_policy(policy: Policy, observations: Any, env: Any) -> Any:
    """``policy.act``, its own failure turned into a :class:`TaskFailedError` naming it."""
    try:
        return policy.act(observations, env)
    except Exception as error:  # the policy's own failure fails the task, with its message
        raise TaskFailedError(f"policy {policy.name!r} raised {type(error).__name__}: {error}") from error


def refused(policy: Policy, error: Exception) -> TaskFailedError:
    """The failure of a task whose policy sent an action the env refused."""
    reason = str(error) if isinstance(error, BenchmarkZooError) else f"{type(error).__name__}: {error}"
    return TaskFailedError(f"policy {policy.name!r} sent an action the env refused: {reason}")


#: Plays plans, handing each outcome and its step count to the callback as it finishes.
Play = Callable[[list[EpisodePlan], Callable[[EpisodeOutcome, int], None]], None]


def replaying(
    plans: list[EpisodePlan], play: Play, on_episode: Callable[[EpisodeOutcome, int], None] | None = None
) -> list[EpisodeOutcome]:
    """``play(plans, finished)``, replaying the episodes a dead simulator interrupted; outcomes in plan order.

    Finished episodes are kept; the interrupted ones (or, if none was running, the next one,
    so that a simulator that cannot even start is bounded too) are charged one restart, and
    everything unfinished is played again on a fresh env.

    Raises:
        TaskFailedError: an episode's simulator died in each of its ``1 + SIMULATOR_RETRIES`` tries.
    """
    outcomes: dict[int, EpisodeOutcome] = {}
    restarts: dict[int, int] = {}

    def finished(outcome: EpisodeOutcome, steps: int) -> None:
        outcome.simulator_restarts = restarts.get(outcome.index, 0)
        outcomes[outcome.index] = outcome
        if on_episode is not None:
            on_episode(outcome, steps)

    todo = plans
    while todo:
        try:
            play(todo, finished)
        except SimulatorCrashError as crash:
            todo = [plan for plan in todo if plan.index not in outcomes]
            struck = [plan for plan in crash.running if plan.index not in outcomes] or todo[:1]
            for plan in struck:
                restarts[plan.index] = restarts.get(plan.index, 0) + 1
            worst = max(struck, key=lambda plan: restarts[plan.index], default=None)
            if worst is not None and restarts[worst.index] > SIMULATOR_RETRIES:
                raise TaskFailedError(
                    f"The simulator died in each of the {restarts[worst.index]} tries of episode {worst.index} "
                    f"(seed {worst.seed}; {SIMULATOR_RETRIES} restarts), so the task stops here. "
                    f"The last time: {crash.error}"
                ) from crash.error
            continue
        break
    return [outcomes[p.index] for p in plans]


def run_episodes(
    task: Task,
    split: Split,
    plans: list[EpisodePlan],
    policy: Policy,
    backend: str = "native",
    num_envs: int = 8,
    on_episode: Callable[[EpisodeOutcome, int], None] | None = None,
) -> list[EpisodeOutcome]:
    """Play ``plans`` with ``policy``, on any kind of env; outcomes come back in plan order.

    Multi-agent tasks run on their native multi-agent vector form; what is summed and recorded
    for each kind is its :class:`~benchmarkzoo.evaluation.accounting.Accounting`. Episodes whose
    simulator died are replayed (see :func:`replaying`); each outcome's ``simulator_restarts``
    says how often.

    Args:
        task: the task whose env and time limit the episodes play on.
        split: the task's split of its scenario set (the scenarios, and their recorded hashes).
        plans: the episodes to play (from :func:`plan_episodes`: index, seed, scenario seed).
        policy: the policy acting; it is set up on the task's env first.
        backend: where the worlds live: one of :data:`ENV_BACKENDS`.
        num_envs: worlds per vector env (at most one per plan; the outcomes are the same for any).
        on_episode: called with each outcome and the number of steps it took, as it finishes.

    Raises:
        TaskFailedError: the policy raised, its action was refused by the env, or the simulator
            died on every try of an episode.
    """
    return replaying(
        plans, lambda todo, finished: _play(task, split, todo, policy, backend, num_envs, finished), on_episode
    )


def close_task_env(env: Any, failed: bool) -> None:
    """Close a task's env; after a failure an async env may have lost workers or hold a half-sent step: terminate it."""
    if env is None:
        return
    if failed and isinstance(env, gym.vector.AsyncVectorEnv):
        env.close(terminate=True)
    else:
        env.close()


def _play(
    task: Task,
    split: Split,
    plans: list[EpisodePlan],
    policy: Policy,
    backend: str,
    num_envs: int,
    finished_episode: Callable[[EpisodeOutcome, int], None],
) -> None:
    """One try at ``plans`` on a fresh env; a dead simulator comes out as :class:`SimulatorCrashError`."""
    spec = registration.spec(task.env)
    num_envs = max(1, min(num_envs, len(plans)))
    env, worlds = None, None
    failed = True
    try:
        env = make_task_env(task, split, backend, num_envs)
        policy.start_task(task.id)
        policy.setup(env, spec)
        worlds = Scheduler(env, task, split, plans, policy)
        _Loop(env, worlds, policy, accounting_for(spec.kind), check=backend != "native").run(spec.id, finished_episode)
        failed = False
    except SimulatorError as error:
        raise SimulatorCrashError(error, worlds.in_flight() if worlds is not None else []) from error
    finally:
        close_task_env(env, failed)


class _Loop:
    """The episodes of one :class:`Scheduler`, stepped until every world is idle: the one evaluation loop.

    Returns are accumulated for every world at once (elementwise, so each world's sum is the
    same in any batch); idle worlds' sums are garbage and zeroed when they start an episode.

    Args:
        check: refuse an action batch without one action per world before the env splits it
            (Gymnasium's sync / async vector envs; the native ones check their batch themselves).
    """

    def __init__(self, env: Any, worlds: Scheduler, policy: Policy, accounting: Accounting, check: bool):
        self.env, self.worlds, self.policy, self.accounting, self.check = env, worlds, policy, accounting, check
        self.returns: np.ndarray | None = None  # (B, ...) as the kind's rewards, allocated at the first step
        self.lengths = np.zeros(env.num_envs, dtype=np.int64)  # (B,)

    def run(self, env_id: str, finished_episode: Callable[[EpisodeOutcome, int], None]) -> None:
        worlds, accounting = self.worlds, self.accounting
        observations = worlds.start(list(range(self.env.num_envs)), first=True)
        while worlds.active:
            observations, rewards, terminations, truncations, infos = self.step(observations)
            if self.returns is None:
                self.returns = accounting.returns(env_id, rewards)
            self.returns += rewards
            self.lengths += 1
            ended = accounting.ended(terminations, truncations, infos)
            if ended.any():
                observations = self.finish(np.flatnonzero(ended).tolist(), infos, finished_episode, observations)

    def step(self, observations: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """One step of every world with the policy's actions; a refused action fails the task."""
        actions = call_policy(self.policy, observations, self.env)
        try:
            if self.check:
                _check_batch(self.env, actions)
            return self.env.step(actions)
        except SimulatorError:
            raise
        except Exception as error:  # an action the env cannot take fails the task, whatever raised
            raise refused(self.policy, error) from error

    def finish(
        self,
        ended: list[int],
        infos: dict[str, Any],
        finished_episode: Callable[[EpisodeOutcome, int], None],
        observations: Any,
    ) -> Any:
        """Record the episodes of the ``ended`` worlds and start the next ones; the observations to act on."""
        worlds, returns = self.worlds, self.returns
        assert returns is not None, "allocated at the first step, before any episode can end"
        finished, idle_ended = [], []
        for world in ended:
            if worlds.running[world] is None:
                idle_ended.append(world)
                continue
            plan, scenario_hash = worlds.finish(world)
            finished.append(world)
            outcome = self.outcome(plan, scenario_hash, world, infos)
            finished_episode(outcome, outcome.length)
        restart = finished[: len(worlds.queue)]
        idle = [*finished[len(restart) :], *idle_ended]
        if restart or (idle and worlds.active):
            # Idle worlds keep stepping (their outputs are ignored) but must be reset once ended.
            observations = worlds.start(restart, idle)
            returns[restart] = 0
            self.lengths[restart] = 0
        return observations

    def outcome(self, plan: EpisodePlan, scenario_hash: str, world: int, infos: dict[str, Any]) -> EpisodeOutcome:
        """The record of ``world``'s episode that just ended (``plan``, on the scenario of ``scenario_hash``)."""
        assert self.returns is not None, "allocated at the first step, before any episode can end"
        success, metrics = self.accounting.end_of_episode(infos, world)
        episode_return, team_return = self.accounting.episode_return(self.returns[world])
        return EpisodeOutcome(
            index=plan.index,
            seed=plan.seed,
            scenario_seed=plan.scenario_seed,
            scenario_hash=scenario_hash,
            episode_return=episode_return,
            team_return=team_return,
            length=int(self.lengths[world]),
            success=success,
            metrics=metrics,
        )
