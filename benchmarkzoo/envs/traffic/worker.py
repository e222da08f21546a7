"""The worker process of :class:`~benchmarkzoo.envs.traffic.runner.WorkerRunner`: one libsumo simulation.

Run as ``python -m benchmarkzoo.envs.traffic.worker FD`` with ``FD`` one end of a socket pair.
Requests and replies are pickled tuples: ``("start", net, routes, seed, timing, accounting)`` answers
``("ok", (layout, measurement))``, ``("step", actions)`` answers ``("ok", measurement)``,
``("close",)`` ends the process. A SUMO error answers ``("error", message)`` and the worker
stays ready for the next ``start``. The worker exits when the other end closes, so a crashed
env never leaves a worker behind.
"""

from __future__ import annotations

import contextlib
import sys
from multiprocessing.connection import Connection


def serve(fd: int) -> None:
    import libsumo

    from benchmarkzoo.envs.traffic.runner import sumo_command
    from benchmarkzoo.envs.traffic.sim import SignalController

    conn = Connection(fd)
    controller = None
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break
        if request[0] == "close":
            break
        try:
            if request[0] == "start":
                _, net, routes, seed, timing, accounting = request
                if controller is not None:
                    controller = None
                    with contextlib.suppress(Exception):
                        libsumo.close()
                libsumo.start(sumo_command(net, routes, seed))
                controller = SignalController(libsumo, timing, accounting)
                reply = ("ok", (controller.layout, controller.measure()))
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


if __name__ == "__main__":
    serve(int(sys.argv[1]))
