"""A property written as a prompt: a user's template over the interaction's fields, judged by a chat model.

The template names the fields it reads as `{input}`, `{output}`, `{information_retrieval}` and
`{expected_output}`; each is replaced by a quoted data block (llm_prompts.fill), so the interaction
text stays data whatever it says. The model answers with its reasoning first, then a verdict of the
property's output type: a score from 0 to 1, one category of a list, or a boolean.
"""

from __future__ import annotations

import json
import re
from typing import Any

from properties.scorers.base import Score
from properties.scorers.llm import prompts
from properties.scorers.llm.client import JudgeReply, LLMClient
from properties.scorers.llm.judges import LLMJudge, context_text

PLACEHOLDERS = ("input", "output", "information_retrieval", "expected_output")
OUTPUT_TYPES = ("score", "category", "boolean")
# Any `{word}`, whatever its case: `{Output}` is a typo to report, not text to send as it is.
ANY_PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_]\w*)\s*\}")
SYSTEM_PROMPT = (
    "You evaluate one interaction of an LLM application. The user message holds the evaluation "
    "instructions, written by the application's developers, and the interaction's fields to evaluate."
)
VERDICT_KEYS = {"score": "score", "category": "category", "boolean": "verdict"}


def check_template(template: str) -> None:
    """Raise ValueError unless the template reads at least one field and names only known ones."""
    names = ANY_PLACEHOLDER.findall(template)
    known = ", ".join("{" + name + "}" for name in PLACEHOLDERS)
    unknown = sorted({name for name in names if name not in PLACEHOLDERS})
    if unknown:
        shown = ", ".join("{" + name + "}" for name in unknown)
        raise ValueError(f"unknown placeholder(s) {shown} in the template; use {known}")
    if not names:
        raise ValueError(f"the template reads no field of the interaction; use one or more of {known}")


def check_output_type(output_type: str, categories: list[str]) -> None:
    if output_type not in OUTPUT_TYPES:
        raise ValueError(f"output_type must be one of {', '.join(OUTPUT_TYPES)}, not {output_type!r}")
    if output_type == "category":
        if len(categories) < 2:
            raise ValueError("a category property needs at least two categories")
        if len({category.lower() for category in categories}) != len(categories):
            raise ValueError("the categories must differ (case is ignored)")


class PromptJudge(LLMJudge):
    """One project's prompt property. Not in the registry: the pipeline builds it from the project's row."""

    display_name = "Prompt property"
    description = "A property written as a prompt over the interaction's fields, judged by a chat model."
    fields = ("interaction",)

    def __init__(
        self,
        property_name: str = "prompt_property",
        template: str = "",
        output_type: str = "score",
        categories: list[str] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.property_name = property_name
        self.template = template
        self.output_type = output_type
        self.categories = [category.strip() for category in categories or [] if category.strip()]
        check_template(template)
        check_output_type(output_type, self.categories)

    @staticmethod
    def name() -> str:
        return "prompt_property"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def verdict_keys(self) -> str:
        if self.output_type == "score":
            return '"reasoning" (string), "score" (number from 0 to 1)'
        if self.output_type == "category":
            choices = ", ".join(json.dumps(category) for category in self.categories)
            return f'"reasoning" (string), "category" (exactly one of {choices})'
        return '"reasoning" (string), "verdict" (true or false)'

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        references = reference_batch or [""] * len(candidate_batch)
        contexts = context_batch or [None] * len(candidate_batch)
        # judge() gets one context per item: the expected output travels beside the documents.
        paired = [(context, reference or "") for context, reference in zip(contexts, references, strict=True)]
        return super().run_batch(candidate_batch, None, input_text_batch, paired)

    def judge(self, client: LLMClient, output: str, input_text: str, context: Any) -> Score:
        documents, expected_output = context
        texts = {
            "input": input_text,
            "output": output,
            "information_retrieval": context_text(documents),
            "expected_output": expected_output,
        }
        messages = prompts.messages(SYSTEM_PROMPT, self.template, self.verdict_keys(), **texts)
        key = VERDICT_KEYS[self.output_type]
        expected: dict[str, type | tuple[type, ...]] = {"reasoning": str}
        expected[key] = {"score": (int, float), "category": str, "boolean": bool}[self.output_type]
        reply = client.ask_json(messages, expected, self.check_verdict)
        return self.verdict(reply)

    def check_verdict(self, data: dict[str, Any]) -> str | None:
        if self.output_type == "score" and not 0 <= data["score"] <= 1:
            return f"score {data['score']} is outside 0..1"
        if self.output_type == "category" and self.category_of(data["category"]) is None:
            return f"category {data['category']!r} is not one of {self.categories}"
        return None

    def category_of(self, answer: str) -> str | None:
        """The category as the property defines it, matched without regard to case or spaces."""
        return next((c for c in self.categories if c.lower() == answer.strip().lower()), None)

    def verdict(self, reply: JudgeReply) -> Score:
        reasoning = reply.data["reasoning"]
        if self.output_type == "score":
            score = float(reply.data["score"])
            return self.result(score, None, {"score": score, "reasoning": reasoning}, reply)
        if self.output_type == "category":
            category = self.category_of(reply.data["category"])
            return self.result(None, category, {"category": category, "reasoning": reasoning}, reply)
        verdict = reply.data["verdict"]
        return self.result(float(verdict), str(verdict).lower(), {"verdict": verdict, "reasoning": reasoning}, reply)
