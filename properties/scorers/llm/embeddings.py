"""Embeddings from any provider through litellm (Weave's EmbeddingSimilarityScorer with a model_id).

The chat client's rules hold: the operator's allow-lists for base URLs and key variables, the key
kept out of errors, every connection through the network guard (litellm's OpenAI client is the
guarded one), the run's budget counted per request, and transient failures retried with backoff.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from properties.scorers.llm import client as llm
from properties.scorers.llm.client import BudgetExhausted, JudgeError, LLMClient

logger = logging.getLogger(__name__)


class EmbeddingClient(LLMClient):
    """Asks one embedding model for vectors, several texts per request."""

    def embed(self, texts: list[str]) -> tuple[list[list[float]], dict[str, int], float | None]:
        """One vector per text, in order, with the request's usage and price (None if unpriced)."""
        litellm = llm._litellm()
        import openai  # installed with litellm, so importable once litellm is

        for attempt in range(llm.MAX_TRANSIENT_RETRIES + 1):
            try:
                self.budget.reserve_call()
            except BudgetExhausted as exc:
                raise BudgetExhausted(str(exc)) from None
            try:
                response = litellm.embedding(**self._embedding_request(texts))
            except openai.OpenAIError as exc:
                blocked = llm._blocked_cause(exc)
                if blocked is not None:
                    raise JudgeError(f"{self.model_id}: refused by the network guard: {blocked}") from None
                status = getattr(exc, "status_code", None)
                retryable = status in llm.RETRY_STATUSES or isinstance(
                    exc, litellm.Timeout | litellm.APIConnectionError | litellm.RateLimitError
                )
                reason = self.scrub(f"{type(exc).__name__}: {exc}")[: llm.RAW_REPLY_CHARS]
                if not retryable or attempt == llm.MAX_TRANSIENT_RETRIES:
                    raise JudgeError(f"{self.model_id} failed after {attempt + 1} attempt(s): {reason}") from None
                delay = llm._retry_after(exc)
                delay = min(llm.BACKOFF_BASE_S * 2**attempt, llm.BACKOFF_MAX_S) if delay is None else delay
                logger.info("%s: %s; retrying in %.2fs", self.model_id, reason, delay)
                time.sleep(min(delay, llm.MAX_RETRY_AFTER_S))
                continue
            usage = llm._usage_of(response)
            cost = llm._cost_of(litellm, response)
            self.budget.record_usage(usage.get("total_tokens", 0), cost)
            return _vectors_of(response, len(texts)), usage, cost
        raise AssertionError("unreachable: the loop returns or raises")

    def _embedding_request(self, texts: list[str]) -> dict[str, Any]:
        # We retry ourselves (bounded, logged, budgeted), as for chat completions.
        request: dict[str, Any] = {"model": self.model_id, "input": texts, "timeout": self.timeout, "max_retries": 0}
        if self.base_url:
            request["api_base"] = self.base_url
        provider = llm._provider_of(self.model_id, self.base_url)
        key = llm.resolve_key(provider, self.base_url, self._api_key, self._key_variable)
        if key is not None:
            request["api_key"] = key
        return request


def _vectors_of(response: Any, count: int) -> list[list[float]]:
    try:
        items = sorted(response.data, key=lambda item: item["index"])
        vectors = [[float(x) for x in item["embedding"]] for item in items]
    except (TypeError, KeyError, ValueError, AttributeError):
        raise JudgeError("the embedding reply has no usable vectors") from None
    if len(vectors) != count:
        raise JudgeError(f"the embedding reply has {len(vectors)} vectors for {count} texts")
    return vectors
