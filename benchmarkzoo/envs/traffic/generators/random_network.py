"""``traffic/random``: a random road network per scenario (``netgenerate --rand`` with a seeded ``--seed``).

Signals stand at the junctions of degree 3+; a random network has no grid sides, so its demand
uses :data:`~benchmarkzoo.envs.traffic.demand.BEARINGS`. Unlike the other generators, the
network is drawn from the seed (rejection sampling, see :class:`RandomNetworkGenerator`), and
cached keyed by its arguments (``--seed`` included) like every generated network.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.envs.traffic import sumo
from benchmarkzoo.envs.traffic.demand import BEARINGS
from benchmarkzoo.envs.traffic.generators.base import TrafficGenerator, road_args, signal_args
from benchmarkzoo.envs.traffic.networks import NetworkLayout, network_layout, read_layout, read_signal_shapes, required
from benchmarkzoo.envs.traffic.scenario import TrafficScenario
from benchmarkzoo.envs.traffic.sumo import generate_network, netgenerate, sha256

#: Green phases a signal of a random network may have: netgenerate's ``opposites`` layout gives
#: 1 to 4 at junctions of at most 4 neighbours (the generator caps the degree at 4).
MAX_RANDOM_PHASES = 4


class RandomNetworkGenerator(TrafficGenerator):
    """A random road network per scenario (``netgenerate --rand``), signals at every junction of degree 3+.

    Args:
        num_signals: traffic lights every network has, 1 to 20 (see below).
        iterations: edges netgenerate adds (``--rand.iterations``), 2 to 200; about 2.5 per signal
            gives networks of ``num_signals`` signals often.
        bidi_probability: probability that a road is two-way (``--bidi-probability``), 0.5 to 1.
        min_distance, max_distance: metres of each new road (``--rand.min-distance``/``max-distance``),
            50 to 1000, ``min_distance <= max_distance``.
        max_tries: networks drawn per scenario before giving up, 1 to 1000.
        **kwargs: the roads and demand, see :class:`~benchmarkzoo.envs.traffic.generators.base.TrafficGenerator`
            (``rate``: per dead end; ``through``: probability of leaving across the network, more
            than 135 degrees around it).

    **The network is drawn from the seed.** Each try draws netgenerate's ``--seed`` from the
    scenario's rng and builds the network (junctions of at most 4 neighbours, ``--tls.guess``
    with threshold 0 and the ``opposites`` layout); a network is kept when it has exactly
    ``num_signals`` traffic lights, they sit exactly on the junctions of 3 or more neighbours,
    each has at most :data:`MAX_RANDOM_PHASES` greens and ``4 * lanes`` incoming lanes, and
    every entry reaches an exit. So one env sees the same number of agents on every network
    (``tls_0``... in the order of the signals' ids). Tries are deterministic in the seed; a
    generator that fails ``max_tries`` times raises, naming the counts it found.

    Only the kept network enters the cache (keyed by its arguments, as every generated network);
    each try's verdict is remembered there too, so a scenario drawn again costs no ``netgenerate`` run.
    """

    network_kind = "random"
    fixed_network = False
    geometry = BEARINGS

    def __init__(
        self,
        num_signals: int = 4,
        iterations: int = 10,
        bidi_probability: float = 1.0,
        min_distance: float = 100.0,
        max_distance: float = 250.0,
        max_tries: int = 200,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.num_signals = self._check_int_range("num_signals", num_signals, 1, 20)
        self.iterations = self._check_int_range("iterations", iterations, 2, 200)
        self.bidi_probability = self._check_float_range("bidi_probability", bidi_probability, 0.5, 1.0)
        self.min_distance = self._check_float_range("min_distance", min_distance, 50.0, 1000.0)
        self.max_distance = self._check_float_range("max_distance", max_distance, 50.0, 1000.0)
        if self.min_distance > self.max_distance:
            raise GeneratorArgumentError(
                f"min_distance ({self.min_distance}) must not exceed max_distance ({self.max_distance})."
            )
        self.max_tries = self._check_int_range("max_tries", max_tries, 1, 1000)
        self._verdicts: dict[tuple[str, ...], str | None] = {}  # net args -> why rejected (None: kept)

    def signals(self) -> dict[str, tuple[int, int]]:
        """``{tls_k: (MAX_RANDOM_PHASES, 4 * lanes)}``: agent slots and the largest signal each may hold."""
        return {f"tls_{k}": (MAX_RANDOM_PHASES, 4 * self.lanes) for k in range(self.num_signals)}

    def network(self) -> tuple[Path, str]:
        """Refused: there is no one network, each scenario draws its own (see :func:`network_file`)."""
        raise ScenarioError(
            f"{self!r} draws a new network for every scenario; use network_file(scenario) for a scenario's network."
        )

    def _net_args(self, seed: int) -> tuple[str, ...]:  # type: ignore[override]
        return (
            *("--rand", "--rand.iterations", str(self.iterations), "--bidi-probability", repr(self.bidi_probability)),
            *("--rand.min-distance", repr(self.min_distance), "--rand.max-distance", repr(self.max_distance)),
            *("--rand.neighbor-dist5", "0", "--rand.neighbor-dist6", "0"),
            *road_args(self.lanes, self.speed),
            *("--tls.guess", "true", "--tls.guess.threshold", "0"),
            *signal_args("opposites", seed),
        )

    def _reject(self, root: ET.Element, layout: NetworkLayout) -> str | None:
        """Why the network ``root`` is not kept (``None`` if it is)."""
        neighbours: dict[str, set[str]] = {}
        for edge in root.iter("edge"):
            if edge.get("function") != "internal":
                start, end = required(edge, "from"), required(edge, "to")
                neighbours.setdefault(start, set()).add(end)
                neighbours.setdefault(end, set()).add(start)
        junctions = {required(j, "id"): j for j in root.iter("junction") if j.get("type") != "internal"}
        signals = {tls for tls, j in junctions.items() if j.get("type") == "traffic_light"}
        if len(signals) != self.num_signals:
            return f"{len(signals)} signals"
        if signals != {node for node in junctions if len(neighbours.get(node, ())) >= 3}:
            return "signals not exactly at the junctions of degree 3+"
        for tls, (num_phases, num_lanes) in read_signal_shapes(root).items():
            if not 1 <= num_phases <= MAX_RANDOM_PHASES or num_lanes > 4 * self.lanes:
                return f"signal {tls} of {num_phases} greens and {num_lanes} incoming lanes"
        return self.demand.unservable(layout)

    def _verdict(self, args: tuple[str, ...]) -> str | None:
        """Why the network of ``args`` is not kept (``None`` if it is), remembered in its cache entry.

        The verdict depends on the arguments and ``num_signals`` only, so it is kept beside the
        network's cache entry (``verdict-<n>-signals.txt``) and a rejected network is never stored.
        """
        verdict = self._verdicts.get(args, "")
        if verdict != "":
            return verdict
        record = sumo.network_folder(args) / f"verdict-{self.num_signals}-signals.txt"
        if record.is_file():
            text = record.read_text().strip()
            verdict = None if text == "ok" else text
        else:
            data = netgenerate(args)
            root = ET.fromstring(data)
            verdict = self._reject(root, read_layout(root, sha256(data)))
            if verdict is None:
                sumo.store_network(args, data)
            atomic_write(record, (verdict or "ok").encode())
        self._verdicts[args] = verdict
        return verdict

    def _draw_network(self, rng: np.random.Generator) -> tuple[tuple[str, ...], Path, str, NetworkLayout]:
        reasons: dict[str, int] = {}
        for _ in range(self.max_tries):
            args = self._net_args(int(rng.integers(0, 2**31 - 1)))
            verdict = self._verdict(args)
            if verdict is None:
                path, digest = generate_network(args)
                return args, path, digest, network_layout(path, digest)
            reasons[verdict] = reasons.get(verdict, 0) + 1
        found = ", ".join(f"{reason} ({count}x)" for reason, count in sorted(reasons.items(), key=lambda r: -r[1]))
        raise ScenarioError(
            f"{self!r} found no suitable network in {self.max_tries} tries: {found}. Raise iterations for more "
            "signals (about 2.5 per signal), lower it for fewer, or raise max_tries."
        )

    def __call__(self, rng: np.random.Generator) -> TrafficScenario:
        """The scenario of ``rng``: a network drawn until one fits (see the class docstring), then demand on it."""
        args, _, net_hash, layout = self._draw_network(rng)
        return self._scenario(rng, args, net_hash, layout)
