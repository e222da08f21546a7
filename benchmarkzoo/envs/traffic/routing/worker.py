"""The worker process of ``benchmarkzoo/Routing-v0``: libsumo, one fresh fork per simulated day.

Run as ``python -m benchmarkzoo.envs.traffic.routing.worker FD`` with ``FD`` one end of a socket
pair (spawned by :class:`~benchmarkzoo.envs.traffic.routing.runner.RoutingWorkerRunner`).
Requests and replies are pickled tuples: ``("start", plan)`` answers ``("ok", measurement, pid)``
with ``pid`` the process simulating that day, ``("step", choices)`` answers ``("ok", measurement)``,
``("close",)`` ends the worker; a SUMO error answers ``("error", message)``.

Every day runs in a child forked from this process, which imported libsumo but never simulates,
for the reason :mod:`benchmarkzoo.envs.traffic.worker` gives (a second libsumo simulation in one
process can differ from the same simulation in a fresh one). The child serves the socket until
the next ``start``, which it hands back through a pipe before exiting; if it dies, this process
dies the same way, so the env sees the death and its signal. The worker exits when the env's
end of the socket closes, so a crashed env never leaves a worker behind.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any


def serve(fd: int) -> None:
    import libsumo

    pending: Any = None
    while True:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            code = 1
            try:
                code = _simulate(Connection(fd), pending, write_end, libsumo)
            finally:
                os._exit(code)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as handed_back:
            data = handed_back.read()
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):  # die as the day's process died, so the env reports its signal
            with contextlib.suppress(OSError, ValueError):  # SIGKILL's handler cannot be set (nor needs to be)
                signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
            os.kill(os.getpid(), os.WTERMSIG(status))
        if os.WEXITSTATUS(status) != 0:
            sys.exit(os.WEXITSTATUS(status))
        if not data:  # closed by the env, or its end of the socket went away
            return
        pending = pickle.loads(data)


def _simulate(conn: Connection, pending: Any, handback: int, libsumo: Any) -> int:
    """Serve requests in a forked child: at most one ``start``; the next one goes back to the parent."""
    from benchmarkzoo.envs.traffic.routing.sim import SUMO_OPTIONS, RoutingController
    from benchmarkzoo.envs.traffic.runner import sumo_command

    controller = None
    started = False
    while True:
        if pending is not None:
            request, pending = pending, None
        else:
            try:
                request = conn.recv()
            except (EOFError, OSError):
                break
        if request[0] == "close":
            break
        if request[0] == "start" and started:
            if controller is not None:
                with contextlib.suppress(Exception):
                    libsumo.close()
            with os.fdopen(handback, "wb") as pipe:
                pipe.write(pickle.dumps(request))
            return 0
        try:
            if request[0] == "start":
                started = True
                plan = request[1]
                libsumo.start([*sumo_command(plan.net, plan.routes, plan.seed), *SUMO_OPTIONS])
                controller = RoutingController(libsumo, plan)
                reply: tuple = ("ok", controller.measure(), os.getpid())
            elif request[0] == "step":
                if controller is None:
                    raise RuntimeError("step before start")
                reply = ("ok", controller.step(request[1]))
            else:
                raise RuntimeError(f"unknown request {request[0]!r}")
        except Exception as error:  # SUMO's own message travels back to the env
            controller = None
            with contextlib.suppress(Exception):
                libsumo.close()
            reply = ("error", f"{type(error).__name__}: {error}")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            break
    if controller is not None:
        with contextlib.suppress(Exception):
            libsumo.close()
    return 0


if __name__ == "__main__":
    serve(int(sys.argv[1]))
