"""Per-agent linear scalarization of multi-objective multi-agent (``moma``) envs, MOMAland-style.

:class:`LinearScalarization` wraps a PettingZoo ``ParallelEnv`` with ``reward_space(agent)`` (the
MOMAland API: ``MO-Foraging-v0``, ``MO-MAPF-v0``, or any other) and returns, for each agent, the
dot product of its vector reward with its weights, as MOMAland's
``momaland.utils.parallel_wrappers.LinearizeReward`` does. Unlike that wrapper it checks the
weights when it is built (one per objective, finite, one array per agent) rather than leaving an
agent without weights on a vector reward. :class:`LinearScalarizationVector` does the same for the
native multi-world form (``benchmarkzoo.make_vec`` of a ``moma`` id), in one array operation, and
agrees with the wrapped ParallelEnvs bit for bit.

>>> import benchmarkzoo
>>> from benchmarkzoo.wrappers import LinearScalarization
>>> env = LinearScalarization(benchmarkzoo.make_parallel("benchmarkzoo/MO-MAPF-v0"), [1.0, 0.01, 0.01])
>>> _ = env.reset(seed=0)
>>> _, rewards, _, _, infos = env.step({agent: 0 for agent in env.agents})  # everybody waits
>>> rewards["agent_0"], infos["agent_0"]["vector_reward"].tolist()
(np.float64(-0.01), [0.0, 0.0, -1.0])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers.base_parallel import BaseParallelWrapper
from typing_extensions import override

from benchmarkzoo.core.errors import InvalidWeightsError

Weights = Any  # one (k,) array-like for every agent, or {agent: (k,) array-like}


def _env_name(env: Any) -> str:
    base = getattr(env, "unwrapped", env)
    return getattr(base, "env_id", None) or type(base).__name__


def _check_vector(name: str, who: str, value: Any, space: spaces.Box) -> np.ndarray:
    """``value`` as a read-only float64 ``(k,)`` array of finite weights for ``space`` (a ``(k,)`` Box)."""
    k = space.shape[0]
    try:
        weights = np.asarray(value)
    except Exception as error:  # ragged lists and the like
        raise InvalidWeightsError(f"{name}: {who} must be {k} finite numbers; got {value!r} ({error}).") from error
    if weights.dtype.kind not in "iuf" or weights.shape != (k,) or not np.all(np.isfinite(weights)):
        objectives = f" for the objectives of reward_space {space}" if k else ""
        raise InvalidWeightsError(
            f"{name}: {who} must be {k} finite numbers (one per objective{objectives}); got {value!r}"
            f"{f' of shape {weights.shape}' if weights.shape != (k,) else ''}. "
            f"Pass e.g. np.full({k}, 1 / {k}) for equal weights."
        )
    weights = weights.astype(np.float64)
    weights.setflags(write=False)
    return weights


def check_weights(
    name: str, agents: list[str], reward_spaces: Mapping[str, Any], weights: Weights
) -> dict[str, np.ndarray]:
    """Validate ``weights`` against every agent's reward space; returns ``{agent: (k,) float64}``.

    Args:
        name: the env's name, for messages.
        agents: every agent that can receive a reward (``possible_agents``).
        reward_spaces: each agent's reward space, a 1-D ``Box``.
        weights: one ``(k,)`` array-like for every agent, or a dict with exactly one per agent.

    Raises:
        InvalidWeightsError: a reward space that is not a 1-D ``Box``, agents missing from or unknown to
            a weights dict, or weights of the wrong length, not numbers, or not finite.
    """
    for agent in agents:
        space = reward_spaces[agent]
        if not (isinstance(space, spaces.Box) and len(space.shape) == 1):
            raise InvalidWeightsError(
                f"{name}: linear scalarization needs a 1-D Box reward space per agent; {agent!r} has {space}."
            )
    if isinstance(weights, Mapping):
        missing = [agent for agent in agents if agent not in weights]
        unknown = [agent for agent in weights if agent not in agents]
        if missing or unknown:
            raise InvalidWeightsError(
                f"{name}: a weights dict needs exactly one entry per agent of possible_agents {agents}; "
                f"missing {missing}, unknown {unknown}. Pass one array to weight every agent alike."
            )
        return {
            agent: _check_vector(name, f"the weights of {agent!r}", weights[agent], reward_spaces[agent])
            for agent in agents
        }
    shared = None
    out = {}
    for agent in agents:
        space = reward_spaces[agent]
        if shared is None or shared.shape != (space.shape[0],):
            shared = _check_vector(name, f"the weights (shared by every agent; checked for {agent!r})", weights, space)
        out[agent] = shared
    return out


def scalarize(rewards: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``sum_j rewards[..., j] * weights[..., j]`` in float64, in the same order for one agent or a batch."""
    return (np.asarray(rewards, dtype=np.float64) * weights).sum(axis=-1)


