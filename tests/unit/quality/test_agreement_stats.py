"""The statistics of a property against a team's labels: figures on a small labelled set worked out
by hand, and the threshold search over any labelled set (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from properties.quality import agreement_stats as stats
from properties.quality.criteria import HIGHER, LOWER, Criterion

# Eight interactions. Good: 0.3, 0.6, 0.8, 0.9; bad: 0.1, 0.2, 0.4, 0.7.
VALUES = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
GOOD = np.array([False, False, True, False, True, False, True, True])


def test_roc_auc_by_hand():
    # Good values above bad ones, pair by pair: 0.3 beats 2, 0.6 beats 3, 0.8 and 0.9 beat all 4: 13 of 16.
    assert stats.roc_auc(VALUES, GOOD, HIGHER) == pytest.approx(13 / 16)
    # Lower is better on the mirrored values: the same ranking, the same figure.
    assert stats.roc_auc(1 - VALUES, GOOD, LOWER) == pytest.approx(13 / 16)
    # Read the wrong way round, the property ranks bad above good: 3 of 16.
    assert stats.roc_auc(VALUES, GOOD, LOWER) == pytest.approx(3 / 16)


def test_ties_count_half():
    values = np.array([0.5, 0.5, 0.2, 0.8])
    good = np.array([True, False, False, True])
    # Good {0.5, 0.8} against bad {0.5, 0.2}: 0.5=0.5 half, 0.5>0.2, 0.8>0.5, 0.8>0.2: 3.5 of 4.
    assert stats.roc_auc(values, good, HIGHER) == pytest.approx(3.5 / 4)


def test_confusion_at_the_current_threshold_by_hand():
    at = stats.confusion(VALUES, GOOD, HIGHER, 0.5)
    # Pass from 0.5 up: 0.6, 0.8, 0.9 good and 0.7 bad; fail below: 0.3 good and 0.1, 0.2, 0.4 bad.
    assert (at.passed_good, at.passed_bad, at.failed_good, at.failed_bad) == (3, 1, 1, 3)
    assert at.balanced_accuracy == pytest.approx((3 / 4 + 3 / 4) / 2)
    assert at.precision == pytest.approx(3 / 4)  # of the four failed, three are bad
    assert at.recall == pytest.approx(3 / 4)
    # A value on the threshold passes when higher is better, and fails when lower is (criteria.py).
    assert stats.confusion(VALUES, GOOD, HIGHER, 0.6).passed_good == 3
    assert stats.confusion(VALUES, GOOD, LOWER, 0.6).failed_good == 3


def test_suggested_threshold_by_hand():
    # Every split, by its interval of thresholds and balanced accuracy:
    # (0.1,0.2] 0.625, (0.2,0.3] 0.75, (0.3,0.4] 0.625, (0.4,0.6] 0.75, (0.6,0.7] 0.625,
    # (0.7,0.8] 0.75, (0.8,0.9] 0.625. Three tie at 0.75, written 0.25, 0.5 and 0.8.
    assert stats.suggest_threshold(VALUES, GOOD, HIGHER).threshold == 0.25  # the first, without a current one
    assert stats.suggest_threshold(VALUES, GOOD, HIGHER, current=0.5).threshold == 0.5  # no move needed
    assert stats.suggest_threshold(VALUES, GOOD, HIGHER, current=0.95).threshold == 0.8  # the nearest
    suggestion = stats.suggest_threshold(VALUES, GOOD, HIGHER, current=0.5)
    assert suggestion.confusion.balanced_accuracy == pytest.approx(0.75)
    assert suggestion.goal == "balanced_accuracy"


def test_target_precision_by_hand():
    # Precision of the failures (share bad) by split: (0.1,0.2] 1/1, (0.2,0.3] 2/2, (0.3,0.4] 2/3,
    # (0.4,0.6] 3/4, (0.6,0.7] 3/5, (0.7,0.8] 4/6, (0.8,0.9] 4/7.
    exact = stats.suggest_threshold(VALUES, GOOD, HIGHER, target_precision=1.0)
    # Of the two with precision 1, (0.2,0.3] catches more bad: 2 of 4.
    assert (exact.threshold, exact.confusion.failed_bad, exact.confusion.failed_good) == (0.25, 2, 0)
    assert exact.goal == "precision"
    three_quarters = stats.suggest_threshold(VALUES, GOOD, HIGHER, target_precision=0.75)
    assert (three_quarters.threshold, three_quarters.confusion.recall) == (0.5, 0.75)
    # Nothing better than chance, or no split reaching the target: no suggestion.
    assert stats.suggest_threshold(VALUES, GOOD, LOWER, target_precision=0.9) is None
    assert stats.suggest_threshold(np.array([0.5, 0.5]), np.array([True, False]), HIGHER) is None


def test_bootstrap_interval():
    low, high = stats.bootstrap_interval(VALUES, GOOD, HIGHER)
    assert 0 <= low < 13 / 16 < high <= 1
    assert (low, high) == stats.bootstrap_interval(VALUES, GOOD, HIGHER), "the same interval on every reload"
    # Perfectly separated labels separate in every resample; tied values never separate.
    separated = np.array([0.1, 0.2, 0.8, 0.9])
    split = np.array([False, False, True, True])
    assert stats.bootstrap_interval(separated, split, HIGHER) == (1.0, 1.0)
    assert stats.bootstrap_interval(separated, split, LOWER) == (0.0, 0.0)
    assert stats.bootstrap_interval(np.full(4, 0.3), split, HIGHER) == (0.5, 0.5)
    # More labels, a narrower interval.
    rng = np.random.default_rng(1)
    many_good = rng.normal(0.6, 0.2, 400)
    many_bad = rng.normal(0.4, 0.2, 400)
    values = np.concatenate([many_good, many_bad])
    good = np.arange(800) < 400
    wide = stats.bootstrap_interval(values[::20], good[::20], HIGHER)
    narrow = stats.bootstrap_interval(values, good, HIGHER)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    assert narrow[0] < stats.roc_auc(values, good, HIGHER) < narrow[1]


def test_bootstrap_agrees_with_resampling_and_sklearn():
    """The counted resamples give the interval that drawing the values and calling roc_auc_score does."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(7)
    # Values on a coarse grid, so that ties between good and bad are common.
    good_values, bad_values = np.round(rng.normal(0.6, 0.2, 60), 1), np.round(rng.normal(0.45, 0.2, 50), 1)
    values = np.concatenate([good_values, bad_values])
    good = np.arange(110) < 60
    aucs = []
    for _ in range(2000):
        drawn = np.concatenate([rng.choice(good_values, 60), rng.choice(bad_values, 50)])
        aucs.append(roc_auc_score([1] * 60 + [0] * 50, drawn))
    naive = tuple(np.percentile(aucs, [2.5, 97.5]))
    assert stats.bootstrap_interval(values, good, HIGHER) == pytest.approx(naive, abs=0.02)
    # Lower is better on the negated values: the same ranking, the same interval.
    assert stats.bootstrap_interval(-values, good, LOWER) == pytest.approx(naive, abs=0.02)
    counts = stats._draw_counts(rng, 7, 5)
    assert counts.shape == (5, 7) and counts.sum(axis=1).tolist() == [7] * 5


