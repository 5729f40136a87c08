"""Retrieval Relevance: how relevant the retrieved documents (`information_retrieval`) are to the
user's input, 0 to 1, with the most relevant chunks of each document as evidence.

1. Each document is cut into chunks with character offsets: paragraphs (split at blank lines);
   a paragraph longer than `MAX_CHUNK_CHARS` is cut at sentence ends (Punkt) into runs of
   sentences up to that length. A chunk still longer than the cross-encoder's window is windowed
   by the runtime and scored by its best window.
2. Each chunk is scored against the input twice:
   - semantic: the packaged ms-marco cross-encoder logit, calibrated to 0-1 by the chunk fit of the
     Relevance calibration (`artifacts/relevance.json`: question vs a chunk-sized passage holding
     the answering sentence among others, where the logit runs lower than for the sentence alone);
   - lexical: the share of the input's words that the chunk contains, each word weighted by its
     rarity among the interaction's chunks (BM25's idf), so 0 to 1 on an absolute scale: a lone
     chunk sharing one common word with the question stays low.
3. chunk score = `SEMANTIC_WEIGHT` * semantic + (1 - `SEMANTIC_WEIGHT`) * lexical. The
   cross-encoder carries the judgement; the lexical part breaks near-ties towards chunks that share
   the question's rare words (names, numbers), and is too light to decide alone.
4. document score = the max over its chunks (a document is as useful as its best passage);
   interaction value = the mean over documents (the share of useful retrieval), with the max
   also in `details`.

Evidence: per document its best chunks; those scoring at least `THRESHOLD` are "relevant chunk",
and a document with none shows its best chunk as "not relevant", with its score.

Not tuned on labelled retrieval data (none is here): the weights are a documented default.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.relevance import CALIBRATION, load_calibration
from properties.scorers.runtime import cross_encoder, models

MAX_CHUNK_CHARS = 800
THRESHOLD = 0.5
SEMANTIC_WEIGHT = 0.8
TOP_CHUNKS = 2  # evidence spans per document
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_WORD = re.compile(r"\w+")
# Function words that would make every chunk look lexically related to a question.
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "when",
        "where",
        "why",
        "do",
        "does",
        "did",
        "from",
        "as",
        "into",
        "than",
        "then",
        "there",
        "their",
        "they",
        "he",
        "she",
        "his",
        "her",
        "i",
        "you",
        "we",
        "our",
    ]
)


def chunk_document(text: str) -> list[tuple[int, int]]:
    """(start, end) character ranges of a document's chunks, whitespace trimmed, in order."""
    chunks: list[tuple[int, int]] = []
    position = 0
    for brk in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = brk.start() if brk else len(text)
        chunks.extend(_split_paragraph(text, position, end))
        position = brk.end() if brk else len(text)
    return chunks


@dataclass(frozen=True)
class ScoredChunk:
    """A chunk of one retrieved document and its calibrated relevance to the input."""

    document: int
    start: int
    end: int
    probability: float

    @property
    def length(self) -> int:
        return self.end - self.start


def document_chunks(documents: list[str]) -> list[tuple[int, int, int]]:
    """(document, start, end) of every chunk of an interaction's documents."""
    return [(d, start, end) for d, text in enumerate(documents) for start, end in chunk_document(text)]


def score_chunks(
    prop: str, items: dict[int, tuple[str, list[str], list[tuple[int, int, int]]]]
) -> dict[int, list[ScoredChunk]]:
    """Calibrated cross-encoder relevance of each chunk to its item's query, keyed by item.

    `items` maps an item to (query, documents, document_chunks(documents)); every chunk of every
    item goes into one list, so that the model runs in full batches.
    """
    queries: list[str] = []
    passages: list[str] = []
    where: list[tuple[int, int, int, int]] = []  # item, document, start, end
    for item, (query, documents, chunks) in items.items():
        for d, start, end in chunks:
            queries.append(query)
            passages.append(documents[d][start:end])
            where.append((item, d, start, end))
    if not passages:
        return {}
    logits, _, _ = cross_encoder.packaged_reranker(prop).best_windows(queries, passages)
    probabilities = load_calibration(prop, passages="chunk").probability(logits)
    scored: dict[int, list[ScoredChunk]] = {}
    for (item, d, start, end), probability in zip(where, probabilities, strict=True):
        scored.setdefault(item, []).append(ScoredChunk(d, start, end, float(probability)))
    return scored


