"""`manage.py start`, the command behind `make run`: embedded defaults, demo scored, clean stop."""

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from properties.supervisor import STOP_TIMEOUT_S
from tests import servers

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def test_start_serves_the_app_scores_the_demo_and_stops_its_children(tmp_path):
    port = servers.free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    # Embedded defaults only: SQLite and the SQLAlchemy broker in the data folder. Cheap
    # properties, so the demo needs no network and no models.
    env.update(
        EVALSITE_DATA_DIR=str(tmp_path), SECRET_KEY="start-test", EVALSITE_DEFAULT_PROPERTIES="word_count,sentiment"
    )
    log = tmp_path / "start.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "start", "--bind", f"127.0.0.1:{port}", "--concurrency", "1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        password = wait_for(
            lambda: re.search(r"Demo user: demo\s+password: (\S+)", log.read_text()), 120, "the demo password"
        ).group(1)
        page = wait_for(lambda: _get(f"http://127.0.0.1:{port}/accounts/login/"), 60, "the web server")
        assert "Log in" in page.text

        def job_status():
            with sqlite3.connect(tmp_path / "evalsite.sqlite3") as db:
                return db.execute("SELECT status, done, failed, total FROM properties_scoringjob").fetchone()

        status = wait_for(lambda: (s := job_status()) and s[0] == "done" and s, 180, "the demo to be scored")
        assert status == ("done", 100, 0, 100)  # the demo's 50 interactions, its two properties each
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            client.get("/accounts/login/")
            response = client.post(
                "/accounts/login/",
                data={"username": "demo", "password": password, "csrfmiddlewaretoken": client.cookies["csrftoken"]},
                headers={"Referer": f"http://127.0.0.1:{port}/accounts/login/"},
                follow_redirects=True,
            )
            assert "Demo: support assistant" in response.text
        # Supervision: a worker that dies is restarted and logged, while the web server keeps serving.
        worker_pid = wait_for(lambda: _child_pid(process.pid, "celery -A evalsite worker"), 30, "the worker's pid")
        os.kill(worker_pid, signal.SIGKILL)
        wait_for(lambda: "worker exited with status -9; restarting in 1 s" in log.read_text(), 30, "the restart")
        assert _get(f"http://127.0.0.1:{port}/accounts/login/") is not None, "the web server kept serving"
        worker = "celery -A evalsite worker"
        assert wait_for(lambda: _child_pid(process.pid, worker, other_than=worker_pid), 30, "a new worker")
        assert _child_pid(process.pid, "celery -A evalsite beat"), "beat runs beside the worker"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert _get(f"http://127.0.0.1:{port}/accounts/login/") is None, "the web server outlived the command"
    leftovers = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"127.0.0.1:{port}" not in leftovers


def _child_pid(parent: int, command: str, other_than: int | None = None) -> int | None:
    """The pid of the child of `parent` (never another process on the machine) running `command`."""
    listing = subprocess.run(["pgrep", "-P", str(parent), "-f", command], capture_output=True, text=True)
    pids = [int(pid) for pid in listing.stdout.split() if int(pid) != other_than]
    return pids[0] if pids else None


def _get(url: str):
    try:
        response = httpx.get(url, timeout=2)
    except httpx.HTTPError:
        return None
    return response if response.status_code == 200 else None


@pytest.mark.parametrize(
    "signals, to_group",
    [
        # A service manager signals `make run`'s whole process group, and make passes the signal on
        # again at once: two SIGTERMs in a row.
        ((signal.SIGTERM, signal.SIGTERM), True),
        # A closed terminal hangs up the group, then an impatient Ctrl-C.
        ((signal.SIGHUP, signal.SIGINT), True),
        # Ctrl-C, then an impatient Ctrl-C and a SIGTERM while the stop is under way.
        ((signal.SIGINT, signal.SIGINT, signal.SIGTERM), False),
    ],
    ids=["group-sigterm-twice", "group-sighup-then-sigint", "sigint-twice-then-sigterm"],
)
def test_any_stop_signals_leave_no_process_behind(tmp_path, signals, to_group):
    port = servers.free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    # Every process the command starts inherits this folder in its environment: that is how the
    # test finds children, grandchildren and pool processes, whoever their parent is now.
    env.update(EVALSITE_DATA_DIR=str(tmp_path), SECRET_KEY="stop-test", EVALSITE_DEFAULT_PROPERTIES="word_count")
    log = tmp_path / "start.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "start", "--bind", f"127.0.0.1:{port}", "--concurrency", "1", "--no-demo"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: _get(f"http://127.0.0.1:{port}/accounts/login/"), 120, "the web server")
        # Both workers' pools and gunicorn's workers are up: the command, 4 children, 1 + 1 pool
        # processes and 2 web workers.
        wait_for(lambda: len(_processes_of(tmp_path)) >= 9, 120, "every process")
        started = _processes_of(tmp_path)
        for signum in signals:
            if to_group:
                os.killpg(process.pid, signum)
            else:
                process.send_signal(signum)
            # The first two come at once, as make's forwarded copy does; the others during the stop.
            time.sleep(0.0 if signum == signals[0] else 0.5)
        process.wait(timeout=STOP_TIMEOUT_S + 15)
        deadline = time.monotonic() + 10
        while (left := _processes_of(tmp_path)) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert not left, (started, left, log.read_text()[-3000:])
    finally:
        for pid in _processes_of(tmp_path):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert "received; stopping" in log.read_text()


def _processes_of(data_dir: Path) -> dict[int, str]:
    """Live processes (not zombies) whose environment names this data folder: pid -> command line."""
    marker = f"EVALSITE_DATA_DIR={data_dir}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if state != "Z":
            found[int(entry.name)] = command
    return found
