"""Relevance's training tools: the reading cache agrees with a fresh read and reads only new pairs,
and the grouped check leaves each kind out of its own fit."""

from __future__ import annotations

import numpy as np
import pytest

from properties.scorers import relevance_features
from properties.scorers.runtime import cross_encoder, models
from properties.training import relevance as training
from properties.training.reading_cache import ReadingCache

QUESTIONS = ["How much is the annual plan?", "Who wrote the manual?", "How much is the annual plan?"]
ANSWERS = ["It costs $120 a year.", "Marta Kowalczyk wrote it. She also maintains the wiki.", "It costs $120 a year."]


@pytest.fixture(scope="module")
def readers() -> tuple[cross_encoder.OnnxCrossEncoder, models.Encoder]:
    return cross_encoder.packaged_reranker("relevance"), models.packaged_encoder("relevance")


def test_a_cached_read_agrees_with_a_fresh_one_and_reads_each_pair_once(readers, tmp_path, monkeypatch) -> None:
    model, encoder = readers
    fresh = relevance_features.model_columns(relevance_features.read(model, encoder, QUESTIONS, ANSWERS))
    calls: list[int] = []
    read = relevance_features.read

    def counted(model, encoder, questions, answers):
        calls.append(len(questions))
        return read(model, encoder, questions, answers)

    monkeypatch.setattr(relevance_features, "read", counted)
    first = ReadingCache(tmp_path, model, encoder).read(QUESTIONS, ANSWERS)
    again = ReadingCache(tmp_path, model, encoder)  # a new process: the pairs come from the shard
    second = again.read(QUESTIONS, ANSWERS)
    assert calls == [2], "the repeated pair is read once, and the second cache reads nothing"
    assert (again.hits, again.misses) == (3, 0)
    np.testing.assert_allclose(first, fresh, rtol=1e-3, atol=1e-2)
    # The shard holds what the first read computed: a tolerance, as floats may differ in the last bits.
    np.testing.assert_allclose(first, second, rtol=1e-6, atol=1e-9)
    assert first.shape == (3, len(relevance_features.MODEL_COLUMNS))


def test_the_grouped_check_scores_each_kind_with_a_head_that_never_saw_it(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    kinds = np.repeat(np.array(["qnli", "rows/product", "form/date"]), 40)
    labels = np.tile([0, 1], 60)
    features = rng.normal(size=(120, 3)) + labels[:, None]
    seen: list[set[str]] = []
    fit_head = training.fit_head

    def recording(rows, row_labels):
        seen.append({kind for kind in kinds if any((features[kinds == kind] == row).all(1).any() for row in rows)})
        return fit_head(rows, row_labels)

    monkeypatch.setattr(training, "fit_head", recording)
    result = training.grouped_check(features, labels, kinds)
    assert seen == [{"qnli", "rows/product"}, {"form/date", "rows/product"}, {"form/date", "qnli"}]
    assert result["roc_auc"] > 0.7 and 0.0 <= result["worst_kind_accuracy"] <= result["mean_kind_accuracy"]
    assert training.kinds_of([{"input": "q", "output": "a", "label": 1}, {"kind": "chat/dish"}]).tolist() == [
        "qnli",
        "chat/dish",
    ]
