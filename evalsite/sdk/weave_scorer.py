"""The base of Weave's scorer classes (`evalsite.scorers`): Weave's constructor arguments and column
mapping in front of an Evalsite property, and Weave's result dict read from the property's Score.

Plain Python, as the properties are: an `Evaluation` builds the interactions and runs the property
through the same function as the workers (`scoring.score_field`).
"""

from __future__ import annotations

import json
import warnings
from typing import Any, ClassVar

from properties.scorers.base import Score, Scorer


def as_text(value: Any) -> str:
    """A model output or dataset value as the text a property reads (JSON for structured values)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def as_documents(value: Any) -> list[str]:
    if value is None:
        return []
    return [as_text(item) for item in value] if isinstance(value, list | tuple) else [as_text(value)]


def local_or_judge(
    weave_class: str,
    local: type[Scorer],
    judge: type[Scorer],
    model_id: str | None,
    prompts: dict[str, Any],
    options: dict[str, Any],
) -> Scorer:
    """The LLM judge when a model is named (model_id, or base_url of an OpenAI-compatible server),
    else the local property. Custom prompts are the judge's: a local model cannot follow them."""
    if model_id or options.get("base_url"):
        return judge(model_id=model_id or "", **prompts, **options)
    if prompts:
        warnings.warn(
            f"{weave_class}({', '.join(sorted(prompts))}=...) instructs an LLM judge, which scores only "
            f"with a model_id; without one the local model scores ({local.name()}) and reads no prompt.",
            UserWarning,
            stacklevel=3,
        )
    return local(**options)


def given(**prompts: Any) -> dict[str, Any]:
    """The prompts the caller set (Weave's defaults are the judges' own)."""
    return {name: value for name, value in prompts.items() if value is not None}


class WeaveScorer:
    """A Weave scorer class: `scorer` is the Evalsite property that scores.

    `arguments` are Weave's `score()` parameters besides `output`, each with the interaction field
    it fills; `result_keys` the keys of the Score's details that make Weave's result dict.
    """

    arguments: ClassVar[dict[str, str]] = {}
    result_keys: ClassVar[tuple[str, ...]] = ()

    def __init__(self, scorer: Scorer, column_map: dict[str, str] | None = None) -> None:
        self.scorer = scorer
        self.column_map = dict(column_map or {})
        # As in Weave: a key that is no argument of score() is a mistake worth stopping for. The
        # model's output is always `output`: mapping it is allowed and has no effect, as in Weave.
        unknown = sorted(set(self.column_map) - {"output", *self.arguments})
        if unknown:
            parameters = ", ".join(["output", *self.arguments])
            raise ValueError(
                f"{self.name}: column_map maps {unknown}, which is not an argument of its score({parameters})"
            )

    @property
    def name(self) -> str:
        """The key of this scorer's results in an evaluation's summary, as in Weave."""
        return type(self).__name__

    @property
    def field(self) -> str:
        """The property's field that holds Weave's judgement of the output."""
        return "output" if "output" in self.scorer.fields else self.scorer.fields[0]

    def __repr__(self) -> str:
        return f"{self.name}(scorer={self.scorer!r}, column_map={self.column_map!r})"

    def arguments_of(self, row: dict[str, Any]) -> dict[str, Any]:
        """Weave's rule: the column named as the argument, else the column column_map names for it."""
        values = {}
        for argument in self.arguments:
            column = argument if argument in row else self.column_map.get(argument, argument)
            if column not in row:
                raise ValueError(
                    f"{self.name} needs {argument!r} for each row, and the dataset has no {column!r} column "
                    f"(columns: {', '.join(map(str, row))}); map one with column_map={{{argument!r}: 'column'}}"
                )
            values[argument] = row[column]
        return values

    def interaction_fields(self, output: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        """What the property reads, as Interaction fields: the output and each argument's field."""
        fields: dict[str, Any] = {"output": as_text(output)}
        for argument, field in self.arguments.items():
            value = arguments[argument]
            fields[field] = as_documents(value) if field == "information_retrieval" else as_text(value)
        return fields

    def result(self, score: Score) -> dict[str, Any] | None:
        """Weave's result for one row; None where the property gave no value (left out of the summary)."""
        if not score.ok:
            return None
        return {key: score.details[key] for key in self.result_keys if key in score.details}
