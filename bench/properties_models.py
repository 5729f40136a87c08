"""Throughput of the model-backed properties through the scorer API against the raw model calls.

    .venv/bin/python -m bench.properties_models [--count 200] [--batch-size 32] [--repeat 2]

For each property, the same texts (the property's labelled evaluation files, ../shared/data/eval/)
are scored twice in the same process, the models already loaded:

- *ours*: `scorer.run_batch` in batches, as a worker does (Score objects, empty-text checks,
  evidence spans: Avoided Answer's refusal sentences, PII Risk's entity spans);
- *raw*: the loaded models called directly on the same batches: the encoder, packaged classifiers
  and head (`predictor.predict`), for Fluency the causal LM's forward passes over each sentence and
  its adapted layers, or the NER model and detectors for PII.

It prints interactions/s of each and the ratio ours/raw (target >= 0.85).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.quality import DEFAULT_FOLDER, ENTRIES
from properties.scorers import registry
from properties.scorers.base import Scorer
from properties.scorers.fluency import LMHeadPredictor, sentence_units
from properties.scorers.pii_risk import PIIRisk
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import ModelScorer
from properties.scorers.text import pii_detectors

PROPERTIES = ("toxicity", "fluency", "formality", "avoided_answer", "pii_risk")


def texts_for(prop: str, folder: Path, count: int) -> list[str]:
    import json

    texts: list[str] = []
    for entry in ENTRIES:
        if entry.prop != prop:
            continue
        for path in sorted(folder.glob(entry.pattern)):
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            texts.extend(row[entry.candidate] for row in rows)
    unique = list(dict.fromkeys(texts))
    return unique[:count]


def raw_call(scorer: Scorer) -> Callable[[list[str]], object]:
    if isinstance(scorer, PIIRisk):
        ner = scorer.ner()
        return lambda batch: (ner.entities(batch), [pii_detectors.detect(text) for text in batch])
    assert isinstance(scorer, ModelScorer)
    predictor = scorer.predictor()
    if isinstance(predictor, LMHeadPredictor):
        return lm_calls(predictor)
    return predictor.predict


def lm_calls(predictor: LMHeadPredictor) -> Callable[[list[str]], object]:
    """Fluency's model work alone: the causal LM's forward passes over the units the property scores
    (each sentence, or windows of a long one: `fluency.sentence_units`, cut in the call), then the
    adapted layers. Reading the whole texts instead read one truncated sequence per text, less
    than the property asks of the model: a long summary's limit was a fraction of its work."""
    adapter = predictor.adapter

    def call(batch: list[str]) -> object:
        units = sentence_units(batch, predictor.lm).texts
        _, states = predictor.lm.read(units, adapter.first if adapter is not None else None)
        if adapter is not None:
            return adapter.predict(states, np.zeros((len(units), len(adapter.extra_mean))))
        return states

    return call


def timed(function: Callable[[list[str]], object], texts: list[str], batch_size: int, repeat: int) -> float:
    """Best of `repeat` runs, in items per second."""
    best = float("inf")
    for _ in range(repeat):
        models.clear_memos()  # time the models, not the lookup of an earlier repeat's results
        started = time.perf_counter()
        for first in range(0, len(texts), batch_size):
            function(texts[first : first + batch_size])
        best = min(best, time.perf_counter() - started)
    return len(texts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--property", action="append", choices=PROPERTIES)
    args = parser.parse_args()
    print(f"{'property':<16} {'texts':>6} {'ours/s':>8} {'raw/s':>8} {'ratio':>6}  model")
    for prop in args.property or PROPERTIES:
        texts = texts_for(prop, args.folder, args.count)
        scorer = registry.get(prop)()
        scorer.current_field = "output"
        raw = raw_call(scorer)
        raw(texts[:2])  # load and warm up before either clock starts
        # Alternate the two so that a busy machine slows both alike.
        ours_rate = raw_rate = 0.0
        for _ in range(args.repeat):
            raw_rate = max(raw_rate, timed(raw, texts, args.batch_size, 1))
            ours_rate = max(ours_rate, timed(scorer.run_batch, texts, args.batch_size, 1))
        print(
            f"{prop:<16} {len(texts):>6} {ours_rate:>8.1f} {raw_rate:>8.1f} {ours_rate / raw_rate:>6.2f}  "
            f"{scorer.model_id()}",
            flush=True,
        )


if __name__ == "__main__":
    main()
