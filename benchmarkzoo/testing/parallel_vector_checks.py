"""``check_parallel_vector_matches_single``: a native multi-agent vector env equals its ParallelEnvs.

Gymnasium has no sync vector form of a PettingZoo env, so the reference is ``num_envs``
separate ParallelEnvs, world ``i`` seeded ``seed + i``, stepped with the same actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.testing._compare import assert_same

_BOOK_KEYS = ("present", "active")


def _agent_slice(tree: Any, world: int, agent: int) -> Any:
    if isinstance(tree, dict):
        return {key: _agent_slice(value, world, agent) for key, value in tree.items()}
    return tree[world, agent]


def _is_zero(tree: Any) -> bool:
    if isinstance(tree, dict):
        return all(_is_zero(v) for v in tree.values())
    return not np.any(tree)


def _compare_world(where: str, names: list[str], world: int, vec_out: tuple, par_out: tuple, par_agents: list[str]):
    obs, rewards, terminations, truncations, infos = vec_out
    p_obs, p_rewards, p_terms, p_truncs, p_infos = par_out
    present = [names[k] for k in np.flatnonzero(infos["present"][world])]
    if present != sorted(p_obs, key=names.index):
        raise AssertionError(f"{where}: infos['present'] is {present}; the ParallelEnv returned {list(p_obs)}")
    for k, name in enumerate(names):
        if name not in p_obs:
            if not (
                _is_zero(_agent_slice(obs, world, k))
                and not np.any(rewards[world, k])
                and not terminations[world, k]
                and not truncations[world, k]
            ):
                raise AssertionError(f"{where}: {name} is absent but its slots are not zero")
            continue
        assert_same(p_obs[name], _agent_slice(obs, world, k), f"{where}: observation of {name}")
        reward = rewards[world, k]
        assert_same(np.asarray(p_rewards[name], dtype=reward.dtype), np.asarray(reward), f"{where}: reward of {name}")
        assert_same(p_terms[name], bool(terminations[world, k]), f"{where}: termination of {name}")
        assert_same(p_truncs[name], bool(truncations[world, k]), f"{where}: truncation of {name}")
        for key, value in infos.items():
            if key.startswith("_") or key in _BOOK_KEYS:
                continue
            per_agent = value.ndim >= 2 and value.shape[1] == len(names)
            has = key in p_infos[name]
            masked = bool(infos[f"_{key}"][world])
            if has and not masked:
                raise AssertionError(f"{where}: {name}'s info has {key!r} but the vector info's mask is False")
            if has:
                got = value[world, k] if per_agent else value[world]
                expected = p_infos[name][key]
                assert_same(np.asarray(expected, dtype=got.dtype), np.asarray(got), f"{where}: info {key!r} of {name}")
    if [names[k] for k in np.flatnonzero(infos["active"][world])] != par_agents:
        raise AssertionError(f"{where}: infos['active'] differs from the ParallelEnv's agents {par_agents}")


def check_parallel_vector_matches_single(
    env_id: str,
    num_envs: int = 6,
    steps: int = 400,
    seed: int = 0,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    **make_kwargs: Any,
) -> dict[str, int]:
    """Roll out a parallel env's native vector form beside ``num_envs`` ParallelEnvs seeded ``seed + i``.

    Both get the same seeded random actions. For every world and step, the agents present, their
    observations, rewards, terminations, truncations and infos, and the agents still active must
    agree exactly. With ``DISABLED`` autoreset, ended worlds are reset with ``reset_mask``.

    Returns:
        ``{"episodes_ended": ..., "steps": ...}``, so a caller can insist that resets happened.
    """
    mode = AutoresetMode(autoreset_mode)
    vec = registration.make_vec(env_id, num_envs=num_envs, autoreset_mode=mode, **make_kwargs)
    pars = [registration.make_parallel(env_id, **make_kwargs) for _ in range(num_envs)]
    names = list(vec.possible_agents)
    try:
        vec.action_space.seed(seed)
        obs, infos = vec.reset(seed=seed)
        for i, par in enumerate(pars):
            p_obs, p_infos = par.reset(seed=seed + i)
            n = len(p_obs)
            zeros: tuple[dict[str, Any], ...] = (
                {a: 0.0 for a in p_obs},
                {a: False for a in p_obs},
                {a: False for a in p_obs},
            )
            vec_out = (
                obs,
                np.zeros(infos["present"].shape),
                np.zeros((num_envs, n), bool),
                np.zeros((num_envs, n), bool),
                infos,
            )
            _compare_world(
                f"{env_id} reset(seed={seed}), world {i}", names, i, vec_out, (p_obs, *zeros, p_infos), list(par.agents)
            )
        ended = np.zeros(num_envs, dtype=bool)
        episodes_ended = 0
        for t in range(steps):
            if mode == AutoresetMode.DISABLED and ended.any():
                vec.reset(options={"reset_mask": ended.copy()})
                for world in np.flatnonzero(ended):
                    pars[world].reset()
                ended[:] = False
            actions = vec.action_space.sample()
            out = vec.step(actions)
            for i, par in enumerate(pars):
                where = f"{env_id} [{mode.value}] step {t}, world {i}"
                if mode == AutoresetMode.NEXT_STEP and ended[i]:
                    p_obs, p_infos = par.reset()
                    zero_reward = np.zeros(out[1].shape[2:]) if out[1].ndim > 2 else 0.0  # (k,) for moma
                    zeros = ({a: zero_reward for a in p_obs}, {a: False for a in p_obs}, {a: False for a in p_obs})
                    _compare_world(where + " (autoreset)", names, i, out, (p_obs, *zeros, p_infos), list(par.agents))
                    continue
                acting = list(par.agents)
                p_out = par.step({a: actions[i, names.index(a)] for a in acting})
                _compare_world(where, names, i, out, p_out, list(par.agents))
            ended = ~out[4]["active"].any(axis=1)
            episodes_ended += int(ended.sum())
        return {"episodes_ended": episodes_ended, "steps": steps}
    finally:
        vec.close()
        for par in pars:
            par.close()
