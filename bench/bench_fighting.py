"""Throughput of ``benchmarkzoo/FightingDuel-v0`` beside PettingZoo's Atari ``boxing_v2``, in one run; the ladder.

The peer is the closest two-player fighting game that installs here: PettingZoo's ``boxing_v2``
(Atari 2600 Boxing on the multi-agent ALE, ``multi_agent_ale_py``), with the ROM that the
``ale-py`` wheel ships (``auto_rom_install_path`` pointed at it; AutoROM is not needed). It
runs in its own virtual environment (``--boxing-python``, else one set up under
``~/.cache/benchmarkzoo/bench-boxing``) because ``multi_agent_ale_py`` is not a benchmarkzoo
dependency. Its cheapest observation is used (``obs_type="ram"``, 128 bytes), so the ratio flatters
the peer if anything. One Boxing step is one emulator frame; one FightingDuel step is 4
simulated frames (``frame_skip``), so both steps/s and game frames/s are shown.

Configurations, in agent-steps per second (a step of ``B`` worlds of 2 players counts ``2B``):
the ParallelEnv (one world), its native vector form at 64 and 1024 worlds, and the peer's
ParallelEnv; random actions pre-drawn (a pool of 256 cycled), resets included. Ours and the
peer are timed in alternation, run by run (``--runs``, 3; about ``--seconds`` each, 1.0), and the
median is reported. Then the ladder: each bot's share of 40 matches won against the bot below
it (:func:`~benchmarkzoo.envs.multiagent.fighting.ladder.ladder_order`, seeds 0, 1 and 2).

Usage::

    python bench/bench_fighting.py --boxing-python /work/venvs/fight-peer/bin/python
    python bench/bench_fighting.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from _peer_venv import peer_python, run_json
from _timing import (
    POOL_ROWS,
    add_timing_args,
    calibrate,
    calibrated_median,
    fmt_rate,
    header,
    target_seconds,
    time_vector_agents,
)
from bench_rps import parallel_runner

BOXING_REQUIREMENTS = ["pettingzoo==1.27.0", "multi-agent-ale-py==0.1.12", "ale-py", "numpy", "gymnasium", "pygame"]

#: Times ``boxing_v2.parallel_env(obs_type="ram")`` for about argv[1] seconds; prints agent-steps/s as JSON.
BOXING_SNIPPET = """
import json, pathlib, sys, time
import ale_py, numpy as np
from pettingzoo.atari import boxing_v2
env = boxing_v2.parallel_env(obs_type="ram", auto_rom_install_path=str(pathlib.Path(ale_py.__file__).parent))
env.reset(seed=0)
rng = np.random.default_rng(0)
pool = [{a: int(rng.integers(18)) for a in env.possible_agents} for _ in range(256)]
def run(n):
    start = time.perf_counter()
    for i in range(n):
        env.step(pool[i % 256])
        if not env.agents:
            env.reset()
    return time.perf_counter() - start
n = 16
while run(n) < float(sys.argv[1]) / 4:
    n *= 2
n = max(16, int(n * float(sys.argv[1]) / run(n)))
print(json.dumps({"rate": 2 * n / run(n)}))
"""


def vector_rate(num_envs: int, seconds: float, runs: int) -> float:
    """Median agent-steps/s of the native vector form at ``num_envs`` worlds (autoreset, random actions)."""
    from benchmarkzoo.envs.multiagent.fighting.vector_env import FightingDuelVectorEnv

    vec = FightingDuelVectorEnv(num_envs=num_envs)
    pool = np.random.default_rng(0).integers(0, 54, size=(POOL_ROWS, num_envs, 2))
    vec.reset(seed=0)
    return calibrated_median(lambda count: time_vector_agents(vec, pool, count)[0], 2 * num_envs, seconds, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "0.05 s per run: a smoke run")
    parser.add_argument("--boxing-python", help="an interpreter with multi_agent_ale_py, ale-py and pettingzoo")
    parser.add_argument("--no-ladder", action="store_true", help="skip the ladder's order (about a minute)")
    args = parser.parse_args()
    seconds, runs = target_seconds(args), args.runs
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

    import gymnasium
    import pettingzoo

    from benchmarkzoo.envs.multiagent.fighting import ladder
    from benchmarkzoo.envs.multiagent.fighting.env import FightingDuelEnv

    print(
        header(
            "FightingDuel-v0 vs PettingZoo boxing_v2 (Atari Boxing, multi-agent ALE)",
            {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__},
        )
    )
    print(f"- method: median of {runs} runs of ~{seconds:g} s, ours and the peer in alternation; resets included")
    print()
    boxing = peer_python("boxing", BOXING_REQUIREMENTS, args.boxing_python)
    ours_run = parallel_runner(FightingDuelEnv())
    count = calibrate(ours_run, seconds)
    ours, peer = [], []
    for _ in range(runs):
        ours.append(count * 2 / ours_run(count))
        result = None if boxing is None else run_json(boxing, BOXING_SNIPPET, str(seconds))
        if result is not None:
            peer.append(result["rate"])
    ours_rate = statistics.median(ours)
    print("| configuration | agent-steps/s | env-steps/s | game frames/s |\n|---|---:|---:|---:|")
    print(
        f"| benchmarkzoo FightingDuel-v0 ParallelEnv | {fmt_rate(ours_rate)} | {fmt_rate(ours_rate / 2)} | "
        f"{fmt_rate(ours_rate / 2 * 4)} |"
    )
    peer_rate = statistics.median(peer) if peer else None
    if peer_rate is not None:
        print(
            f"| PettingZoo boxing_v2 parallel_env (obs ram) | {fmt_rate(peer_rate)} | {fmt_rate(peer_rate / 2)} | "
            f"{fmt_rate(peer_rate / 2)} |"
        )
    vector = {}
    for n in (64, 1024):
        vector[n] = vector_rate(n, seconds, runs)
        print(
            f"| benchmarkzoo FightingDuelVectorEnv, {n} worlds | {fmt_rate(vector[n])} | "
            f"{fmt_rate(vector[n] / 2)} | {fmt_rate(vector[n] / 2 * 4)} |",
            flush=True,
        )
    print()
    if peer_rate is not None:
        print("Ratios to PettingZoo boxing_v2 (agent-steps/s; game frames/s in brackets):\n")
        print(f"- ParallelEnv, one world: {ours_rate / peer_rate:.2f}x ({4 * ours_rate / peer_rate:.2f}x)")
        for n, rate in vector.items():
            print(f"- native vector form, {n} worlds: {rate / peer_rate:.2f}x ({4 * rate / peer_rate:.2f}x)")
    else:
        print("The peer did not install or run (see stderr); no ratio.")
    if args.no_ladder:
        return
    print("\nLadder: share of 40 matches each bot wins against the bot below it\n")
    orders = [ladder.ladder_order(40, seed=s) for s in (0, 1, 2)]
    print("| pairing | seed 0 | seed 1 | seed 2 |\n|---|---:|---:|---:|")
    for key in orders[0]:
        print(f"| {key.replace('>', ' > ')} | " + " | ".join(f"{o[key]:.3f}" for o in orders) + " |")


if __name__ == "__main__":
    main()
