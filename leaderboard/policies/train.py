"""Train the reference SB3 policies shipped in this folder (see README.md).

    .venv/bin/python leaderboard/policies/train.py            # all of them
    .venv/bin/python leaderboard/policies/train.py ppo-maze   # one
    .venv/bin/python leaderboard/policies/train.py --bundle ppo-single-agent   # export and bundle (BUNDLES)

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

#: The PPO settings of the single-agent-v1 models: ``gamma`` 0.99 (the ppo-maze of quickstart-v0 used
#: 0.95, a 20-step horizon that cannot see a goal 30 cells away) and wider networks.
_SINGLE_PPO = {
    "n_steps": 256,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "ent_coef": 0.01,
    "gamma": 0.99,
    "gae_lambda": 0.95,
}
#: The train splits of single-agent-v1's Maze scenario sets (gridworld/maze, maze-obstacles, maze-rooms).
_MAZE_TRAIN_SPLITS = [
    {"generator": "maze/dfs", "generator_kwargs": {"height": 11, "width": 11, "min_goal_distance": 4}},
    {
        "generator": "maze/obstacles",
        "generator_kwargs": {"height": 11, "width": 11, "density": 0.25, "min_goal_distance": 4},
    },
    {
        "generator": "maze/rooms",
        "generator_kwargs": {
            "height": 13,
            "width": 13,
            "rooms_high": 2,
            "rooms_wide": 2,
            "doors_per_wall": 1,
            "min_goal_distance": 6,
        },
    },
]


def _split_kwargs(scenario_set: str, split: str = "train") -> dict[str, Any]:
    """The env kwargs of a scenario set's split: its generator and generator kwargs, read from the set's file."""
    from benchmarkzoo.scenario_sets import load_set

    return load_set(scenario_set).split(split).env_kwargs()


def _lineup_mix(lineup: str, allies: int, enemies: int) -> list[dict[str, Any]]:
    """Random armies of a line-up's size (the train split's generator) and the line-up itself, alternating."""
    return [
        {"generator": "combat/random", "generator_kwargs": {"num_allies": allies, "num_enemies": enemies}},
        {"generator": "combat/lineup", "generator_kwargs": {"lineup": lineup}},
    ]


#: The PPO settings of the marl-v1 models (parameter sharing: every agent slot is a VecEnv entry).
_MARL_PPO = {
    "n_steps": 128,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 5e-4,
    "ent_coef": 0.01,
    "gamma": 0.99,
    "gae_lambda": 0.95,
}

#: name -> how it trains. ``env_kwargs`` are the train split's generator settings; a list of them trains
#: round-robin, ``rounds`` times through the list, an equal share of ``timesteps`` per phase (one model for
#: the tasks of several scenario sets of one env).
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
    # mo-v2: one scalarized model per env id, bundled as ppo-mo (BUNDLES), each scalarized with its task's
    # utility weights (MO-Treasure's hypervolume tasks play mo-v0's ppo-treasure, equal weights)
    "ppo-mo-quadrotor": {
        "env": "benchmarkzoo/MO-Quadrotor-v0",
        "env_kwargs": _split_kwargs("control/mo-quadrotor"),
        "scalarize": [0.9, 0.1],
        "num_envs": 16,
        "timesteps": 1_000_000,
        "net_arch": [128, 128],
        "ppo": {**_SINGLE_PPO, "ent_coef": 0.0},
    },
    "ppo-mo-signal": {
        "env": "benchmarkzoo/MO-TrafficSignal-v0",
        # the evaluation's 240-step (20 min) horizon, so the scalarized return trained is the one scored
        "env_kwargs": {**_split_kwargs("traffic/single-intersection"), "max_episode_steps": 240},
        "scalarize": [0.95, 0.05],
        "num_envs": 4,
        "timesteps": 100_000,
        "ppo": {**_SINGLE_PPO, "n_steps": 240, "batch_size": 240},
    },
    # single-agent-v1 / generalization-v1: one model per env id, bundled as ppo-single-agent (BUNDLES)
    "ppo-sa-maze": {
        "env": "benchmarkzoo/Maze-v0",
        "env_kwargs": _MAZE_TRAIN_SPLITS,
        "rounds": 10,
        "num_envs": 16,
        "timesteps": 3_000_000,
        "net_arch": [128, 128],
        "ppo": _SINGLE_PPO,
    },
    "ppo-sa-maze-keys": {
        "env": "benchmarkzoo/MazeKeys-v0",
        "env_kwargs": {
            "generator": "maze_keys/key_door",
            "generator_kwargs": {
                "maze": "maze/dfs",
                "maze_kwargs": {"height": 11, "width": 11, "min_goal_distance": 6},
            },
        },
        "num_envs": 16,
        "timesteps": 200_000,
        "net_arch": [128, 128],
        "ppo": _SINGLE_PPO,
    },
    # one model for both quadrotor envs (same vehicle, observation and reward; hover is a goal at the start)
    "ppo-sa-quadrotor": {
        "env": "benchmarkzoo/Quadrotor-v0",
        "env_kwargs": [
            {"generator": "quadrotor/hover", "generator_kwargs": {}},
            {"generator": "quadrotor/goal", "generator_kwargs": {}},
        ],
        "rounds": 4,
        "num_envs": 16,
        "timesteps": 800_000,
        "net_arch": [128, 128],
        "ppo": {**_SINGLE_PPO, "ent_coef": 0.0},
    },
    # single-agent-v2's platform-test: a Dict action (move and power) that SB3 learns through the hybrid
    # codec's Box (benchmarkzoo.wrappers.hybrid); the onnx: policy decodes the exported Box alike
    "ppo-sa-platform": {
        "env": "benchmarkzoo/Platform-v0",
        "env_kwargs": _split_kwargs("control/platform"),
        "num_envs": 16,
        "timesteps": 100_000,
        "ppo": {
            "n_steps": 64,
            "batch_size": 256,
            "n_epochs": 10,
            "learning_rate": 1e-3,
            "ent_coef": 0.0,
            "gamma": 0.99,
            "gae_lambda": 0.95,
        },
    },
    # marl-v1: one parameter-shared model per env, and per task where the spaces differ (unicycle robots
    # observe their heading; a line-up of other unit counts has other observation and action sizes);
    # bundled as ppo-marl with ppo-mapf (BUNDLES). The combat line-ups have no train split: their models
    # mix random armies of the line-up's size with the line-up generator itself, drawn from the worlds' own
    # seeds (seed + world), not from the line-up splits' seeds (300000 to 500049).
    "ppo-marl-lifelong": {
        "env": "benchmarkzoo/MAPF-Lifelong-v0",
        "env_kwargs": _split_kwargs("multiagent/mapf-lifelong"),
        "num_envs": 8,  # worlds: 64 VecEnv entries
        "timesteps": 2_000_000,
        "ppo": _MARL_PPO,
    },
    "ppo-marl-navigation": {
        "env": "benchmarkzoo/Navigation-v0",
        "env_kwargs": _split_kwargs("multiagent/navigation"),
        "num_envs": 16,  # 64 entries
        "timesteps": 10_000_000,
        "ppo": {**_MARL_PPO, "ent_coef": 0.0},
    },
    "ppo-marl-navigation-unicycle": {
        "env": "benchmarkzoo/Navigation-v0",
        "env_kwargs": {**_split_kwargs("multiagent/navigation"), "dynamics": "unicycle"},
        "num_envs": 16,
        "timesteps": 3_000_000,
        "ppo": {**_MARL_PPO, "ent_coef": 0.0},
    },
    "ppo-marl-combat": {
        "env": "benchmarkzoo/MicroCombat-v0",
        "env_kwargs": _split_kwargs("multiagent/micro-combat"),
        "num_envs": 16,  # 80 entries
        "timesteps": 2_500_000,
        "ppo": _MARL_PPO,
    },
    "ppo-marl-combat-3m": {
        "env": "benchmarkzoo/MicroCombat-v0",
        "env_kwargs": _lineup_mix("3m", 3, 3),
        "rounds": 4,
        "num_envs": 16,
        "timesteps": 2_000_000,
        "ppo": _MARL_PPO,
    },
    "ppo-marl-combat-5m-vs-6m": {
        "env": "benchmarkzoo/MicroCombat-v0",
        "env_kwargs": _lineup_mix("5m_vs_6m", 5, 6),
        "rounds": 4,
        "num_envs": 16,
        "timesteps": 2_000_000,
        "ppo": _MARL_PPO,
    },
    "ppo-marl-foraging": {
        "env": "benchmarkzoo/Foraging-v0",
        "env_kwargs": _split_kwargs("multiagent/foraging"),
        "num_envs": 16,  # 48 entries
        "timesteps": 3_000_000,
        "ppo": _MARL_PPO,
    },
}
SEED = 0
#: ONNX bundles (:mod:`benchmarkzoo.evaluation.onnx_bundle`): name -> {"envs": {env id: policy}, "tasks":
#: {task id: policy}}, a task id for a task that needs another model than its env's (other spaces).
BUNDLES: dict[str, dict[str, dict[str, str]]] = {
    "ppo-single-agent": {
        "envs": {
            "benchmarkzoo/Maze-v0": "ppo-sa-maze",
            "benchmarkzoo/MazeKeys-v0": "ppo-sa-maze-keys",
            "benchmarkzoo/Quadrotor-v0": "ppo-sa-quadrotor",
            "benchmarkzoo/Quadrotor-Goal-v0": "ppo-sa-quadrotor",
            "benchmarkzoo/Platform-v0": "ppo-sa-platform",  # single-agent-v2's platform-test
        },
    },
    "ppo-mo": {
        "envs": {
            "benchmarkzoo/MO-Treasure-v0": "ppo-treasure",  # mo-v0's model: 11x11 seabeds, weights [0.5, 0.5]
            "benchmarkzoo/MO-Quadrotor-v0": "ppo-mo-quadrotor",
            "benchmarkzoo/MO-TrafficSignal-v0": "ppo-mo-signal",
        },
    },
    "ppo-marl": {
        "envs": {
            "benchmarkzoo/MAPF-v0": "ppo-mapf",  # marl-v0's model: the train split's settings, the same spaces
            "benchmarkzoo/MAPF-Lifelong-v0": "ppo-marl-lifelong",
            "benchmarkzoo/Navigation-v0": "ppo-marl-navigation",
            "benchmarkzoo/MicroCombat-v0": "ppo-marl-combat",  # 2s3z is 5 against 5: the 5v5 spaces
            "benchmarkzoo/Foraging-v0": "ppo-marl-foraging",
        },
        "tasks": {
            "navigation-unicycle-test": "ppo-marl-navigation-unicycle",  # observes its heading: 44 values, not 42
            "combat-3m": "ppo-marl-combat-3m",  # 3 against 3: 56 observations, 9 actions
            "combat-5m-vs-6m": "ppo-marl-combat-5m-vs-6m",  # 5 against 6: 104 observations, 12 actions
        },
    },
}


def _phases(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The env kwargs of each training phase, in order (one phase unless ``env_kwargs`` is a list)."""
    kwargs = config["env_kwargs"]
    if isinstance(kwargs, dict):
        return [kwargs]
    return list(kwargs) * config.get("rounds", 1)


