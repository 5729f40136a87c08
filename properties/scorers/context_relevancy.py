"""Context Relevancy (Weave's ContextRelevancyScorer, on a local model): how relevant the retrieved
context (`information_retrieval`) is to the question, 0 to 1, with the relevant chunks as evidence.

1. The documents are cut into chunks with offsets by Retrieval Relevance's `chunk_document`
   (paragraphs, long ones at sentence ends) after `documents_of` has read them.
2. Each chunk is scored against the input by the packaged ms-marco cross-encoder, calibrated to
   the probability that the passage answers the question (the Relevance calibration). BM25 is not
   mixed in as Retrieval Relevance does: normalised by the interaction's best chunk, it gives some
   chunk full marks even when nothing is relevant, and this value must be absolute.
3. Weave's question is "how relevant is the context to the question"; its judge prompt
   (`llm_context_relevancy`) gives 1 to context that holds what is needed and nothing
   off-topic. The value follows both halves, equally weighted:

       relevancy_score = 0.5 * best + 0.5 * share

   `best` is the best chunk's probability (is the answer there at all), `share` the relevant
   share of the context's text: sum(len(chunk) * p(chunk)) / sum(len(chunk)), so that off-topic
   text dilutes it by its length. Irrelevant context scores near 0; one answering paragraph among
   as much off-topic text about 0.75; context that is all on point near 1.

Details carry the LLM version's keys (`relevancy_score`, `reasoning`, here a sentence generated
from the figures) and the chunks read as relevant (`relevant_chunks`, like Weave's spans).
"""

from __future__ import annotations

from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.llm.judges import LLMContextRelevancy
from properties.scorers.llm.weave_routing import JudgedWhenModelNamed
from properties.scorers.registry import builtin
from properties.scorers.relevance import CALIBRATION
from properties.scorers.retrieval_relevance import ScoredChunk, document_chunks, documents_of, score_chunks
from properties.scorers.runtime import cross_encoder, models

# Weights of the best chunk and of the relevant share (see the module docstring): equal, since
# Weave's judge asks for both "everything needed" and "nothing off-topic".
BEST_WEIGHT = 0.5
# A chunk reads as relevant at the calibrated probability where Relevance reads an answer as
# relevant (0.5); below it a chunk is left out of the evidence.
RELEVANT = 0.5
MAX_SPANS = 5
# ScoredChunk texts in details are cut to this many characters (the span holds the exact range).
DETAIL_TEXT_CHARS = 200


def relevancy(chunks: list[ScoredChunk]) -> tuple[float, float, ScoredChunk]:
    """(relevancy_score, relevant share of the text, best chunk) of one interaction's chunks."""
    best = max(chunks, key=lambda chunk: chunk.probability)
    total = sum(chunk.length for chunk in chunks)
    share = sum(chunk.length * chunk.probability for chunk in chunks) / max(total, 1)
    return BEST_WEIGHT * best.probability + (1 - BEST_WEIGHT) * share, share, best


@builtin
class ContextRelevancy(Scorer, metaclass=JudgedWhenModelNamed):
    # With a model_id (or base_url) the LLM judge scores instead: see weave_routing.
    judge = LLMContextRelevancy
    display_name = "Context Relevancy"
    description = (
        "Weave's ContextRelevancy on a local model: how relevant the retrieved context is to the question, 0 to 1 "
        "(half the best chunk's calibrated cross-encoder relevance, half the relevant share of the context's text). "
        "Evidence: the relevant chunks."
    )
    fields = ("interaction",)
    queue = "models"
    # 2: the longest not relevant chunks are evidence too.
    version = "2"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return True  # the packaged ONNX models (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "context_relevancy"

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
            if not chunks:
                results.append(
                    Score.not_applicable(
                        "the context is empty: context relevancy needs retrieved documents with text in "
                        "information_retrieval"
                    )
                )
            elif not query.strip():
                results.append(Score.not_applicable("the input is empty: context relevancy needs the user's question"))
            else:
                results.append(Score.failed("not scored"))
                pending[item] = (query, documents, chunks)
        for item, scored in score_chunks(self.name(), pending).items():
            results[item] = self._score(contexts[item], scored)
        return results

    def _score(self, documents: list[str], chunks: list[ScoredChunk]) -> Score:
        value, share, best = relevancy(chunks)
        relevant = sorted((c for c in chunks if c.probability >= RELEVANT), key=lambda c: -c.probability)
        # The chunks that lower the value too (the longest not relevant ones: the share counts text),
        # so that a value failing a project's threshold shows why; each is coloured by that threshold.
        others = sorted((c for c in chunks if c.probability < RELEVANT), key=lambda c: c.start - c.end)
        evidence = (relevant[:MAX_SPANS] or [best]) + [c for c in others if c is not best][:MAX_SPANS]
        spans = [
            Span(
                f"information_retrieval[{chunk.document}]",
                chunk.start,
                chunk.end,
                "relevant chunk" if chunk.probability >= RELEVANT else "not relevant",
                round(chunk.probability, 4),
            )
            for chunk in evidence
        ]
        details = {
            "relevancy_score": round(value, 4),
            "reasoning": _reasoning(chunks, relevant, share, best),
            "relevant_chunks": [
                {
                    "document": chunk.document,
                    "start": chunk.start,
                    "end": chunk.end,
                    "score": round(chunk.probability, 4),
                    "text": documents[chunk.document][chunk.start : chunk.end][:DETAIL_TEXT_CHARS],
                }
                for chunk in relevant
            ],
            "best_chunk_score": round(best.probability, 4),
            "relevant_share": round(share, 4),
            "chunks": len(chunks),
            "formula": f"{BEST_WEIGHT} * best chunk + {1 - BEST_WEIGHT} * relevant share of the context's text",
        }
        return Score(value=round(value, 4), spans=spans, details=details)


def _reasoning(chunks: list[ScoredChunk], relevant: list[ScoredChunk], share: float, best: ScoredChunk) -> str:
    where = f"document {best.document}, characters {best.start}-{best.end}"
    if not relevant:
        return (
            f"No chunk of the context ({len(chunks)} in all) reads as relevant to the question; the closest "
            f"({where}) scores {best.probability:.2f}."
        )
    return (
        f"{len(relevant)} of {len(chunks)} chunks read as relevant to the question; weighted by relevance, "
        f"relevant text makes up {share:.0%} of the context. The most relevant chunk ({where}) scores "
        f"{best.probability:.2f}."
    )
