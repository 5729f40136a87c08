"""How well Reading Ease separates the advanced from the elementary version of the same article.

    .venv/bin/python -m bench.readability_auc [--data PATH]

Reads shared/data/eval/readability_onestopenglish.jsonl (label 1 = advanced, 0 = elementary, paired by
meta.article) and prints the ROC-AUC of the negated Reading Ease (lower ease = harder), and the share
of articles whose advanced version scores lower than its elementary one. Nothing is fitted: the
property has no parameters, and data in shared/data/eval is for measuring only.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from bench.metrics import roc_auc
from properties.scorers.base import Score
from properties.scorers.reading_ease import ReadingEase

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval" / "readability_onestopenglish.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()

    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    results = ReadingEase().run([row["text"] for row in rows], batch_size=64)
    failed = [i for i, result in enumerate(results) if not (isinstance(result, Score) and result.ok)]
    if failed:
        raise SystemExit(f"{len(failed)} texts could not be scored, e.g. row {failed[0]}")
    ease = [result.value for result in results if isinstance(result, Score) and result.value is not None]
    labels = [int(row["label"]) for row in rows]

    auc = roc_auc(labels, [-value for value in ease])
    pairs: dict[str, dict[int, float]] = defaultdict(dict)
    for row, label, value in zip(rows, labels, ease, strict=True):
        pairs[row["meta"]["article"]][label] = value
    complete = [pair for pair in pairs.values() if len(pair) == 2]
    harder = sum(1 for pair in complete if pair[1] < pair[0])

    print(f"{len(rows)} texts ({labels.count(1)} advanced, {labels.count(0)} elementary), {args.data.name}")
    advanced = [value for value, label in zip(ease, labels, strict=True) if label == 1]
    elementary = [value for value, label in zip(ease, labels, strict=True) if label == 0]
    means = sum(advanced) / len(advanced), sum(elementary) / len(elementary)
    print(f"mean Reading Ease: advanced {means[0]:.1f}, elementary {means[1]:.1f}")
    print(f"ROC-AUC of -reading_ease for advanced vs elementary: {auc:.3f}")
    print(f"paired: advanced version scores lower in {harder}/{len(complete)} articles ({harder / len(complete):.1%})")


if __name__ == "__main__":
    main()
