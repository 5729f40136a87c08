"""The scorer contract, compatible with Arthur Bench's custom scorers.

A scorer is batch-only: `run_batch` takes parallel lists and returns one float or `Score` per
item. Where a property has per-field values (`fields = ("input", "output")`), the pipeline calls
`run_batch` once per field with that field's texts as `candidate_batch`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

FIELDS = ("input", "output", "interaction")


# Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, three times
# the cost of this one, and the cheap properties make a span for most values they score.
@dataclass(slots=True)
class Span:
    """Evidence: character offsets into a named field (`output`, `input`, `information_retrieval[2]`)."""

    field: str
    start: int
    end: int
    label: str = ""
    score: float | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        # By hand: dataclasses.asdict copies each field recursively, and these are all scalars.
        return {
            "field": self.field,
            "start": self.start,
            "end": self.end,
            "label": self.label,
            "score": self.score,
            "note": self.note,
        }


@dataclass
class Score:
    """One item's result: a number, a category, or an error, with the evidence that explains it.

    An item the property does not apply to (no retrieved documents for a retrieval property, no
    reference for a reference-based one) is *not applicable*: no value, not an error, and left out
    of summaries; `not_applicable_reason` says why.
    """

    value: float | None = None
    label: str | None = None
    spans: list[Span] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    not_applicable_reason: str | None = None

    @classmethod
    def failed(cls, message: str) -> Score:
        return cls(error=message)

    @classmethod
    def not_applicable(cls, reason: str) -> Score:
        return cls(not_applicable_reason=reason)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def applicable(self) -> bool:
        return self.not_applicable_reason is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "label": self.label,
            "spans": [span.to_dict() for span in self.spans],
            "details": self.details,
            "error": self.error,
            "not_applicable": self.not_applicable_reason,
        }


def as_score(result: float | int | bool | str | Score | None) -> Score:
    """Normalise what a scorer returned for one item (Bench scorers return plain floats)."""
    if isinstance(result, Score):
        return result
    if result is None:
        return Score.failed("the scorer returned no value")
    if isinstance(result, bool):
        return Score(value=float(result), label=str(result).lower())
    if isinstance(result, int | float):
        return Score(value=float(result))
    return Score(label=str(result))


def full_context(information_retrieval: Any = None, full_prompt: str = "", history: str = "") -> dict[str, Any]:
    """What a `uses_full_context` scorer gets per item in `context_batch`."""
    return {
        "information_retrieval": information_retrieval or [],
        "full_prompt": full_prompt or "",
        "history": history or "",
    }


class ScorerUnavailable(Exception):
    """A scorer cannot run at all here (a model that cannot load, a missing dependency)."""


class Scorer(ABC):
    """Base class of every property. The public interface is Arthur Bench's."""

    # Evalsite's own metadata; a Bench scorer that sets none of it still works.
    display_name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    fields: ClassVar[tuple[str, ...]] = ("output",)
    queue: ClassVar[str] = "cpu"
    version: ClassVar[str] = "1"
    # False: `context_batch` holds each interaction's retrieved documents (Bench's contract).
    # True: it holds `full_context()` records, for properties that judge against everything
    # the model was given (input aside, which comes as `input_text_batch`).
    uses_full_context: ClassVar[bool] = False
    _current_field: str = "output"

    @staticmethod
    @abstractmethod
    def name() -> str: ...

    @staticmethod
    def requires_reference() -> bool:
        return True

    @staticmethod
    def is_categorical() -> bool:
        return False

    def scored_in_streams(self) -> bool:
        """Whether a models worker's pool process may score this property in streams: threads side by
        side, each with its own scorer on a share of the chunk (`scoring._score_properties`). True only
        for the packaged ONNX models, which are safe across threads and release the GIL while they
        compute. Not a user's plugin (it may keep state between calls), and not a model in torch: its
        many small operations take turns on the GIL, and Fluency's LM ran 60% slower in two streams
        than in one stream of two threads."""
        return False

    @staticmethod
    def categories() -> list[str] | None:
        return None

    @abstractmethod
    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]: ...

    async def arun_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        """Bench's optional async form. By default `run_batch` in a worker thread, so that an
        event loop (an Evaluation, a notebook) is not blocked by a CPU-bound or blocking scorer."""
        return await asyncio.to_thread(
            self.run_batch, candidate_batch, reference_batch, input_text_batch, context_batch
        )

    def run(
        self,
        candidate_outputs: list[str],
        reference_outputs: list[str] | None = None,
        inputs: list[str] | None = None,
        contexts: list[Any] | None = None,
        batch_size: int = 5,
    ) -> list[float | Score]:
        """Score whole lists in batches, as Bench's `Scorer.run` does."""
        results: list[float | Score] = []
        for start in range(0, len(candidate_outputs), batch_size):
            end = start + batch_size
            results.extend(
                self.run_batch(
                    candidate_outputs[start:end],
                    reference_outputs[start:end] if reference_outputs is not None else None,
                    inputs[start:end] if inputs is not None else None,
                    contexts[start:end] if contexts is not None else None,
                )
            )
        return results

    @property
    def current_field(self) -> str:
        """The field being scored, set by the pipeline before each `run_batch`, for the spans.

        Kept in a private attribute: `to_dict()` reads public attributes as configuration, and
        the field being scored must not change `config_hash()`.
        """
        return self._current_field

    @current_field.setter
    def current_field(self, field: str) -> None:
        self._current_field = field

    def model_id(self) -> str:
        """Which model produces the values ('' for scorers without one); stored with each value."""
        return ""

    def to_dict(self) -> dict[str, Any]:
        """The scorer's configuration: its JSON-serialisable public attributes."""
        config = {}
        for key, value in vars(self).items():
            # column_map says which dataset column feeds which argument (an Evaluation's
            # wiring), not how the scorer scores: it must not make stored values stale.
            if key.startswith("_") or key == "column_map":
                continue
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                continue
            config[key] = value
        return config

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> Scorer:
        return cls(**config)

    def config_hash(self) -> str:
        """A short digest of the configuration: a value computed under another one is stale."""
        text = json.dumps(self.to_dict(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def version_key(self) -> str:
        """What a stored value must match to be current: scorer version and configuration."""
        return f"{self.version}:{self.config_hash()}"


class OutputScorer(Scorer):
    """A scorer of the output alone, one text at a time; `check` scores one text."""

    fields = ("output",)
    queue = "cpu"
    version = "1"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        field = getattr(self, "current_field", "output")
        return [self.check(text or "", field) for text in candidate_batch]

    @abstractmethod
    def check(self, text: str, field: str) -> Score: ...
