"""Plain-Python quality metrics for benchmarks."""

from __future__ import annotations

from collections.abc import Sequence


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve: the probability that a random positive outranks a random negative,
    ties counting one half (the Mann-Whitney U statistic over n_pos * n_neg)."""
    if len(labels) != len(scores):
        raise ValueError("labels and scores differ in length")
    positives = sum(1 for label in labels if label == 1)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        raise ValueError("ROC-AUC needs both classes")
    # Average ranks (1-based) over tied scores, then U = sum of positive ranks - n_pos (n_pos + 1) / 2.
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    positive_ranks = sum(rank for rank, label in zip(ranks, labels, strict=True) if label == 1)
    return (positive_ranks - positives * (positives + 1) / 2) / (positives * negatives)