def test_figures_and_labels_needed():
    assert stats.needed(25, 3) == {"good": 0, "bad": 17}
    figures = stats.figures(VALUES, GOOD, HIGHER, 0.5)
    assert (figures.good, figures.bad, figures.current.threshold) == (4, 4, 0.5)
    assert stats.figures(VALUES, GOOD, HIGHER, None).current is None
    assert stats.inferred_direction(VALUES, GOOD) == HIGHER
    assert stats.inferred_direction(VALUES, ~GOOD) == LOWER


def test_label_agreement_by_hand():
    rows = stats.label_agreement(["sql", "json", "sql", "text", "json"], np.array([True, False, False, True, False]))
    assert [(row.label, row.good, row.bad) for row in rows] == [("json", 0, 2), ("sql", 1, 1), ("text", 1, 0)]
    assert rows[1].good_share == 0.5


# --- the threshold search over any labelled set -----------------------------------------------

VALUE = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(-1e3, 1e3, allow_nan=False, width=32))
LABELLED = st.lists(st.tuples(VALUE, st.booleans()), min_size=2, max_size=40).filter(
    lambda rows: any(good for _, good in rows) and not all(good for _, good in rows)
)
DIRECTION = st.sampled_from([HIGHER, LOWER])
EXAMPLES = settings(max_examples=150, deadline=None)


def arrays(rows):
    return np.array([v for v, _ in rows], dtype=float), np.array([g for _, g in rows], dtype=bool)


@EXAMPLES
@given(LABELLED, DIRECTION, st.lists(VALUE, max_size=5))
def test_no_threshold_beats_the_suggestion(rows, direction, others):
    values, good = arrays(rows)
    suggestion = stats.suggest_threshold(values, good, direction)
    best = suggestion.confusion.balanced_accuracy if suggestion else 0.5
    candidates = [readable for low, high in stats.candidate_thresholds(values) for readable in (low, high)]
    for threshold in [*candidates, *others, *values.tolist()]:
        assert stats.confusion(values, good, direction, threshold).balanced_accuracy <= best + 1e-12


@EXAMPLES
@given(LABELLED, DIRECTION, st.one_of(st.none(), VALUE))
def test_the_suggestion_is_the_split_it_reports(rows, direction, current):
    values, good = arrays(rows)
    suggestion = stats.suggest_threshold(values, good, direction, current)
    if suggestion is None:
        return
    # The readable threshold makes the same split as the one measured, with the criteria's rule.
    assert stats.confusion(values, good, direction, suggestion.threshold) == suggestion.confusion
    assert suggestion.confusion.balanced_accuracy > 0.5


@EXAMPLES
@given(LABELLED, DIRECTION, VALUE)
def test_verdicts_follow_the_criterion(rows, direction, threshold):
    values, _ = arrays(rows)
    criterion = Criterion(direction, threshold)
    assert stats.passes(values, direction, threshold).tolist() == [criterion.passes(v) for v in values.tolist()]


@EXAMPLES
@given(LABELLED)
def test_the_direction_turns_the_search_round(rows):
    values, good = arrays(rows)
    higher = stats.suggest_threshold(values, good, HIGHER)
    lower = stats.suggest_threshold(-values, good, LOWER)
    assert (higher is None) == (lower is None)
    if higher is not None:
        assert higher.confusion.balanced_accuracy == pytest.approx(lower.confusion.balanced_accuracy)
    assert stats.roc_auc(values, good, HIGHER) == pytest.approx(stats.roc_auc(-values, good, LOWER))


@EXAMPLES
@given(LABELLED, DIRECTION, st.floats(0.05, 1.0))
def test_a_target_precision_is_met_and_catches_the_most_bad(rows, direction, target):
    values, good = arrays(rows)
    suggestion = stats.suggest_threshold(values, good, direction, target_precision=target)
    splits = [stats.confusion(values, good, direction, high) for _, high in stats.candidate_thresholds(values)]
    # Splits that reach the target and do better than chance (failing good and bad alike is no use).
    reaching = [c for c in splits if (c.precision or 0) >= target and c.balanced_accuracy > 0.5]
    if suggestion is None:
        assert reaching == []
        return
    assert suggestion.confusion.precision >= target
    assert suggestion.confusion.recall == max(c.recall for c in reaching)
