"""RLlib's own PettingZoo wrapper, ``ParallelPettingZooEnv``, over every registered parallel env.

That wrapper ends an episode only when ``all(terminations)`` or ``all(truncations)`` holds on a
step (``__all__``); otherwise its runner steps on and the env raises ``ResetNeededError``. An
episode whose last step is the time limit and on which some agent also terminates (it arrives,
or dies, exactly then) is the case that broke it: every env must truncate every agent of that
step. The loop below is the one RLlib's ``MultiAgentEnvRunner`` runs (actions for the agents
that got an observation and are not done, reset once ``__all__`` is set), with random actions.

The mixed ending is rare under random play (about one episode in thirty on MAPF-v0), so the
test makes it: it plays episodes until one agent terminates while others go on, at step ``t``,
then replays that episode's seed and actions with ``max_cycles=t`` (the determinism contract
makes the replay exact), so the limit falls on the very step that agent terminates.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install 'benchmarkzoo[rllib]'")

from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

import benchmarkzoo
from benchmarkzoo.adapters.rllib import ParallelToMultiAgentEnv, rllib_seed
from benchmarkzoo.registration import EnvSpec
from benchmarkzoo.wrappers.multiagent import LinearScalarization

SPECS = [s for s in benchmarkzoo.list_envs() if s.kind in ("parallel", "moma")]
#: The envs of the report (issue 23): the mixed ending must be produced on them, not just hoped for.
MUST_MIX = ("benchmarkzoo/MAPF-v0", "benchmarkzoo/Navigation-v0")
#: Episodes played at most while looking for an agent that terminates before the others.
MAX_EPISODES = 12
#: SUMO envs: every reset starts a simulation (RLlib's wrapper resets once more on creation): one short episode.
TRAFFIC_LIMIT, TRAFFIC_EPISODES = 3, 1

Actions = dict[str, object]


def make_rllib_env(env_spec: EnvSpec, **kwargs) -> ParallelPettingZooEnv:
    """RLlib's wrapper over the ParallelEnv; ``moma`` rewards scalarized with equal weights (RLlib needs floats)."""
    env = benchmarkzoo.make_parallel(env_spec.id, **kwargs)
    if env_spec.kind == "moma":
        (k,) = env.reward_space(env.possible_agents[0]).shape
        env = LinearScalarization(env, np.full(k, 1.0 / k))
    return ParallelPettingZooEnv(env)


def play(env: ParallelPettingZooEnv | ParallelToMultiAgentEnv, seed: int, recorded: list[Actions] | None = None):
    """One episode as RLlib's runner plays it; random actions (seeded by ``seed``) unless ``recorded``.

    Returns:
        the actions sent per step, the last step's ``(terminateds, truncateds)``, and the first step
        on which an agent terminated while others went on (``None`` if none did).
    """
    obs, _ = env.reset(seed=seed)
    if recorded is None:
        env.action_space.seed(seed)
    live = set(obs)
    sent: list[Actions] = []
    lone = None
    while True:
        actions = (
            recorded[len(sent)]
            if recorded is not None
            else {agent: env.action_space[agent].sample() for agent in sorted(live)}
        )
        sent.append(actions)
        # a ResetNeededError here is the bug: RLlib stepping an env whose agents have all finished
        obs, _, terms, truncs, _ = env.step(actions)
        live = {agent for agent in obs if not (terms[agent] or truncs[agent])}
        assert live == set(env.par_env.agents), "the wrapper's view of who is alive is the env's"
        over = terms["__all__"] or truncs["__all__"]
        assert over == (not live), f"step {len(sent)}: __all__ is {over} with {sorted(live)} still alive"
        if lone is None and live and any(terms[agent] for agent in obs):
            lone = len(sent)
        if over:
            return sent, (terms, truncs), lone


def agent_flags(flags: dict) -> dict:
    return {agent: flag for agent, flag in flags.items() if agent != "__all__"}


@pytest.mark.parametrize("env_spec", SPECS, ids=[s.id for s in SPECS])
def test_rllib_parallel_pettingzoo_env_sees_every_episode_end(env_spec: EnvSpec):
    for extra in env_spec.missing_extras:
        pytest.skip(f"needs extra {extra}: pip install 'benchmarkzoo[{extra}]'")
    traffic = env_spec.family == "traffic"
    kwargs = {"max_cycles": TRAFFIC_LIMIT} if traffic else {}
    env = make_rllib_env(env_spec, **kwargs)
    try:
        found = None
        for episode in range(TRAFFIC_EPISODES if traffic else MAX_EPISODES):
            # the seed our adapter resets its env with when RLlib passes `episode`: both wrappers replay it
            sent, _, lone = play(env, rllib_seed(episode, 0, 0))
            if lone is not None:
                found = (episode, sent[:lone])
                break
    finally:
        env.close()
    if env_spec.id in MUST_MIX:
        assert found is not None, f"no agent of {env_spec.id} terminated before the others in {MAX_EPISODES} episodes"
    if found is None:
        return  # agents of this env leave together (or never terminate): no mixed ending to make
    episode, prefix = found
    # Replay with the time limit on the lone termination's step: the mixed ending, for real.
    for wrap in (ParallelPettingZooEnv, ParallelToMultiAgentEnv):
        env = make_rllib_env(env_spec, **kwargs, max_cycles=len(prefix))
        seed = rllib_seed(episode, 0, 0)
        if wrap is ParallelToMultiAgentEnv:  # ours (worker 0, vector 0), over the same (scalarized) ParallelEnv
            env, seed = ParallelToMultiAgentEnv(env.par_env), episode
        try:
            sent, (terms, truncs), _ = play(env, seed, prefix)
        finally:
            env.close()
        assert len(sent) == len(prefix)
        assert len(set(agent_flags(terms).values())) == 2, f"{wrap.__name__}: not a mixed ending: {terms}"
        assert all(agent_flags(truncs).values()), "every agent of the time-limit step is truncated"
        assert truncs["__all__"]
        if wrap is ParallelToMultiAgentEnv:
            assert not terms["__all__"]  # ours: the time limit ended it, so truncated, never both
