"""The registry's current ``moma`` ids, shared by the MOMAland tests (no second list of envs)."""

from __future__ import annotations

import re

import benchmarkzoo

#: Lighter tasks where MOMAland's checks are slow and the rules they check do not need the registered size:
#: short episodes for the SUMO env (api_test plays up to 1000 cycles), 10 beach-goers instead of 100 (its
#: wrapper tests stack one NormalizeReward per agent and objective: 200 wrappers around every step).
FAST = {
    "benchmarkzoo/MO-TrafficGrid-v0": {"max_cycles": 12},
    "benchmarkzoo/MO-Beach-v0": {"generator_kwargs": {"num_agents": 10}},
}


def current_moma_ids() -> list[str]:
    """Every ``moma`` id whose name has no later version registered (an older version is frozen as it was)."""
    ids = [spec.id for spec in benchmarkzoo.list_envs(kind="moma")]
    latest: dict[str, int] = {}
    for env_id in ids:
        name, version = re.fullmatch(r"(.+)-v(\d+)", env_id).groups()  # type: ignore[union-attr]
        latest[name] = max(latest.get(name, -1), int(version))
    return [env_id for env_id in ids if env_id.endswith(f"-v{latest[env_id.rsplit('-v', 1)[0]]}")]
