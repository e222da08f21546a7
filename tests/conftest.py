"""Shared test setup: headless pygame and the ``slow`` marker."""

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
