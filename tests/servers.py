"""Real Redis, PostgreSQL and Celery worker processes for integration tests.

Plain functions and context managers; the fixtures that use them live in tests/conftest.py.
Each server runs on a free port of 127.0.0.1 in its own temporary folder and is stopped on exit.
"""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest
import redis

from properties.scorers.registry import QUEUES

REPO_ROOT = Path(__file__).resolve().parent.parent
# Debian installs PostgreSQL outside PATH, one folder per major version; prefer the newest.
POSTGRES_BIN_DIRS = sorted(
    glob.glob("/usr/lib/postgresql/[0-9]*/bin"), key=lambda d: float(Path(d).parent.name), reverse=True
)
INSTALL_HINTS = {
    "redis-server": "apt-get install redis-server",
    "initdb": "apt-get install postgresql",
    "pg_ctl": "apt-get install postgresql",
}
SERVER_START_TIMEOUT = 30.0
WORKER_READY_TIMEOUT = 60.0
# Warm shutdown lets a running task finish; past this the whole process group is killed.
WORKER_STOP_TIMEOUT = 30.0


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def find_binary(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(POSTGRES_BIN_DIRS))


def binary_missing(name: str) -> str | None:
    """Why a test needing `name` cannot run, or None when the binary is there."""
    if find_binary(name):
        return None
    hint = INSTALL_HINTS.get(name, f"install {name}")
    return f"{name} not found on PATH nor in /usr/lib/postgresql/*/bin ({hint})"


def skip_or_fail(reason: str) -> NoReturn:
    """Skip the test, except under CI=true where a missing server is a broken CI image."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def require_binaries(*names: str) -> None:
    for name in names:
        if reason := binary_missing(name):
            skip_or_fail(reason)


def read_tail(path: Path, chars: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except FileNotFoundError:
        return "(no log written)"


def wait_until(ready: Callable[[], bool], process: subprocess.Popen, log_path: Path, timeout: float) -> None:
    """Poll `ready` until it holds; raise with the log's tail if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}:\n{read_tail(log_path)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{process.args[0]} not ready after {timeout:.0f}s:\n{read_tail(log_path)}")
        time.sleep(0.1)


