"""What every traffic generator shares: external files, the demand arguments and the scenario it assembles.

Except for random networks, a generator's network depends only on its keyword arguments, so it
is generated once per argument set and cached (see :mod:`benchmarkzoo.envs.traffic.sumo`); the
seed draws the demand (:mod:`benchmarkzoo.envs.traffic.demand`) and SUMO's own ``--seed``.

External files: generators of fixed networks also take ``net_file`` (a SUMO network to use
instead of the generated one) and ``route_file`` (a SUMO route file to play instead of the
generated demand; needs ``net_file``). Each is copied into the cache under its sha256 (see
:func:`~benchmarkzoo.envs.traffic.sumo.store_file`); the scenario cites the hashes only
(``net_args`` is empty, ``profile`` is ``"file"`` and the vehicle arrays are empty when the
routes come from a file), so its content hash does not depend on where the files live. The seed
then only draws SUMO's ``--seed``. This is how the bench runs our env on sumo-rl's own
single-intersection network and demand.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError
from benchmarkzoo.envs.traffic.demand import PROFILES, SIDES, Demand, Geometry
from benchmarkzoo.envs.traffic.networks import NetworkLayout, network_layout, signal_shapes
from benchmarkzoo.envs.traffic.scenario import (
    NET_NAME,
    ROUTES_NAME,
    TrafficScenario,
    file_scenario,
    with_routes_hash,
)
from benchmarkzoo.envs.traffic.sumo import generate_network, store_file
from benchmarkzoo.generators.base import Generator


def road_args(lanes: int, speed: float) -> tuple[str, ...]:
    """The ``netgenerate`` arguments for the lanes per direction and speed limit of every road."""
    return ("--default.lanenumber", str(lanes), "--default.speed", repr(speed))


def signal_args(layout: str, seed: int) -> tuple[str, ...]:
    """The closing ``netgenerate`` arguments: the signals' phase layout, no U-turns, and its ``--seed``."""
    return ("--tls.layout", layout, "--no-turnarounds", "true", "--seed", str(seed))


class TrafficGenerator(Generator):
    """Seeded demand on a network fixed by the generator's kwargs (or drawn per scenario).

    A subclass sets :attr:`network_kind`, takes its own arguments in ``__init__`` and forwards
    the roads and demand (``**kwargs``) here, re-declaring only those whose default it changes;
    a generator of fixed networks also takes the external files (:meth:`_check_files`). It
    returns its ``netgenerate`` arguments from :meth:`_net_args`.

    Args:
        lanes: lanes per direction on every road, 1 to 3.
        speed: speed limit in m/s, 5 to 30.
        rate: mean vehicles per hour entering on each fringe arm, 0 to 3600.
        duration: seconds of demand, 60 to 86400.
        profile: ``"uniform"``, ``"peak"`` or ``"directional"`` (see :mod:`~benchmarkzoo.envs.traffic.demand`).
        through: probability of leaving on the opposite side (see :class:`~benchmarkzoo.envs.traffic.demand.Demand`).
    """

    scenario_type: ClassVar[type[TrafficScenario]] = TrafficScenario
    network_kind: ClassVar[str]
    #: Every scenario plays the one network of :meth:`network` (``False``: a network per scenario).
    fixed_network: ClassVar[bool] = True
    #: What "opposite" and "directional" mean on its networks (:mod:`~benchmarkzoo.envs.traffic.demand`).
    geometry: ClassVar[Geometry] = SIDES

    def __init__(
        self,
        lanes: int = 1,
        speed: float = 13.89,
        rate: float = 300.0,
        duration: int = 1800,
        profile: str = "uniform",
        through: float = 0.6,
    ):
        self.lanes = self._check_int_range("lanes", lanes, 1, 3)
        self.speed = self._check_float_range("speed", speed, 5.0, 30.0)
        self.rate = self._check_float_range("rate", rate, 0.0, 3600.0)
        self.duration = self._check_int_range("duration", duration, 60, 86400)
        if profile not in PROFILES:
            raise GeneratorArgumentError(f"profile must be one of {PROFILES}; got {profile!r}.")
        self.profile = profile
        self.through = self._check_float_range("through", through, 0.0, 1.0)
        self.net_file: str | None = None  # a generated network, and demand drawn on it
        self.route_file: str | None = None

    def _check_files(self, net_file: str | None, route_file: str | None) -> None:
        """Play ``net_file`` instead of the generated network and ``route_file`` instead of the drawn demand."""
        if route_file is not None and net_file is None:
            raise GeneratorArgumentError(
                f"route_file={route_file!r} needs the network it was made for: pass net_file= too."
            )
        self.net_file = None if net_file is None else str(net_file)
        self.route_file = None if route_file is None else str(route_file)
        if self.net_file is not None:
            store_file(self.net_file, NET_NAME)  # unreadable files fail here, with the path in the message

    @property
    def demand(self) -> Demand:
        """This generator's demand model."""
        return Demand(self.rate, self.duration, self.profile, self.through, self.geometry)

    def destination_weights(self, layout: NetworkLayout) -> np.ndarray:
        """``(O, D)`` probability of each destination from each origin of ``layout`` (see :class:`Demand`)."""
        return self.demand.destination_weights(layout)

    def _net_args(self) -> tuple[str, ...]:
        raise NotImplementedError

    def network(self) -> tuple[Path, str]:
        """This generator's network file (generated once, then cached) and its content hash."""
        if self.net_file is not None:
            return store_file(self.net_file, NET_NAME)
        return generate_network(self._net_args())

    def signals(self) -> dict[str, tuple[int, int]]:
        """``{agent: (green phases, incoming lanes)}`` of the traffic lights every scenario has.

        The network's signals by id (:func:`~benchmarkzoo.envs.traffic.networks.signal_shapes`); a
        generator of a network per scenario names agent slots instead, with the largest shape a
        slot's signal may have.
        """
        path, _ = self.network()
        return signal_shapes(path)

    def __call__(self, rng: np.random.Generator) -> TrafficScenario:
        """The scenario of ``rng``: demand drawn on the network (or the external files) and SUMO's seed."""
        args = () if self.net_file is not None else self._net_args()
        path, net_hash = self.network()
        if self.route_file is not None:
            _, routes_hash = store_file(self.route_file, ROUTES_NAME)
            return file_scenario(
                self.network_kind, net_hash, routes_hash, self.duration, int(rng.integers(0, 2**31 - 1))
            )
        return self._scenario(rng, args, net_hash, network_layout(path, net_hash))

    def _scenario(
        self, rng: np.random.Generator, net_args: tuple[str, ...], net_hash: str, layout: NetworkLayout
    ) -> TrafficScenario:
        """The scenario of demand drawn on ``layout`` (then SUMO's seed, from the same ``rng``)."""
        depart, origin, destination = self.demand.draw(rng, layout)
        return with_routes_hash(
            network=self.network_kind,
            net_args=net_args,
            net_hash=net_hash,
            origins=layout.origins,
            destinations=layout.destinations,
            depart=depart,
            origin=origin,
            destination=destination,
            duration=self.duration,
            profile=self.profile,
            sumo_seed=int(rng.integers(0, 2**31 - 1)),
        )
