"""Shared test setup: headless pygame, the ``slow`` marker, and slow modules scheduled first."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame must never open a window in tests
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# One intra-op thread for torch/OpenMP in every test process (read when torch is first imported).
# pytest runs two workers on two cores: with torch's default of a thread per core, its OpenMP
# threads oversubscribe the machine and spin, and a 4x52 linear layer took 34 ms instead of 0.05 ms
# (the RLlib learning tests ran 2-4x slower; measured with cProfile on a loaded machine).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test; deselect with -m 'not slow'")


def pytest_collection_modifyitems(config, items):
    """Move every file that holds a ``slow`` test to the front, keeping the order within modules.

    ``make test`` runs two xdist workers with ``--dist worksteal`` (setup.cfg): a worker that runs
    dry takes half of the other's queue. Started first, the long tests (training, notebooks, SUMO
    rollouts) overlap with the many short ones; started last, one 300 s test left the other worker
    idle for 300 s. Whole files move, so a module-scoped fixture (a Ray runtime, a cluster) is
    still set up once per worker. The order is the same in every worker, as xdist requires.
    """
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: False (slow file) sorts first
