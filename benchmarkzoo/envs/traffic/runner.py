"""Where a SUMO simulation runs: in this process (libsumo), in a worker process (libsumo), or over TraCI.

libsumo is about 40x faster than TraCI but holds one simulation per process, and a process's
second libsumo simulation can differ from the same simulation in a fresh process (see
:mod:`benchmarkzoo.envs.traffic.worker`: measured on RESCO's cologne1). So:

* ``WorkerRunner`` (the default) runs libsumo in a child process (``python -m
  benchmarkzoo.envs.traffic.worker``), every simulation in a fresh fork of it, and talks to it
  over a socket pair, one round trip per env step. It is a plain subprocess, not
  ``multiprocessing``, so it also works inside daemonic processes (``AsyncVectorEnv`` workers).
* ``InProcessRunner`` (``in_process=True``) uses libsumo in this process: several times faster
  per step on small networks, and reproducible for the process's first simulation only (it
  warns when it starts another). Only one may be active per process; it holds a process-wide
  slot from ``start`` until ``close``.
* ``TraciRunner`` starts a ``sumo`` process and connects with TraCI (e.g. to use ``sumo-gui``).

The simulation code, and therefore every number of a first simulation, is the same on every runner.

Every runner raises :class:`~benchmarkzoo.envs.traffic.sumo.TrafficSimulationError` naming the
scenario and quoting SUMO's message when SUMO fails; when SUMO's process dies (a worker's
simulation fork, or ``sumo`` under TraCI) the error is a :class:`SumoDiedError`, which is also a
:class:`~benchmarkzoo.core.errors.SimulatorError`, so the evaluation replays the episode instead
of blaming the policy. After either the runner is closed and a new ``start`` works. (In-process
libsumo cannot die on its own: its death is this process's.)
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import warnings
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import ResetNeededError, SimulatorError
from benchmarkzoo.core.extras import require
from benchmarkzoo.envs.traffic.sim import Layout, Measurement, SignalController, Timing
from benchmarkzoo.envs.traffic.snapshot import Snapshot, read_snapshot
from benchmarkzoo.envs.traffic.sumo import SUMO_QUIET_OPTIONS, TrafficSimulationError, binary, tool_environment

BACKENDS: tuple[str, ...] = ("libsumo", "traci")

_slot_lock = threading.Lock()
_slot_owner: tuple[int, int] | None = None  # (pid, id(runner)) holding in-process libsumo
_simulated_in: int | None = None  # the pid of a process whose libsumo has run a simulation


def sumo_command(net: Path, routes: Path, seed: int, gui: bool = False) -> list[str]:
    """The SUMO command line of one simulation (the remote port is added by TraCI)."""
    return [
        str(binary("sumo-gui" if gui else "sumo")),
        "--net-file",
        str(net),
        "--route-files",
        str(routes),
        "--seed",
        str(int(seed)),
        "--time-to-teleport",
        "-1",
        "--device.tripinfo.probability",
        "1",
        *SUMO_QUIET_OPTIONS,
    ]


class SumoDiedError(TrafficSimulationError, SimulatorError):
    """SUMO's process died (killed, crashed, or its connection closed): not SUMO's verdict on the scenario."""


def _how(code: int | None) -> str:
    """How a process ended, from ``Popen.returncode`` (negative: the signal that killed it)."""
    if code is None:
        return "stopped answering"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exited with code {code}"


def _reap(process: subprocess.Popen) -> None:
    """Wait (5 s at most) for ``process`` to exit once told to, then kill it."""
    try:
        process.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tail(path: Path | None, limit: int = 1500) -> str:
    if path is None or not path.is_file():
        return ""
    text = path.read_text(errors="replace").strip()
    return text[-limit:]


class Runner:
    """One SUMO simulation at a time: ``start`` loads a scenario, ``step`` advances it."""

    label = "SUMO"
    #: The file SUMO's output goes to (a runner with a process of its own).
    log: Path | None = None

    def start(
        self, net: Path, routes: Path, seed: int, timing: Timing, label: str, accounting: bool = False
    ) -> tuple[Layout, Measurement]:
        """Load a simulation; ``accounting`` as in :class:`~benchmarkzoo.envs.traffic.sim.SignalController`."""
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> Measurement:
        """Advance every signal by one env step with ``actions`` (one green per signal)."""
        raise NotImplementedError

    def snapshot(self) -> Snapshot:
        """The vehicles and signal states of the running simulation (read only when a view renders)."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the simulation and release its process or connection."""
        raise NotImplementedError

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def _remove_log(self) -> None:
        """Delete the SUMO log file of the last simulation, if any."""
        if self.log is not None:
            with contextlib.suppress(FileNotFoundError):
                self.log.unlink()
            self.log = None

    def _fail(self, what: str, message: str) -> TrafficSimulationError:
        self.close()
        return TrafficSimulationError(
            f"{self.label}: SUMO {what} failed: {message.strip() or 'no message'}. "
            "The simulation is closed; call reset() to start a new one."
        )

    def _death(self, process: str, how: str, what: str, log: str) -> SumoDiedError:
        """The error of a dead SUMO process (the runner is closed first), naming it, ``what`` it was doing, the env."""
        self.close()
        return SumoDiedError(
            f"SUMO {process} died ({how}) during {what} of {self.label}"
            + (f"; its output: {log}" if log else "")
            + ". The simulation is closed; call reset() to start a new one."
        )

    def _not_running(self) -> ResetNeededError:
        return ResetNeededError(
            f"{self.label}: no SUMO simulation is running: the env was closed (make a new one), "
            "or its simulation failed (call reset() to start another)."
        )


