"""The RLlib adapter: every benchmarkzoo env in Ray Tune's env registry, and a PPO config that learns.

RLlib's new API stack (EnvRunners, RLModules, ``gymnasium`` 1.x) is the target::

    import ray
    from benchmarkzoo.adapters.rllib import ppo_config

    ray.init(num_cpus=2)
    algo = ppo_config("benchmarkzoo/Maze-v0").build_algo()   # registers every env first
    for _ in range(10):
        print(algo.train()["env_runners"]["episode_return_mean"])

**Tune names.** The adapter's creators are registered with Tune as :func:`tune_name` of each id
(``"rllib-adapter:benchmarkzoo/Maze-v0"``), never as the id itself: RLlib looks a string env up in
Tune's registry before it calls ``gym.make``, so a creator registered as the id would silently
replace ``gym.make`` for every ``config.environment("benchmarkzoo/Maze-v0")`` in the process,
with the seeding below. A plain id still reaches RLlib's ``gym.make`` path (single-agent envs;
a multi-agent id fails there naming ``make_parallel``); :func:`ppo_config` uses the Tune name.

How each kind of env reaches RLlib:

* **single**: the registered creator returns the Gymnasium env (``registration.make``, time
  limit included); RLlib's ``SingleAgentEnvRunner`` vectorizes it itself with ``gym.make_vec``
  (``num_envs_per_env_runner``, sync or async). With
  ``config.env_runners(gym_env_vectorize_mode="vector_entry_point")`` RLlib passes
  ``num_envs`` in the env config and the creator returns our native vector env instead (one
  batched simulator for all sub-envs).
* **mo**: as single, with the vector reward turned into ``weights @ reward`` by
  mo-gymnasium's ``LinearReward`` (the native vector form by a vector ``TransformReward``).
  The weights are the env-config key ``"scalarize"``; a vector-reward env without it is refused.
* **parallel** (and **moma**, scalarized per agent): :class:`ParallelToMultiAgentEnv`, an RLlib
  ``MultiAgentEnv`` over the PettingZoo ``ParallelEnv``. Agents that terminate (MAPF and
  Navigation agents leave on arrival) get their last observation with their termination and
  then never appear again; ``"__all__"`` is set exactly when no agent is left.

The env config is the env's constructor kwargs (``generator_kwargs``, ``max_episode_steps`` for
single-agent envs, ``max_cycles`` for parallel ones, ...) plus ``"scalarize"``.

**Seeding.** RLlib resets sub-env ``i`` of EnvRunner ``w`` once with ``config.seed + w + i``
(``config.debugging(seed=...)``; later resets are unseeded and continue the env's generator). So
that runners never replay each other's scenarios (``w + i`` collides across runners), a
creator-made env plays ``reset(seed=s)`` as ``reset(seed=derive_seed(s, "rllib", w, v))``, with
``w`` and ``v`` the EnvContext's ``worker_index`` and ``vector_index``. Training is therefore
reproducible from ``config.seed`` alone (same number of runners and sub-envs). In
``vector_entry_point`` mode RLlib drops the EnvContext (it passes a plain dict), so the native
vector env is seeded ``s + i`` as Gymnasium does; with several remote runners, prefer the
default ``sync`` mode.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from typing_extensions import override

from benchmarkzoo import registration
from benchmarkzoo.core.extras import require
from benchmarkzoo.core.seeding import derive_seed

_ray_tune = require("ray.tune", "rllib", "benchmarkzoo.adapters.rllib")
if TYPE_CHECKING:  # the checker reads RLlib's class; at run time a missing extra is named by `require`
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.typing import AgentID, MultiAgentDict
else:
    MultiAgentEnv = require("ray.rllib.env.multi_agent_env", "rllib", "benchmarkzoo.adapters.rllib").MultiAgentEnv

#: The env-config key holding the weights of a vector reward.
SCALARIZE = "scalarize"
#: The one policy every agent of a multi-agent env maps to in :func:`ppo_config`.
SHARED_POLICY = "shared"
#: What :func:`tune_name` puts before an id (not an id form, so no ``gym.make`` id is shadowed).
TUNE_PREFIX = "rllib-adapter:"


def tune_name(env_id: str) -> str:
    """The name the adapter's creator for ``env_id`` has in Tune's registry: ``config.environment(env=...)``."""
    return f"{TUNE_PREFIX}{registration.spec(env_id).id}"


def rllib_seed(seed: int, worker_index: int, vector_index: int) -> int:
    """The seed a creator-made env really resets with when RLlib passes ``seed``."""
    return derive_seed(int(seed), "rllib", int(worker_index), int(vector_index))


def check_weights(spec: registration.EnvSpec, reward_space: gym.Space | None, weights: Any) -> np.ndarray | None:
    """``weights`` as a float64 array for a vector-reward env, ``None`` for a scalar one; else a clear error."""
    if spec.kind not in ("mo", "moma"):
        if weights is not None:
            raise ValueError(f"{spec.id} has a scalar reward; '{SCALARIZE}' is only for mo/moma envs. Drop it.")
        return None
    shape = getattr(reward_space, "shape", None)
    if weights is None:
        raise ValueError(
            f"{spec.id} has a vector reward ({reward_space}); RLlib trains on scalar rewards. Put "
            f"'{SCALARIZE}': [w_1, ..., w_k] ({shape[0] if shape else 'one'} weights) in the env config."
        )
    array = np.asarray(weights, dtype=np.float64)
    if (shape is not None and array.shape != tuple(shape)) or not np.all(np.isfinite(array)):
        raise ValueError(
            f"{spec.id}: '{SCALARIZE}' must be {shape} finite weights (one per objective); got {weights!r}."
        )
    return array


class RLlibSeeding(gym.Wrapper):
    """Map ``reset(seed=s)`` to ``derive_seed(s, "rllib", worker_index, vector_index)`` (see the module doc)."""

    def __init__(self, env: gym.Env, worker_index: int = 0, vector_index: int = 0):
        super().__init__(env)
        self.worker_index = int(worker_index)
        self.vector_index = int(vector_index)

    @override
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            seed = rllib_seed(seed, self.worker_index, self.vector_index)
        return self.env.reset(seed=seed, options=options)


class ParallelToMultiAgentEnv(MultiAgentEnv):
    """An RLlib ``MultiAgentEnv`` over a PettingZoo ``ParallelEnv`` whose agents may leave early.

    The output dicts of a step hold exactly the agents that acted on it (PettingZoo's contract):
    an agent that terminates or is truncated gets its last observation, reward and flag there,
    and is absent from every later dict, so RLlib never sees (or sends actions for) a departed
    agent. ``terminateds["__all__"]`` / ``truncateds["__all__"]`` are ``True`` exactly when no
    agent is left: ``truncateds`` when the time limit ended the episode (then every agent of the
    last step is truncated, one that terminated on it too: it keeps ``terminated``, so RLlib does
    not bootstrap past its end), ``terminateds`` otherwise; never both.

    ``agents`` after a step lists the agents of that step's dicts, those that just left included:
    RLlib's env checker (run by its ``MultiAgentEnvRunner`` on every new env) requires every key
    of a step's dicts to be in ``env.agents``. RLlib acts only for agents whose last flag was
    False, so a departed agent is never sent an action; the next step drops it from ``agents``.

    Args:
        env: the ParallelEnv (``registration.make_parallel``).
        weights: ``(k,)`` weights scalarizing a ``moma`` env's vector rewards, or ``None``.
        worker_index, vector_index: from the EnvContext; they salt the reset seed.
    """

    def __init__(self, env: Any, weights: np.ndarray | None = None, worker_index: int = 0, vector_index: int = 0):
        super().__init__()
        self.par_env = env
        self.weights = weights
        self.worker_index = int(worker_index)
        self.vector_index = int(vector_index)
        self.possible_agents = list(env.possible_agents)
        self.agents = []
        self.observation_spaces: dict[AgentID, gym.Space] = {
            agent: env.observation_space(agent) for agent in self.possible_agents
        }
        self.action_spaces = {agent: env.action_space(agent) for agent in self.possible_agents}
        self.metadata = getattr(env, "metadata", {})
        self.render_mode = getattr(env, "render_mode", None)

    @override
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            seed = rllib_seed(seed, self.worker_index, self.vector_index)
        observations, infos = self.par_env.reset(seed=seed, options=options)
        self.agents = list(self.par_env.agents)
        return observations, infos

    @override
    def step(self, action_dict: MultiAgentDict):
        observations, rewards, terminations, truncations, infos = self.par_env.step(action_dict)
        if self.weights is not None:
            rewards = {agent: float(np.dot(r, self.weights)) for agent, r in rewards.items()}
        over = not self.par_env.agents
        self.agents = [agent for agent in self.possible_agents if agent in observations]  # see the class doc
        terminateds, truncateds = dict(terminations), dict(truncations)
        truncateds["__all__"] = over and any(truncations.values())
        terminateds["__all__"] = over and not truncateds["__all__"]
        return observations, rewards, terminateds, truncateds, infos

    @override
    def render(self) -> Any:
        return self.par_env.render()

    @override
    def close(self) -> None:
        self.par_env.close()


def make_env(env_id: str, config: dict[str, Any] | None = None) -> Any:
    """The env RLlib runs for ``env_id``: what the registered creator returns (see the module doc).

    Args:
        env_id: a benchmarkzoo id.
        config: the env config, an ``EnvContext`` under RLlib: env kwargs plus ``"scalarize"``
            (and ``"num_envs"``, set by RLlib in ``vector_entry_point`` mode).
    """
    spec = registration.spec(env_id)
    spec.require_extras()
    kwargs = dict(config or {})
    worker_index = getattr(config, "worker_index", 0) or 0
    vector_index = getattr(config, "vector_index", 0) or 0
    weights = kwargs.pop(SCALARIZE, None)
    num_envs = kwargs.pop("num_envs", None)
    if spec.kind in ("parallel", "moma"):
        if num_envs is not None:
            raise ValueError(
                f"{spec.id} is a multi-agent env: RLlib's MultiAgentEnvRunner vectorizes it itself. "
                "Use gym_env_vectorize_mode='sync' (the default)."
            )
        par_env = registration.make_parallel(spec.id, **kwargs)
        agent = par_env.possible_agents[0]
        reward_space = getattr(par_env, "reward_space", None)
        reward_space = reward_space(agent) if callable(reward_space) else reward_space
        return ParallelToMultiAgentEnv(par_env, check_weights(spec, reward_space, weights), worker_index, vector_index)
    if num_envs is not None:
        env = registration.make_vec(spec.id, int(num_envs), vectorization_mode="vector_entry_point", **kwargs)
        w = check_weights(spec, getattr(env.unwrapped, "reward_space", None), weights)
        if w is not None:
            env = gym.wrappers.vector.TransformReward(env, lambda rewards: np.asarray(rewards) @ w)
        return env
    if spec.kind == "mo":
        kwargs.setdefault("disable_env_checker", True)  # Gymnasium's checker warns on every vector reward
    env = registration.make(spec.id, **kwargs)
    w = check_weights(spec, getattr(env.unwrapped, "reward_space", None), weights)
    if w is not None:
        env = require("mo_gymnasium.wrappers", "mo", f"{spec.id} scalarization").LinearReward(env, weight=w)
    return RLlibSeeding(env, worker_index, vector_index)


def register_envs() -> list[str]:
    """Register every benchmarkzoo id's adapter creator with Ray Tune's env registry (idempotent); returns the ids.

    Each is registered as :func:`tune_name` of the id:
    ``config.environment(env=tune_name("benchmarkzoo/Maze-v0"), env_config={...})`` then works, on
    the local process and on every EnvRunner. The plain id is left to RLlib's ``gym.make``.
    """
    ids = []
    for spec in registration.list_envs():
        _ray_tune.register_env(tune_name(spec.id), functools.partial(make_env, spec.id))
        ids.append(spec.id)
    return ids


def _observation_space(spec: registration.EnvSpec, env_config: dict[str, Any]) -> gym.Space:
    """One agent's observation space, from a throwaway env (cheap: our envs build no scenario until reset)."""
    env = make_env(spec.id, env_config)
    try:
        if isinstance(env, ParallelToMultiAgentEnv):
            return env.observation_spaces[env.possible_agents[0]]
        return env.observation_space
    finally:
        env.close()


def ppo_config(
    env_id: str,
    *,
    env_config: dict[str, Any] | None = None,
    seed: int = 0,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 1,
    hidden: tuple[int, ...] = (64, 64),
    **overrides: Any,
) -> Any:
    """A small, CPU-friendly PPO ``AlgorithmConfig`` (new API stack) for ``env_id``.

    Single-agent and ``mo`` envs train one module (``"default_policy"``); ``parallel`` and
    ``moma`` envs train one module shared by every agent (``"shared"``, parameter sharing).
    ``Dict`` observations (Maze, MAPF) are flattened by RLlib's ``FlattenObservations``
    connector. Everything runs on the driver by default: no remote EnvRunner, local learner.

    Args:
        env_id: a benchmarkzoo id; every id is registered with Tune first.
        env_config: env kwargs (plus ``"scalarize"`` weights for vector rewards).
        seed: ``config.debugging(seed=...)``: seeds torch, numpy and the envs (see the module doc).
        num_env_runners: remote EnvRunners (0: sample on the driver).
        num_envs_per_env_runner: sub-envs per EnvRunner (RLlib vectorizes them).
        hidden: hidden layer sizes of the policy and value MLPs.
        **overrides: any ``AlgorithmConfig`` attribute (``lr=1e-3``, ``train_batch_size_per_learner=4000``,
            ``gym_env_vectorize_mode="vector_entry_point"``, ...), applied last with ``update_from_dict``.
    """
    require("torch", "rllib", "RLlib PPO (torch)")
    ppo = require("ray.rllib.algorithms.ppo", "rllib", "ppo_config")
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    register_envs()
    spec = registration.spec(env_id)
    env_config = dict(env_config or {})
    multi_agent = spec.kind in ("parallel", "moma")
    flatten = not isinstance(_observation_space(spec, env_config), gym.spaces.Box)
    runners: dict[str, Any] = {
        "num_env_runners": num_env_runners,
        "num_envs_per_env_runner": num_envs_per_env_runner,
        "num_cpus_per_env_runner": 1,
    }
    if flatten:
        runners["env_to_module_connector"] = functools.partial(_flatten_connector, FlattenObservations, multi_agent)
    config = (
        ppo.PPOConfig()
        .environment(env=tune_name(spec.id), env_config=env_config)
        .framework("torch")
        .env_runners(**runners)
        .learners(num_learners=0)
        .training(
            lr=1e-3,
            gamma=0.99,
            lambda_=0.95,
            train_batch_size_per_learner=2000,
            minibatch_size=250,
            num_epochs=10,
            entropy_coeff=0.01,
            vf_loss_coeff=0.5,
            clip_param=0.2,
        )
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="tanh"))
        .debugging(seed=seed)
        .reporting(metrics_num_episodes_for_smoothing=20)
    )
    if multi_agent:
        config = config.multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=_shared_policy)
    if overrides:
        config = config.update_from_dict(overrides)
    return config


def _shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every agent maps to the shared module (top level, so configs pickle to EnvRunners)."""
    return SHARED_POLICY


def _flatten_connector(connector: type, multi_agent: bool, env: Any = None, spaces: Any = None, device: Any = None):
    return connector(multi_agent=multi_agent)


def module_id(spec: registration.EnvSpec) -> str:
    """The RLModule id :func:`ppo_config` trains for ``spec``'s kind."""
    return SHARED_POLICY if spec.kind in ("parallel", "moma") else "default_policy"


__all__ = [
    "SCALARIZE",
    "SHARED_POLICY",
    "TUNE_PREFIX",
    "ParallelToMultiAgentEnv",
    "RLlibSeeding",
    "check_weights",
    "make_env",
    "module_id",
    "ppo_config",
    "register_envs",
    "rllib_seed",
    "tune_name",
]
