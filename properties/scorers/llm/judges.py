"""Weave's LLM-judged scorers as properties: any chat model, named by `model_id`.

The local-model versions of these properties own the plain names (`hallucination_free`, ...);
these are `llm_*`. Each value's details hold Weave's result dict, plus "usage", "cost_usd" and
"judge" (the model id).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from properties.scorers.base import Score, Scorer, ScorerUnavailable
from properties.scorers.llm import prompts
from properties.scorers.llm.client import Budget, JudgeError, JudgeReply, LLMClient, map_concurrently
from properties.scorers.net.policy import OutboundRefused
from properties.scorers.registry import builtin

GRADES = {"poor": 0.0, "ok": 0.5, "excellent": 1.0}
# Weave's default threshold for "is_entity_dense" (entities per word of the summary).
ENTITY_DENSITY_THRESHOLD = 0.08
OPERATIONAL_OPTIONS = frozenset({"budget", "max_concurrency", "timeout", "deadline_s"})


class LLMJudge(Scorer):
    """Common configuration of the judges: which model, where, with which key, budget and concurrency."""

    queue = "llm"
    version = "1"

    def __init__(
        self,
        model_id: str = "",
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_variable: str | None = None,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_concurrency: int = 4,
        budget: Budget | dict[str, Any] | None = None,
        deadline_s: float | None = None,
    ) -> None:
        self._model_id = model_id
        self.base_url = base_url
        # Private: to_dict() (stored configuration, config_hash) reads only public attributes, and
        # where a key comes from does not change a verdict.
        self._api_key = api_key
        self._api_key_variable = api_key_variable
        self.timeout = timeout
        self.temperature = temperature
        self.max_concurrency = max_concurrency
        self._budget = Budget.from_config(budget)
        # A whole batch's limit in seconds (the preview in a web request); None: each request's timeout.
        self.deadline_s = deadline_s

    @staticmethod
    def requires_reference() -> bool:
        return False

    @property
    def budget(self) -> Budget:
        return self._budget

    @budget.setter
    def budget(self, budget: Budget) -> None:
        """The pipeline swaps in the run's budget, kept in the database, for the configured limits."""
        self._budget = budget

    def model_id(self) -> str:
        return self._model_id

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "model_id": self._model_id, "budget": self._budget.limits()}

    def config_hash(self) -> str:
        # How many calls may be made, how fast and how patiently does not change a verdict: raising a
        # budget must not make the values already paid for stale.
        saved = {key: value for key, value in self.to_dict().items() if key not in OPERATIONAL_OPTIONS}
        return hashlib.sha256(json.dumps(saved, sort_keys=True).encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self._model_id!r}, base_url={self.base_url!r})"

    def client(self) -> LLMClient:
        if not self._model_id:
            raise ScorerUnavailable(
                f"{self.name()} needs a judge model: set model_id in its configuration "
                '(e.g. "openai/gpt-4o", or "ollama/llama3.1" with base_url http://127.0.0.1:11434)'
            )
        try:
            return LLMClient(
                self._model_id,
                base_url=self.base_url,
                api_key=self._api_key,
                key_variable=self._api_key_variable,
                timeout=self.timeout,
                temperature=self.temperature,
                budget=self._budget,
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
        inputs = input_text_batch or [""] * len(candidate_batch)
        contexts = context_batch or [None] * len(candidate_batch)

        def score_one(index: int) -> Score:
            try:
                return self.judge(client, candidate_batch[index] or "", inputs[index] or "", contexts[index])
            except JudgeError as exc:
                return Score.failed(str(exc))

        late = Score.failed(f"no verdict within {self.deadline_s} s")
        return map_concurrently(score_one, len(candidate_batch), self.max_concurrency, self.deadline_s, late)

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        raise NotImplementedError

    def result(self, value: float | None, label: str | None, weave: dict[str, Any], *replies: JudgeReply) -> Score:
        usage: dict[str, int] = {}
        for reply in replies:
            for key, count in reply.usage.items():
                usage[key] = usage.get(key, 0) + count
        costs = [reply.cost_usd for reply in replies]
        cost = None if None in costs else sum(c for c in costs if c is not None)
        details = {**weave, "usage": usage, "cost_usd": cost, "judge": self._model_id}
        return Score(value=value, label=label, details=details)


def context_text(context: Any) -> str:
    """The retrieved documents as one text, numbered so that the judge can refer to them."""
    if context is None:
        return ""
    documents = context if isinstance(context, list) else [context]
    parts = [doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False) for doc in documents]
    return "\n\n".join(f"[{index + 1}] {part}" for index, part in enumerate(parts))