class InProcessRunner(Runner):
    """libsumo in this process; at most one active per process."""

    def __init__(self) -> None:
        with contextlib.redirect_stdout(io.StringIO()):  # libsumo prints a pyarrow version notice on import
            self.libsumo = require("libsumo", "traffic", "SUMO simulations through libsumo")
        self.controller: SignalController | None = None
        self._holding = False

    @staticmethod
    def slot_free() -> bool:
        """Whether no simulation of this process is running now."""
        return _slot_owner is None or _slot_owner[0] != os.getpid()

    def _acquire(self) -> None:
        global _slot_owner
        with _slot_lock:
            if self._holding:
                return
            if not self.slot_free():
                raise TrafficSimulationError(
                    "libsumo runs one simulation per process and another env in this process is using it. "
                    "Close that env first, or make this one with in_process=False (a worker process) or "
                    "backend='traci'."
                )
            _slot_owner = (os.getpid(), id(self))
            self._holding = True

    def _release(self) -> None:
        global _slot_owner
        with _slot_lock:
            if self._holding and _slot_owner == (os.getpid(), id(self)):
                _slot_owner = None
            self._holding = False

    def start(self, net, routes, seed, timing, label, accounting=False):
        """Start a simulation of ``net`` and ``routes``; return its layout and first measurement."""
        global _simulated_in
        self._acquire()
        self._shutdown()
        self.label = label
        if _simulated_in is not None:  # this process, or the one it was forked from
            warnings.warn(
                f"{label}: libsumo has already simulated in this process, and a later simulation can differ from "
                "the same one in a fresh process. For reproducible episodes use in_process=False (the default).",
                RuntimeWarning,
                stacklevel=3,
            )
        _simulated_in = os.getpid()
        try:
            self.libsumo.start(sumo_command(net, routes, seed))
            self.controller = SignalController(self.libsumo, timing, accounting)
            return self.controller.layout, self.controller.measure()
        except Exception as error:  # libsumo raises TraCIException / FatalTraCIError with SUMO's message
            raise self._fail("start", str(error)) from error

    def step(self, actions):
        """Advance the simulation by one env step with ``actions``."""
        if self.controller is None:
            raise self._not_running()
        try:
            return self.controller.step(actions)
        except Exception as error:
            raise self._fail(f"step at t={self.controller.time}s", str(error)) from error

    def snapshot(self) -> Snapshot:
        """The vehicles and signal states of the simulation now."""
        if self.controller is None:
            raise self._not_running()
        try:
            return read_snapshot(self.libsumo)
        except Exception as error:
            raise self._fail("snapshot", str(error)) from error

    def _shutdown(self) -> None:
        if self.controller is not None:
            self.controller = None
            with contextlib.suppress(Exception):
                self.libsumo.close()

    def close(self) -> None:
        """Close the simulation; a later start begins another."""
        self._shutdown()
        self._release()


