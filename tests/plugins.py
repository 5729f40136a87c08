"""Scorers the tests register by dotted path, as a user's plugin would be."""

import os
import time
from pathlib import Path

from properties.scorers.base import Score, Scorer


class SlowWordCount(Scorer):
    """Counts words slowly, and writes its process id where a test can find it (to kill it)."""

    fields = ("output",)

    @staticmethod
    def name() -> str:
        return "slow_word_count"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def __init__(self, seconds: float = 0.0, marker_dir: str = "") -> None:
        self.seconds = seconds
        self.marker_dir = marker_dir

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        if self.marker_dir:
            Path(self.marker_dir, f"{os.getpid()}.pid").write_text(str(os.getpid()))
        time.sleep(self.seconds)
        return [float(len(text.split())) for text in candidate_batch]


class FailsOnBoom(Scorer):
    """Raises for any output containing "boom", so the pipeline must isolate that item."""

    fields = ("output",)

    @staticmethod
    def name() -> str:
        return "fails_on_boom"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        if any("boom" in text for text in candidate_batch):
            raise RuntimeError("boom is not a word this scorer accepts")
        return [Score(value=1.0) for _ in candidate_batch]


class WordCountOnModels(SlowWordCount):
    """Counts words on the `models` queue: a second queue for planning tests, with no model to load."""

    queue = "models"

    @staticmethod
    def name() -> str:
        return "word_count_on_models"
