"""Weave's OpenAIModerationScorer: OpenAI's moderation endpoint (free, needs an OpenAI key).

A plain HTTPS POST to {base_url}/moderations, several texts per request. Timeouts, 429 and 5xx
answers are retried like the chat judges' calls (llm.py's constants), and each request counts
against the run's budget.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx

from properties.scorers.base import Score, ScorerUnavailable
from properties.scorers.llm import client as llm
from properties.scorers.llm.client import JudgeError
from properties.scorers.llm.judges import LLMJudge
from properties.scorers.net import guard, policy
from properties.scorers.registry import builtin

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "omni-moderation-latest"
KEY_VARIABLE = "OPENAI_API_KEY"
# Texts per request. OpenAI documents no batch limit for omni-moderation; small requests keep one
# failure from costing a whole chunk.
MODERATION_BATCH = 20


@builtin
class OpenAIModeration(LLMJudge):
    display_name = "OpenAI Moderation"
    description = (
        "Weave's OpenAIModerationScorer: OpenAI's moderation endpoint flags harassment, hate, self-harm, "
        "sexual content, violence and other categories. The value is the highest category score (0 to 1), "
        "the label `flagged` or `ok`. Needs an OpenAI key (OPENAI_API_KEY)."
    )
    fields = ("input", "output")

    def __init__(self, model_id: str = DEFAULT_MODEL, **options: Any) -> None:
        super().__init__(model_id=model_id, **options)

    @staticmethod
    def name() -> str:
        return "openai_moderation"

    def api_key(self) -> str:
        try:
            if self.base_url:
                policy.current().check_llm_base_url(self.base_url)
            key = llm.resolve_key("openai", self.base_url, self._api_key, self._api_key_variable)
        except (policy.OutboundRefused, JudgeError) as exc:
            raise ScorerUnavailable(f"{self.name()}: {exc}") from None
        if not key or key == llm.NO_KEY:
            raise ScorerUnavailable(
                f"{self.name()} needs an OpenAI API key: set {KEY_VARIABLE} in the workers' environment, "
                "or name a key in the property's configuration (api_key_variable or a project key)"
            )
        return key

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        key = self.api_key()
        scores: list[float | Score] = []
        for start in range(0, len(candidate_batch), MODERATION_BATCH):
            texts = [text or "" for text in candidate_batch[start : start + MODERATION_BATCH]]
            try:
                scores.extend(self.score(result) for result in self.moderate(texts, key))
            except JudgeError as exc:
                scores.extend(Score.failed(str(exc)) for _ in texts)
        return scores

    def moderate(self, texts: list[str], key: str) -> list[dict[str, Any]]:
        """One result per text, in order, retrying transient failures with exponential backoff."""
        url = (self.base_url or DEFAULT_BASE_URL).rstrip("/") + "/moderations"
        model = self._model_id.removeprefix("openai/")
        for attempt in range(llm.MAX_TRANSIENT_RETRIES + 1):
            self.budget.reserve_call()
            try:
                # Through the network guard, as every LLM request: the endpoint's resolved address
                # and every redirect.
                with guard.llm_http_client(self.timeout) as http:
                    response = http.post(
                        url, json={"model": model, "input": texts}, headers={"Authorization": f"Bearer {key}"}
                    )
                reason = f"HTTP {response.status_code}: {response.text[: llm.RAW_REPLY_CHARS]}"
                retryable = response.status_code in llm.RETRY_STATUSES
            except guard.BlockedAddress as exc:
                response, reason, retryable = None, f"refused by the network guard: {exc}", False
            except httpx.TransportError as exc:
                response, reason, retryable = None, f"{type(exc).__name__}: {exc}", True
            self.budget.record_usage(0, 0.0)  # moderation is free and reports no tokens
            if response is not None and response.is_success:
                return self.results_of(response, len(texts))
            reason = self.scrub(reason, key)
            if not retryable or attempt == llm.MAX_TRANSIENT_RETRIES:
                raise JudgeError(f"{url} failed after {attempt + 1} attempt(s): {reason}")
            delay = min(llm.BACKOFF_BASE_S * 2**attempt, llm.BACKOFF_MAX_S)
            logger.info("moderation: %s; retrying in %.2fs", reason, delay)
            time.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    def results_of(self, response: httpx.Response, count: int) -> list[dict[str, Any]]:
        try:
            results = response.json()["results"]
        except (ValueError, KeyError, TypeError):
            raise JudgeError(f"the moderation reply has no results: {response.text[: llm.RAW_REPLY_CHARS]!r}") from None
        if not isinstance(results, list) or len(results) != count:
            raise JudgeError(f"the moderation reply does not have one result for each of the {count} texts")
        return results

    def score(self, result: dict[str, Any]) -> Score:
        flagged = bool(result.get("flagged"))
        category_scores = {name: float(score) for name, score in (result.get("category_scores") or {}).items()}
        # Weave keeps the flagged categories only, under their top-level names ("harassment", not
        # "harassment/threatening"), as its result's `categories`.
        categories = {name: True for name, hit in (result.get("categories") or {}).items() if hit and "/" not in name}
        details = {
            "flagged": flagged,
            "categories": categories,
            "category_scores": category_scores,
            "judge": self._model_id,
        }
        return Score(
            value=max(category_scores.values(), default=0.0), label="flagged" if flagged else "ok", details=details
        )

    def scrub(self, text: str, key: str = "") -> str:
        return llm.scrub_secrets(text, [key] if key else [])
