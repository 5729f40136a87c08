"""Weave's built-in scorer classes, for `from evalsite.scorers import HallucinationFreeScorer`.

Each takes Weave's constructor arguments and gives Weave's result keys (so an evaluation's summary
reads as Weave's), and is scored by an Evalsite property, whose snake_case name its stored values
keep. The LLM-backed ones take `model_id` (and `base_url` for an OpenAI-compatible server): given
one, an LLM judge scores through litellm, within the operator's allow-lists; without one, our
local models make the same judgement offline. docs/python-api.md ("Coming from Weave") lists what
differs from Weave, and why.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from evalsite.sdk.weave_scorer import WeaveScorer, given, local_or_judge
from properties.scorers.base import Score
from properties.scorers.context_entity_recall import ContextEntityRecall
from properties.scorers.context_relevancy import ContextRelevancy
from properties.scorers.embedding_similarity import EmbeddingSimilarity
from properties.scorers.grounded_in_context import HallucinationFree
from properties.scorers.llm.judges import (
    LLMContextEntityRecall,
    LLMContextRelevancy,
    LLMHallucinationFree,
    LLMSummarization,
)
from properties.scorers.llm_embedding_similarity import LLMEmbeddingSimilarity
from properties.scorers.moderation import Moderation
from properties.scorers.openai_moderation import OpenAIModeration
from properties.scorers.schema import Schema
from properties.scorers.summarization import Summarization
from properties.scorers.valid_json import ValidJSON
from properties.scorers.valid_xml import ValidXML

__all__ = [
    "ContextEntityRecallScorer",
    "ContextRelevancyScorer",
    "EmbeddingSimilarityScorer",
    "HallucinationFreeScorer",
    "OpenAIModerationScorer",
    "PydanticScorer",
    "SummarizationScorer",
    "ValidJSONScorer",
    "ValidXMLScorer",
    "WeaveScorer",
]


class ValidJSONScorer(WeaveScorer):
    """{"json_valid": bool}: the whole output is one JSON value (property `valid_json`)."""

    result_keys = ("json_valid",)

    def __init__(self, column_map: dict[str, str] | None = None) -> None:
        super().__init__(ValidJSON(), column_map)


class ValidXMLScorer(WeaveScorer):
    """{"xml_valid": bool}: the whole output is one well-formed XML document (property `valid_xml`)."""

    result_keys = ("xml_valid",)

    def __init__(self, column_map: dict[str, str] | None = None) -> None:
        super().__init__(ValidXML(), column_map)


class PydanticScorer(WeaveScorer):
    """{"valid_pydantic": bool}: the output validates against `model` (property `schema`)."""

    def __init__(self, model: type[BaseModel], column_map: dict[str, str] | None = None) -> None:
        super().__init__(Schema(pydantic_model=model), column_map)
        self.model = model

    def result(self, score: Score) -> dict[str, Any] | None:
        return {"valid_pydantic": score.details["schema_valid"]} if score.ok else None


class EmbeddingSimilarityScorer(WeaveScorer):
    """{"similarity_score": cosine, "is_similar": bool} of the output and the `target` column.

    Without model_id: the packaged MiniLM encoder (property `embedding_similarity`); with one, that
    embedding model through litellm (`llm_embedding_similarity`). `target_column` is Weave's older
    way to name the target column."""

    arguments = {"target": "expected_output"}
    result_keys = ("similarity_score", "is_similar")

    def __init__(
        self,
        model_id: str | None = None,
        threshold: float = 0.5,
        column_map: dict[str, str] | None = None,
        target_column: str | None = None,
        **options: Any,
    ) -> None:
        if target_column:
            column_map = {**(column_map or {}), "target": target_column}
        options["threshold"] = threshold
        scorer = local_or_judge(type(self).__name__, EmbeddingSimilarity, LLMEmbeddingSimilarity, model_id, {}, options)
        super().__init__(scorer, column_map)


class HallucinationFreeScorer(WeaveScorer):
    """{"has_hallucination": bool, "reasoning": str}: does the output state what the `context` does
    not support. Without model_id: NLI on local models (property `hallucination_free`)."""

    arguments = {"context": "information_retrieval"}
    result_keys = ("has_hallucination", "reasoning")

    def __init__(
        self,
        model_id: str | None = None,
        column_map: dict[str, str] | None = None,
        system_prompt: str | None = None,
        user_prompt: str | None = None,
        **options: Any,
    ) -> None:
        prompts = given(system_prompt=system_prompt, user_prompt=user_prompt)
        local, judge = HallucinationFree, LLMHallucinationFree
        scorer = local_or_judge(type(self).__name__, local, judge, model_id, prompts, options)
        super().__init__(scorer, column_map)


class SummarizationScorer(WeaveScorer):
    """{"summarization_eval_score": 0 / 0.5 / 1, "llm_eval_reasoning", "is_entity_dense",
    "entity_density"}: the output graded as a summary of the `input`. Without model_id: coverage,
    brevity and spaCy entities on local models (property `summarization`)."""

    arguments = {"input": "input"}
    result_keys = ("summarization_eval_score", "llm_eval_reasoning", "is_entity_dense", "entity_density")

    def __init__(
        self,
        model_id: str | None = None,
        column_map: dict[str, str] | None = None,
        summarization_evaluation_system_prompt: str | None = None,
        summarization_evaluation_prompt: str | None = None,
        extraction_system_prompt: str | None = None,
        extraction_prompt: str | None = None,
        **options: Any,
    ) -> None:
        prompts = given(
            summarization_evaluation_system_prompt=summarization_evaluation_system_prompt,
            summarization_evaluation_prompt=summarization_evaluation_prompt,
            extraction_system_prompt=extraction_system_prompt,
            extraction_prompt=extraction_prompt,
        )
        scorer = local_or_judge(type(self).__name__, Summarization, LLMSummarization, model_id, prompts, options)
        super().__init__(scorer, column_map)


class OpenAIModerationScorer(WeaveScorer):
    """{"flagged": bool, "categories": {name: True}}: would moderation flag the output, and why.
    Without model_id: Toxicity and the nearest category on local models (property `moderation`);
    with one (e.g. "omni-moderation-latest"), OpenAI's moderation endpoint (`openai_moderation`)."""

    result_keys = ("flagged", "categories")

    def __init__(self, model_id: str | None = None, column_map: dict[str, str] | None = None, **options: Any) -> None:
        scorer = local_or_judge(type(self).__name__, Moderation, OpenAIModeration, model_id, {}, options)
        super().__init__(scorer, column_map)