class WorkerRunner(Runner):
    """libsumo in a child process; ``send_*``/``receive`` let a vector env overlap many workers."""

    #: How the worker starts a simulation (``module:function``, see :mod:`benchmarkzoo.envs.traffic.worker`).
    starter = "benchmarkzoo.envs.traffic.worker:start_signals"

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.process: subprocess.Popen | None = None
        self.conn: Connection | None = None
        self.log: Path | None = None
        self._pending = ""
        self._simulation_pid: int | None = None
        self._steps = 0  # steps sent since the last start (for messages)

    @property
    def pid(self) -> int | None:
        """The process running the current simulation (a fork of the worker), else the worker's."""
        if self.process is None:
            return None
        return self._simulation_pid or self.process.pid

    def _spawn(self) -> None:
        parent, child = socket.socketpair()
        self.log = self.scratch / f"worker-{id(self)}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "benchmarkzoo.envs.traffic.worker", str(child.fileno()), self.starter],
                pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=tool_environment(),
            )
        child.close()
        self.conn = Connection(parent.detach())

    def send_start(self, net, routes, seed, timing, label, accounting=False) -> None:
        """Send a start to the worker (spawning it if need be) without waiting for the reply."""
        self.label = label
        if self.process is None or self.process.poll() is not None:
            self.close()
            self._spawn()
        self._steps = 0
        self._send("start", ("start", str(net), str(routes), int(seed), timing, bool(accounting)))

    def send_step(self, actions: np.ndarray) -> None:
        """Send one env step's ``actions`` without waiting for the reply."""
        if self.conn is None:
            raise self._not_running()
        self._steps += 1
        self._send(f"step {self._steps}", ("step", actions))

    def _send(self, what: str, message: Any) -> None:
        self._pending = what
        if self.conn is None:  # send_start has just spawned the worker; send_step checked
            raise self._not_running()
        try:
            self.conn.send(message)
        except (OSError, EOFError) as error:
            raise self._died(what) from error

    def receive(self) -> Any:
        """The worker's reply to the last request, or ``TrafficSimulationError`` naming the scenario."""
        if self.conn is None:
            raise self._not_running()
        try:
            reply = self.conn.recv()
        except (OSError, EOFError) as error:
            raise self._died(self._pending) from error
        if reply[0] == "error":
            raise self._fail(self._pending, reply[1])
        if len(reply) > 2:  # a start names the fork that runs the simulation
            self._simulation_pid = reply[2]
        return reply[1]

    def _died(self, what: str) -> SumoDiedError:
        """The worker's end of the socket is gone; it dies as its simulation fork died (same signal): say how."""
        code = None
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(timeout=2.0)
        return self._death(f"worker process {self.pid}", _how(code), what, _tail(self.log))

    def start(self, net, routes, seed, timing, label, accounting=False):
        """Start a simulation in a fresh fork of the worker; return its layout and first measurement."""
        self.send_start(net, routes, seed, timing, label, accounting)
        return self.receive()

    def step(self, actions):
        """Advance the worker's simulation by one env step with ``actions``."""
        self.send_step(actions)
        return self.receive()

    def snapshot(self) -> Snapshot:
        """The vehicles and signal states of the worker's simulation now (one round trip)."""
        if self.conn is None:
            raise self._not_running()
        self._send("a snapshot", ("snapshot",))
        return self.receive()

    def close(self) -> None:
        """Stop the worker process."""
        process, conn = self.process, self.conn
        self.process = self.conn = self._simulation_pid = None
        if conn is not None:
            with contextlib.suppress(OSError, EOFError):
                conn.send(("close",))
            conn.close()
        if process is not None:
            _reap(process)
        self._remove_log()


