"""The traffic scenario type and the SUMO files it stands for.

A :class:`TrafficScenario` holds the generator's parameters, the ``netgenerate`` arguments, the
hash of the network file, the vehicles (depart second, origin, destination), SUMO's seed and the
hash of the rendered route file, so it determines the simulation completely. The functions here
turn it back into files: :func:`network_file` (generated into the cache, checked against the
hash), :func:`render_routes` / :func:`write_routes` (the ``<trip>`` file) and :func:`materialize`.

A scenario that plays external files (``net_file=``/``route_file=`` of a generator, or a RESCO
network) has empty ``net_args``, ``profile`` :data:`FILE_PROFILE` and empty vehicle arrays
when its routes come from a file; it cites the files' sha256 only, and the files are read back
from the cache (:func:`~benchmarkzoo.envs.traffic.sumo.store_file`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.envs.traffic.sumo import cache_dir, cached_file, generate_network, sha256

#: ``profile`` of a scenario whose routes come from a file, not from the demand model.
FILE_PROFILE = "file"
#: The names external files are stored under in the cache.
NET_NAME, ROUTES_NAME = "net.net.xml", "routes.rou.xml"


@dataclasses.dataclass(frozen=True, eq=False)
class TrafficScenario(Scenario):
    """One traffic problem instance: network, vehicles and SUMO's seed.

    Attributes:
        network: ``"single-intersection"``, ``"grid"``, ``"spider"`` or ``"random"`` (or a RESCO network).
        net_args: ``netgenerate`` arguments (without the output file).
        net_hash: sha256 of the normalized network file.
        origins: fringe edges where vehicles enter, indexed by ``origin``.
        destinations: fringe edges where vehicles leave, indexed by ``destination``.
        depart: ``(num_vehicles,)`` int32 departure second, non-decreasing.
        origin: ``(num_vehicles,)`` int16 index into ``origins``.
        destination: ``(num_vehicles,)`` int16 index into ``destinations``.
        duration: seconds over which demand is generated.
        profile: demand profile name.
        sumo_seed: SUMO's ``--seed``.
        routes_hash: sha256 of :func:`render_routes` of this scenario.
    """

    kind: ClassVar[str] = "traffic"

    network: str
    net_args: tuple
    net_hash: str
    origins: tuple
    destinations: tuple
    depart: np.ndarray
    origin: np.ndarray
    destination: np.ndarray
    duration: int
    profile: str
    sumo_seed: int
    routes_hash: str

    @property
    def num_vehicles(self) -> int:
        """Vehicles of the generated demand (0 when the routes come from a file)."""
        return int(self.depart.shape[0])

    @property
    def label(self) -> str:
        """A short name for messages: network kind and the first 12 hex digits of the hash."""
        return f"{self.network} scenario {self.content_hash[:12]}"


def file_scenario(network: str, net_hash: str, routes_hash: str, duration: int, sumo_seed: int) -> TrafficScenario:
    """A scenario that plays a network and a route file from the cache (no vehicles of its own)."""
    empty = np.zeros(0, dtype=np.int32)
    return TrafficScenario(
        network=network,
        net_args=(),
        net_hash=net_hash,
        origins=(),
        destinations=(),
        depart=empty,
        origin=empty.astype(np.int16),
        destination=empty.astype(np.int16),
        duration=duration,
        profile=FILE_PROFILE,
        sumo_seed=sumo_seed,
        routes_hash=routes_hash,
    )


def with_routes_hash(**fields: Any) -> TrafficScenario:
    """The scenario of ``fields`` (every field but ``routes_hash``), its ``routes_hash`` computed."""
    draft = TrafficScenario(**fields, routes_hash="")
    return TrafficScenario(**fields, routes_hash=sha256(render_routes(draft)))


def _from_cache(scenario: TrafficScenario, digest: str, name: str, what: str) -> Path:
    path = cached_file(digest, name)
    if path is None:
        raise ScenarioError(
            f"{scenario.label} plays an external {what} with sha256 {digest[:12]}, which is not in the cache "
            f"({cache_dir('traffic', 'files')}). Make its generator with the file (net_file=/route_file=) once "
            "on this machine to load it."
        )
    return path


def render_routes(scenario: TrafficScenario) -> bytes:
    """The SUMO route file of ``scenario``: one ``<trip>`` per vehicle, in departure order (or the external file)."""
    if scenario.profile == FILE_PROFILE:
        return _from_cache(scenario, scenario.routes_hash, ROUTES_NAME, "route file").read_bytes()
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<routes>",
        '    <vType id="car" vClass="passenger"/>',
    ]
    origins, destinations = scenario.origins, scenario.destinations
    for i, (t, o, d) in enumerate(
        zip(scenario.depart.tolist(), scenario.origin.tolist(), scenario.destination.tolist())
    ):
        lines.append(
            f'    <trip id="{i}" type="car" depart="{t}" from="{origins[o]}" to="{destinations[d]}" '
            'departLane="best" departSpeed="max"/>'
        )
    lines.append("</routes>\n")
    return "\n".join(lines).encode()


def network_file(scenario: TrafficScenario) -> Path:
    """The scenario's network file (generated into the cache if missing), checked against ``net_hash``."""
    if not scenario.net_args:
        return _from_cache(scenario, scenario.net_hash, NET_NAME, "network")
    path, digest = generate_network(tuple(scenario.net_args))
    if digest != scenario.net_hash:
        raise ScenarioError(
            f"{scenario.label}: netgenerate {list(scenario.net_args)} now gives a network with hash "
            f"{digest[:12]}, but the scenario was generated with {scenario.net_hash[:12]} (another SUMO version?). "
            "Regenerate the scenario with this SUMO, or install the SUMO version it was made with."
        )
    return path


def write_routes(scenario: TrafficScenario, path: Path) -> Path:
    """Write the scenario's route file to ``path`` and return it."""
    path.write_bytes(render_routes(scenario))
    return path


def materialize(scenario: TrafficScenario) -> tuple[Path, Path]:
    """Network and route files of ``scenario`` in the cache, keyed by its content hash.

    For users who want the files (e.g. to open them in ``sumo-gui``); the envs write their
    route files to their own temporary folders instead, so training on fresh seeds does not
    fill the cache.
    """
    net = network_file(scenario)
    routes = cache_dir("traffic", "scenarios", scenario.content_hash) / ROUTES_NAME
    if not routes.is_file() or sha256(routes.read_bytes()) != scenario.routes_hash:
        write_routes(scenario, routes)
    return net, routes
