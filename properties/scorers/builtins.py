"""Imports every built-in scorer module so that each registers itself."""

from properties.scorers import (  # noqa: F401
    avoided_answer,
    compression_ratio,
    content_type,
    context_entity_recall,
    context_relevancy,
    coverage,
    embedding_similarity,
    fluency,
    formality,
    grounded_in_context,
    information_density,
    invalid_links,
    openai_moderation,
    pii_risk,
    reading_ease,
    relevance,
    retrieval_relevance,
    schema,
    sentiment,
    summarization,
    toxicity,
    valid_json,
    word_count,
)
from properties.scorers.llm import judges  # noqa: F401
