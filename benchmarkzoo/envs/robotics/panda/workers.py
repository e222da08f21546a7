"""Panda worlds held by worker processes, so the native vector env can use more than one core.

The parent keeps everything that decides an episode (per-world random generators, scenarios,
time limits, rewards); a worker only holds PyBullet clients and makes, for each of its worlds,
exactly the calls the single env makes: ``load`` then ``observe`` on a reset, ``act`` then
``observe`` on a step. PyBullet is deterministic per client, so which process a world lives
in cannot change its rollout: the multi-process vector env is bit-identical to the
in-process one (a test checks this).

A worker that dies (killed, or crashed inside PyBullet) shows itself as a closed pipe: the
pool then raises :class:`~benchmarkzoo.core.errors.SimulatorError` naming the process, its
signal or exit code, the command and the env, and closes every worker; the evaluation replays
the interrupted episodes on a fresh env. (The in-process form's DIRECT clients live in this
process and cannot die on their own.)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import ClosedEnvError, SimulatorError
from benchmarkzoo.envs.robotics.panda.sim import PandaWorld, Params

#: Seconds to wait for a worker to exit after ``close`` before terminating it.
JOIN_TIMEOUT = 5.0


def _serve(conn: Connection, params: Params, num_worlds: int) -> None:
    """A worker's loop: build ``num_worlds`` worlds, answer commands until ``close``."""
    from benchmarkzoo.envs.robotics.panda.env import observe

    worlds: list[PandaWorld] = []
    try:
        worlds = [PandaWorld(params) for _ in range(num_worlds)]
        conn.send(("ok", None))
        while True:
            command, payload = conn.recv()
            result: list[Any]
            if command == "load":  # payload: [(local index, scenario), ...]
                result = []
                for j, scenario in payload:
                    worlds[j].load(scenario)
                    result.append(observe(worlds[j]))
            elif command == "step":  # payload: (num_worlds, action_size) float32
                result = []
                for world, action in zip(worlds, payload):
                    world.act(action)
                    result.append(observe(world))
            elif command == "joints":
                result = [world.joint_positions() for world in worlds]
            elif command == "render":
                from benchmarkzoo.envs.robotics.panda.render import render_world

                result = [render_world(world) for world in worlds]
            elif command == "close":
                break
            else:
                raise ValueError(f"unknown command {command!r}")
            conn.send(("ok", result))
    except (KeyboardInterrupt, EOFError):
        pass
    except Exception:  # report to the parent, which raises it with the traceback
        conn.send(("error", traceback.format_exc()))
    finally:
        for world in worlds:
            world.close()
        conn.close()


