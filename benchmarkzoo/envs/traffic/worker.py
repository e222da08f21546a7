"""The worker process of :class:`~benchmarkzoo.envs.traffic.runner.WorkerRunner`: libsumo, a fresh fork per simulation.

Run as ``python -m benchmarkzoo.envs.traffic.worker FD [STARTER]`` with ``FD`` one end of a
socket pair and ``STARTER`` a ``module:function`` that starts a simulation from a ``start``
request and returns its controller and the reply's payload (default :func:`start_signals`;
Routing-v0 brings its own). Requests and replies are pickled tuples: ``("start", ...)``
answers ``("ok", payload, pid)`` with ``pid`` the process running that simulation,
``("step", actions)`` answers ``("ok", controller.step(actions))``, ``("snapshot",)`` answers
``("ok", read_snapshot(libsumo))`` (a rendering view's vehicles and signals; reads only), ``("close",)``
ends the worker. A SUMO error answers ``("error", message)`` and the worker stays ready for the next
``start``. The worker exits when the other end closes, so a crashed env never leaves a worker behind.

**Why a fork per simulation.** A second libsumo simulation in a process can differ from the
same simulation in a fresh process: on RESCO's cologne1 a same-seed episode took another path
after about 640 simulated seconds in one run out of two, once the process had simulated another
episode before (SUMO's state left from the first simulation, most likely the layout of its heap,
orders some of its decisions). So this process imports libsumo and never simulates: each
``start`` runs in a child forked from it, which begins from the same untouched state every time
(a fork costs milliseconds). The child serves the socket until the next ``start``, which it hands
back to this process through a pipe before exiting; if the child dies, this process dies the
same way, so the env sees the death and its signal.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

#: Starts a simulation on ``libsumo`` from a ``start`` request: ``(controller, reply payload)``.
Starter = Callable[[Any, tuple], tuple[Any, Any]]
DEFAULT_STARTER = "benchmarkzoo.envs.traffic.worker:start_signals"


def start_signals(libsumo: Any, request: tuple) -> tuple[Any, Any]:
    """``("start", net, routes, seed, timing, accounting)``: a signal controller and its layout and measurement."""
    from benchmarkzoo.envs.traffic.runner import sumo_command
    from benchmarkzoo.envs.traffic.sim import SignalController

    _, net, routes, seed, timing, accounting = request
    libsumo.start(sumo_command(net, routes, seed))
    controller = SignalController(libsumo, timing, accounting)
    return controller, (controller.layout, controller.measure())


def load_starter(name: str) -> Starter:
    """The starter function named ``module:function``."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def serve(fd: int, starter: str = DEFAULT_STARTER) -> None:
    """Serve requests on socket ``fd`` until it closes, each start in a fresh fork (see the module docstring)."""
    import libsumo

    from benchmarkzoo.envs.traffic.snapshot import read_snapshot

    begin = load_starter(starter)  # imported here, once, so that no fork imports anything
    pending: Any = None
    while True:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            code = 1
            try:
                code = _simulate(Connection(fd), pending, write_end, libsumo, begin, read_snapshot)
            finally:
                os._exit(code)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as handed_back:
            data = handed_back.read()
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):  # die as the simulation died, so the env reports its signal
            number = os.WTERMSIG(status)
            with contextlib.suppress(OSError, ValueError):  # SIGKILL's handler cannot be set (nor needs to be)
                signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        if os.WEXITSTATUS(status) != 0:
            sys.exit(os.WEXITSTATUS(status))
        if not data:  # closed by the env, or its end of the socket went away
            return
        pending = pickle.loads(data)


def _simulate(
    conn: Connection, pending: Any, handback: int, libsumo: Any, begin: Starter, look: Callable[[Any], Any]
) -> int:
    """Serve requests in a forked child: at most one ``start``; the next one goes back to the parent."""
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
                controller, payload = begin(libsumo, request)
                reply: tuple = ("ok", payload, os.getpid())
            elif request[0] == "step":
                if controller is None:
                    raise RuntimeError("step before start")
                reply = ("ok", controller.step(request[1]))
            elif request[0] == "snapshot":
                if controller is None:
                    raise RuntimeError("snapshot before start")
                reply = ("ok", look(libsumo))
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
    serve(int(sys.argv[1]), *sys.argv[2:3])