def stop_process(process: subprocess.Popen, timeout: float = 10.0) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def redis_answers(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server without persistence; yields its URL."""
    binary = find_binary("redis-server")
    if binary is None:
        raise RuntimeError(binary_missing("redis-server"))
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    with tempfile.TemporaryDirectory(prefix="evalsite-redis-") as tmp:
        log_path = Path(tmp) / "redis.log"
        command = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", tmp]
        command += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        with log_path.open("wb") as log:
            process = subprocess.Popen(command, cwd=tmp, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: redis_answers(url), process, log_path, SERVER_START_TIMEOUT)
            yield url
        finally:
            stop_process(process)


def run_checked(command: list[str], cwd: Path) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")


def postgres_user_prefix(folder: Path) -> list[str]:
    """initdb refuses to run as root: as root, run the PostgreSQL commands as `postgres`.

    `folder` must be reachable by that user: the default temporary folder (/tmp) is.
    """
    if os.geteuid() != 0:
        return []
    try:
        account = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root and there is no `postgres` user to run initdb as") from None
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, account.pw_uid, account.pw_gid)
    return ["runuser", "-u", "postgres", "--"]


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster with trust auth and fsync off; yields its URL."""
    initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError(binary_missing("initdb") or binary_missing("pg_ctl"))
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="evalsite-pg-"))
    data, sockets, log_path = folder / "data", folder / "sockets", folder / "postgres.log"
    sockets.mkdir()
    as_postgres: list[str] = []
    started = False
    try:
        as_postgres = postgres_user_prefix(folder)
        run_checked(
            [*as_postgres, initdb, "-D", str(data), "-U", "postgres", "--auth=trust"]
            + ["--encoding=UTF8", "--locale=C", "--no-sync"],
            cwd=folder,
        )
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{sockets}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            )
        started = True
        try:
            run_checked([*as_postgres, pg_ctl, "-D", str(data), "-l", str(log_path), "-w", "-t", "60", "start"], folder)
        except RuntimeError as error:
            raise RuntimeError(f"{error}\n{read_tail(log_path)}") from None
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run(
                [*as_postgres, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
                cwd=folder,
                capture_output=True,
                check=False,
            )
        shutil.rmtree(folder, ignore_errors=True)


def postgres_answers(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=2) as connection:
            return connection.execute("SELECT 1").fetchone() == (1,)
    except psycopg.OperationalError:
        return False


@dataclass
class WorkerHandle:
    process: subprocess.Popen
    log_path: Path
    final_log: str | None = None  # kept when the context exits and the log's folder goes

    def log(self) -> str:
        if self.final_log is not None:
            return self.final_log
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the worker and its pool children at once, as a crash or OOM kill would."""
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), then kill whatever of the process group is left."""
        if self.process.poll() is None:
            self.process.terminate()
            with suppress(subprocess.TimeoutExpired):
                self.process.wait(WORKER_STOP_TIMEOUT)
        self.kill()


@contextmanager
def celery_worker(env: dict[str, str], queues: str = ",".join(QUEUES), concurrency: int = 2) -> Iterator[WorkerHandle]:
    """A real `celery -A evalsite worker` process with `env` on top of os.environ, ready to consume."""
    command = [sys.executable, "-m", "celery", "-A", "evalsite", "worker", "-Q", queues]
    command += [f"--hostname=test-{uuid.uuid4().hex[:8]}@%h", "--pool=prefork", f"--concurrency={concurrency}"]
    command += ["--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    with tempfile.TemporaryDirectory(prefix="evalsite-worker-") as tmp:
        log_path = Path(tmp) / "worker.log"
        with log_path.open("wb") as log:
            # A new session makes the worker a process-group leader, so kill() reaches the pool too.
            process = subprocess.Popen(
                command,
                cwd=REPO_ROOT,
                env={**os.environ, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        worker = WorkerHandle(process, log_path)
        try:
            wait_until(lambda: "ready." in worker.log(), process, log_path, WORKER_READY_TIMEOUT)
            yield worker
        finally:
            worker.stop()
            worker.final_log = worker.log()


class WorkerFleet:
    """A Celery worker and Celery beat supervised as `manage.py start` supervises them.

    The children's environment is os.environ at the time they (re)start, so a test sets it with
    monkeypatch. `hold()` suspends restarts (to keep the workers down for a while).
    """

    def __init__(self, log_path: Path, concurrency: int) -> None:
        from properties.management.commands import start
        from properties.supervisor import Child, Supervisor

        self.log_path = log_path
        self.output = log_path.open("ab")
        self.worker = Child("worker", start.worker_command(concurrency), output=self.output)
        self.beat = Child("beat", start.beat_command(), output=self.output)
        self.events: list[str] = []
        self.supervisor = Supervisor([self.worker, self.beat], log=self.events.append)
        self.held = threading.Event()
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.closing.is_set():
            if not self.held.is_set():
                self.supervisor.check(time.monotonic())
            time.sleep(0.2)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pool_pids(self) -> list[int]:
        """The worker's pool processes (children of its main process)."""
        listing = subprocess.run(["pgrep", "-P", str(self.worker.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in listing.stdout.split()]

    def hold(self) -> None:
        self.held.set()

    def release(self) -> None:
        self.held.clear()

    def stop_all(self) -> None:
        """Warm shutdown of every child, restarts held until release()."""
        self.hold()
        self.supervisor.stop()
        for child in self.supervisor.children:
            child.restart_at = time.monotonic()  # started again on release()


@contextmanager
def supervised_workers(log_dir: Path, concurrency: int = 2) -> Iterator[WorkerFleet]:
    fleet = WorkerFleet(log_dir / "workers.log", concurrency)
    fleet.supervisor.start()
    fleet.thread.start()
    try:
        yield fleet
    finally:
        fleet.closing.set()
        fleet.thread.join()
        fleet.supervisor.stop()
        fleet.output.close()