class WorkerPool:
    """``num_worlds`` Panda worlds spread over ``num_workers`` processes in contiguous blocks.

    The blocks are as even as ``numpy.array_split`` makes them (worker 0 holds the first
    worlds). Each command goes to every worker first and the answers
    are collected after, so the workers step their worlds at the same time.

    Args:
        params: physics and control constants of every world.
        num_worlds: number of worlds.
        num_workers: number of processes (at most ``num_worlds``).
        label: what the pool's errors name (the env id).
        context: ``multiprocessing`` start method, ``None`` for the platform's default (as
            Gymnasium's ``AsyncVectorEnv``). A forked worker inherits copies of the parent's
            PyBullet clients but never calls them: it only steps the clients it connects itself.
            ``"spawn"`` and ``"forkserver"`` need the ``if __name__ == "__main__":`` guard.
    """

    def __init__(
        self, params: Params, num_worlds: int, num_workers: int, context: str | None = None, label: str = "Panda"
    ):
        if not isinstance(num_workers, int) or not 1 <= num_workers <= num_worlds:
            raise ValueError(
                f"num_workers must be None (no worker process) or an integer from 1 to num_envs ({num_worlds}); "
                f"got {num_workers!r}."
            )
        ctx = multiprocessing.get_context(context)
        self.blocks = [block.tolist() for block in np.array_split(np.arange(num_worlds), num_workers)]
        self.owner = {i: (w, j) for w, block in enumerate(self.blocks) for j, i in enumerate(block)}
        self.conns: list[Connection] = []
        self.processes: list[Any] = []
        self.label = label
        self.steps = 0  # step commands sent (for messages)
        self._closed = False
        try:
            for block in self.blocks:
                parent, child = ctx.Pipe()
                # every context get_context returns has Process; typeshed's BaseContext does not declare it
                process = ctx.Process(  # type: ignore[attr-defined]
                    target=_serve, args=(child, params, len(block)), daemon=True
                )
                process.start()
                child.close()
                self.conns.append(parent)
                self.processes.append(process)
            for worker in range(len(self.conns)):
                self._receive(worker, "start")
        except BaseException:
            self.close()
            raise

    def _send(self, worker: int, command: str, payload: Any, what: str) -> None:
        if self._closed:
            raise ClosedEnvError(f"{self.label}: its Panda worker processes are closed; make a new env.")
        try:
            self.conns[worker].send((command, payload))
        except OSError as error:  # BrokenPipeError, ConnectionResetError: the worker is gone
            raise self._died(worker, what) from error

    def _receive(self, worker: int, what: str) -> Any:
        try:
            status, payload = self.conns[worker].recv()
        except (EOFError, OSError) as error:
            raise self._died(worker, what) from error
        if status != "ok":
            raise RuntimeError(f"A Panda worker process failed:\n{payload}")
        return payload

    def _died(self, worker: int, what: str) -> SimulatorError:
        """Worker ``worker`` closed its pipe without answering: close the pool, name how the process ended."""
        process = self.processes[worker]
        process.join(JOIN_TIMEOUT)
        code = process.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        hint = (
            " With the 'spawn' or 'forkserver' start method, create the env under `if __name__ == '__main__':`."
            if what == "start"
            else " The env's worker processes are closed; make a new env."
        )
        self.close()
        return SimulatorError(
            f"PyBullet worker process {process.pid} died ({how}) during {what} of {self.label}.{hint}"
        )

    def load(self, scenarios: dict[int, Any]) -> dict[int, dict[str, np.ndarray]]:
        """Load ``{world: scenario}``; returns ``{world: observation dict}``."""
        jobs: dict[int, list[tuple[int, Any]]] = {}
        for i, scenario in scenarios.items():
            worker, j = self.owner[i]
            jobs.setdefault(worker, []).append((j, scenario))
        for worker, job in jobs.items():
            self._send(worker, "load", job, "a reset")
        result = {}
        for worker, job in jobs.items():
            for (j, _), obs in zip(job, self._receive(worker, "a reset")):
                result[self.blocks[worker][j]] = obs
        return result

    def step(self, actions: np.ndarray) -> list[dict[str, np.ndarray]]:
        """Step every world with ``actions`` ``(num_worlds, action_size)``; the observation dicts in world order."""
        self.steps += 1
        what = f"step {self.steps}"
        for worker, block in enumerate(self.blocks):
            self._send(worker, "step", actions[block[0] : block[-1] + 1], what)
        return [obs for worker in range(len(self.conns)) for obs in self._receive(worker, what)]

    def joint_positions(self) -> np.ndarray:
        """``(num_worlds, 9)`` float64: every world's joint positions (:meth:`PandaWorld.joint_positions`)."""
        for worker in range(len(self.conns)):
            self._send(worker, "joints", None, "a joint read")
        return np.stack([q for worker in range(len(self.conns)) for q in self._receive(worker, "a joint read")])

    def render(self) -> list[np.ndarray]:
        """One ``rgb_array`` frame per world, in world order."""
        for worker in range(len(self.conns)):
            self._send(worker, "render", None, "render")
        return [frame for worker in range(len(self.conns)) for frame in self._receive(worker, "render")]

    @property
    def alive(self) -> list[bool]:
        """Whether each worker process is still running."""
        return [process.is_alive() for process in self.processes]

    def close(self) -> None:
        """Stop every worker (each disconnects its clients); idempotent."""
        if self._closed:
            return
        self._closed = True
        for conn in self.conns:
            with contextlib.suppress(BrokenPipeError, OSError):  # the worker already died
                conn.send(("close", None))
        for process in self.processes:
            process.join(JOIN_TIMEOUT)
            if process.is_alive():
                process.terminate()
                process.join(JOIN_TIMEOUT)
        for conn in self.conns:
            conn.close()
