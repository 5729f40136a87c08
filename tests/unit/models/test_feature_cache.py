"""The training feature cache: a cached read agrees with the LM's own, and only new texts are read."""

from __future__ import annotations

import numpy as np
import pytest

from properties.scorers.runtime import causal_lm
from properties.training.feature_cache import FeatureCache

TEXTS = [
    "Your parcel is with the courier and should arrive on Friday.",
    "Short one.",
    "The query joins invoices to customers and keeps the rows of the last thirty days.",
    "Short one.",
]


@pytest.fixture(scope="module")
def lm(fluency) -> causal_lm.CausalLM:
    lm = causal_lm.packaged_lm("fluency")
    before = lm.bf16
    lm.bf16 = False  # training reads in float32
    yield lm
    lm.bf16 = before


def counting(lm: causal_lm.CausalLM, monkeypatch) -> list[int]:
    """How many texts each call of `lm.read` is given."""
    calls: list[int] = []
    read = lm.read

    def wrapped(texts, token_layer=None):
        calls.append(len(texts))
        return read(texts, token_layer)

    monkeypatch.setattr(lm, "read", wrapped)
    return calls


def test_a_cached_read_agrees_with_an_uncached_one(lm, tmp_path, monkeypatch) -> None:
    fresh_features, fresh_states = lm.read(TEXTS, 14)
    calls = counting(lm, monkeypatch)
    first = FeatureCache(tmp_path, lm, 14).read(TEXTS)
    # A new process: the rows come from the shard on disk, and the LM reads nothing.
    again = FeatureCache(tmp_path, lm, 14)
    second = again.read(TEXTS)
    assert calls == [3]  # the repeated text is read once
    assert (again.hits, again.misses) == (4, 0)
    for features, states in (first, second):
        np.testing.assert_allclose(features, fresh_features, rtol=1e-4, atol=1e-4)
        assert [s.shape for s in states] == [s.shape for s in fresh_states]
        for cached, fresh in zip(states, fresh_states, strict=True):
            np.testing.assert_allclose(cached, fresh, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(first[0], second[0], rtol=1e-6, atol=1e-6)


def test_only_new_texts_are_read_and_a_changed_setting_reads_into_another_folder(lm, tmp_path, monkeypatch) -> None:
    FeatureCache(tmp_path, lm, 14).read(TEXTS[:2])
    calls = counting(lm, monkeypatch)
    cache = FeatureCache(tmp_path, lm, 14)
    features, _ = cache.read(TEXTS)
    assert calls == [1] and features.shape == (4, lm.width)
    other = FeatureCache(tmp_path, lm, 15)
    assert other.folder != cache.folder
    other.read(TEXTS[:1])
    assert calls == [1, 1]
    no_states = FeatureCache(tmp_path, lm, None)
    features, states = no_states.read(TEXTS[:2])
    assert no_states.folder not in (cache.folder, other.folder)
    assert [s.size for s in states] == [0, 0] and features.shape == (2, lm.width)
    again = FeatureCache(tmp_path, lm, None).read(TEXTS[:2])
    np.testing.assert_allclose(again[0], features, rtol=1e-6, atol=1e-6)
