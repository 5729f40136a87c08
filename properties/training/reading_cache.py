"""What the packaged cross-encoder and sentence encoder made of each Relevance training pair, kept on
disk so that a rerun of `python -m properties.training.relevance` (another head size, penalty,
feature set or generator variant) reads only the pairs it has not read before.

Reading the ~9,600 pairs (three cross-encoder readings each, every sentence of a long answer, the
encoder's cosine) is most of the command's time; fitting a head is seconds. `read` returns the
`relevance_features.MODEL_COLUMNS` of each pair, taking the pairs it finds in the cache and reading
the others in one call, then storing those.

The folder is keyed by what the numbers depend on: both models' ids (which carry a digest of their
weights), the source of `relevance_features.read` and `model_columns`, and of `cross_encoder.py`; a
row by the sha256 of its question and answer. Shards are written aside, then moved in, as in
`feature_cache.py`. A cached row is the same as a fresh read: the cross-encoder reads one pair a
pass (`cross_encoder.PAIRS_PER_PASS`), so a pair's logit does not depend on the pairs read with it.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers import relevance_features
from properties.scorers.runtime import cross_encoder, models

DEFAULT_DIR = Path.home() / ".cache" / "evalsite" / "relevance-readings"


def model_key(model: cross_encoder.OnnxCrossEncoder, encoder: models.Encoder) -> str:
    digest = hashlib.sha256(f"{model.model_id}\n{encoder.model_id}\n".encode())
    # The code that computes the readings, not the form features beside them (cheap, computed each run).
    for source in (inspect.getsource(relevance_features.read), inspect.getsource(relevance_features.model_columns)):
        digest.update(source.encode())
    digest.update(Path(cross_encoder.__file__).read_bytes())
    return digest.hexdigest()[:20]


def pair_key(question: str, answer: str) -> str:
    return hashlib.sha256(f"{question}\x00{answer}".encode()).hexdigest()


class ReadingCache:
    """The pairs kept in one pair of models' folder, and reads that fill it."""

    def __init__(self, root: Path, model: cross_encoder.OnnxCrossEncoder, encoder: models.Encoder) -> None:
        self.model, self.encoder = model, encoder
        self.folder = root / model_key(model, encoder)
        self.rows: dict[str, np.ndarray] = {}
        self.hits = self.misses = 0
        for shard in sorted(self.folder.glob("shard-*.npz")):
            with np.load(shard) as data:
                self.rows.update(zip((str(key) for key in data["keys"]), data["columns"], strict=True))

    def read(self, questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
        """`model_columns(read(model, encoder, questions, answers))`, from the cache where it holds a pair."""
        keys = [pair_key(q, a) for q, a in zip(questions, answers, strict=True)]
        first = {key: index for index, key in reversed(list(enumerate(keys)))}
        missing = [key for key in first if key not in self.rows]
        self.misses += len(missing)
        self.hits += sum(1 for key in keys if key in self.rows)
        if missing:
            pick = [first[key] for key in missing]
            readings = relevance_features.read(
                self.model, self.encoder, [questions[i] for i in pick], [answers[i] for i in pick]
            )
            columns = relevance_features.model_columns(readings)
            self._store(missing, columns)
            self.rows.update(zip(missing, columns, strict=True))
        if not keys:
            return np.zeros((0, len(relevance_features.MODEL_COLUMNS)))
        return np.vstack([self.rows[key] for key in keys])

    def _store(self, keys: list[str], columns: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix=".shard-", suffix=".npz", dir=self.folder)
        with os.fdopen(handle, "wb") as out:
            np.savez(out, keys=np.array(keys), columns=columns)
        os.replace(staging, self.folder / f"shard-{pair_key(''.join(keys), '')[:16]}.npz")
