from __future__ import annotations

import pytest

from bench.metrics import roc_auc


@pytest.mark.parametrize(
    ("labels", "scores", "auc"),
    [
        ([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.75),
        ([0, 1], [0.5, 0.5], 0.5),
        ([1, 1, 0, 0], [3, 4, 1, 2], 1.0),
        ([1, 0, 1, 0, 1], [1, 1, 2, 2, 3], 4 / 6),
    ],
)
def test_roc_auc(labels: list[int], scores: list[float], auc: float) -> None:
    assert roc_auc(labels, scores) == pytest.approx(auc)


def test_roc_auc_needs_both_classes() -> None:
    with pytest.raises(ValueError):
        roc_auc([1, 1], [0.1, 0.2])
