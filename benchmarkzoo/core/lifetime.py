"""Child processes that die with their parent, so no worker outlives a killed ``evaluate``.

A parent killed by SIGKILL runs no cleanup. Its pool workers then block for ever on a queue
whose write end their forked siblings also hold (measured: both workers of ``evaluate
--workers 2`` alive after 590 s, holding the caller's stdout, so a driving script hangs). On
Linux the kernel delivers a parent-death signal (``prctl(PR_SET_PDEATHSIG)``) the moment the
parent dies; a watchdog thread that exits when the parent's pid changes covers the other
platforms (and a parent that died before the signal was armed).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1
#: Seconds between the watchdog's looks at the parent pid.
WATCH_INTERVAL = 0.5

_hooked = False
#: Set in the parent just before each fork, read in the child just after it.
_fork_parent: int | None = None


def arm_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies; ``False`` where unsupported.

    The signal follows the *thread* that forked this process: arm it only in children forked
    from a thread that lives as long as the parent process (its main thread, here).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(parent_pid: int, interval: float = WATCH_INTERVAL) -> None:
    """Exit this process (``os._exit(1)``) as soon as its parent is no longer ``parent_pid``."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="benchmarkzoo-parent-watchdog", daemon=True).start()


def die_with_parent(parent_pid: int) -> None:
    """A ``ProcessPoolExecutor`` initializer: this worker, and whatever it forks, die with ``parent_pid``.

    Args:
        parent_pid: ``os.getpid()`` of the process that starts the pool, read there.
    """
    arm_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    watch_parent(parent_pid)
    children_die_with_me()


def _before_fork() -> None:
    global _fork_parent
    _fork_parent = os.getpid() if threading.current_thread() is threading.main_thread() else None


def _after_fork_in_child() -> None:
    if _fork_parent is None:  # forked from a short-lived thread: its death must not kill the child
        return
    arm_parent_death_signal()
    if os.getppid() != _fork_parent:
        os._exit(1)


def children_die_with_me() -> None:
    """From now on, every child this process forks from its main thread dies with it (Linux).

    Covers the processes started without an initializer of ours: Gymnasium's ``AsyncVectorEnv``
    workers and the simulators' worker processes. Children started by ``subprocess`` (which
    forks in C) are not affected. Calling it again does nothing.
    """
    global _hooked
    if not _hooked:
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
        _hooked = True


__all__ = ["arm_parent_death_signal", "children_die_with_me", "die_with_parent", "watch_parent"]
