"""Where each built-in property lives. A module is imported the first time one of its properties is
asked for, so that scoring cheap properties never pays for torch, spaCy or transformers
(`registry.get`); listing every property imports them all (`registry.all_scorers`)."""

from __future__ import annotations

import importlib

# Property name -> module under properties.scorers (one module per property, named after it; the
# exceptions are the ones the package docstring lists).
MODULES = {
    "avoided_answer": "avoided_answer",
    "char_count": "char_count",
    "compression_ratio": "compression_ratio",
    "content_type": "content_type",
    "context_entity_recall": "context_entity_recall",
    "context_relevancy": "context_relevancy",
    "coverage": "coverage",
    "embedding_similarity": "embedding_similarity",
    "fluency": "fluency",
    "formality": "formality",
    "grounded_in_context": "grounded_in_context",
    "hallucination_free": "grounded_in_context",
    "information_density": "information_density",
    "invalid_links": "invalid_links",
    "llm_context_entity_recall": "llm.judges",
    "llm_context_relevancy": "llm.judges",
    "llm_embedding_similarity": "llm_embedding_similarity",
    "llm_hallucination_free": "llm.judges",
    "llm_summarization": "llm.judges",
    "moderation": "moderation",
    "openai_moderation": "openai_moderation",
    "pii_risk": "pii_risk",
    "reading_ease": "reading_ease",
    "relevance": "relevance",
    "retrieval_relevance": "retrieval_relevance",
    "schema": "schema",
    "sentiment": "sentiment",
    "summarization": "summarization",
    "toxicity": "toxicity",
    "valid_json": "valid_json",
    "valid_xml": "valid_xml",
    "word_count": "word_count",
}


def import_module_of(name: str) -> None:
    """Import the module that registers a built-in property (a no-op for other names)."""
    if name in MODULES:
        importlib.import_module(f"properties.scorers.{MODULES[name]}")


def import_all() -> None:
    for module in sorted(set(MODULES.values())):
        importlib.import_module(f"properties.scorers.{module}")
