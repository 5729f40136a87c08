"""Grounded in Context on the held-out NLI dev set, and its speed against the raw model calls.

    .venv/bin/python -m bench.nli_dev [--limit N] [--nli-model ID_OR_PATH] [--speed-rows 96]

1. Accuracy: every row of `nli_dev.jsonl.gz` (MNLI mismatched, RTE dev, FEVER-symmetric; never
   trained on) is scored as the property scores one statement: the hypothesis against the
   closest passage of the premise. Printed per source and overall: accuracy and balanced accuracy
   of the NLI signal (entailed when P >= 0.5) against entailment / supported vs the rest, its
   ROC-AUC, and the ROC-AUC of the property's combined P(supported).
2. Speed: the first `--speed-rows` rows of the hallucination eval files (only their texts) go
   through `run_batch` as a worker runs it, and, on the same batches, through the raw model calls
   the property makes (encoder on statements and candidate passages, cross-encoder on the pairs,
   spaCy NER on the statements), best of 2, in interactions per second.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from bench.metrics import roc_auc
from bench.quality import DEFAULT_FOLDER, balanced_accuracy
from properties.scorers import grounded_in_context as grounded
from properties.scorers.base import full_context
from properties.scorers.runtime import models, nli, spacy_english
from properties.scorers.text import statements
from properties.training.common import DEFAULT_DATA

POSITIVE = frozenset({"entailment", "supported"})
SPEED_FILES = ("hallucination_halueval_qa.jsonl", "hallucination_qags.jsonl", "hallucination_faithbench.jsonl")


def read_dev(path: Path, limit: int | None) -> list[dict[str, Any]]:
    with gzip.open(path, "rt") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return rows[:limit] if limit else rows


def accuracy(rows: list[dict[str, Any]], scorer: grounded.GroundedInContext) -> None:
    grounder = scorer.grounder()
    claims = [row["hypothesis"] for row in rows]
    contexts = [grounded.Context.of([("premise", row["premise"])]) for row in rows]
    started = time.perf_counter()
    features, _ = grounder.features(claims, contexts)
    elapsed = time.perf_counter() - started
    entailment = 1 / (1 + np.exp(-features[:, 0]))
    combined = grounder.combiner.predict(features) if grounder.combiner is not None else entailment
    labels = np.array([int(row["label"] in POSITIVE) for row in rows])
    by_source: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        by_source[row["source"]].append(index)
    print(f"NLI signal: {grounder.nli.model_id}; {len(rows)} pairs in {elapsed:.0f} s ({len(rows) / elapsed:.1f}/s)")
    print(f"{'source':<16} {'rows':>5} {'pos.':>5} {'acc':>6} {'bal.acc':>8} {'NLI AUC':>8} {'prop. AUC':>9}")
    for source, index in [*sorted(by_source.items()), ("all", list(range(len(rows))))]:
        y, p, c = labels[index], entailment[index], combined[index]
        predicted = (p >= 0.5).astype(int)
        print(
            f"{source:<16} {len(index):>5} {y.mean():>5.2f} {np.mean(predicted == y):>6.3f} "
            f"{balanced_accuracy(y.tolist(), predicted.tolist()):>8.3f} {roc_auc(y.tolist(), p.tolist()):>8.3f} "
            f"{roc_auc(y.tolist(), c.tolist()):>9.3f}"
        )


def speed(scorer: grounded.GroundedInContext, folder: Path, count: int, batch_size: int = 32) -> None:
    grounder = scorer.grounder()
    print(f"\n{'file':<36} {'rows':>5} {'statements':>10} {'ours/s':>8} {'raw/s':>8} {'ratio':>6}")
    for name in SPEED_FILES:
        rows = [json.loads(line) for line in (folder / name).read_text().splitlines() if line.strip()][:count]
        batches = [rows[first : first + batch_size] for first in range(0, len(rows), batch_size)]
        calls = [raw_inputs(grounder, batch) for batch in batches]
        ours_s = best_of(lambda batches=batches: run_ours(scorer, batches))
        raw_s = best_of(lambda calls=calls: run_raw(grounder, calls))
        claims_count = sum(len(c[2]) for c in calls)
        print(
            f"{name:<36} {len(rows):>5} {claims_count:>10} {len(rows) / ours_s:>8.1f} {len(rows) / raw_s:>8.1f} "
            f"{raw_s / ours_s:>6.2f}"
        )


def run_ours(scorer: grounded.GroundedInContext, batches: list[list[dict[str, Any]]]) -> None:
    for batch in batches:
        outputs, inputs = [r["output"] for r in batch], [r["input"] for r in batch]
        scorer.run_batch(outputs, None, inputs, [full_context(r["context"]) for r in batch])


RawCall = tuple[list[str], list[tuple[str, str]], list[str]]


def run_raw(grounder: grounded.Grounder, calls: list[RawCall]) -> None:
    for texts, pairs, claims in calls:
        grounder.encoder.encode(texts)
        grounder.reranker.logits(pairs)
        spacy_english.parse(claims, "grounded_in_context", spacy_english.ENTITIES, batch_size=64)
        if isinstance(grounder.nli, nli.HubNli):
            grounder.nli.entailment([c for c, _ in pairs], [p for _, p in pairs])


def raw_inputs(grounder: grounded.Grounder, batch: list[dict[str, Any]]) -> RawCall:
    """The texts the property sends to each model for this batch, computed outside the clock."""
    claims: list[str] = []
    contexts: list[grounded.Context] = []
    for row in batch:
        context = grounded.Context.of(grounded.context_fields(row["input"], full_context(row["context"])))
        for start, end in statements.factual_statements(row["output"]):
            claims.append(row["output"][start:end])
            contexts.append(context)
    picked = [grounded.candidates(c, ctx) for c, ctx in zip(claims, contexts, strict=True)]
    passages_text = [ctx.passages[i].text for ctx, rows in zip(contexts, picked, strict=True) for i in rows]
    texts = list(dict.fromkeys([*claims, *passages_text]))
    passages, _, _ = grounded.closest_passages(claims, contexts, grounder.encoder, grounder.entities(claims))
    return texts, [(c, p.text) for c, p in zip(claims, passages, strict=True)], claims


def best_of(function: Any, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        models.clear_memos()  # time the models, not the lookup of an earlier repeat's results
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "nli_dev.jsonl.gz")
    parser.add_argument("--limit", type=int, default=None, help="only the first N dev rows")
    parser.add_argument("--nli-model", default=None, help="a Hugging Face id or folder of an NLI classifier")
    parser.add_argument("--eval", type=Path, default=DEFAULT_FOLDER, help="folder of the speed files")
    parser.add_argument("--speed-rows", type=int, default=96, help="rows per speed file (0: skip)")
    args = parser.parse_args()
    scorer = grounded.GroundedInContext(nli_model=args.nli_model)
    scorer.current_field = "output"
    accuracy(read_dev(args.data, args.limit), scorer)
    if args.speed_rows:
        speed(scorer, args.eval, args.speed_rows)


if __name__ == "__main__":
    main()
