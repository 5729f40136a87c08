"""LLM Embedding Similarity (Weave's EmbeddingSimilarityScorer given a model_id): the cosine
similarity of the output's and the expected output's embeddings from an embedding model named by
`model_id` ("openai/text-embedding-3-small", or any model of an OpenAI-compatible `base_url`),
`is_similar` from `threshold` (default 0.5), as Weave computes them.

The local `embedding_similarity` embeds with the packaged MiniLM instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from properties.scorers.base import Score, ScorerUnavailable
from properties.scorers.llm.client import JudgeError
from properties.scorers.llm.embeddings import EmbeddingClient
from properties.scorers.llm.judges import LLMJudge
from properties.scorers.net.policy import OutboundRefused
from properties.scorers.registry import builtin

# Texts per request (outputs and references of up to half as many items): providers take a few
# hundred; small requests keep one failure from costing a whole chunk.
EMBEDDING_BATCH = 64


@builtin
class LLMEmbeddingSimilarity(LLMJudge):
    display_name = "LLM Embedding Similarity"
    description = (
        "Weave's EmbeddingSimilarityScorer: cosine similarity of the output's and the expected output's "
        "embeddings from an embedding model (model_id, through litellm), -1 to 1; `is_similar` from the "
        "threshold (default 0.5)."
    )
    fields = ("output",)

    def __init__(self, threshold: float = 0.5, **options: Any) -> None:
        super().__init__(**options)
        if not -1.0 <= float(threshold) <= 1.0:
            raise ValueError(f"threshold is a cosine similarity, between -1 and 1, not {threshold}")
        self.threshold = float(threshold)

    @staticmethod
    def name() -> str:
        return "llm_embedding_similarity"

    @staticmethod
    def requires_reference() -> bool:
        return True

    @staticmethod
    def categories() -> list[str] | None:
        return ["true", "false"]

    def client(self) -> EmbeddingClient:
        if not self._model_id:
            raise ScorerUnavailable(f"{self.name()} needs an embedding model: set model_id in its configuration")
        try:
            return EmbeddingClient(
                self._model_id,
                base_url=self.base_url,
                api_key=self._api_key,
                key_variable=self._api_key_variable,
                timeout=self.timeout,
                budget=self.budget,
            )
        except OutboundRefused as exc:
            raise ScorerUnavailable(f"{self.name()}: {exc}") from None

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        client = self.client()
        references = reference_batch or [""] * len(candidate_batch)
        results: list[float | Score] = []
        pending: list[int] = []
        for index, (output, reference) in enumerate(zip(candidate_batch, references, strict=True)):
            if not (reference or "").strip():
                results.append(Score.failed("the expected output (reference) is empty"))
            elif not (output or "").strip():
                results.append(Score.failed(f"the {self.current_field} is empty"))
            else:
                results.append(Score.failed("not scored"))
                pending.append(index)
        per_request = EMBEDDING_BATCH // 2
        for start in range(0, len(pending), per_request):
            items = pending[start : start + per_request]
            texts = [candidate_batch[i] for i in items] + [references[i] for i in items]
            try:
                vectors, usage, cost = client.embed(texts)
            except JudgeError as exc:
                for i in items:
                    results[i] = Score.failed(str(exc))
                continue
            for position, i in enumerate(items):
                output, reference = vectors[position], vectors[len(items) + position]
                results[i] = self.to_score(output, reference, usage, cost, len(items))
        return results

    def to_score(
        self, output: list[float], reference: list[float], usage: dict[str, int], cost: float | None, shared_by: int
    ) -> Score:
        left, right = np.asarray(output), np.asarray(reference)
        norms = float(np.linalg.norm(left) * np.linalg.norm(right))
        if norms == 0.0:
            return Score.failed("the embedding model returned a zero vector: the similarity is undefined")
        similarity = round(float(left @ right) / norms, 4)
        similar = similarity >= self.threshold
        weave = {"similarity_score": similarity, "is_similar": similar, "threshold": self.threshold}
        # One request embeds several items: each carries its share of the usage and price.
        share = {key: count // shared_by for key, count in usage.items()}
        details = {**weave, "usage": share, "cost_usd": None if cost is None else cost / shared_by}
        return Score(value=similarity, label=str(similar).lower(), details={**details, "judge": self._model_id})
