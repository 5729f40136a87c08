"""Weave's scorer names, judged by an LLM when a model is named and by our local models otherwise.

Weave users write `HallucinationFreeScorer(model_id="openai/gpt-4o")`. Our plain names
(`hallucination_free`, `summarization`, `context_entity_recall`, `context_relevancy`) take the same
`model_id` (and `base_url` for an OpenAI-compatible server): given one, constructing the scorer
builds the matching `llm_*` judge with the options that came with it, so the pipeline runs it on
the `llm` queue and every stored value's `model` names the LLM; without one, the local model scores.
Both return Weave's result keys in `details`, so summaries read the same either way.
"""

from __future__ import annotations

from abc import ABCMeta
from typing import Any


class JudgedWhenModelNamed(ABCMeta):
    """Metaclass of the local Weave-named scorers; the class sets `judge` to its LLM counterpart."""

    def __call__(cls, *args: Any, model_id: str | None = None, base_url: str | None = None, **options: Any) -> Any:
        if model_id or base_url:
            return cls.judge(*args, model_id=model_id or "", base_url=base_url, **options)
        return super().__call__(*args, **options)
