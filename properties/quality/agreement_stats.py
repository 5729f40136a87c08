"""How a property agrees with a team's labels: pure functions over arrays of values and labels.

`good` is a boolean array (True: the interaction was annotated good, False: bad). A property's verdict
follows criteria.py: with `higher` a value passes from the threshold up (value >= threshold), with
`lower` below it (value < threshold). Agreement means passing where the label is good and failing
where it is bad, so "positive" here is the label *good* and the property's *pass*:

- ROC-AUC: the chance that a random good interaction's value is on the better side of a random bad
  one's (ties count half), the values turned so that better is higher;
- balanced accuracy: the mean of the share of good interactions that pass and the share of bad ones
  that fail, so that a team with few bad labels is not flattered by passing everything;
- precision (of the fail verdict): of the interactions the property fails, the share labelled bad.

No Django here: the Data Screen, the API and the tests call these with numpy arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score

from properties.quality.criteria import HIGHER, LOWER

# Below this many labels of each kind the figures say more about chance than about the property:
# the page asks for more labels instead. With 20 of each, the 95% interval of a ROC-AUC of 0.8 is
# about ±0.13 wide (Hanley-McNeil); with 10 of each it is ±0.19.
MIN_PER_LABEL = 20
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
# Resamples counted at once: 100 x 10,000 labels is 8 MB of counts.
BOOTSTRAP_BATCH = 100


@dataclass(frozen=True)
class Confusion:
    """Verdicts against labels at one threshold."""

    threshold: float
    passed_good: int
    passed_bad: int
    failed_good: int
    failed_bad: int

    @property
    def good(self) -> int:
        return self.passed_good + self.failed_good

    @property
    def bad(self) -> int:
        return self.passed_bad + self.failed_bad

    @property
    def balanced_accuracy(self) -> float:
        good_rate = self.passed_good / self.good if self.good else 0.0
        bad_rate = self.failed_bad / self.bad if self.bad else 0.0
        return (good_rate + bad_rate) / 2

    @property
    def precision(self) -> float | None:
        """Of the interactions failed, the share labelled bad; None when none fails."""
        failed = self.failed_good + self.failed_bad
        return self.failed_bad / failed if failed else None

    @property
    def recall(self) -> float:
        """Of the interactions labelled bad, the share failed."""
        return self.failed_bad / self.bad if self.bad else 0.0

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "threshold": self.threshold,
            "passed_good": self.passed_good,
            "passed_bad": self.passed_bad,
            "failed_good": self.failed_good,
            "failed_bad": self.failed_bad,
            "balanced_accuracy": self.balanced_accuracy,
            "precision": self.precision,
            "recall": self.recall,
        }


def passes(values: np.ndarray, direction: str, threshold: float) -> np.ndarray:
    """criteria.Criterion.passes over an array."""
    if direction == HIGHER:
        return values >= threshold
    if direction == LOWER:
        return values < threshold
    raise ValueError(f"direction must be {HIGHER!r} or {LOWER!r}, not {direction!r}")


def confusion(values: np.ndarray, good: np.ndarray, direction: str, threshold: float) -> Confusion:
    passed = passes(values, direction, threshold)
    return Confusion(
        threshold=float(threshold),
        passed_good=int(np.sum(passed & good)),
        passed_bad=int(np.sum(passed & ~good)),
        failed_good=int(np.sum(~passed & good)),
        failed_bad=int(np.sum(~passed & ~good)),
    )


def roc_auc(values: np.ndarray, good: np.ndarray, direction: str) -> float:
    """ROC-AUC of the values for the label good, turned by the direction (lower is better: negated)."""
    oriented = values if direction == HIGHER else -values
    return float(roc_auc_score(good.astype(int), oriented))


def bootstrap_interval(
    values: np.ndarray,
    good: np.ndarray,
    direction: str,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The 95% percentile interval of the ROC-AUC over resamples drawn with replacement within each
    label (stratified: every resample keeps both labels and their counts, so none is undefined).
    The seed is fixed so that a page shows the same interval on every reload."""
    rng = np.random.default_rng(seed)
    good_values, bad_values = values[good], values[~good]
    if direction != HIGHER:
        good_values, bad_values = -good_values, -bad_values
    n_good, n_bad = len(good_values), len(bad_values)
    # A resample is how many times it draws each labelled value (multinomial counts). Its ROC-AUC is
    # then, over the good draws, the bad draws below each one plus half those level with it: with
    # the bad values sorted, two cumulative-count lookups per good value, the same for every resample.
    bad_sorted = np.sort(bad_values)
    below = np.searchsorted(bad_sorted, good_values, side="left")
    up_to = np.searchsorted(bad_sorted, good_values, side="right")
    aucs = []
    for start in range(0, resamples, BOOTSTRAP_BATCH):
        size = min(BOOTSTRAP_BATCH, resamples - start)
        good_draws = _draw_counts(rng, n_good, size)
        bad_draws = np.zeros((size, n_bad + 1))
        bad_draws[:, 1:] = np.cumsum(_draw_counts(rng, n_bad, size), axis=1)
        under = bad_draws[:, below] + (bad_draws[:, up_to] - bad_draws[:, below]) / 2
        aucs.append((good_draws * under).sum(axis=1) / (n_good * n_bad))
    low, high = np.percentile(np.concatenate(aucs), [2.5, 97.5])
    return float(low), float(high)


