"""Imports every built-in scorer module so that each registers itself."""

from properties.scorers import (  # noqa: F401
    avoided_answer,
    compression,
    content_type,
    embedding_similarity,
    fluency,
    formality,
    links,
    llm_judges,
    pii,
    readability,
    relevance,
    retrieval_relevance,
    schema,
    sentiment,
    structured,
    text_stats,
    toxicity,
)
