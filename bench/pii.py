"""PII Risk's entities against labelled spans, and its false alarms on PII-free factual texts.

    .venv/bin/python -m bench.pii [--presidio FILE] [--pii-free FILE] [--show] [--generated]

1. Entity-level precision and recall per type on pii_presidio (../shared/data/eval/, spans in
   `meta.spans`). An entity of ours matches a labelled span when they share a character and our
   type maps to its type (`TYPE_MAP`); "exact" also asks for the same boundaries, trimmed of spaces
   and punctuation. Precision is per our type (entities of that type that match a labelled span of
   the mapped type); recall is per labelled type (spans that one of our entities of a mapped type
   matches). Every span of the value's evidence counts, whatever its risk.
2. The share of PII-free factual texts (bench/data/pii_free_factual.jsonl, built by
   bench/pii_free_set.py) scoring above the threshold, 0.5: target <= 2%. `--show` prints each of
   them with its spans; read failures on the dev set (`--pii-free bench/data/pii_free_factual_dev.jsonl`),
   not on the measured one.

3. With `--generated`, first the generated PII set (bench/pii_generated.py, 1,000+ texts in eight
   locales): recall per type of contact details and identifiers, and the share of its PII-free texts
   above 0.5, each for the development and the held-out templates apart. An inserted entity is found
   when one of our spans of its type shares a character with it. `--show` then prints the misses and
   false alarms of the development templates only.

Measure only: never tune on pii_presidio nor on the held-out templates.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.quality import DEFAULT_FOLDER  # noqa: E402
from properties.scorers.base import Score, Span, as_score  # noqa: E402
from properties.scorers.pii_risk import PIIRisk  # noqa: E402

PII_FREE = Path(__file__).resolve().parent / "data" / "pii_free_factual.jsonl"
# Our types -> Presidio's. Presidio's STREET_ADDRESS is the whole address, postal code and city
# included; its GPE (countries, cities) is not PII in its labels but is what our city/state find.
TYPE_MAP = {
    "person_name": "PERSON",
    "email": "EMAIL_ADDRESS",
    "phone": "PHONE_NUMBER",
    "credit_card": "CREDIT_CARD",
    "iban": "IBAN_CODE",
    "ip_address": "IP_ADDRESS",
    "ssn": "US_SSN",
    "drivers_license": "US_DRIVER_LICENSE",
    "street_address": "STREET_ADDRESS",
    "address_part": "STREET_ADDRESS",
    "zip_code": "STREET_ADDRESS",
    "city": "GPE",
    "state": "GPE",
}
BATCH = 32
_EDGE = " \t\n.,;:()'\""


def score_all(texts: list[str]) -> list[Score]:
    scorer = PIIRisk()
    scorer.current_field = "output"
    scores: list[Score] = []
    for first in range(0, len(texts), BATCH):
        scores += [as_score(result) for result in scorer.run_batch(texts[first : first + BATCH])]
    return scores


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return start, end


def entity_counts(rows: list[dict], scores: list[Score], exact: bool) -> tuple[Counter, Counter, Counter, Counter]:
    """(our matched, our total) per our type and (gold found, gold total) per labelled type."""
    ours_hit, ours_all, gold_hit, gold_all = Counter(), Counter(), Counter(), Counter()
    for row, score in zip(rows, scores, strict=True):
        text, gold = row["text"], row["meta"]["spans"]
        for span in score.spans:
            ours_all[span.label] += 1
            ours_hit[span.label] += any(_matches(text, span, label, exact) for label in gold)
        for label in gold:
            gold_all[label["type"]] += 1
            gold_hit[label["type"]] += any(_matches(text, span, label, exact) for span in score.spans)
    return ours_hit, ours_all, gold_hit, gold_all


def _matches(text: str, span: Span, label: dict, exact: bool) -> bool:
    if TYPE_MAP.get(span.label) != label["type"]:
        return False
    if exact:
        return _trimmed(text, span.start, span.end) == _trimmed(text, label["start"], label["end"])
    return span.start < label["end"] and label["start"] < span.end


def print_entities(rows: list[dict], scores: list[Score]) -> None:
    overlap, exact = entity_counts(rows, scores, False), entity_counts(rows, scores, True)
    print(f"{'our type':<16} {'entities':>8} {'precision':>10} {'exact':>7}   ({'presidio type'})")
    for kind in sorted(overlap[1], key=lambda k: -overlap[1][k]):
        total = overlap[1][kind]
        print(
            f"{kind:<16} {total:>8} {overlap[0][kind] / total:>10.2f} {exact[0][kind] / total:>7.2f}   "
            f"({TYPE_MAP.get(kind, 'no labelled type')})"
        )
    print(f"\n{'presidio type':<18} {'spans':>6} {'recall':>7} {'exact':>7}")
    for label in sorted(overlap[3], key=lambda k: -overlap[3][k]):
        total = overlap[3][label]
        mapped = label in TYPE_MAP.values()
        recall = f"{overlap[2][label] / total:>7.2f} {exact[2][label] / total:>7.2f}" if mapped else "    (not ours)"
        print(f"{label:<18} {total:>6} {recall}")


def print_false_alarms(path: Path, show: bool, threshold: float) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    scores = score_all([row["text"] for row in rows])
    above = [(row, score) for row, score in zip(rows, scores, strict=True) if (score.value or 0.0) > threshold]
    print(f"\n{path.name}: {len(above)}/{len(rows)} PII-free texts above {threshold} ({len(above) / len(rows):.1%})")
    by_source = Counter(row["source"] for row, _ in above)
    print("  by source: " + ", ".join(f"{source} {count}" for source, count in by_source.most_common()))
    if show:
        for row, score in above:
            print(f"\n{score.value:.3f} {row['text'][:200]}")
            for span in score.spans:
                print(f"    {span.label:<15} {span.score:.3f} {row['text'][span.start : span.end]!r}  {span.note}")


def print_generated(show: bool, threshold: float) -> None:
    from bench import pii_generated
    from bench.generated import DEVELOPMENT, HELD_OUT

    built = pii_generated.build()
    measured = {*pii_generated.CONTACT_DETAILS, *pii_generated.IDENTIFIERS}
    scores = score_all([item.text for item in built.items])
    groups = (DEVELOPMENT, HELD_OUT)
    found: dict[tuple[str, str], list[int]] = {}
    missed: list[tuple[pii_generated.Item, pii_generated.Entity, Score]] = []
    alarms: dict[str, list[int]] = {group: [0, 0] for group in groups}
    flagged: dict[str, list[int]] = {group: [0, 0] for group in groups}
    false_alarms: list[tuple[pii_generated.Item, Score]] = []
    unflagged: list[tuple[pii_generated.Item, Score]] = []
    for item, score in zip(built.items, scores, strict=True):
        group = built.group_of(item)
        for entity in item.entities:
            hit = any(
                span.label == entity.kind and span.start < entity.end and entity.start < span.end
                for span in score.spans
            )
            counts = found.setdefault((entity.kind, group), [0, 0])
            counts[0] += hit
            counts[1] += 1
            if not hit and group == DEVELOPMENT:
                missed.append((item, entity, score))
        if any(entity.kind in measured for entity in item.entities):
            flagged[group][0] += (score.value or 0.0) >= threshold
            flagged[group][1] += 1
            if (score.value or 0.0) < threshold and group == DEVELOPMENT:
                unflagged.append((item, score))
        if item.setting == "free":
            above = (score.value or 0.0) > threshold
            alarms[group][0] += above
            alarms[group][1] += 1
            if above and group == DEVELOPMENT:
                false_alarms.append((item, score))
    print(f"generated PII set: {len(built.items)} texts, {len(built.held_out)} held-out templates\n")
    print(f"{'type':<16} {'development':>20} {'held-out':>20}")
    for kind in (*pii_generated.CONTACT_DETAILS, *pii_generated.IDENTIFIERS, *pii_generated.OTHER_TYPES):
        cells = []
        for group in groups:
            hit, total = found.get((kind, group), [0, 0])
            cells.append(f"{hit}/{total} {hit / total:6.1%}" if total else "-")
        print(f"{kind:<16} {cells[0]:>20} {cells[1]:>20}")
    for label, counts in ((f"PII texts >= {threshold}", flagged), (f"PII-free > {threshold}", alarms)):
        cells = [f"{hit}/{total} {hit / total:6.1%}" for hit, total in (counts[group] for group in groups)]
        print(f"{label:<16} {cells[0]:>20} {cells[1]:>20}")
    print()
    if show:
        for item, entity, score in missed:
            ours = [(span.label, item.text[span.start : span.end]) for span in score.spans]
            print(f"MISSED {entity.kind} {item.text[entity.start : entity.end]!r} ({item.id}, {item.locale}): {ours}")
        for title, texts in (("UNDER THE THRESHOLD", unflagged), ("FALSE ALARM", false_alarms)):
            for item, score in texts:
                print(f"\n{title} {score.value:.3f} ({item.id}) {item.text[:200]!r}")
                for span in score.spans:
                    print(f"    {span.label:<15} {span.score:.3f} {item.text[span.start : span.end]!r}  {span.note}")
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presidio", type=Path, default=DEFAULT_FOLDER / "pii_presidio.jsonl")
    parser.add_argument("--pii-free", type=Path, default=PII_FREE)
    parser.add_argument("--show", action="store_true", help="print every PII-free text above the threshold")
    parser.add_argument("--generated", action="store_true", help="measure the generated PII set first")
    args = parser.parse_args()
    if args.generated:
        print_generated(args.show, PIIRisk.threshold)
    rows = [json.loads(line) for line in args.presidio.read_text().splitlines() if line.strip()]
    print(f"{args.presidio.name}: {len(rows)} texts\n")
    print_entities(rows, score_all([row["text"] for row in rows]))
    print_false_alarms(args.pii_free, args.show, PIIRisk.threshold)


if __name__ == "__main__":
    main()
