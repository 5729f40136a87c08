"""properties.supervisor with real child processes: restarts with backoff, stops them all."""

import sys
import time

from properties import supervisor
from properties.supervisor import Child, Supervisor


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_that_exits_is_restarted_with_growing_delays_while_the_other_runs(monkeypatch):
    monkeypatch.setattr(supervisor, "RESTART_DELAY_S", 0.2)
    lines: list[str] = []
    crashing = Child("worker", python("import sys; sys.exit(3)"))
    steady = Child("web server", python("import time; time.sleep(60)"))
    boss = Supervisor([crashing, steady], log=lines.append)
    boss.start()
    try:
        deadline = time.monotonic() + 10
        while len([line for line in lines if "exited" in line]) < 3 and time.monotonic() < deadline:
            boss.check(time.monotonic())
            time.sleep(0.05)
        exits = [line for line in lines if "exited" in line]
        assert exits[:3] == [
            "worker exited with status 3; restarting in 0.2 s",
            "worker exited with status 3; restarting in 0.4 s",
            "worker exited with status 3; restarting in 0.8 s",
        ]
        assert "worker: starting again" in lines
        assert steady.exited() is None, "the other child keeps running"
        first_pid = steady.process.pid
    finally:
        boss.stop(timeout=5)
    assert steady.exited() is not None and steady.process.pid == first_pid


def test_a_child_that_ran_a_while_is_restarted_after_the_shortest_delay(monkeypatch):
    monkeypatch.setattr(supervisor, "STABLE_AFTER_S", 0.0)
    child = Child("worker", python("pass"))
    assert [child.restart_delay(now=float(n)) for n in range(3)] == [1.0, 1.0, 1.0]


def test_stop_kills_a_child_that_ignores_sigterm_and_its_own_children():
    lines: list[str] = []
    stubborn = python(
        "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    )
    child = Child("worker", stubborn)
    boss = Supervisor([child], log=lines.append)
    boss.start()
    time.sleep(0.5)
    started = time.monotonic()
    boss.stop(timeout=1)
    assert time.monotonic() - started < 8
    assert child.exited() is not None
    assert lines == ["worker did not stop within 1 s; killing it"]
