"""``evaluate --backend ray --ray-address`` against real clusters started with ``ray start``.

Two nodes on loopback (a head and one worker node, ``--node-ip-address 127.0.0.1``, token
authentication off: the README's recipe), and a one-node head with token authentication on
(Ray 2.60's default) for the refusals. Every node runs ``ray start --block`` in a session of its
own, so teardown stops exactly the processes these fixtures started, by their process group:
``ray stop`` would stop every Ray on the machine, other users' included.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the rllib extra: pip install 'benchmarkzoo[rllib]'")

REPO = Path(__file__).resolve().parents[2]
RAY = str(Path(sys.executable).parent / "ray")
#: Bounds on every wait (this machine may be shared and slow).
START_TIMEOUT_S, RUN_TIMEOUT_S, STOP_TIMEOUT_S = 240, 600, 90
EPISODES = "4"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without Ray's auth and address variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return {**env, **extra}


class Node:
    """One ``ray start --block`` process, the leader of its own session (so of every process it spawns)."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path):
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [
                    RAY,
                    "start",
                    "--block",
                    "--node-ip-address",
                    "127.0.0.1",
                    "--num-cpus",
                    "1",
                    "--disable-usage-stats",
                    "--dashboard-agent-listen-port",
                    str(free_port()),
                    *args,
                ],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_started(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if "Ray runtime started" in self.log.read_text(errors="replace"):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.5)
        raise RuntimeError(f"ray start did not come up in {START_TIMEOUT_S}s:\n{self.log.read_text()[-3000:]}")

    def signal(self, sig: int) -> bool:
        """Send ``sig`` to the node's process group; False if the group is gone already."""
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            return False
        return True

    def gone(self) -> bool:
        """Whether every process of the node's group has exited (the leader reaped)."""
        self.process.poll()
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return True
        return False


def stop_nodes(nodes: list[Node]) -> None:
    """SIGTERM every node's process group (``--block`` then stops its Ray processes), SIGKILL what is left.

    All nodes are signalled at once and waited for together: a node takes tens of seconds to stop
    its Ray processes, and one after the other the two-node fixture's teardown took 69 s.
    """
    for sig, wait_s in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, 10)):
        live = [node for node in nodes if node.signal(sig)]
        deadline = time.monotonic() + wait_s
        while live and time.monotonic() < deadline:
            time.sleep(0.5)
            live = [node for node in live if not node.gone()]
        if not live:
            return


def short_temp_dir() -> tempfile.TemporaryDirectory:
    """A folder for Ray's session files, removed afterwards.

    Ray's session sockets live under ``--temp-dir``, and AF_UNIX paths stop at 107 bytes: pytest's
    ``tmp_path`` under xdist (``/tmp/pytest-of-root/pytest-N/popen-gwK/...``) is too long for them.
    """
    return tempfile.TemporaryDirectory(prefix="bzray-", dir="/tmp", ignore_cleanup_errors=True)


#: Ray 2.60's SIGTERM handler first drains the node (for Ray Serve's proxies) for up to 30 s; these
#: nodes serve no traffic, so draining only made each fixture's teardown wait 30 s per node.
NO_DRAIN = {"RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"}


def start_cluster(tmp: Path, ray_dir: str, env: dict[str, str], workers: int) -> tuple[str, list[Node]]:
    env = {**env, **NO_DRAIN}
    port = free_port()
    head = ["--head", "--port", str(port), "--temp-dir", str(ray_dir), "--include-dashboard", "false"]
    nodes = [Node(head, env, tmp / "head.log")]
    try:
        nodes[0].wait_started()
        for k in range(workers):
            nodes.append(Node(["--address", f"127.0.0.1:{port}"], env, tmp / f"worker{k}.log"))
            nodes[-1].wait_started()
    except BaseException:
        stop_nodes(nodes)
        raise
    return f"127.0.0.1:{port}", nodes


