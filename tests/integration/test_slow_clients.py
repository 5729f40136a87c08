"""Slow and oversized request bodies against the embedded default (`manage.py start`) on loopback:
they cannot block other clients, and the server refuses them without reading them whole."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests import servers

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SLOW_CLIENTS = 20
BODY_TIMEOUT = 3
HEADER_TIMEOUT = 3


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[dict]:
    data_dir = tmp_path_factory.mktemp("slow-clients")
    port = servers.free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update(
        EVALSITE_DATA_DIR=str(data_dir),
        SECRET_KEY="slow-clients-test",
        EVALSITE_REQUEST_BODY_TIMEOUT=str(BODY_TIMEOUT),
        EVALSITE_HEADER_TIMEOUT_S=str(HEADER_TIMEOUT),
    )
    log = data_dir / "start.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "start", "--no-demo", "--bind", f"127.0.0.1:{port}", "--concurrency", "1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        servers.wait_until(lambda: _answers(f"{base}/accounts/login/"), process, log, timeout=120)
        yield {"port": port, "base": base, "token": _api_token(env), "log": log, "data_dir": data_dir}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _api_token(env: dict[str, str]) -> tuple[str, int]:
    script = (
        "from properties.models import ApiToken, Project, Run;"
        "from tests.factories import UserFactory;"
        "user = UserFactory(username='api');"
        "project = Project.objects.create(name='p'); project.add_member(user, 'owner');"
        "run = Run.objects.create(project=project, name='r');"
        "print(ApiToken.issue(user, 't')[1], run.pk)"
    )
    output = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    secret, run_id = output.stdout.split()[-2:]
    return secret, int(run_id)


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def _headers(method: str, path: str, *lines: str) -> bytes:
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *lines, "", ""]).encode()


def _response(sock: socket.socket, timeout: float = 5) -> str:
    """The whole response of a refusal (it closes the connection), however it is split in packets."""
    sock.settimeout(timeout)
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data.decode()


def _status_of(sock: socket.socket, timeout: float) -> int:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1])


def test_twenty_trickling_bodies_do_not_slow_a_page(site):
    assert _answers(f"{site['base']}/accounts/login/")  # warm
    stop = threading.Event()
    sockets = []
    for _ in range(SLOW_CLIENTS):
        sock = _connect(site["port"])
        sock.sendall(
            _headers(
                "POST", "/accounts/login/", "Content-Type: application/x-www-form-urlencoded", "Content-Length: 1000000"
            )
            + b"username="
        )
        sockets.append(sock)

    def trickle() -> None:
        while not stop.wait(0.5):
            for sock in sockets:
                with contextlib.suppress(OSError):  # a client the server gave up on
                    sock.send(b"a")

    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    try:
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            assert httpx.get(f"{site['base']}/accounts/login/", timeout=5).status_code == 200
            timings.append(time.perf_counter() - started)
            time.sleep(0.3)
        print(f"page times while {SLOW_CLIENTS} bodies trickle: {', '.join(f'{t * 1000:.0f} ms' for t in timings)}")
        assert max(timings) < 1, timings
    finally:
        stop.set()
        trickler.join()
        for sock in sockets:
            sock.close()


@pytest.mark.parametrize(
    ("path", "length", "content_type"),
    [
        ("/projects/1/upload/", 1_000_000_000, "text/plain; charset=utf-8"),  # a 1 GB upload
        ("/api/runs/1/interactions", 11_000_000, "application/json"),
        ("/accounts/login/", 11_000_000, "text/plain; charset=utf-8"),
    ],
)
def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(site, path, length, content_type):
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", path, f"Content-Length: {length}"))
        started = time.perf_counter()
        response = _response(sock)
    assert time.perf_counter() - started < 1
    assert response.startswith("HTTP/1.1 413"), response
    assert f"content-type: {content_type}" in response.lower()
    assert f"the request body is {length} bytes, over the limit of" in response


def test_a_chunked_body_is_read_and_one_past_the_limit_is_cut_off(site):
    secret, run_id = site["token"]
    auth = f"Authorization: Bearer {secret}"
    path = f"/api/runs/{run_id}/interactions"
    small = json.dumps({"interactions": [{"output": "sent chunked"}]}).encode()
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", path, auth, "Content-Type: application/json", "Transfer-Encoding: chunked"))
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(small), small))
        assert _status_of(sock, 10) == 200, "the chunked body is read, not taken as empty"

    megabyte = b" " * 1_000_000
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", path, auth, "Content-Type: application/json", "Transfer-Encoding: chunked"))
        sent = 0
        answered = False
        while sent < 50_000_000 and not answered:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(megabyte), megabyte))
            except OSError:
                break  # the server closed the connection
            sent += len(megabyte)
            answered = bool(select.select([sock], [], [], 0.05)[0])
        response = _response(sock)
    assert response.startswith("HTTP/1.1 413"), response
    assert "over the limit of 10485760 bytes" in response
    assert sent <= 13_000_000, f"{sent / 1e6:.0f} MB sent before the server stopped reading"
    # The 10 MB read so far went to a temporary file (past 2.5 MB in memory): removed at once.
    time.sleep(0.5)
    assert _deleted_files_held(site["data_dir"]) == []


def _deleted_files_held(data_dir: Path) -> list[str]:
    """Files already deleted that the web server's processes still hold open (their disk space stays
    in use until they are closed)."""
    marker = f"EVALSITE_DATA_DIR={data_dir}".encode()
    held = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"gunicorn" not in (entry / "cmdline").read_bytes() or marker not in (entry / "environ").read_bytes():
                continue
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    # gunicorn's own worker heartbeat files (wgunicorn-*) are deleted on purpose.
                    if target.endswith("(deleted)") and "/wgunicorn-" not in target:
                        held.append(f"{entry.name}: {target}")
        except OSError:
            continue
    return held


def test_a_stalled_body_is_given_up(site):
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", "/accounts/login/", "Content-Length: 100") + b"username=x")
        started = time.perf_counter()
        assert _status_of(sock, BODY_TIMEOUT + 5) == 408
    assert BODY_TIMEOUT - 0.5 < time.perf_counter() - started < BODY_TIMEOUT + 3


def test_an_anonymous_body_over_the_small_limit_is_refused_before_it_is_read(site):
    """Once the body limit was chosen by URL before authentication: an anonymous 200 MB POST to an
    upload URL was spooled to /tmp before the 403."""
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", "/projects/1/upload/", "Content-Length: 200000000"))
        started = time.perf_counter()
        response = _response(sock)
    assert time.perf_counter() - started < 1
    assert response.startswith("HTTP/1.1 413"), response
    assert "over the limit of 65536 bytes for a request that is not logged in" in response


def test_an_anonymous_chunked_body_is_cut_off_past_the_small_limit(site):
    kilobytes = b" " * 16_384
    with _connect(site["port"]) as sock:
        sock.sendall(_headers("POST", "/projects/1/upload/", "Content-Type: text/plain", "Transfer-Encoding: chunked"))
        sent = 0
        while sent < 20_000_000:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(kilobytes), kilobytes))
            except OSError:
                break
            sent += len(kilobytes)
            if select.select([sock], [], [], 0.01)[0]:
                break
        response = _response(sock)
    assert response.startswith("HTTP/1.1 413"), response
    assert "over the limit of 65536 bytes" in response
    assert sent <= 3_000_000, f"{sent / 1e6:.1f} MB sent before the server stopped reading"


def test_a_token_or_a_session_lifts_the_anonymous_limit(site):
    secret, run_id = site["token"]
    rows = {"interactions": [{"output": "x" * 1000, "input": f"q{n}"} for n in range(100)]}  # ~110 KB
    response = httpx.post(
        f"{site['base']}/api/runs/{run_id}/interactions",
        json=rows,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )
    assert response.status_code == 200 and response.json()["accepted"] == 100
    forged = httpx.post(
        f"{site['base']}/api/runs/{run_id}/interactions", json=rows, headers={"Authorization": "Bearer evs_forged"}
    )
    assert forged.status_code == 413 and "not logged in" in forged.json()["detail"]


def test_a_connection_that_trickles_its_headers_is_closed(site):
    with _connect(site["port"]) as sock:
        started = time.perf_counter()
        sock.sendall(b"POST /accounts/login/ HTTP/1.1\r\nHo")
        closed_at = None
        while time.perf_counter() - started < HEADER_TIMEOUT + 10:
            try:
                sock.sendall(b"s")
            except OSError:
                closed_at = time.perf_counter()
                break
            if select.select([sock], [], [], 0.5)[0] and sock.recv(1024) == b"":
                closed_at = time.perf_counter()
                break
    assert closed_at is not None, "the connection stayed open"
    assert HEADER_TIMEOUT - 0.5 < closed_at - started < HEADER_TIMEOUT + 3


def test_silent_connections_are_closed_and_the_site_keeps_answering(site):
    sockets = [_connect(site["port"]) for _ in range(200)]
    try:
        time.sleep(HEADER_TIMEOUT + 2)
        assert _answers(f"{site['base']}/accounts/login/")
        still_open = 0
        for sock in sockets:
            sock.settimeout(0.5)
            try:
                if sock.recv(1) != b"":
                    still_open += 1
            except TimeoutError:
                still_open += 1
            except OSError:
                pass
        assert still_open == 0, f"{still_open} of {len(sockets)} silent connections are still open"
    finally:
        for sock in sockets:
            sock.close()
