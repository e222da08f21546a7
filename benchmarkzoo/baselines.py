"""How baselines are called: ``baseline(env)`` or ``baseline(env, observation)``.

A baseline is a class registered as ``EnvSpec.baseline``; its instance is called with the env
(single, native vector, or PettingZoo parallel) and returns actions shaped for it. Planners that
read the simulator take the env alone; controllers that act on what they see (the Panda
experts) also take the latest observation, batched like the env's.
"""

from __future__ import annotations

import inspect
from typing import Any


def wants_observation(baseline: Any) -> bool:
    """Whether ``baseline`` is called as ``baseline(env, observation)``."""
    parameters = [
        p
        for p in inspect.signature(baseline).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(parameters) >= 2


def act(baseline: Any, env: Any, observation: Any) -> Any:
    """The baseline's actions for ``env``, whose latest observation is ``observation``."""
    return baseline(env, observation) if wants_observation(baseline) else baseline(env)