def alive_nodes(address: str, env: dict[str, str]) -> int:
    script = (
        f"import ray; ray.init(address={address!r}, log_to_driver=False); print(sum(n['Alive'] for n in ray.nodes()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=START_TIMEOUT_S
    )
    return int(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else 0


@pytest.fixture(scope="module")
def loopback_cluster(tmp_path_factory):
    """A head and one worker node on 127.0.0.1, token authentication disabled."""
    tmp = Path(tmp_path_factory.mktemp("rc"))
    env = clean_env(RAY_AUTH_MODE="disabled")
    ray_dir = short_temp_dir()
    address, nodes = start_cluster(tmp, ray_dir.name, env, workers=1)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while alive_nodes(address, env) < 2:
            assert time.monotonic() < deadline, "the worker node never joined the head"
            time.sleep(1)
        yield address, env
    finally:
        stop_nodes(nodes)
        ray_dir.cleanup()


@pytest.fixture(scope="module")
def token_cluster(tmp_path_factory):
    """A one-node head with token authentication on and its token in RAY_AUTH_TOKEN (not ~/.ray)."""
    tmp = Path(tmp_path_factory.mktemp("rt"))
    token = secrets.token_hex(16)
    env = clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    ray_dir = short_temp_dir()
    address, nodes = start_cluster(tmp, ray_dir.name, env, workers=0)
    try:
        yield address, token
    finally:
        stop_nodes(nodes)
        ray_dir.cleanup()


def evaluate(tmp: Path, name: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    out = tmp / f"{name}.json"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarkzoo",
            "evaluate",
            "--suite",
            "quickstart-v0",
            "--policy",
            "random",
            "--episodes",
            EPISODES,
            "--out",
            str(out),
            *args,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        cwd=REPO,
    )


def episodes(path: Path) -> list:
    return [task["episodes"] for task in json.loads(path.read_text())["tasks"]]


def assert_one_line_error(done: subprocess.CompletedProcess, *expected: str) -> str:
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, done.stderr[-3000:]
    for text in expected:
        assert text in errors[0], errors[0]
    return errors[0]


@pytest.mark.slow  # starts Ray nodes with `ray start`: about a minute each on a quiet machine
def test_two_node_loopback_cluster_gives_the_native_episodes(loopback_cluster, tmp_path):
    address, env = loopback_cluster
    on_ray = evaluate(tmp_path, "ray", env, "--backend", "ray", "--ray-address", address, "--workers", "2")
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    native = evaluate(tmp_path, "native", env)
    assert native.returncode == 0, native.stderr[-3000:]
    ray_episodes, native_episodes = episodes(tmp_path / "ray.json"), episodes(tmp_path / "native.json")
    assert [len(e) for e in ray_episodes] == [int(EPISODES)] * len(native_episodes)
    assert ray_episodes == native_episodes  # bit for bit: returns, lengths, seeds, scenario hashes, metrics
    assert json.loads((tmp_path / "ray.json").read_text())["provenance"]["backend"] == "ray"


def test_a_closed_port_gives_one_line(tmp_path):
    port = free_port()  # bound and released: nothing listens there now
    started = time.monotonic()
    done = evaluate(tmp_path, "closed", clean_env(), "--backend", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert_one_line_error(done, f"No Ray cluster answers at 127.0.0.1:{port}", "ray start --head")
    assert not (tmp_path / "closed.json").exists()
    assert time.monotonic() - started < RUN_TIMEOUT_S


@pytest.mark.slow  # starts Ray nodes with `ray start`: about a minute each on a quiet machine
def test_a_token_cluster_without_token_or_with_another_gives_one_line(token_cluster, tmp_path):
    address, _ = token_cluster
    missing = evaluate(tmp_path, "none", clean_env(), "--backend", "ray", "--ray-address", address)
    assert_one_line_error(missing, "requires token authentication", "RAY_AUTH_MODE=token")
    wrong = evaluate(
        tmp_path,
        "wrong",
        clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="0" * 32),
        "--backend",
        "ray",
        "--ray-address",
        address,
    )
    assert_one_line_error(wrong, "refused this process's token", "RAY_AUTH_TOKEN")


@pytest.mark.slow  # starts Ray nodes with `ray start`: about a minute each on a quiet machine
def test_a_token_cluster_with_its_token_evaluates(token_cluster, tmp_path):
    address, token = token_cluster
    done = evaluate(
        tmp_path,
        "token",
        clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token),
        "--backend",
        "ray",
        "--ray-address",
        address,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    native = evaluate(tmp_path, "native", clean_env())
    assert native.returncode == 0, native.stderr[-3000:]
    assert episodes(tmp_path / "token.json") == episodes(tmp_path / "native.json")
