"""Build the PII-free factual texts that bench/pii.py scores: numbers, dates, measurements, prices
and famous names, from the public training texts in ../shared/data/train/ (never ../eval/).

    .venv/bin/python -m bench.pii_free_set [--train ../shared/data/train]

Writes two disjoint sets of the same make-up, rows drawn at random with a fixed seed:

- bench/data/pii_free_factual.jsonl (300 texts): the measured set, whose share above 0.5 is reported;
- bench/data/pii_free_factual_dev.jsonl (150 texts): for reading failures while changing the scorer,
  so that the measured set stays unseen.

Sources (see bench/data/README.md): Wikipedia sentences of QNLI (SQuAD), Wikipedia lead passages
of FEVER, climate passages of Climate-FEVER, and sentences with a price or a percentage from the
earnings calls of SummEdits (ECTSum; whole passages name the call's participants, who are private
persons). A text is drawn only if it holds a number or a capitalised name, and dropped if it holds
anything shaped like contact details (an @, a URL, a phone-like run of digits): the set is PII-free
by construction, not by what PII Risk says of it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from pathlib import Path

from properties.scorers.runtime.models import sentence_bounds

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "data" / "train"
OUT = Path(__file__).resolve().parent / "data"
SEED = 13
# (source name, licence, texts in the measured set, texts in the dev set)
MAKE_UP = (
    ("qnli", "CC BY-SA 4.0 (GLUE QNLI, Wikipedia via SQuAD)", 120, 60),
    ("fever_rte_dev", "CC BY-SA 3.0 (FEVER, Wikipedia)", 100, 50),
    ("climate_fever", "CC BY-SA (Climate-FEVER, Wikipedia)", 65, 33),
    ("summedits_ectsum", "Apache-2.0 (SummEdits, ECTSum earnings calls)", 15, 7),
)
_FIGURE_OR_NAME = re.compile(r"\d|\b[A-Z][a-z]+ [A-Z][a-z]+")
_CONTACT_SHAPED = re.compile(r"@|https?://|www\.|\d{3}[ .-]\d{3}[ .-]\d{4}|\+\d{6,}")


def candidates(train: Path) -> dict[str, list[str]]:
    """Every usable text of each source, deduplicated, in a stable order."""
    qnli = [json.loads(line)["output"] for line in (train / "relevance_qnli.jsonl").read_text().splitlines()]
    found: dict[str, list[str]] = {"qnli": qnli}
    with gzip.open(train / "nli_train.jsonl.gz", "rt") as handle:
        for line in handle:
            row = json.loads(line)
            if row["source"] in ("fever_rte_dev", "climate_fever"):
                found.setdefault(row["source"], []).append(row["premise"])
            elif row["source"] == "summedits_ectsum":
                found.setdefault(row["source"], []).extend(_figure_sentences(row["premise"]))
    return {
        source: sorted(
            {text.strip() for text in texts if _FIGURE_OR_NAME.search(text) and not _CONTACT_SHAPED.search(text)}
        )
        for source, texts in found.items()
    }


def _figure_sentences(passage: str) -> list[str]:
    sentences = [passage[start:end] for start, end in sentence_bounds(passage)]
    return [sentence for sentence in sentences if re.search(r"\$\s?\d|\d\s?%", sentence)]


def build(train: Path) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    pools = candidates(train)
    rng = random.Random(SEED)
    measured: list[dict[str, str]] = []
    dev: list[dict[str, str]] = []
    for source, licence, size, dev_size in MAKE_UP:
        drawn = rng.sample(pools[source], min(size + dev_size, len(pools[source])))
        rows = [{"text": text, "source": source, "licence": licence} for text in drawn]
        measured += rows[:size]
        dev += rows[size:]
    return measured, dev


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=Path, default=TRAIN)
    args = parser.parse_args()
    measured, dev = build(args.train)
    OUT.mkdir(exist_ok=True)
    for name, rows in (("pii_free_factual.jsonl", measured), ("pii_free_factual_dev.jsonl", dev)):
        (OUT / name).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        print(f"{OUT / name}: {len(rows)} texts")


if __name__ == "__main__":
    main()
