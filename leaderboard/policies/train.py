"""Train the reference SB3 policies shipped in this folder (see README.md).

    .venv/bin/python leaderboard/policies/train.py            # all of them
    .venv/bin/python leaderboard/policies/train.py ppo-maze   # one

Each policy trains with one torch thread, on CPU, with a fixed seed, on the *train* generator
settings of its suite's scenario set (the evaluation splits use other seeds). The written zip is
tagged with :func:`benchmarkzoo.adapters.sb3.tag_model`, so ``--policy sb3:<zip>`` knows the
algorithm, env and scalarization weights. Training is reproducible on the same machine and
library versions; across torch builds the floating-point results (and so the zips) may differ.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: name -> how it trains. ``env_kwargs`` are the train split's generator settings.
POLICIES: dict[str, dict[str, Any]] = {
    # single-agent: quickstart-v0 / core-v0 Maze (11x11 DFS mazes)
    "ppo-maze": {
        "env": "benchmarkzoo/Maze-v0",
        "env_kwargs": {
            "generator_kwargs": {"height": 11, "width": 11, "min_goal_distance": 4},
            "max_episode_steps": 100,
        },
        "num_envs": 16,
        "timesteps": 1_500_000,
        "ppo": {
            "n_steps": 128,
            "batch_size": 512,
            "n_epochs": 4,
            "learning_rate": 1e-3,
            "ent_coef": 0.01,
            "gamma": 0.95,
            "gae_lambda": 0.95,
        },
    },
    # multi-agent, parameter sharing: marl-v0 MAPF (16x16, 8 agents, 20% obstacles)
    "ppo-mapf": {
        "env": "benchmarkzoo/MAPF-v0",
        "env_kwargs": {"generator_kwargs": {"height": 16, "width": 16, "num_agents": 8, "density": 0.2}},
        "num_envs": 8,  # worlds: 64 VecEnv entries
        "timesteps": 1_000_000,
        "ppo": {
            "n_steps": 64,
            "batch_size": 1024,
            "n_epochs": 4,
            "learning_rate": 1e-3,
            "ent_coef": 0.01,
            "gamma": 0.95,
            "gae_lambda": 0.95,
        },
    },
    # multi-objective, linear scalarization with the suite's utility weights: mo-v0 MO-Treasure (11x11)
    "ppo-treasure": {
        "env": "benchmarkzoo/MO-Treasure-v0",
        "env_kwargs": {"generator_kwargs": {"height": 11, "width": 11}},
        "scalarize": [0.5, 0.5],
        "num_envs": 16,
        "timesteps": 150_000,
        "ppo": {
            "n_steps": 128,
            "batch_size": 512,
            "n_epochs": 4,
            "learning_rate": 1e-3,
            "ent_coef": 0.01,
            "gamma": 0.99,
            "gae_lambda": 0.95,
        },
    },
}
SEED = 0


def train(name: str, seed: int = SEED, out_dir: Path = HERE) -> Path:
    """Train policy ``name`` of :data:`POLICIES` and write ``out_dir/<name>.zip``."""
    import torch
    from stable_baselines3 import PPO

    from benchmarkzoo.adapters.sb3 import make_vec_env, tag_model

    torch.set_num_threads(1)
    config = POLICIES[name]
    env = make_vec_env(
        config["env"], config["num_envs"], seed=seed, env_kwargs=config["env_kwargs"], scalarize=config.get("scalarize")
    )
    policy = "MultiInputPolicy" if hasattr(env.observation_space, "spaces") else "MlpPolicy"
    model = PPO(policy, env, policy_kwargs={"net_arch": [64, 64]}, seed=seed, device="cpu", **config["ppo"])
    started = time.perf_counter()
    model.learn(config["timesteps"])
    tag_model(model)
    path = out_dir / f"{name}.zip"
    model.save(path)
    returns = [e["r"] for e in model.ep_info_buffer]
    mean = sum(returns) / max(len(returns), 1)
    print(
        f"{name}: {config['timesteps']} steps in {time.perf_counter() - started:.0f}s, "
        f"last {len(returns)} training episodes' mean return {mean:.3f} -> {path} ({path.stat().st_size} bytes)"
    )
    env.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"policies to train, of {list(POLICIES)} (default: all)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out-dir", type=Path, default=HERE)
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in POLICIES]
    if unknown:
        parser.error(f"unknown policies {unknown}; choose from {list(POLICIES)}")
    for name in args.names or list(POLICIES):
        train(name, args.seed, args.out_dir)


if __name__ == "__main__":
    main()
