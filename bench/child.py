"""Run a bench's measurement in a fresh process of its own."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any


def in_child(function: Any, *args: Any) -> Any:
    """`function(*args)` in a spawned process: its memory, CPU time, Django setup and loaded models
    are its own, not the parent's, and nothing it loads stays behind for the next measurement."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()