class ContextEntityRecallScorer(WeaveScorer):
    """{"recall": 0 to 1}: the share of the output's entities that the `context` also has, Weave's
    definition. Without model_id: spaCy entities (property `context_entity_recall`, whose own value
    is the other direction, the context's entities kept: Weave's is in its details)."""

    arguments = {"context": "information_retrieval"}

    def __init__(
        self,
        model_id: str | None = None,
        column_map: dict[str, str] | None = None,
        extraction_prompt: str | None = None,
        **options: Any,
    ) -> None:
        prompts = given(extraction_prompt=extraction_prompt)
        scorer = local_or_judge(
            type(self).__name__, ContextEntityRecall, LLMContextEntityRecall, model_id, prompts, options
        )
        super().__init__(scorer, column_map)

    def result(self, score: Score) -> dict[str, Any] | None:
        if not score.ok:
            return None
        key = "recall" if isinstance(self.scorer, LLMContextEntityRecall) else "output_entities_in_context"
        recall = score.details.get(key)
        return None if recall is None else {"recall": recall}


class ContextRelevancyScorer(WeaveScorer):
    """{"relevancy_score": 0 to 1, "reasoning": str}: how relevant the `context` is to the output,
    which Weave's scorer reads as the question. Without model_id: the packaged ms-marco
    cross-encoder (property `context_relevancy`)."""

    arguments = {"context": "information_retrieval"}
    result_keys = ("relevancy_score", "reasoning")

    def __init__(
        self,
        model_id: str | None = None,
        column_map: dict[str, str] | None = None,
        relevancy_prompt: str | None = None,
        **options: Any,
    ) -> None:
        prompts = given(relevancy_prompt=relevancy_prompt)
        scorer = local_or_judge(type(self).__name__, ContextRelevancy, LLMContextRelevancy, model_id, prompts, options)
        super().__init__(scorer, column_map)

    def interaction_fields(self, output: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        fields = super().interaction_fields(output, arguments)
        # Weave's score(output, context) puts the output in its prompt's {question}; our properties
        # read the question from `input`.
        fields["input"] = fields["output"]
        return fields
