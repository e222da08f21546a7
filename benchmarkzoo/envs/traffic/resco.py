"""The RESCO real-world networks (Ault & Sharon, NeurIPS 2021 Datasets and Benchmarks) with their demand.

``benchmarkzoo/TrafficRESCO-<name>-v0`` for ``name`` in :data:`NETWORKS`: the network and route
files ship with ``sumo-rl`` (``sumo_rl/nets/RESCO/<name>/``, part of the ``traffic`` extra); they
are resolved **by name** from the installed package, so a generator spec holds only
``network`` and ``scale`` and a scenario's content hash cites the files' sha256 only, wherever
the package is installed. Only the files are used, not sumo-rl's code.

:class:`RESCOGenerator` (``traffic/resco``) prepares each network's demand once, into the cache:

* **Time window.** RESCO plays one hour of each route file: ``[25200, 28800)`` for the Cologne
  networks (7-8 am), ``[57600, 61200)`` for the Ingolstadt ones (4-5 pm), ``[0, 3600)`` for
  grid4x4 and arterial4x4 (:data:`WINDOWS`). The prepared route file shifts every departure by
  the window's begin (so simulations start at second 0, as every other traffic env) and drops
  vehicles departing outside the window.
* **Scaling** (``scale``, 0.1 to 3): vehicle ``i`` of the window (file order, 0-based) is
  played ``floor(scale) + [frac((i + 1) * phi) < frac(scale)]`` times (``phi`` the golden ratio
  conjugate: a deterministic low-discrepancy thinning/duplication), copies named ``<id>.<c>``.
  ``scale=1`` plays the file as RESCO does.

* **Routing.** Most RESCO files hold trips (origin and destination edges), which SUMO routes
  as they depart. :func:`route_trips` routes them once with ``duarouter`` (free-flow travel
  times), so a simulation never routes and does not depend on what its process did before.

The networks are fixed, so scenarios of one generator differ only by SUMO's ``--seed`` (drawn
from the env seed): it draws the vehicles' speed factors (``speedDev``), departure lanes where
free, and the other stochastic parts of SUMO's models.

The env, :class:`TrafficRESCOEnv`, is ``benchmarkzoo/TrafficGrid-v0``'s env with one agent per
traffic light of the network; the green phases come from the network's ``tlLogic`` (phases
with a green and no yellow, in program order). Signals differ (cologne8's have 2 to 4 greens),
and, as on TrafficGrid's spider and random networks, every agent has the widest signal's spaces:
observation blocks zero-padded after a signal's own greens and lanes, and action ``a`` showing
green ``a % P_k`` at a signal with ``P_k`` greens. One space for all agents is what parameter
sharing (the SB3 and RLlib adapters) and the native vector form's ``(B, N, ...)`` arrays need.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.errors import BenchmarkZooError, GeneratorArgumentError
from benchmarkzoo.envs.traffic import sumo
from benchmarkzoo.envs.traffic.generators import TrafficGenerator
from benchmarkzoo.envs.traffic.grid.env import TrafficGridConfig, TrafficGridEnv
from benchmarkzoo.envs.traffic.grid.vector_env import TrafficGridVectorEnv
from benchmarkzoo.envs.traffic.render import RENDER_METADATA
from benchmarkzoo.envs.traffic.scenario import NET_NAME, ROUTES_NAME, TrafficScenario, file_scenario
from benchmarkzoo.generators.base import Generator

#: RESCO's simulated hour of each network's route file: ``(begin, end)`` seconds.
WINDOWS: dict[str, tuple[int, int]] = {
    "cologne1": (25200, 28800),
    "cologne3": (25200, 28800),
    "cologne8": (25200, 28800),
    "ingolstadt1": (57600, 61200),
    "ingolstadt7": (57600, 61200),
    "ingolstadt21": (57600, 61200),
    "grid4x4": (0, 3600),
    "arterial4x4": (0, 3600),
}
NETWORKS: tuple[str, ...] = tuple(WINDOWS)
#: The route file of each network inside ``sumo_rl/nets/RESCO/<name>/`` (as its ``.sumocfg`` names it).
_ROUTE_FILES = {"grid4x4": "grid4x4_1.rou.xml", "arterial4x4": "arterial4x4_1.rou.xml"}
_PHI = (math.sqrt(5.0) - 1.0) / 2.0
_VEHICLE_TAGS = ("vehicle", "trip", "person", "container")


def resco_dir(network: str) -> Path:
    """``sumo_rl/nets/RESCO/<network>`` of the installed sumo-rl (found without importing it)."""
    spec = importlib.util.find_spec("sumo_rl")
    if spec is None or not spec.submodule_search_locations:
        raise BenchmarkZooError(
            "The RESCO networks ship with sumo-rl, which is not installed: pip install 'benchmarkzoo[traffic]'."
        )
    folder = Path(next(iter(spec.submodule_search_locations)), "nets", "RESCO", network)
    if not folder.is_dir():
        raise BenchmarkZooError(f"the installed sumo-rl has no RESCO network {network!r} (looked in {folder}).")
    return folder


def window_routes(data: bytes, begin: int, end: int, scale: float) -> bytes:
    """A RESCO route file cut to ``[begin, end)``, shifted to start at 0 and scaled (see the module docstring)."""
    root = ET.fromstring(data)
    for key in [k for k in root.attrib if k.startswith("{")]:  # the xsi schema location: not needed by SUMO
        del root.attrib[key]
    whole, fraction = math.floor(scale), scale - math.floor(scale)
    kept: list[ET.Element] = []
    i = 0
    for child in list(root):
        root.remove(child)
        depart = child.get("depart") if child.tag in _VEHICLE_TAGS else None
        if depart is None:
            kept.append(child)  # vTypes, standalone routes...
            continue
        t = float(depart)
        if not begin <= t < end:
            continue
        copies = whole + (1 if ((i + 1) * _PHI) % 1.0 < fraction else 0)
        i += 1
        for c in range(copies):
            element = child if c == 0 else ET.fromstring(ET.tostring(child))
            element.set("depart", f"{t - begin:.2f}")
            if c:
                element.set("id", f"{child.get('id')}.{c}")
            kept.append(element)
    root.extend(kept)
    ET.indent(root, space="    ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def route_trips(data: bytes, net: Path) -> bytes:
    """Give every ``<trip>`` of a route file its route, with ``duarouter`` on free-flow travel times.

    SUMO routes a trip when it departs, and in a process that has run another simulation before
    (libsumo keeps its process) it can pick another of two routes than a fresh process would:
    cologne1 diverged after about 640 simulated seconds. Routing once, here, fixes every route in
    the file, so a simulation no longer depends on what its process did before. duarouter's
    leading comment (date, paths) is dropped, so the bytes depend on the input and SUMO's version
    only.
    """
    if b"<trip" not in data:
        return data
    with tempfile.TemporaryDirectory(prefix="benchmarkzoo-duarouter-") as scratch:
        trips, routed = Path(scratch, "trips.rou.xml"), Path(scratch, "routed.rou.xml")
        trips.write_bytes(data)
        command = [
            str(sumo.binary("duarouter")),
            "--net-file",
            str(net),
            "--route-files",
            str(trips),
            "--output-file",
            str(routed),
            "--seed",
            "0",
            "--no-step-log",
            "true",
            "--no-warnings",
            "true",
            "--write-license",
            "false",
            "--xml-validation",
            "never",
            "--xml-validation.net",
            "never",
            "--alternatives-output",
            str(Path(scratch, "alternatives.xml")),
        ]
        done = subprocess.run(command, capture_output=True, text=True, env=sumo.tool_environment())
        if done.returncode != 0 or not routed.is_file():
            raise sumo.TrafficSimulationError(
                f"duarouter failed (exit {done.returncode}) routing the trips of {net.name}: "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )
        root = ET.fromstring(routed.read_bytes())  # ElementTree drops comments
    ET.indent(root, space="    ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def routed_window(data: bytes, net: Path, net_hash: str, begin: int, end: int, scale: float) -> str:
    """Store the routed route file of one window and scale in the file cache; return its sha256.

    The file is :func:`window_routes`, then :func:`route_trips`.

    duarouter runs once per network, window, scale and SUMO installation: the cache remembers
    which routed file each input gave, so later calls (every env made, in every process) only
    check the stored copy.
    """
    trips = window_routes(data, begin, end, scale)
    duarouter = sumo.binary("duarouter").stat()
    key = sumo.sha256(f"{net_hash}:{sumo.sha256(trips)}:{duarouter.st_size}:{duarouter.st_mtime_ns}".encode())
    known = sumo.cache_dir("traffic", "routed") / f"{key}.sha256"
    if known.is_file():
        digest = known.read_text().strip()
        stored = sumo.cache_dir("traffic", "files", digest) / ROUTES_NAME
        if stored.is_file() and sumo.sha256(stored.read_bytes()) == digest:
            return digest
    _, digest = _store_bytes(route_trips(trips, net), ROUTES_NAME)
    with sumo._lock:
        atomic_write(known, digest.encode())
    return digest


def _store_bytes(data: bytes, name: str) -> tuple[Path, str]:
    """Write ``data`` into the cache by content, as :func:`~benchmarkzoo.envs.traffic.sumo.store_file` does."""
    digest = sumo.sha256(data)
    path = sumo.cache_dir("traffic", "files", digest) / name
    with sumo._lock:
        if not path.is_file() or sumo.sha256(path.read_bytes()) != digest:
            atomic_write(path, data)
    return path, digest


class RESCOGenerator(TrafficGenerator):
    """One RESCO network with its demand hour; the seed draws SUMO's ``--seed``.

    Args:
        network: one of :data:`NETWORKS`.
        scale: demand multiplier, 0.1 to 3 (deterministic thinning/duplication of the file's vehicles).
    """

    net_file: str  # the network's own file, always (a TrafficGenerator's may be None: a generated network)

    def __init__(self, network: str = "cologne1", scale: float = 1.0):
        if network not in WINDOWS:
            raise GeneratorArgumentError(f"network must be one of {NETWORKS}; got {network!r}.")
        self.network_name = network
        self.scale = self._check_float_range("scale", scale, 0.1, 3.0)
        begin, end = WINDOWS[network]
        self.duration = end - begin
        folder = resco_dir(network)
        self.net_file, self.route_file = str(folder / f"{network}.net.xml"), None
        routes = folder / _ROUTE_FILES.get(network, f"{network}.rou.xml")
        try:
            data = routes.read_bytes()
        except OSError as error:
            raise BenchmarkZooError(f"cannot read the RESCO route file {str(routes)!r}: {error}") from error
        self._net_path, self._net_hash = sumo.store_file(self.net_file, NET_NAME)
        self._routes_hash = routed_window(data, self._net_path, self._net_hash, begin, end, self.scale)

    @property
    def network_kind(self) -> str:  # type: ignore[override]
        """``resco-<network>``: what a scenario of this generator plays."""
        return f"resco-{self.network_name}"

    @property
    def kwargs(self) -> dict[str, Any]:  # ``network`` is also the method naming the network file
        """``network`` and ``scale``, the generator's arguments."""
        return {"network": self.network_name, "scale": self.scale}

    def network(self) -> tuple[Path, str]:
        """The network file, stored in the cache under its sha256."""
        return sumo.store_file(self.net_file, NET_NAME)

    def __call__(self, rng: np.random.Generator) -> TrafficScenario:
        """The scenario of ``rng``: the network's routed hour, and SUMO's seed drawn from ``rng``."""
        self.network()  # restore the cached copies if they went missing
        sumo_seed = int(rng.integers(0, 2**31 - 1))
        return file_scenario(self.network_kind, self._net_hash, self._routes_hash, self.duration, sumo_seed)


class RESCOConfig(TrafficGridConfig):
    """The arguments of the RESCO envs (both forms): TrafficGrid-v0's, on a RESCO network for RESCO's hour."""

    generator: str | Generator = "traffic/resco"

    generator_type: ClassVar[type] = RESCOGenerator
    generator_needs: ClassVar[str] = "a RESCO generator"
    time_limit: ClassVar[int] = 720  # RESCO's hour at delta_time=5


class TrafficRESCOEnv(TrafficGridEnv):
    """Control every traffic light of a RESCO real-world network on SUMO, one PettingZoo agent per signal.

    ## Description

    One of RESCO's networks (:data:`NETWORKS`: cologne1, cologne3, cologne8, ingolstadt1,
    ingolstadt7, ingolstadt21, grid4x4, arterial4x4) with its hour of recorded or synthetic
    demand (see :mod:`benchmarkzoo.envs.traffic.resco`): Cologne's from the TAPASCologne
    scenario (7-8 am), Ingolstadt's from the InTAS scenario (4-5 pm), the synthetic grid and
    arterial from RESCO. The signal logic, rewards, info keys, episode metrics, backends and
    pickling are those of ``benchmarkzoo/TrafficGrid-v0``, and so is rendering
    (``render_mode="rgb_array"`` or ``"human"``: the city network from above, every signal's
    stop lines in its links' colours, halting vehicles in red).

    ## Agents

    The network's traffic-light ids, sorted (1, 3, 8, 1, 7, 21, 16 and 16 signals).

    ## Action Space

    ``Discrete(P)``, ``P`` the most green phases of any signal of the network (in the order of
    its ``tlLogic``); a signal with ``P_k < P`` greens shows green ``action % P_k``.

    ## Observation Space

    ``Box(0, 1, (P + 1 + 2L,), float32)`` (``L`` the most controlled incoming lanes of any
    signal): one-hot green, minimum green passed, lane densities, lane queues, each block
    zero-padded after the signal's own greens and lanes.

    ## Baselines

    Max-pressure against fixed-time (30 s greens), one episode of seed 0 (``python -c`` over
    ``benchmarkzoo.envs.traffic.grid.baseline``): mean waiting time 15.4 s vs 63.9 s on
    cologne8, 18.2 s vs 39.1 s on ingolstadt7, 9.4 s vs 50.5 s on cologne3.

    ## Episode End

    Truncation after ``max_cycles`` steps (720 in the registered specs: RESCO's hour at ``delta_time=5``).

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/TrafficRESCO-cologne8-v0", generator="traffic/resco",
                               generator_kwargs={"network": "cologne8", "scale": 1.0}, delta_time=5,
                               yellow_time=2, min_green=5, reward="diff-waiting-time", max_cycles=720)
    ```

    ## Version History

    * v0: Initial version.
    """

    metadata = {"name": "traffic_resco_v0", **RENDER_METADATA, "is_parallelizable": True}
    config_type = RESCOConfig


class RESCOVectorConfig(RESCOConfig):
    """The RESCO envs' arguments in the native vector form: every world's SUMO runs in a libsumo worker."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    backend: ClassVar[str] = "libsumo"  # type: ignore[misc]
    in_process: ClassVar[bool | None] = None  # type: ignore[misc]


class TrafficRESCOVectorEnv(TrafficGridVectorEnv):
    """``num_envs`` worlds of one RESCO network, each simulated by libsumo in its own worker process.

    :class:`~benchmarkzoo.envs.traffic.grid.vector_env.TrafficGridVectorEnv` on a RESCO network:
    world ``i`` equals :class:`TrafficRESCOEnv` reset with ``seed + i`` and stepped with the same actions.
    """

    config_type = RESCOVectorConfig
