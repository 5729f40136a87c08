"""Results of model calls kept per process, keyed by the exact input, so that each text is read once.

Several properties of one interaction read the same texts with the same model: Retrieval Relevance
and Context Relevancy score the same (question, chunk) pairs with the cross-encoder; Grounded in
Context, Information Density and Avoided Answer embed the same output sentences with MiniLM. A
chunk of work carries several properties of the same interactions, so the second property finds
the first one's results here instead of running the model again. Bounded (least recently used
entries go first), and keyed by model too, so that two models never share an entry.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """A bounded least-recently-used map from inputs to one model's outputs, safe across threads."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def compute(self, keys: Sequence[Hashable], run: Callable[[list[int]], Sequence[V]]) -> list[V]:
        """The value of every key: cached ones from memory, the others from `run(indexes of the missing
        keys)` (one call for all of them, in their order), which are then kept."""
        found: list[V | None] = [None] * len(keys)
        missing: list[int] = []
        first_of: dict[Hashable, int] = {}
        with self._lock:
            for index, key in enumerate(keys):
                if key in self._entries:
                    self._entries.move_to_end(key)
                    found[index] = self._entries[key]
                elif key in first_of:
                    continue  # a repeat inside this call: computed once, filled in below
                else:
                    first_of[key] = index
                    missing.append(index)
            self.hits += len(keys) - len(missing)
            self.misses += len(missing)
        if missing:
            values = run(missing)
            with self._lock:
                for index, value in zip(missing, values, strict=True):
                    found[index] = value
                    self._entries[keys[index]] = value
                    self._entries.move_to_end(keys[index])
                while len(self._entries) > self.capacity:
                    self._entries.popitem(last=False)
        for index, key in enumerate(keys):
            if found[index] is None:
                found[index] = found[first_of[key]]
        return found  # type: ignore[return-value]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0
