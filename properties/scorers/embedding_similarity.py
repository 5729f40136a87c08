"""Embedding Similarity (Weave's EmbeddingSimilarityScorer): the cosine similarity of the output's
and the expected output's sentence embeddings.

Default encoder: the packaged all-MiniLM-L6-v2 int8 (`models.packaged_encoder`); `model=` takes a
Hugging Face id or local folder of a sentence encoder instead. Long texts are embedded as the mean
of their windows' embeddings (the shared runtime's windowing). As in Weave, `threshold` (default
0.5) decides `is_similar`; the value is the similarity itself, -1 to 1.

Evidence, for a value under the threshold: the output's sentences that are far from the expected
output (each sentence's own similarity to it under the threshold), or, where none is alone, the
furthest one. Sentences are embedded only for those items, so similar outputs cost nothing more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models


@builtin
class EmbeddingSimilarity(Scorer):
    display_name = "Embedding Similarity"
    description = (
        "Cosine similarity of the output's and the expected output's sentence embeddings (-1 to 1, in practice "
        "0 to 1); `is_similar` when it reaches the threshold (default 0.5)."
    )
    fields = ("output",)
    queue = "models"
    # 2: every output has evidence, on either side of the threshold.
    version = "2"

    def scored_in_streams(self) -> bool:
        return self.model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

    def __init__(self, threshold: float = 0.5, model: str | None = None) -> None:
        self.threshold = float(threshold)
        self.model = model or None
        if self.model and models.looks_local(self.model) and not Path(self.model).expanduser().exists():
            raise models.unavailable(self.name(), self.model, "no such file or folder", models.override_fix())

    @staticmethod
    def name() -> str:
        return "embedding_similarity"

    @staticmethod
    def requires_reference() -> bool:
        return True

    @staticmethod
    def categories() -> list[str] | None:
        return ["true", "false"]

    def encoder(self) -> models.Encoder:
        if self.model is None:
            return models.packaged_encoder(self.name())
        return models.user_encoder(self.name(), self.model)

    def model_id(self) -> str:
        if self.model is None:
            return models.packaged_encoder_id(self.name())
        return f"{self.model}@{models.model_digest(self.model)}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        outputs = [text if isinstance(text, str) else "" for text in candidate_batch]
        references = [text if isinstance(text, str) else "" for text in (reference_batch or [""] * len(outputs))]
        results: list[float | Score] = []
        scored: list[int] = []
        for i, (output, reference) in enumerate(zip(outputs, references, strict=True)):
            if not reference.strip():
                results.append(Score.not_applicable("the expected output (reference) is empty"))
            elif not output.strip():
                results.append(Score.not_applicable(f"the {self.current_field} is empty"))
            else:
                results.append(Score.failed("not scored"))
                scored.append(i)
        if not scored:
            return results
        # One encode call for both sides: batches fill better than two half-size calls.
        vectors = self.encoder().encode([outputs[i] for i in scored] + [references[i] for i in scored])
        left, right = vectors[: len(scored)], vectors[len(scored) :]
        similarities = np.sum(left * right, axis=1)  # both sides are L2-normalised
        for i, similarity in zip(scored, similarities, strict=True):
            value = round(float(similarity), 4)
            similar = value >= self.threshold
            details = {"similarity_score": value, "is_similar": similar, "threshold": self.threshold}
            # The output as a whole, whatever its side of this threshold, so that a project that sets a
            # higher one sees what fails it; a dissimilar output gets its sentences instead (below).
            start, end = len(outputs[i]) - len(outputs[i].lstrip()), len(outputs[i].rstrip())
            note = f"the whole output's similarity to the expected output: {value:.2f}"
            span = Span(self.current_field, start, end, "similarity to the reference", value, note)
            results[i] = Score(value=value, label=str(similar).lower(), spans=[span], details=details)
        far = [(i, right[k]) for k, i in enumerate(scored) if float(similarities[k]) < self.threshold]
        if far:
            self._add_evidence(outputs, results, far)
        return results

    def _add_evidence(
        self, outputs: list[str], results: list[float | Score], far: list[tuple[int, np.ndarray]]
    ) -> None:
        """Spans on the sentences of each dissimilar output, with their own similarity to the reference."""
        bounds = {i: models.sentence_bounds(outputs[i]) for i, _ in far}
        several = [(i, start, end) for i, _ in far if len(bounds[i]) > 1 for start, end in bounds[i]]
        vectors = iter(self.encoder().encode([outputs[i][start:end] for i, start, end in several]) if several else [])
        for i, reference in far:
            score = results[i]
            assert isinstance(score, Score) and score.value is not None
            if len(bounds[i]) > 1:
                similarities = [float(np.dot(next(vectors), reference)) for _ in bounds[i]]
            else:
                similarities = [float(score.value)]
            score.spans = self._far_spans(bounds[i], similarities)

    def _far_spans(self, bounds: list[tuple[int, int]], similarities: list[float]) -> list[Span]:
        below = [k for k, similarity in enumerate(similarities) if similarity < self.threshold]
        chosen = below or [min(range(len(similarities)), key=similarities.__getitem__)]
        spans = []
        for k in chosen:
            start, end = bounds[k]
            similarity = similarities[k]
            # Verdict-free words: the span's kind says far or close by the project's threshold.
            if k in below:
                note = f"this sentence's similarity to the expected output: {similarity:.2f}"
            else:
                note = f"the sentence furthest from the expected output: {similarity:.2f}"
            spans.append(Span(self.current_field, start, end, "far from the reference", round(similarity, 4), note))
        return spans
