"""What a causal LM made of each training sentence, kept on disk so that a rerun of a training
command reads only the sentences it has not read before.

Fluency's training reads ~11,600 sentence units with SmolLM2 before it fits anything (the whole
command: 1,652 s at load 2, 1,932 s at load 6-7); a variant of the generated rows or of the head's
regularisation changes a few hundred of them, or none. `read` returns exactly what
`CausalLM.read(texts, token_layer)` returns, taking the rows it finds in the cache and reading the
others with the LM (in one call), then storing those.

The cache folder is keyed by everything the numbers depend on: a sha256 of the model's weights and
of its tokenizer's vocabulary, the pooled layers, the layer whose token states the adapter reads,
the precision, and the source of `causal_lm.py` (which computes them); a row by the sha256 of its
text. A changed model, layer or feature code therefore reads into a new folder, never an old row.
Each read that found something missing writes one shard file (written aside, then moved in, so a
killed run leaves no partial shard); deleting the folder only costs the time to read again.

A cached row agrees with a fresh read to float32 rounding, not always bit for bit: the LM reads
sentences in padded batches of about one length, and the batch a sentence falls in changes the
order of the sums (the test `test_feature_cache` checks the agreement).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.runtime import causal_lm

DEFAULT_DIR = Path.home() / ".cache" / "evalsite" / "features"


def model_key(lm: causal_lm.CausalLM, token_layer: int | None) -> str:
    """A digest of what `lm.read(..., token_layer)` depends on (see the module docstring)."""
    digest = hashlib.sha256()
    state = lm.float32_model().state_dict()
    for name in sorted(state):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(state[name].detach().float().cpu().numpy()).tobytes())
    digest.update(json.dumps(sorted(lm.tokenizer.get_vocab().items())).encode())
    setting = {"layers": lm.layers, "token_layer": token_layer, "bf16": lm.bf16, "boundary": lm.boundary}
    digest.update(json.dumps(setting, sort_keys=True).encode())
    digest.update(Path(causal_lm.__file__).read_bytes())
    return digest.hexdigest()[:20]


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class FeatureCache:
    """The rows kept in one model's folder, and reads that fill it."""

    def __init__(self, root: Path, lm: causal_lm.CausalLM, token_layer: int | None) -> None:
        self.lm, self.token_layer = lm, token_layer
        self.folder = root / model_key(lm, token_layer)
        self.rows: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.hits = self.misses = 0
        for shard in sorted(self.folder.glob("shard-*.npz")):
            self._load(shard)

    def _load(self, shard: Path) -> None:
        with np.load(shard) as data:
            keys, features, lengths, states = data["keys"], data["features"], data["lengths"], data["states"]
        ends = np.cumsum(lengths)
        for key, row, end, length in zip(keys, features, ends, lengths, strict=True):
            self.rows[str(key)] = (row, states[end - length : end])

    def read(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """`lm.read(texts, token_layer)`, from the cache where it holds a text."""
        keys = [text_key(text) for text in texts]
        missing = list(dict.fromkeys(key for key in keys if key not in self.rows))
        self.misses += len(missing)
        self.hits += sum(1 for key in keys if key in self.rows)
        if missing:
            first = {key: index for index, key in reversed(list(enumerate(keys)))}
            features, states = self.lm.read([texts[first[key]] for key in missing], self.token_layer)
            self._store(missing, features, states)
            for key, row, token_states in zip(missing, features, states, strict=True):
                self.rows[key] = (row, token_states)
        found = [self.rows[key] for key in keys]
        return np.vstack([row for row, _ in found]), [token_states for _, token_states in found]

    def _store(self, keys: list[str], features: np.ndarray, states: list[np.ndarray]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        width = states[0].shape[1] if states and states[0].size else 0
        stacked = np.concatenate(states) if width else np.zeros((0, 0), dtype=np.float32)
        lengths = np.array([len(s) if width else 0 for s in states], dtype=np.int64)
        handle, staging = tempfile.mkstemp(prefix=".shard-", suffix=".npz", dir=self.folder)
        with os.fdopen(handle, "wb") as out:
            np.savez(out, keys=np.array(keys), features=features, lengths=lengths, states=stacked)
        os.replace(staging, self.folder / f"shard-{text_key(''.join(keys))[:16]}.npz")
