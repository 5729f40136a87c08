"""Supervising the embedded app's processes (`manage.py start`): a child that exits is restarted.

Each child runs in a session of its own, so that stopping it reaches its own children (a Celery
pool, gunicorn's workers) and Ctrl-C in the terminal reaches only the supervisor, which stops
them all. A child that exits is logged and started again after a delay that doubles with each
exit in a row (RESTART_DELAY_S up to MAX_RESTART_DELAY_S) and resets once it has run for
STABLE_AFTER_S; the other children keep running meanwhile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import IO

RESTART_DELAY_S = 1.0
MAX_RESTART_DELAY_S = 60.0
# A child that ran this long before exiting is restarted after the shortest delay again.
STABLE_AFTER_S = 60.0
# Warm shutdown: a Celery worker finishes its running chunk. Past this, the child is killed.
STOP_TIMEOUT_S = 15.0
POLL_S = 0.5


@dataclass
class Child:
    name: str
    command: list[str]
    # Where its output goes (its stdout and stderr together); the supervisor's own by default.
    output: IO[bytes] | None = None
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    exits_in_a_row: int = 0
    restart_at: float | None = None

    def start(self, now: float) -> None:
        stderr = subprocess.STDOUT if self.output is not None else None
        self.process = subprocess.Popen(self.command, stdout=self.output, stderr=stderr, start_new_session=True)
        self.started_at, self.restart_at = now, None

    def exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def restart_delay(self, now: float) -> float:
        if now - self.started_at >= STABLE_AFTER_S:
            self.exits_in_a_row = 0
        self.exits_in_a_row += 1
        return min(MAX_RESTART_DELAY_S, RESTART_DELAY_S * 2 ** (self.exits_in_a_row - 1))

    def signal_group(self, signum: int) -> None:
        if self.process is not None:
            with suppress(ProcessLookupError):
                os.killpg(self.process.pid, signum)


class Supervisor:
    def __init__(self, children: list[Child], log: Callable[[str], None]) -> None:
        self.children = children
        self.log = log
        self.stop_signal: int | None = None

    def request_stop(self, signum: int) -> None:
        """Called from a signal handler: the loop stops at its next turn."""
        self.stop_signal = signum

    def start(self) -> None:
        now = time.monotonic()
        for child in self.children:
            if self.stop_signal is None:
                child.start(now)

    def check(self, now: float) -> None:
        """Restart what is due, and schedule the restart of what exited since the last check."""
        for child in self.children:
            if child.restart_at is not None:
                if now >= child.restart_at:
                    self.log(f"{child.name}: starting again")
                    child.start(now)
                continue
            code = child.exited()
            if code is not None:
                delay = child.restart_delay(now)
                child.restart_at = now + delay
                self.log(f"{child.name} exited with status {code}; restarting in {delay:g} s")

    def run_until_stopped(self) -> None:
        while self.stop_signal is None:
            self.check(time.monotonic())
            time.sleep(POLL_S)
        self.log(f"{signal.Signals(self.stop_signal).name} received; stopping")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM every child's process group, wait, then SIGKILL what is left."""
        for child in self.children:
            if child.exited() is None:
                child.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for child in self.children:
            if child.process is None:
                continue
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.log(f"{child.name} did not stop within {timeout:g} s; killing it")
            # Its own children (a pool, gunicorn's workers) may outlive it: the whole group goes.
            child.signal_group(signal.SIGKILL)
            with suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=5)
