"""Throughput of the model-backed RAG and summary properties against the raw model calls they make.

    .venv/bin/python -m bench.properties_rag [--count 64] [--batch-size 32] [--property NAME ...]

For each property, rows of its evaluation files (the entries of `bench.quality.ENTRIES`, plus
`EXTRA_ENTRIES` for properties that have no labelled file of their own) are scored twice in the
same process, every model loaded and warmed up first, best of 2 with the two alternating:

- *ours*: `scorer.run_batch` in batches, with the arguments a worker passes (`full_context` records
  for a `uses_full_context` scorer), Score objects and evidence included;
- *raw*: on the same batches, the models the property calls, called directly with the inputs the
  property gives them, computed before the clock starts: spaCy `pipe` on the texts it parses, the
  MiniLM encoder on the phrases and sentences it embeds, the cross-encoder on the (question,
  window) and (question, sentence) pairs it scores, the Avoided Answer head on the sentences it
  gates through and Information Density's says-nothing head on those and the short ones.

It prints items (interactions) per second of each and the ratio ours/raw (target >= 0.85).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.quality import DEFAULT_FOLDER, ENTRIES, Entry, batch_arguments, entries_for
from properties.scorers import information_density, registry, relevance, relevance_features
from properties.scorers.avoided_answer import AvoidedAnswer
from properties.scorers.base import Scorer
from properties.scorers.coverage import Coverage, source_texts
from properties.scorers.retrieval_relevance import document_chunks, documents_of
from properties.scorers.runtime import cross_encoder, models, spacy_english
from properties.scorers.text import topics
from properties.scorers.text.linguistic import SPACY_BATCH_SIZE

PROPERTIES = (
    "coverage",
    "summarization",
    "context_entity_recall",
    "information_density",
    "relevance",
    "context_relevancy",
    "retrieval_relevance",
    "embedding_similarity",
)
# No labelled set measures these two; the bench only needs realistic inputs: the QNLI sentence as
# the one retrieved document (as for Context Relevancy), and as the output with its question as the
# expected output (short texts, as expected outputs are).
EXTRA_ENTRIES = (
    Entry("relevance_qnli*.jsonl", "retrieval_relevance", candidate="output", input="input", context="output"),
    Entry("relevance_qnli*.jsonl", "embedding_similarity", candidate="output", reference="input"),
)
Arguments = tuple[list[str], list[str] | None, list[str] | None, list[Any] | None]
RawCall = Callable[[], object]


def rows_for(prop: str, folder: Path, count: int) -> list[tuple[Entry, dict[str, Any]]]:
    """Up to `count` rows of the property's files with the entry that maps them, taken from the
    files in turn so that each file is represented."""
    patterns = {entry.pattern for entry in (*ENTRIES, *EXTRA_ENTRIES) if entry.prop == prop}
    groups = []
    for path in sorted({path for pattern in patterns for path in folder.glob(pattern)}):
        entry = entry_for(prop, path)
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        groups.append([(entry, row) for row in rows])
    mixed = []
    for position in range(max(map(len, groups), default=0)):
        mixed.extend(group[position] for group in groups if position < len(group))
    return mixed[:count]


def entry_for(prop: str, path: Path) -> Entry:
    chosen = [e for e in entries_for(path) if e.prop == prop]
    chosen += [e for e in EXTRA_ENTRIES if e.prop == prop and fnmatch.fnmatch(path.name, e.pattern)]
    return chosen[0]


def batches_of(scorer: Scorer, rows: list[tuple[Entry, dict[str, Any]]], batch_size: int) -> list[Arguments]:
    """`run_batch`'s arguments per batch, as a worker passes them (one entry per property and run)."""
    entry = rows[0][0]
    plain = [row for _, row in rows]
    return [batch_arguments(scorer, entry, plain[i : i + batch_size]) for i in range(0, len(plain), batch_size)]


# --- the raw model calls of each property, built before the clock starts ---------------------------


def spacy_parse(texts: Sequence[str]) -> RawCall:
    """topics.parse's spaCy work: the full pipeline over every piece of every text."""
    nlp = spacy_english.pipeline("coverage")
    pieces = [text[start:end] for text in texts for start, end in topics.cut_pieces(text)]
    return lambda: list(nlp.pipe(pieces, batch_size=topics.SPACY_BATCH_SIZE))