class TraciRunner(Runner):
    """A ``sumo`` (or ``sumo-gui``) process driven over TraCI."""

    def __init__(self, scratch: Path, gui: bool = False):
        self.traci = require("traci", "traffic", "SUMO simulations through TraCI")
        self.scratch = scratch
        self.gui = gui
        self.process: subprocess.Popen | None = None
        self.connection: Any = None
        self.controller: SignalController | None = None
        self.log: Path | None = None
        self._steps = 0  # steps since the last start (for messages)

    @property
    def pid(self) -> int | None:
        """The process id of the ``sumo`` process (``None`` when none runs)."""
        return None if self.process is None else self.process.pid

    def start(self, net, routes, seed, timing, label, accounting=False):
        """Start ``sumo`` and connect over TraCI; return the layout and first measurement."""
        self.close()
        self.label = label
        self._steps = 0
        from sumolib.miscutils import getFreeSocketPort

        port = getFreeSocketPort()
        self.log = self.scratch / f"traci-{id(self)}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [*sumo_command(net, routes, seed, self.gui), "--remote-port", str(port)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=tool_environment(),
            )
        try:
            # TraCI's own start() sleeps 1 s before its first retry; poll every 20 ms instead
            # (its retry notices go to stdout, hence the redirect).
            with contextlib.redirect_stdout(io.StringIO()):
                self.connection = self.traci.connect(port, numRetries=500, proc=self.process, waitBetweenRetries=0.02)
            self.controller = SignalController(self.connection, timing, accounting)
            return self.controller.layout, self.controller.measure()
        except Exception as error:
            raise self._fail("start", f"{error}. {_tail(self.log)}") from error

    def step(self, actions):
        """Advance the simulation by one env step with ``actions``."""
        if self.controller is None:
            raise self._not_running()
        self._steps += 1
        try:
            return self.controller.step(actions)
        except Exception as error:
            # TraCI raises FatalTraCIError when the connection closes: sumo is gone (or going; wait for its status).
            code = self.process.poll()
            if code is None and isinstance(error, self.traci.exceptions.FatalTraCIError | OSError):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    code = self.process.wait(timeout=2.0)
            if code is not None or isinstance(error, self.traci.exceptions.FatalTraCIError):
                raise self._death(f"process {self.pid}", _how(code), f"step {self._steps}", _tail(self.log)) from error
            raise self._fail(f"step at t={self.controller.time}s", f"{error}. {_tail(self.log)}") from error

    def snapshot(self) -> Snapshot:
        """The vehicles and signal states of the simulation now (a few TraCI calls per vehicle)."""
        if self.controller is None:
            raise self._not_running()
        try:
            return read_snapshot(self.connection)
        except Exception as error:
            raise self._fail("snapshot", f"{error}. {_tail(self.log)}") from error

    def close(self) -> None:
        """Close the TraCI connection and the ``sumo`` process."""
        connection, process = self.connection, self.process
        self.connection = self.process = self.controller = None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close(wait=False)
        if process is not None:
            _reap(process)
        self._remove_log()


def make_runner(backend: str, in_process: bool | None, scratch: Path) -> Runner:
    """A runner for ``backend`` (``"libsumo"`` or ``"traci"``): with libsumo, a worker unless ``in_process``."""
    if backend == "traci":
        return TraciRunner(scratch)
    if backend != "libsumo":
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    return InProcessRunner() if in_process else WorkerRunner(scratch)