def _split_paragraph(text: str, start: int, end: int) -> list[tuple[int, int]]:
    start, end = _trim(text, start, end)
    if start >= end:
        return []
    if end - start <= MAX_CHUNK_CHARS:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    first = last = start
    for s_start, s_end in models.sentence_bounds(text[start:end]):
        if last > first and start + s_end - first > MAX_CHUNK_CHARS:
            out.append(_trim(text, first, last))
            first = start + s_start
        last = start + s_end
    out.append(_trim(text, first, last))
    return [chunk for chunk in out if chunk[0] < chunk[1]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _terms(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def term_coverage(query: str, chunks: list[str]) -> np.ndarray:
    """Per chunk, the idf-weighted share of the query's words it contains (0 to 1): BM25's idf over
    these chunks (a word no chunk has weighs most), without its length normalisation."""
    docs = [set(_terms(chunk)) for chunk in chunks]
    terms = set(_terms(query))
    if not docs or not terms:
        return np.zeros(len(docs))
    idf = {term: math.log(1.0 + (len(docs) + 0.5) / (sum(term in doc for doc in docs) + 0.5)) for term in terms}
    total = sum(idf.values())
    return np.array([sum(weight for term, weight in idf.items() if term in doc) / total for doc in docs])


def documents_of(context: Any) -> list[str]:
    """The retrieved documents of one interaction as texts (a string, or a list of strings or of
    records with the text under `content`, `text` or `page_content`)."""
    if context is None:
        return []
    items = context if isinstance(context, list | tuple) else [context]
    texts = []
    for item in items:
        if isinstance(item, dict):
            item = next((item[key] for key in ("content", "text", "page_content") if key in item), json.dumps(item))
        texts.append(item if isinstance(item, str) else str(item))
    return texts


@builtin
class RetrievalRelevance(Scorer):
    display_name = "Retrieval Relevance"
    description = (
        "How relevant the retrieved documents are to the input, 0 to 1: each document's best chunk by a "
        "cross-encoder (80%) and the share of the question's words it holds (20%), averaged over documents. "
        "Evidence: each document's relevant chunks, or its best chunk marked not relevant."
    )
    fields = ("interaction",)
    queue = "models"
    version = "1"

    def scored_in_streams(self) -> bool:
        return True  # the packaged ONNX models (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "retrieval_relevance"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        digest = models.weights_digest(CALIBRATION) if CALIBRATION.is_file() else "missing"
        return f"{cross_encoder.packaged_reranker_id(self.name())}+relevance-calibration@{digest}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        count = len(candidate_batch)
        inputs = [text if isinstance(text, str) else "" for text in (input_text_batch or [""] * count)]
        contexts = [documents_of(context) for context in (context_batch or [None] * count)]
        results: list[float | Score] = []
        pending: dict[int, tuple[str, list[str], list[tuple[int, int, int]]]] = {}
        for item, (query, documents) in enumerate(zip(inputs, contexts, strict=True)):
            chunks = document_chunks(documents)
            if not query.strip():
                results.append(Score.not_applicable("the input is empty: retrieval relevance needs the user's input"))
            elif not chunks:
                results.append(Score.not_applicable("no retrieved documents with text in information_retrieval"))
            else:
                results.append(Score.failed("not scored"))
                pending[item] = (query, documents, chunks)
        for item, scored in score_chunks(self.name(), pending).items():
            documents = contexts[item]
            lexical = term_coverage(inputs[item], [documents[c.document][c.start : c.end] for c in scored])
            chunk_scores = [
                ((item, c.document, c.start, c.end), c.probability, float(lex))
                for c, lex in zip(scored, lexical, strict=True)
            ]
            results[item] = self._score(len(documents), chunk_scores)
        return results

    def _score(self, documents: int, chunks: list[tuple[tuple[int, int, int, int], float, float]]) -> Score:
        per_document: list[dict[str, Any]] = []
        spans: list[Span] = []
        for index in range(documents):
            mine = [
                (SEMANTIC_WEIGHT * sem + (1 - SEMANTIC_WEIGHT) * lex, sem, lex, start, end)
                for (_, d, start, end), sem, lex in chunks
                if d == index
            ]
            if not mine:  # an empty document retrieves nothing useful
                per_document.append({"index": index, "score": 0.0, "chunks": 0})
                continue
            mine.sort(key=lambda chunk: -chunk[0])
            best = mine[0]
            per_document.append(
                {
                    "index": index,
                    "score": round(best[0], 4),
                    "semantic": round(best[1], 4),
                    "lexical": round(best[2], 4),
                    "chunks": len(mine),
                    "best_chunk": [best[3], best[4]],
                }
            )
            where = f"information_retrieval[{index}]"
            relevant = [chunk for chunk in mine[:TOP_CHUNKS] if chunk[0] >= THRESHOLD]
            for combined, sem, lex, start, end in relevant:
                note = f"relevant to the input: score {combined:.2f} (meaning {sem:.2f}, shared words {lex:.2f})"
                spans.append(Span(where, start, end, "relevant chunk", round(combined, 4), note))
            if not relevant:
                combined, sem, lex, start, end = best
                note = (
                    f"the best chunk of this document, not relevant to the input: score {combined:.2f} "
                    f"(meaning {sem:.2f}, shared words {lex:.2f})"
                )
                spans.append(Span(where, start, end, "not relevant", round(combined, 4), note))
        document_scores = [doc["score"] for doc in per_document]
        details = {
            "documents": per_document,
            "max": round(max(document_scores), 4),
            "formula": f"mean over documents of max over chunks of {SEMANTIC_WEIGHT} * semantic + "
            f"{1 - SEMANTIC_WEIGHT:.1f} * lexical",
        }
        return Score(value=round(float(np.mean(document_scores)), 4), spans=spans, details=details)