def train(name: str, seed: int = SEED, out_dir: Path = HERE, timesteps: int | None = None) -> Path:
    """Train policy ``name`` of :data:`POLICIES` and write ``out_dir/<name>.zip``.

    ``timesteps`` overrides the recorded budget (for measuring a short run; the committed models use the
    recorded one).
    """
    import torch
    from stable_baselines3 import PPO

    from benchmarkzoo.adapters.sb3 import make_vec_env, tag_model

    torch.set_num_threads(1)
    config = POLICIES[name]
    total = config["timesteps"] if timesteps is None else timesteps
    phases = _phases(config)
    started = time.perf_counter()
    model = None
    for index, env_kwargs in enumerate(phases):
        env = make_vec_env(
            config["env"], config["num_envs"], seed=seed + 1000 * index, env_kwargs=env_kwargs,
            scalarize=config.get("scalarize"),
        )  # fmt: skip
        if model is None:
            policy = "MultiInputPolicy" if hasattr(env.observation_space, "spaces") else "MlpPolicy"
            net_arch = config.get("net_arch", [64, 64])
            model = PPO(policy, env, policy_kwargs={"net_arch": net_arch}, seed=seed, device="cpu", **config["ppo"])
        else:
            model.get_env().close()
            model.set_env(env)
        model.learn(total // len(phases), reset_num_timesteps=index == 0)
    assert model is not None
    tag_model(model)
    path = out_dir / f"{name}.zip"
    model.save(path)
    returns = [e["r"] for e in model.ep_info_buffer]
    mean = sum(returns) / max(len(returns), 1)
    print(
        f"{name}: {total} steps in {time.perf_counter() - started:.0f}s, "
        f"last {len(returns)} training episodes' mean return {mean:.3f} -> {path} ({path.stat().st_size} bytes)",
        flush=True,
    )
    model.get_env().close()
    return path


def bundle(name: str, models_dir: Path = HERE, out_dir: Path = HERE) -> Path:
    """Export the zips of bundle ``name`` (``models_dir/<policy>.zip``) to ONNX and write ``out_dir/<name>/``.

    The export is byte-for-byte reproducible (same torch and onnxscript), so is the manifest.
    """
    import tempfile

    from benchmarkzoo.adapters.onnx_export import export_sb3
    from benchmarkzoo.evaluation.onnx_bundle import write_bundle

    envs, tasks = BUNDLES[name]["envs"], BUNDLES[name].get("tasks", {})
    models: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for policy in sorted({*envs.values(), *tasks.values()}):
            onnx = export_sb3(models_dir / f"{policy}.zip", Path(scratch) / f"{policy}.onnx")
            models[onnx.name] = onnx.read_bytes()
    manifest = write_bundle(
        out_dir / name, name, models,
        {env_id: f"{policy}.onnx" for env_id, policy in envs.items()},
        {task_id: f"{policy}.onnx" for task_id, policy in tasks.items()},
    )  # fmt: skip
    print(f"{name}: {len(models)} models -> {manifest.parent}", flush=True)
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"policies to train, of {list(POLICIES)} (default: all)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out-dir", type=Path, default=HERE)
    parser.add_argument("--timesteps", type=int, default=None, help="override the recorded budget (measuring only)")
    parser.add_argument("--bundle", choices=sorted(BUNDLES), help="export and bundle already trained zips; no training")
    args = parser.parse_args()
    if args.bundle:
        bundle(args.bundle, args.out_dir, args.out_dir)
        return
    unknown = [n for n in args.names if n not in POLICIES]
    if unknown:
        parser.error(f"unknown policies {unknown}; choose from {list(POLICIES)}")
    for name in args.names or list(POLICIES):
        train(name, args.seed, args.out_dir, args.timesteps)


if __name__ == "__main__":
    main()
