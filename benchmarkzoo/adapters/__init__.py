"""Adapters to training libraries, each behind its extra and imported only when used.

* :mod:`benchmarkzoo.adapters.aec`: the AEC form of ``moma`` envs, with vector rewards (PettingZoo only).
* :mod:`benchmarkzoo.adapters.sb3`: Stable-Baselines3 ``VecEnv`` s over the native vector envs
  (``pip install "benchmarkzoo[sb3]"``).
* :mod:`benchmarkzoo.adapters.sb3_policy`: a trained SB3 model as an evaluation policy.
* :mod:`benchmarkzoo.adapters.rllib`: RLlib env registration, a ``MultiAgentEnv`` adapter for the
  parallel envs and a ready PPO config (``pip install "benchmarkzoo[rllib]"``).
* :mod:`benchmarkzoo.adapters.rllib_policy`: an RLlib checkpoint as an evaluation policy.

``import benchmarkzoo.adapters`` imports nothing heavy; ``benchmarkzoo.adapters.sb3`` imports
stable-baselines3 and torch on first access, and names the extra if they are missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_SUBMODULES = ("aec", "rllib", "rllib_policy", "sb3", "sb3_multiagent", "sb3_policy")


def __getattr__(name: str) -> ModuleType:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_SUBMODULES])
