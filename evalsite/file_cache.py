"""The embedded default's cache: files on this host, shared by every web process.

API rate limits count in the cache, and a per-process cache lets each web process grant the
whole limit. Django's file cache is shared, but its `add` and `incr` read and then write, so two
processes counting at once lose a count; here both run under one exclusive lock on a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache
from django.core.files import locks


class LockedFileBasedCache(FileBasedCache):
    """FileBasedCache whose `add` and `incr` (so `decr`) are atomic across processes."""

    @contextmanager
    def _counter_lock(self) -> Iterator[None]:
        self._createdir()
        with open(os.path.join(self._dir, "counters.lock"), "a+b") as lock_file:
            locks.lock(lock_file, locks.LOCK_EX)
            try:
                yield
            finally:
                locks.unlock(lock_file)

    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        with self._counter_lock():
            return super().add(key, value, timeout, version)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with self._counter_lock():
            return super().incr(key, delta, version)
