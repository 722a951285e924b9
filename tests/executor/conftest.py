"""A real Dask cluster on loopback: one ``dask scheduler`` and two ``dask worker`` processes
(``--resources agent_slots=2``), each worker in its own directory and, where the machine
allows ``unshare -m``, in a mount namespace where the clients' directory is an empty tmpfs:
nothing a task does on a worker can rely on a shared file system.

The cluster lives for the module; agents' scripts live in a tools directory every process
sees (an agent is installed on its workers, as a CLI would be).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.runner.conftest import GIT_ENV, caesar, caesar_env, git, wait_for

BIN = Path(sys.executable).parent
DASK = shutil.which("dask", path=str(BIN)) or "dask"

JQ_AGENT = """\
#!/usr/bin/env bash
objective=$(jq -r .objective "$CAESAR_TASK_FILE")
echo "changed on a worker" >> app.py
echo "fresh" > NEW.txt
jq -n --arg s "Handled: $objective" '{
  protocol: "caesar.report/v1",
  status: "success",
  summary: $s
}' > "$CAESAR_REPORT_PATH"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def can_hide(directory: Path) -> bool:
    """Whether a process can be started in a mount namespace where ``directory`` is empty."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            f'mount -t tmpfs tmpfs "{directory}" && ! ls -A "{directory}" | grep -q .',
        ],
        capture_output=True,
        timeout=30,
        check=False,
    )
    return probe.returncode == 0


@dataclass
class Cluster:
    address: str
    tools: Path
    clients: Path
    """Where the tests' projects live: hidden from the workers when ``isolated``."""
    isolated: bool
    why_not_isolated: str
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    """Worker address -> its process."""
    logs: Path = Path()
    _spec: dict[str, Path] = field(default_factory=dict)

    def start_worker(self, address: str, directory: Path) -> None:
        port = address.rsplit(":", 1)[1]
        argv = [
            DASK, "worker", self.address, "--host", "127.0.0.1", "--worker-port", port,
            "--no-nanny", "--nthreads", "4", "--resources", "agent_slots=2",
            "--no-dashboard", "--local-directory", str(directory), "--name", directory.name,
        ]  # fmt: skip
        if self.isolated:
            hide = f'mount -t tmpfs tmpfs "{self.clients}" && exec "$@"'
            argv = ["unshare", "-m", "sh", "-c", hide, "sh", *argv]
        with (self.logs / f"{directory.name}.log").open("ab") as log:
            self.workers[address] = subprocess.Popen(
                argv, env=cluster_env(), stdout=log, stderr=log, start_new_session=True
            )
        self._spec[address] = directory

    def kill(self, address: str) -> None:
        process = self.workers[address]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def restart(self, address: str) -> None:
        """A killed worker back (a fresh process at the same address)."""
        self.start_worker(address, self._spec[address])
        self.wait_workers()

    def wait_workers(self) -> None:
        def ready() -> bool:
            out = caesar(self.tools, "doctor", "--on", self.address, "--json")
            if out.returncode not in (0, 1) or not out.stdout:
                return False
            rows = json.loads(out.stdout)["workers"]
            return {r["worker"] for r in rows} >= set(self.workers)

        wait_for(ready, timeout=90, what="the cluster's workers")


def cluster_env() -> dict[str, str]:
    env = caesar_env()
    env.pop("CAESAR_DEMO_DELAY", None)  # the demo agent's pace is each task's own
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]), env.get("PYTHONPATH", "")])
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    base = tmp_path_factory.mktemp("cluster")
    clients = tmp_path_factory.mktemp("clients")
    tools = base / "tools"
    tools.mkdir()
    logs = base / "logs"
    logs.mkdir()
    isolated = can_hide(clients)
    why = "" if isolated else "unshare -m (a mount namespace) is not allowed here"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    with (logs / "scheduler.log").open("ab") as log:
        scheduler = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            env=cluster_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    cluster = Cluster(address, tools, clients, isolated, why, logs=logs)
    try:
        for name in ("w1", "w2"):
            cluster.start_worker(f"tcp://127.0.0.1:{free_port()}", base / name)
        cluster.wait_workers()
        yield cluster
    finally:
        for process in [*cluster.workers.values(), scheduler]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in [*cluster.workers.values(), scheduler]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)


@pytest.fixture
def project(cluster: Cluster, request: pytest.FixtureRequest) -> Path:
    """A client's repository, where the workers cannot see it (when isolated)."""
    root: Path = cluster.clients / str(request.node.name)[:60]
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    (root / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def agent(cluster: Cluster, root: Path, name: str, body: str) -> None:
    """An ``[[agent]]`` whose script lives where the workers see it."""
    path = cluster.tools / f"{name}.sh"
    path.write_text(body)
    path.chmod(0o755)
    config = root / ".caesar" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    previous = config.read_text() if config.exists() else ""
    config.write_text(
        previous + f'[[agent]]\nid = "{name}"\nbin = "{path}"\nargs = "{{{{prompt}}}}"\n'
    )


def on(cluster: Cluster, root: Path, *args: str, timeout: float = 120) -> dict[str, Any]:
    """``caesar run ARGS --on ADDRESS --json`` to its end."""
    out = caesar(root, "run", *args, "--on", cluster.address, "--json", timeout=timeout)
    assert out.stdout, out.stderr
    data: dict[str, Any] = json.loads(out.stdout)
    data["_exit"], data["_stderr"] = out.returncode, out.stderr
    return data


def start(cluster: Cluster, root: Path, *args: str) -> subprocess.Popen[str]:
    """``caesar run ARGS --on ADDRESS --json`` started, not awaited."""
    return subprocess.Popen(
        [str(BIN / "caesar"), "run", *args, "--on", cluster.address, "--json"],
        cwd=root,
        env=cluster_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def record_of(root: Path, task_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (root / ".caesar" / "state" / "tasks" / f"{task_id}.json").read_text()
    )
    return data


def only_task(root: Path) -> str:
    found = wait_for(
        lambda: sorted(p.stem for p in (root / ".caesar" / "state" / "tasks").glob("t_*.json")),
        what="a task's record",
    )
    return str(found[-1])


__all__ = ["GIT_ENV", "JQ_AGENT", "Cluster", "agent", "on", "record_of", "start"]