def _draw_counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """How many times each of n items is drawn in n draws with replacement, for each resample:
    one bincount over all the resamples (numpy's multinomial took ten times as long)."""
    drawn = rng.integers(0, n, size=(resamples, n)) + n * np.arange(resamples)[:, None]
    return np.bincount(drawn.ravel(), minlength=resamples * n).reshape(resamples, n)


def candidate_thresholds(values: np.ndarray) -> list[tuple[float, float]]:
    """Every way a threshold can split the values, as the open-closed interval (low, high] of
    thresholds that make it: between two neighbouring distinct values each split is the same in
    both directions (higher: value >= t passes; lower: value < t passes)."""
    distinct = np.unique(values)
    return [(float(low), float(high)) for low, high in zip(distinct[:-1], distinct[1:], strict=True)]


def readable_threshold(low: float, high: float) -> float:
    """The number with the fewest decimals in (low, high]: 0.45 rather than 0.4487, the same split."""
    middle = (low + high) / 2
    for decimals in range(0, 16):
        rounded = round(middle, decimals)
        if low < rounded <= high:
            return float(rounded)
    return float(high)


@dataclass(frozen=True)
class Suggestion:
    confusion: Confusion
    # "balanced_accuracy", or "precision" when the user asked for a target precision.
    goal: str
    target_precision: float | None = None

    @property
    def threshold(self) -> float:
        return self.confusion.threshold


def suggest_threshold(
    values: np.ndarray,
    good: np.ndarray,
    direction: str,
    current: float | None = None,
    target_precision: float | None = None,
) -> Suggestion | None:
    """The threshold with the best balanced accuracy; with a target precision, the one that fails
    the most bad interactions while keeping the precision of its failures at the target or above
    (ties: better balanced accuracy). Among equals, the one nearest the current threshold, so that
    a suggestion moves the threshold no further than the labels ask.

    None when no split does better than chance (balanced accuracy 0.5: passing or failing
    everything) or, with a target, when no threshold reaches it.
    """
    distinct = np.unique(values)
    if len(distinct) < 2:
        return None
    counts = _split_counts(values, good, distinct, direction)
    passed_good, passed_bad, failed_good, failed_bad = counts
    n_good, n_bad = passed_good[0] + failed_good[0], passed_bad[0] + failed_bad[0]
    balanced = (passed_good / n_good + failed_bad / n_bad) / 2
    # A split no better than chance fails good and bad alike: never worth suggesting.
    useful = balanced > 0.5
    if target_precision is not None:
        failed = failed_good + failed_bad
        precision = np.divide(failed_bad, failed, out=np.zeros(len(failed)), where=failed > 0)
        useful &= (failed > 0) & (precision >= target_precision)
        keys = [failed_bad / n_bad, balanced]  # the most bad caught, then balanced accuracy
        goal = "precision"
    else:
        keys = [balanced]
        goal = "balanced_accuracy"
    best = np.flatnonzero(useful)
    if not len(best):
        return None
    for key in keys:
        best = best[key[best] == key[best].max()]
    # Of equal splits, the one nearest the current threshold (the first without one).
    thresholds = [readable_threshold(distinct[k], distinct[k + 1]) for k in best]
    chosen = min(range(len(best)), key=lambda i: 0.0 if current is None else abs(thresholds[i] - current))
    k = best[chosen]
    split = Confusion(
        thresholds[chosen], int(passed_good[k]), int(passed_bad[k]), int(failed_good[k]), int(failed_bad[k])
    )
    return Suggestion(split, goal, target_precision)


