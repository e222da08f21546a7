"""Joining the Ray cluster of ``--backend ray``, or saying in one line why it cannot be joined.

``ray.init(address=...)`` against a cluster it cannot use retries for about half a minute, logs
a warning a second from Ray's C++ core, and ends in ``ConnectionError: Failed to connect to Ray
cluster at <the address the head advertises>``: the cause is in none of it. Two causes cover
what users meet (measured on Ray 2.60 with ``ray start --head``):

* nothing answers at the address (a wrong port, a stopped head);
* the cluster wants a token (``ray start`` enables token authentication by default since Ray
  2.59, saving the token in ``~/.ray/auth_token``) and this process sends none, or another one.
  ``ray.init`` with an explicit address never turns token authentication on by itself: it sends
  the token only when ``RAY_AUTH_MODE=token`` is set.

So :func:`connect_ray` first tries a TCP connection to the address (bounded by
:data:`PROBE_TIMEOUT_S`; a closed port fails at once instead of after Ray's retries), then calls
``ray.init`` with file descriptor 2 captured: if it fails, what Ray's core logged meanwhile tells
a refused token from anything else, and the failure becomes one line naming the likely cause.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarkzoo.core.errors import BenchmarkZooError

#: Seconds the TCP probe may take before the cluster counts as unreachable.
PROBE_TIMEOUT_S = 5.0
#: What Ray 2.60 logs (``gcs_client.cc``) or raises when the GCS refuses a missing or wrong token.
_AUTH_MARKS = ("InvalidAuthToken", "Unauthenticated", "AuthenticationError", "authentication token")


class RayConnectionError(BenchmarkZooError, ConnectionError):
    """The Ray cluster given to ``--backend ray`` cannot be reached or refuses this process."""


def connect_ray(address: str | None) -> Any:
    """Join the cluster at ``address`` (``None``: start a local Ray) unless Ray is already initialized.

    Returns:
        the ``ray`` module, initialized.

    Raises:
        MissingExtraError: Ray is not installed.
        RayConnectionError: the cluster cannot be reached or refuses the token; the message names
            the likely cause and what to do.
    """
    try:
        import ray
    except ImportError as error:
        from benchmarkzoo.core.errors import MissingExtraError

        raise MissingExtraError("ray", "rllib", "--backend ray") from error
    if ray.is_initialized():
        return ray
    host_port = _host_port(address)
    if address is not None and host_port is not None:  # a plain HOST:PORT (never None then)
        _probe(address, *host_port)
    failure = None
    with _stderr_captured() as logged:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as error:  # Ray's wording names no cause
            failure = error
        log = logged()
    if failure is None:
        sys.stderr.write(log)  # joined: whatever Ray said is the user's to read, as before
        return ray
    ray.shutdown()
    raise _refusal(address, failure, log) from failure


def _host_port(address: str | None) -> tuple[str, int] | None:
    """``(host, port)`` of a plain ``host:port`` GCS address; ``None`` for a local Ray, ``auto`` or ``ray://``."""
    if not address or address == "auto" or "://" in address:
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise RayConnectionError(
            f"--ray-address must be the head's HOST:PORT (the GCS port `ray start --head` printed), e.g. "
            f"127.0.0.1:6379; got {address!r}."
        )
    return host.strip("[]"), int(port)


def _probe(address: str, host: str, port: int) -> None:
    """Raise :class:`RayConnectionError` if nothing accepts a TCP connection at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as error:
        reason = "the connection was refused" if isinstance(error, ConnectionRefusedError) else str(error) or "timeout"
        raise RayConnectionError(
            f"No Ray cluster answers at {address} ({reason}). Start one with `ray start --head --port {port}` "
            "or pass the address its head printed (HOST:PORT of `ray start --address=...`)."
        ) from error


def _refusal(address: str | None, error: BaseException, log: str) -> RayConnectionError:
    """The one-line error for a failed ``ray.init``, from its exception and what Ray logged meanwhile."""
    where = "a local Ray" if address is None else f"the Ray cluster at {address}"
    if not any(mark in log or mark in str(error) for mark in _AUTH_MARKS):
        return RayConnectionError(
            f"Could not join {where}: {_first_line(error)}. If its nodes advertise an address this machine cannot "
            "reach, restart them with `ray start ... --node-ip-address <reachable address>`."
        )
    if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
        return RayConnectionError(
            f"{where[0].upper()}{where[1:]} requires token authentication (the default of `ray start` since "
            "Ray 2.59) and this process sends no token: run with RAY_AUTH_MODE=token and the head's token "
            "(~/.ray/auth_token, or RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH; `ray get-auth-token` on the head prints "
            "it), or start the cluster with RAY_AUTH_MODE=disabled."
        )
    return RayConnectionError(
        f"{where[0].upper()}{where[1:]} refused this process's token (from {_token_source()}): use the head's, "
        "which `ray get-auth-token` prints on the head, in RAY_AUTH_TOKEN or ~/.ray/auth_token."
    )


@contextlib.contextmanager
def _stderr_captured() -> Iterator[Callable[[], str]]:
    """Send file descriptor 2 to a temporary file meanwhile: Ray's C++ core logs there, retrying, once a second."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode(errors="replace"))[1]
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _token_source() -> str:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    return os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0].rstrip(".") if text else type(error).__name__