def extract_entities(client: LLMClient, system: str, prompt: str, text: str) -> tuple[list[str], JudgeReply]:
    def check(data: dict[str, Any]) -> str | None:
        return None if all(isinstance(e, str) for e in data["entities"]) else "entities must all be strings"

    messages = prompts.messages(system, prompt, prompts.SUMMARIZATION_EXTRACTION_KEYS, text=text)
    reply = client.ask_json(messages, {"reasoning": str, "entities": list}, check)
    unique = list(dict.fromkeys(e.strip() for e in reply.data["entities"] if e.strip()))
    return unique, reply


@builtin
class LLMHallucinationFree(LLMJudge):
    display_name = "LLM Hallucination Free"
    description = (
        "Weave's HallucinationFreeScorer: a judge model reads the input (with the retrieved documents) and "
        "the output, and says whether the output states anything the input does not support. 1 (true): "
        "free of hallucinations; 0 (false): has hallucinations."
    )
    fields = ("output",)

    def __init__(
        self,
        system_prompt: str = prompts.HALLUCINATION_SYSTEM_PROMPT,
        user_prompt: str = prompts.HALLUCINATION_USER_PROMPT,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.system_prompt = system_prompt
        self.user_prompt = user_prompt

    @staticmethod
    def name() -> str:
        return "llm_hallucination_free"

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        input_data = "\n\n".join(part for part in (input_text, context_text(context)) if part)
        messages = prompts.messages(
            self.system_prompt, self.user_prompt, prompts.HALLUCINATION_KEYS, input_data=input_data, output=output
        )
        reply = client.ask_json(messages, {"reasoning": str, "has_hallucination": bool})
        has_hallucination = reply.data["has_hallucination"]
        weave = {"has_hallucination": has_hallucination, "reasoning": reply.data["reasoning"]}
        free = not has_hallucination
        return self.result(float(free), str(free).lower(), weave, reply)


@builtin
class LLMSummarization(LLMJudge):
    display_name = "LLM Summarization"
    description = (
        "Weave's SummarizationScorer: a judge model grades the output as a summary of the input, poor / ok / "
        "excellent (0 / 0.5 / 1), and the entity density of the summary (entities the judge extracts per "
        "word) is reported beside it."
    )
    fields = ("output",)

    def __init__(
        self,
        summarization_evaluation_system_prompt: str = prompts.SUMMARIZATION_EVALUATION_SYSTEM_PROMPT,
        summarization_evaluation_prompt: str = prompts.SUMMARIZATION_EVALUATION_PROMPT,
        extraction_system_prompt: str = prompts.SUMMARIZATION_EXTRACTION_SYSTEM_PROMPT,
        extraction_prompt: str = prompts.SUMMARIZATION_EXTRACTION_PROMPT,
        entity_density_threshold: float = ENTITY_DENSITY_THRESHOLD,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.summarization_evaluation_system_prompt = summarization_evaluation_system_prompt
        self.summarization_evaluation_prompt = summarization_evaluation_prompt
        self.extraction_system_prompt = extraction_system_prompt
        self.extraction_prompt = extraction_prompt
        self.entity_density_threshold = entity_density_threshold

    @staticmethod
    def name() -> str:
        return "llm_summarization"

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        entities, extraction = extract_entities(client, self.extraction_system_prompt, self.extraction_prompt, output)
        words = len(output.split())
        density = len(entities) / words if words else 0.0
        messages = prompts.messages(
            self.summarization_evaluation_system_prompt,
            self.summarization_evaluation_prompt,
            prompts.SUMMARIZATION_EVALUATION_KEYS,
            input=input_text,
            summary=output,
        )

        def check(data: dict[str, Any]) -> str | None:
            grade = data["summarization_evaluation"].strip().lower()
            return None if grade in GRADES else f"summarization_evaluation {grade!r} is not one of {list(GRADES)}"

        evaluation = client.ask_json(messages, {"think_step_by_step": str, "summarization_evaluation": str}, check)
        grade = evaluation.data["summarization_evaluation"].strip().lower()
        weave = {
            "summarization_eval_score": GRADES[grade],
            "llm_eval_reasoning": evaluation.data["think_step_by_step"],
            "entity_density": density,
            "is_entity_dense": density >= self.entity_density_threshold,
            "entities": entities,
        }
        return self.result(GRADES[grade], grade, weave, extraction, evaluation)


@builtin
class LLMContextEntityRecall(LLMJudge):
    display_name = "LLM Context Entity Recall"
    description = (
        "Weave's ContextEntityRecallScorer: the share of the entities of the output that the retrieved "
        "context also contains, both extracted by a judge model (0 to 1; case-insensitive match)."
    )
    fields = ("output",)

    def __init__(
        self,
        extraction_system_prompt: str = prompts.CONTEXT_ENTITY_SYSTEM_PROMPT,
        extraction_prompt: str = prompts.CONTEXT_ENTITY_PROMPT,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.extraction_system_prompt = extraction_system_prompt
        self.extraction_prompt = extraction_prompt

    @staticmethod
    def name() -> str:
        return "llm_context_entity_recall"

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        documents = context_text(context)
        if not documents:
            return Score.failed("the interaction has no retrieved context to recall entities from")
        expected, first = extract_entities(client, self.extraction_system_prompt, self.extraction_prompt, output)
        if not expected:
            return Score.failed("the judge found no entities in the output, so recall is undefined")
        found, second = extract_entities(client, self.extraction_system_prompt, self.extraction_prompt, documents)
        in_context = {entity.lower() for entity in found}
        matches = [entity for entity in expected if entity.lower() in in_context]
        recall = len(matches) / len(expected)
        weave = {"recall": recall, "expected_entities": expected, "context_entities": found, "matched": matches}
        return self.result(recall, None, weave, first, second)


@builtin
class LLMContextRelevancy(LLMJudge):
    display_name = "LLM Context Relevancy"
    description = (
        "Weave's ContextRelevancyScorer: a judge model rates how relevant the retrieved context is to the "
        "input question, from 0 (irrelevant) to 1 (all relevant)."
    )
    fields = ("interaction",)

    def __init__(
        self,
        system_prompt: str = prompts.RELEVANCY_SYSTEM_PROMPT,
        relevancy_prompt: str = prompts.RELEVANCY_PROMPT,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.system_prompt = system_prompt
        self.relevancy_prompt = relevancy_prompt

    @staticmethod
    def name() -> str:
        return "llm_context_relevancy"

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        documents = context_text(context)
        if not documents:
            return Score.failed("the interaction has no retrieved context to judge")
        messages = prompts.messages(
            self.system_prompt, self.relevancy_prompt, prompts.RELEVANCY_KEYS, question=input_text, context=documents
        )

        def check(data: dict[str, Any]) -> str | None:
            score = data["relevancy_score"]
            return None if 0 <= score <= 1 else f"relevancy_score {score} is outside 0..1"

        reply = client.ask_json(messages, {"reasoning": str, "relevancy_score": (int, float)}, check)
        score = float(reply.data["relevancy_score"])
        weave = {"relevancy_score": score, "reasoning": reply.data["reasoning"]}
        return self.result(score, None, weave, reply)