def _split_counts(
    values: np.ndarray, good: np.ndarray, distinct: np.ndarray, direction: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Confusion counts of every split k (thresholds in (distinct[k], distinct[k + 1]]) at once, from
    cumulative counts: (passed good, passed bad, failed good, failed bad), one array each. Counting
    each split apart took 5 s on 10,000 labels."""
    position = np.searchsorted(distinct, values)
    good_at = np.bincount(position[good], minlength=len(distinct))
    bad_at = np.bincount(position[~good], minlength=len(distinct))
    # Labels at or below distinct[k], for k = 0 .. len - 2.
    good_low, bad_low = np.cumsum(good_at)[:-1], np.cumsum(bad_at)[:-1]
    good_high, bad_high = good_at.sum() - good_low, bad_at.sum() - bad_low
    if direction == HIGHER:  # the high side passes (value >= threshold)
        return good_high, bad_high, good_low, bad_low
    if direction == LOWER:  # the low side passes (value < threshold)
        return good_low, bad_low, good_high, bad_high
    raise ValueError(f"direction must be {HIGHER!r} or {LOWER!r}, not {direction!r}")


@dataclass(frozen=True)
class Figures:
    """Everything the property's page and the API show about agreement, once there are enough labels."""

    good: int
    bad: int
    roc_auc: float
    interval: tuple[float, float]
    current: Confusion | None
    suggestion: Suggestion | None


def needed(good: int, bad: int, minimum: int = MIN_PER_LABEL) -> dict[str, int]:
    """How many more labels of each kind the figures need (0 when there are enough)."""
    return {"good": max(0, minimum - good), "bad": max(0, minimum - bad)}


def figures(
    values: np.ndarray,
    good: np.ndarray,
    direction: str,
    threshold: float | None,
    target_precision: float | None = None,
) -> Figures:
    """The figures of a property with a direction; `threshold` None: no current verdicts to count."""
    current = None
    if threshold is not None and math.isfinite(threshold):
        current = confusion(values, good, direction, threshold)
    return Figures(
        good=int(np.sum(good)),
        bad=int(np.sum(~good)),
        roc_auc=roc_auc(values, good, direction),
        interval=bootstrap_interval(values, good, direction),
        current=current,
        suggestion=suggest_threshold(values, good, direction, threshold, target_precision),
    )


@dataclass(frozen=True)
class LabelRow:
    """A label property's value (Content Type's `sql`) against the team's labels."""

    label: str
    good: int
    bad: int

    @property
    def good_share(self) -> float:
        return self.good / (self.good + self.bad)


def label_agreement(labels: list[str], good: np.ndarray) -> list[LabelRow]:
    """Per label of the property, how many of its interactions were annotated good and bad; the
    labels with the largest share of bad first, where the property points at a problem."""
    rows: dict[str, list[int]] = {}
    for label, is_good in zip(labels, good.tolist(), strict=True):
        counts = rows.setdefault(label, [0, 0])
        counts[0 if is_good else 1] += 1
    result = [LabelRow(label, g, b) for label, (g, b) in rows.items()]
    return sorted(result, key=lambda row: (row.good_share, row.label))


def inferred_direction(values: np.ndarray, good: np.ndarray) -> str:
    """For a property without a direction: the one the labels point to (higher is better when good
    interactions tend to have the higher values)."""
    return HIGHER if roc_auc(values, good, HIGHER) >= 0.5 else LOWER
