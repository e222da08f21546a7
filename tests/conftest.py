"""Shared test setup: headless pygame and the ``slow`` marker."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame must never open a window in tests
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test; deselect with -m 'not slow'")
