"""Pages read ahead on a database connection of their own, in a thread, while the caller uses the last.

An export on PostgreSQL spent its time in turns: the server ran a page's query while the worker
waited, then the worker wrote the page while the server waited. Reading the next page in a thread
overlaps the two (psycopg and sqlite3 release the GIL while the database works).

The thread has its own connection (Django's connections are per thread) and closes it when it ends.
A failure in the thread is raised by the caller's next step, and a caller that stops (an abandoned
download closes its generator) stops the thread: at most `depth` pages wait in the queue, so memory
stays bounded by a few pages whatever the caller's pace.

`in_turns` reads several sources at once, each so, and takes their items in turns; `dealt` makes
such sources of one iterator, dealing its items in turn: a caller whose pages are dealt so keeps
more than one database connection at work, and reads its pages' ids once, in order, as one reader.
"""

from __future__ import annotations

import collections
import functools
import itertools
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from django.db import connection, connections

T = TypeVar("T")

# Seconds between checks of whether the other side has stopped, while waiting on the queue.
POLL_SECONDS = 0.5
_END = object()


class ReaderFailed(RuntimeError):
    """The reading thread ended without saying why (it should never: it always sends an end)."""


def can_read_ahead() -> bool:
    """Whether a second connection would see what this one sees: not inside a transaction, whose
    uncommitted rows (a test's, or an atomic request's) no other connection can read."""
    return not connection.in_atomic_block


def read_ahead(pages: Callable[[], Iterator[T]], depth: int = 1) -> Iterator[T]:
    """The items of `pages()`, run in a thread on a connection of its own, `depth` items ahead."""
    waiting: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    thread = threading.Thread(target=_read, args=(pages, waiting, stop), name="export-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item = _take(waiting, thread)
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
        thread.join()


def in_turns(sources: Sequence[Callable[[], Iterator[T]]], depth: int = 1) -> Iterator[T]:
    """The items of several sources, each read ahead (`read_ahead`) on a thread and connection of its
    own, taken in turns: the first item of each source, then the second of each, and so on, ending
    at the first source that has no item at its turn."""
    streams = [read_ahead(source, depth) for source in sources]
    try:
        for stream in itertools.cycle(streams):
            item = next(stream, _END)
            if item is _END:
                return
            yield item
    finally:
        for stream in streams:
            stream.close()


def dealt(items: Iterator[T], hands: int) -> list[Callable[[], Iterator[T]]]:
    """`hands` sources that share `items` as cards are dealt: the n-th gives items n, n + hands,
    n + 2 * hands and so on. Whichever source needs an item draws from `items` under a lock, so
    `items` is read once and in order, on whichever thread draws; a failure drawing is raised by
    every source that draws after it, so no source ends early as if `items` had."""
    lock = threading.Lock()
    held: list[collections.deque] = [collections.deque() for _ in range(hands)]
    drawn = itertools.count()
    failures: list[BaseException] = []

    def hand(number: int) -> Iterator[T]:
        while True:
            with lock:
                while not held[number]:
                    try:
                        item = next(items, _END)
                    except BaseException as error:
                        failures.append(error)
                        raise
                    if item is _END:
                        if failures:
                            raise failures[0]
                        return
                    held[next(drawn) % hands].append(item)
                item = held[number].popleft()
            yield item

    return [functools.partial(hand, number) for number in range(hands)]


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _read(pages: Callable[[], Iterator[T]], waiting: queue.Queue, stop: threading.Event) -> None:
    ending: object = _END
    try:
        for item in pages():
            if not _put(waiting, item, stop):
                return
    except BaseException as error:  # noqa: BLE001 - raised again on the caller's side
        ending = _Failure(error)
    finally:
        connections.close_all()  # this thread's connections only
    _put(waiting, ending, stop)


def _put(waiting: queue.Queue, item: object, stop: threading.Event) -> bool:
    """Puts the item when there is room; False when the caller has stopped first."""
    while not stop.is_set():
        try:
            waiting.put(item, timeout=POLL_SECONDS)
            return True
        except queue.Full:
            continue
    return False


def _take(waiting: queue.Queue, thread: threading.Thread) -> object:
    while True:
        try:
            return waiting.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if not thread.is_alive() and waiting.empty():
                raise ReaderFailed("the export's reading thread ended without a last page") from None
