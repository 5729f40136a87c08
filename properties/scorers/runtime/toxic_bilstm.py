"""The Jigsaw BiLSTM of `toxic-comment-classifier`, run in numpy without TensorFlow.

The package's own loader rebuilds the Keras model and so needs TensorFlow (1.6 GB). The network
is small (embedding 20,000 x 50, BiLSTM 2 x 50, dense 50 ReLU, dense 6 sigmoid), so this module reads
its h5 weights with h5py and its pickled Keras tokenizer with a restricted unpickler, and runs the
same forward pass in numpy. Texts longer than the model's 100 tokens are cut into overlapping
windows and each window is scored: the caller takes the max.
"""

from __future__ import annotations

import pickle
import re
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

LABELS = ("toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate")
MAXLEN = 100  # the sequence length the model was trained with
WINDOW_STEP = 75  # windows of 100 tokens overlap by 25
HIDDEN = 50  # units of the dense layer before the six outputs
# The Keras Tokenizer's defaults, which this model was fitted with (read from the pickle).
_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


class _KerasTokenizerState:
    """Receives the pickled Keras `Tokenizer`'s attributes; no Keras code runs."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


class _TokenizerUnpickler(pickle.Unpickler):
    # Only the Tokenizer class, two dict types and int may be built from this pickle: anything else in it
    # is refused rather than imported and called.
    def find_class(self, module: str, name: str) -> Any:
        if name == "Tokenizer" and module.startswith("keras"):
            return _KerasTokenizerState
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if (module, name) == ("collections", "defaultdict"):
            return defaultdict
        if (module, name) == ("builtins", "int"):  # the defaultdict's default factory
            return int
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from the tokenizer pickle")


class ToxicBiLSTM:
    def __init__(self, folder: Path) -> None:
        import h5py

        with (folder / "tokenizer.pickle").open("rb") as handle:
            state = _TokenizerUnpickler(handle).load()
        self.num_words: int = state.num_words
        self.word_index: dict[str, int] = {w: i for w, i in state.word_index.items() if i < self.num_words}
        self._split = re.compile("[" + re.escape(_FILTERS) + " ]+")
        with h5py.File(folder / "model.weights.h5", "r") as weights:
            layers = weights["layers"]
            self.embedding = layers["embedding/vars/0"][()]
            self.forward = [layers[f"bidirectional/forward_layer/cell/vars/{i}"][()] for i in range(3)]
            self.backward = [layers[f"bidirectional/backward_layer/cell/vars/{i}"][()] for i in range(3)]
            self.dense = [layers[f"dense/vars/{i}"][()] for i in range(2)]
            self.out = [layers[f"dense_1/vars/{i}"][()] for i in range(2)]

    def token_ids(self, text: str) -> list[int]:
        """Keras `texts_to_sequences`: lower-case, split on the filter characters, drop words
        outside the 20,000 most frequent."""
        words = self._split.split(text.lower())
        return [self.word_index[w] for w in words if w in self.word_index]

    def windows(self, text: str) -> list[list[int]]:
        ids = self.token_ids(text)
        if len(ids) <= MAXLEN:
            return [ids]
        starts = list(range(0, len(ids) - MAXLEN, WINDOW_STEP)) + [len(ids) - MAXLEN]
        return [ids[start : start + MAXLEN] for start in starts]

    def predict(self, sequences: Sequence[list[int]]) -> np.ndarray:
        """Label probabilities [n, 6] for token-id sequences of at most MAXLEN."""
        return self.read(sequences)[0]

    def read(self, sequences: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Label probabilities [n, 6] and the hidden layer they are read from [n, HIDDEN] (ReLU
        units: what the network learnt about abuse from Jigsaw, richer than its six outputs)."""
        # Keras `pad_sequences` pads at the front with id 0, whose embedding the model does see.
        ids = np.zeros((len(sequences), MAXLEN), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            if sequence:
                ids[row, -len(sequence) :] = sequence
        x = self.embedding[ids]
        # Max-pooling over time follows, so the backward pass's time order does not matter.
        pooled = np.concatenate([_lstm_max(x, *self.forward), _lstm_max(x[:, ::-1], *self.backward)], axis=1)
        hidden = np.maximum(pooled @ self.dense[0] + self.dense[1], 0.0)
        return _sigmoid(hidden @ self.out[0] + self.out[1]), hidden


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _lstm_max(x: np.ndarray, kernel: np.ndarray, recurrent: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Keras LSTM (gates i, f, c, o; sigmoid recurrent activation), max of the outputs over time."""
    batch, steps, _ = x.shape
    units = recurrent.shape[0]
    projected = x @ kernel + bias
    h = np.zeros((batch, units), dtype=np.float32)
    c = np.zeros((batch, units), dtype=np.float32)
    best = np.full((batch, units), -np.inf, dtype=np.float32)
    for t in range(steps):
        z = projected[:, t] + h @ recurrent
        i, f, g, o = (z[:, k * units : (k + 1) * units] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        best = np.maximum(best, h)
    return best