class LinearScalarization(BaseParallelWrapper):
    """A ``moma`` ParallelEnv whose rewards are each agent's weighted sum of its objectives.

    Args:
        env: a PettingZoo ``ParallelEnv`` with ``reward_space(agent)`` (a 1-D ``Box`` per agent)
            and ``(k,)`` array rewards, e.g. ``benchmarkzoo.make_parallel("benchmarkzoo/MO-MAPF-v0")``.
        weights: one ``(k,)`` array-like used for every agent, or a dict ``{agent: (k,) array-like}``
            with exactly one entry per agent of ``possible_agents``. Finite numbers, any sign.

    Rewards become numpy float64 scalars (``np.float64``, as MOMAland's ``LinearizeReward`` returns),
    ``sum_j r_j * w_j`` computed in float64; each agent's
    info also gets ``"vector_reward"``, the ``(k,)`` reward before scalarization (as
    MO-Gymnasium's ``LinearReward`` keeps it), so per-objective returns can still be logged. The
    wrapped env has no ``reward_space`` (its rewards are scalars); ``env.env.reward_space`` is the
    vector one. ``weights`` holds the checked ``{agent: (k,) float64}`` weights.

    Raises:
        InvalidWeightsError: ``env`` has no ``reward_space``, or ``weights`` do not fit it.
    """

    def __init__(self, env: Any, weights: Weights):
        name = _env_name(env)
        reward_space = getattr(env, "reward_space", None)
        if not callable(reward_space):
            raise InvalidWeightsError(
                f"{name}: LinearScalarization needs a multi-objective multi-agent env with reward_space(agent) "
                f"(kind 'moma', e.g. benchmarkzoo/MO-MAPF-v0); {type(env).__name__} has none, so its rewards are "
                "already scalar. For a native vector env use LinearScalarizationVector."
            )
        super().__init__(env)
        agents = list(env.possible_agents)
        self.weights = check_weights(name, agents, {agent: reward_space(agent) for agent in agents}, weights)

    def __getattr__(self, name: str) -> Any:
        if name == "reward_space":  # rewards are scalars now: hide the vector space from MOMAland-aware code
            raise AttributeError(
                "LinearScalarization's rewards are scalars and have no reward_space; the wrapped env's is "
                "env.env.reward_space(agent)."
            )
        return super().__getattr__(name)

    @override
    def step(self, actions: dict[str, Any]):
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        scalar = {}
        for agent, reward in rewards.items():
            scalar[agent] = np.float64(scalarize(reward, self.weights[agent]))
            infos.setdefault(agent, {})["vector_reward"] = np.asarray(reward)
        return observations, scalar, terminations, truncations, infos

    def __repr__(self) -> str:
        return f"LinearScalarization<{self.env!r}>"


class LinearScalarizationVector:
    """A ``moma`` native vector env (``benchmarkzoo.make_vec``) whose rewards are ``(B, N)`` weighted sums.

    Args:
        env: a :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv` whose rewards are
            ``(B, N, k)`` and which has ``single_reward_space`` (every agent's ``(k,)`` Box).
        weights: as for :class:`LinearScalarization`.

    Rewards become ``(B, N)`` float64, each entry the same number :class:`LinearScalarization`
    gives that world's agent; ``infos["vector_reward"]`` holds the ``(B, N, k)`` rewards (mask
    ``_vector_reward``, every world). Every other attribute is the wrapped env's.
    """

    def __init__(self, env: Any, weights: Weights):
        name = _env_name(env)
        space = getattr(env, "single_reward_space", None)
        if space is None:
            raise InvalidWeightsError(
                f"{name}: LinearScalarizationVector needs a multi-objective native vector env with "
                f"single_reward_space (e.g. benchmarkzoo.make_vec('benchmarkzoo/MO-MAPF-v0', 8)); "
                f"{type(env).__name__} has none. For a ParallelEnv use LinearScalarization."
            )
        self.env = env
        agents = list(env.possible_agents)
        self.weights = check_weights(name, agents, dict.fromkeys(agents, space), weights)
        self._matrix = np.stack([self.weights[agent] for agent in agents])  # (N, k) float64

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "single_reward_space":
            raise AttributeError(name)
        return getattr(self.env, name)

    def reset(self, **kwargs: Any):
        """The wrapped env's reset (its observations and infos are unchanged)."""
        return self.env.reset(**kwargs)

    def step(self, actions: Any):
        """Step the wrapped env; rewards become ``(B, N)`` weighted sums, the ``(B, N, k)`` ones go to the infos."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        infos["vector_reward"] = rewards
        infos["_vector_reward"] = np.ones(rewards.shape[0], dtype=bool)
        return observations, scalarize(rewards, self._matrix), terminations, truncations, infos

    def close(self, **kwargs: Any) -> None:
        """Close the wrapped env."""
        self.env.close(**kwargs)

    def __enter__(self) -> LinearScalarizationVector:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LinearScalarizationVector<{self.env!r}>"
