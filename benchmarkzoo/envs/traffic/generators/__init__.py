"""The traffic scenario generators, one module per kind of network.

* :mod:`.base`: :class:`TrafficGenerator`, external files, demand arguments, the scenario it assembles;
* :mod:`.grid`: ``traffic/single-intersection`` and ``traffic/grid`` (``netgenerate --grid``);
* :mod:`.spider`: ``traffic/spider`` (``netgenerate --spider``);
* :mod:`.random_network`: ``traffic/random`` (``netgenerate --rand``, a network per scenario).

RESCO's real-world networks (``traffic/resco``) are in :mod:`benchmarkzoo.envs.traffic.resco`,
the routing scenarios (``traffic/routing``) in :mod:`benchmarkzoo.envs.traffic.routing.generator`.
"""

from benchmarkzoo.envs.traffic.generators.base import TrafficGenerator
from benchmarkzoo.envs.traffic.generators.grid import GridGenerator, SingleIntersectionGenerator
from benchmarkzoo.envs.traffic.generators.random_network import MAX_RANDOM_PHASES, RandomNetworkGenerator
from benchmarkzoo.envs.traffic.generators.spider import SpiderGenerator

__all__ = [
    "MAX_RANDOM_PHASES",
    "GridGenerator",
    "RandomNetworkGenerator",
    "SingleIntersectionGenerator",
    "SpiderGenerator",
    "TrafficGenerator",
]