def parsed_texts(args: Arguments) -> list[str]:
    """The texts Coverage, Summarization and Context Entity Recall parse in one batch: each source
    part, then each output, for the outputs that have text and a source."""
    candidates, _, inputs, contexts = args
    texts, scored, _ = models.split_empty(candidates, "output")
    sources = {i: source_texts((inputs or [""] * len(texts))[i], (contexts or [None] * len(texts))[i]) for i in scored}
    todo = [i for i in scored if sources[i]]
    return [text for i in todo for _, text in sources[i]] + [texts[i] for i in todo]


class RecordingEncoder:
    """The encoder, keeping the texts of each call (only to build the raw calls, off the clock)."""

    def __init__(self, encoder: models.Encoder) -> None:
        self.encoder, self.model_id = encoder, encoder.model_id
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.encoder.encode(texts)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.encoder.token_offsets(text)


class RecordingCoverage(Coverage):
    def __init__(self) -> None:
        super().__init__()
        self.recorder = RecordingEncoder(super().encoder())

    def encoder(self) -> models.Encoder:
        return self.recorder


def coverage_raw(args: Arguments) -> list[RawCall]:
    recording = RecordingCoverage()
    recording.assess(args[0], args[2], args[3])
    encoder = models.packaged_encoder("coverage")
    embeds = [lambda texts=texts: encoder.encode(texts) for texts in recording.recorder.calls]
    return [spacy_parse(parsed_texts(args)), *embeds]


def entity_recall_raw(args: Arguments) -> list[RawCall]:
    return [spacy_parse(parsed_texts(args))]


def density_raw(args: Arguments) -> list[RawCall]:
    texts, scored, _ = models.split_empty(args[0], "output")
    sentences = [
        texts[i][unit.start : unit.end]
        for i in scored
        for unit in information_density.split_units(texts[i])
        if not unit.code
    ]
    cleaned = [information_density._INLINE_CODE.sub(" code ", s) for s in sentences]
    gated = [s for s in sentences if information_density._MAY_REFUSE.search(s)]
    nlp, head = spacy_english.pipeline("information_density"), AvoidedAnswer()

    def tag_and_find_entities() -> list:
        with nlp.select_pipes(disable=list(spacy_english.TAGGER_AND_ENTITIES)):
            return list(nlp.pipe(cleaned, batch_size=SPACY_BATCH_SIZE))

    calls: list[RawCall] = [tag_and_find_entities]
    if gated:
        calls.append(lambda: head.sentence_scores(gated))
    # The says-nothing head on the short sentences and the gated ones, whose embeddings the refusal
    # head left in the encoder's memo, as in the property.
    short = [
        s
        for s in sentences
        if len(s.split()) <= information_density.MAX_EMPTY_WORDS or information_density._MAY_REFUSE.search(s)
    ]
    if short:
        empty = information_density.empty_head()
        calls.append(lambda: empty.predict(empty.encoder.encode(short)))
    return calls


def window_pairs(prop: str, queries: Sequence[str], passages: Sequence[str]) -> RawCall:
    """The cross-encoder on the (question, passage window) pairs that best_windows scores."""
    reranker = cross_encoder.packaged_reranker(prop)
    pairs = [
        (reranker.short_query(query), passage[start:end])
        for query, passage in zip(queries, passages, strict=True)
        for start, end in reranker.windows(passage)
    ]
    return lambda: reranker.logits(pairs)


def relevance_raw(args: Arguments) -> list[RawCall]:
    """What Relevance reads: for passages, the cross-encoder on the (question, output window) pairs and
    on the (question, sentence) pairs of each output; for short answers (`relevance_features.read`),
    on (question, answer), (question, question + answer), (question, question) and the sentences of
    those of several, the encoder on the questions and answers, and spaCy's parse."""
    outputs, inputs = args[0], args[2] or [""] * len(args[0])
    kept = [(q, o) for q, o in zip(inputs, outputs, strict=True) if q.strip() and o.strip()]
    reranker = cross_encoder.packaged_reranker("relevance")
    passages = [(q, o) for q, o in kept if not relevance.is_short_answer(o)]
    short = [(q, o) for q, o in kept if relevance.is_short_answer(o)]
    sentences = [(q, o[start:end]) for q, o in passages for start, end in models.sentence_bounds(o)]
    sentences += [(q, o[s:e]) for q, o in short if len(bounds := models.sentence_bounds(o)) > 1 for s, e in bounds]
    questions, answers = [q for q, _ in short], [o for _, o in short]
    after = [relevance_features.answer_after_question(q, o) for q, o in short]
    encoder = models.packaged_encoder("relevance")
    calls = [
        window_pairs("relevance", [q for q, _ in passages], [o for _, o in passages]),
        lambda: reranker.logits(sentences),
        window_pairs("relevance", questions, answers),
        window_pairs("relevance", questions, after),
        window_pairs("relevance", questions, questions),
        lambda: relevance_features.parse_pairs(questions, answers),  # questions and answers, as the head reads them
    ]
    if short:
        calls.append(lambda: encoder.encode(questions + answers))
    return calls


def chunks_raw(prop: str) -> Callable[[Arguments], list[RawCall]]:
    def build(args: Arguments) -> list[RawCall]:
        count = len(args[0])
        queries, passages = [], []
        for query, context in zip(args[2] or [""] * count, args[3] or [None] * count, strict=True):
            documents = documents_of(context)
            if query.strip():
                for d, start, end in document_chunks(documents):
                    queries.append(query)
                    passages.append(documents[d][start:end])
        return [window_pairs(prop, queries, passages)]

    return build


def similarity_raw(args: Arguments) -> list[RawCall]:
    outputs, references = args[0], args[1] or [""] * len(args[0])
    kept = [(o, r) for o, r in zip(outputs, references, strict=True) if o.strip() and r.strip()]
    encoder = models.packaged_encoder("embedding_similarity")
    texts = [o for o, _ in kept] + [r for _, r in kept]
    return [lambda: encoder.encode(texts)]


RAW: dict[str, tuple[Callable[[Arguments], list[RawCall]], str]] = {
    "coverage": (coverage_raw, "spaCy full pipe on sources+outputs; MiniLM on nouns and sentences"),
    "summarization": (coverage_raw, "as coverage (it is Coverage's assessment, graded)"),
    "context_entity_recall": (entity_recall_raw, "spaCy full pipe on sources+outputs"),
    "information_density": (
        density_raw,
        (
            "spaCy tagger+NER pipe on sentences; Avoided Answer head on gated ones; MiniLM and the says-nothing "
            "head on those and the short ones"
        ),
    ),
    "relevance": (
        relevance_raw,
        "cross-encoder on passages' windows and sentences, on short answers after their question; spaCy parse",
    ),
    "context_relevancy": (chunks_raw("context_relevancy"), "cross-encoder on (question, chunk window) pairs"),
    "retrieval_relevance": (chunks_raw("retrieval_relevance"), "cross-encoder on (question, chunk window) pairs"),
    "embedding_similarity": (similarity_raw, "MiniLM on outputs and references (windowed)"),
}


def timed(function: Callable[[], object]) -> float:
    models.clear_memos()  # time the models, not the lookup of the other side's results
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def measure(prop: str, folder: Path, count: int, batch_size: int, repeat: int) -> tuple[int, float, float]:
    """(items, ours items/s, raw items/s) of one property."""
    rows = rows_for(prop, folder, count)
    scorer = registry.get(prop)()
    scorer.current_field = type(scorer).fields[0]
    batches = batches_of(scorer, rows, batch_size)
    build, _ = RAW[prop]
    raw_calls = [call for args in batches for call in build(args)]
    # Load and warm up every model (spaCy, encoders, heads, the density word model) before either clock.
    scorer.run_batch(*batches_of(scorer, rows[:2], 2)[0])
    for call in raw_calls[:3]:
        call()

    def ours() -> None:
        for args in batches:
            scorer.run_batch(*args)

    def raw() -> None:
        for call in raw_calls:
            call()

    # Alternate the two so that a busy machine slows both alike.
    ours_s = raw_s = float("inf")
    for _ in range(repeat):
        raw_s = min(raw_s, timed(raw))
        ours_s = min(ours_s, timed(ours))
    return len(rows), len(rows) / ours_s, len(rows) / raw_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--count", type=int, default=64, help="rows per property")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--property", action="append", choices=PROPERTIES, help="only these (repeatable)")
    args = parser.parse_args()
    print(f"{'property':<22} {'items':>6} {'ours/s':>8} {'raw/s':>8} {'ratio':>6}  raw includes")
    for prop in args.property or PROPERTIES:
        items, ours_rate, raw_rate = measure(prop, args.folder, args.count, args.batch_size, args.repeat)
        print(
            f"{prop:<22} {items:>6} {ours_rate:>8.1f} {raw_rate:>8.1f} {ours_rate / raw_rate:>6.2f}  {RAW[prop][1]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
