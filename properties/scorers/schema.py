"""Schema: does the output validate against a JSON Schema or a Pydantic model (Weave's PydanticScorer)."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import jsonschema
import pydantic
import referencing.exceptions
from jsonschema_specifications import REGISTRY as SPECIFICATIONS

from properties.scorers.base import OutputScorer, Score, Span
from properties.scorers.registry import builtin
from properties.scorers.text.json_paths import PathPart, format_path, locate
from properties.scorers.valid_json import json_value_offset, not_json

MAX_ERRORS = 20  # enough to fix an output; a wholly wrong document would otherwise list hundreds

# (path parts, message, the path of what the message is about: a missing field's own path, which the
# output does not hold, so that its object's end is marked where the field would go)
Problem = tuple[Sequence[PathPart], str, Sequence[PathPart]]
Check = Callable[[str], list[Problem]]


class SchemaConfigError(Exception):
    pass


def _json_schema_check(schema: dict[str, Any]) -> Check:
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaConfigError(f"json_schema is not a valid JSON Schema: {exc.message}") from exc
    # jsonschema's default registry fetches remote `$ref`s with urlopen (deprecated behaviour): from a
    # worker that is a request to wherever the schema points. Only the official meta-schemas resolve.
    validator = validator_class(schema, registry=SPECIFICATIONS)

    def check(text: str) -> list[Problem]:
        if not json_value_offset(text)[0]:
            return [((), "the output is not valid JSON: it does not start with a JSON value", ())]
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return [((), f"the output is not valid JSON: {exc}", ())]
        try:
            # allOf/anyOf branches repeat the same complaint; once is enough.
            found = dict.fromkeys(
                problem for error in validator.iter_errors(document) for problem in _problems_of(error)
            )
        except referencing.exceptions.Unresolvable as exc:
            raise SchemaConfigError(f"json_schema has a $ref that cannot be resolved offline: {exc}") from exc
        return sorted(found, key=lambda problem: [str(part) for part in problem[0]])[:MAX_ERRORS]

    return check


def _problems_of(error: jsonschema.ValidationError) -> list[Problem]:
    """The error at its path; an object's keys that its schema does not allow, each at its own path,
    so that each is highlighted where it is written; a missing field about its own path."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        named = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        extra = [key for key in error.instance if key not in named and not any(re.search(p, key) for p in patterns)]
        if extra:
            return [((*path, key), f"{key!r} is not allowed here: {error.message}", (*path, key)) for key in extra]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [key for key in error.validator_value if key not in error.instance and repr(key) in error.message]
        if missing:
            return [(path, error.message, (*path, missing[0]))]
    return [(path, error.message, path)]


def _pydantic_check(dotted_path: str) -> Check:
    module_name, _, attribute = dotted_path.rpartition(".")
    try:
        model = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as exc:
        raise SchemaConfigError(f"cannot import pydantic_model {dotted_path!r}: {exc}") from exc
    if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)):
        raise SchemaConfigError(f"pydantic_model {dotted_path!r} is not a pydantic.BaseModel subclass")
    return _model_check(model)


def _model_check(model: type[pydantic.BaseModel]) -> Check:
    def check(text: str) -> list[Problem]:
        try:
            model.model_validate_json(text)
        except pydantic.ValidationError as exc:
            return [(error["loc"], error["msg"], error["loc"]) for error in exc.errors()[:MAX_ERRORS]]
        return []

    return check


@builtin
class Schema(OutputScorer):
    display_name = "Schema"
    description = (
        "Whether the output is JSON that validates against the configured JSON Schema or Pydantic "
        "model (Weave's PydanticScorer): 1 (true) or 0 (false). The failing paths ($.a.b[0]) and their "
        "messages are listed in the details and highlighted where they occur in the output (a missing field "
        "on its object, a field not allowed on its value). The whole "
        "output must be the JSON document; a markdown code fence makes it false."
    )

    def __init__(
        self, json_schema: dict[str, Any] | None = None, pydantic_model: str | type[pydantic.BaseModel] | None = None
    ) -> None:
        self.json_schema = json_schema
        # A class (Weave's PydanticScorer(model=...), from Python) is used as given, wherever it was
        # defined; its dotted path names it in the stored configuration.
        self._model_class = pydantic_model if isinstance(pydantic_model, type) else None
        if self._model_class is not None:
            pydantic_model = f"{self._model_class.__module__}.{self._model_class.__qualname__}"
        self.pydantic_model = pydantic_model
        self._check: Check | None = None

    @staticmethod
    def name() -> str:
        return "schema"

    def _checker(self) -> Check:
        if self._check is None:
            if self.json_schema is not None and self.pydantic_model:
                raise SchemaConfigError("configure json_schema or pydantic_model, not both")
            if self.json_schema is not None:
                self._check = _json_schema_check(self.json_schema)
            elif self._model_class is not None:
                self._check = _model_check(self._model_class)
            elif self.pydantic_model:
                self._check = _pydantic_check(self.pydantic_model)
            else:
                raise SchemaConfigError("configure json_schema or pydantic_model")
        return self._check

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        try:
            self._checker()
        except SchemaConfigError as exc:
            return [Score.failed(str(exc)) for _ in candidate_batch]
        return super().run_batch(candidate_batch, reference_batch, input_text_batch, context_batch)

    def check(self, text: str, field: str) -> Score:
        try:
            problems = self._checker()(text)
        except SchemaConfigError as exc:
            return Score.failed(str(exc))
        if not problems:
            return Score(1.0, "true", [], {"schema_valid": True, "errors": []})
        errors = [{"path": format_path(parts), "message": message} for parts, message, _ in problems]
        # A problem about the document as a whole may be that it is no JSON at all: then what makes it not
        # JSON is the evidence. Only then is the text decoded again.
        _, spans = not_json(text, field) if any(not about for _, _, about in problems) else ("", [])
        if spans:
            return Score(0.0, "false", spans, {"schema_valid": False, "errors": errors})
        for (_, message, about), error in zip(problems, errors, strict=True):
            if (where := _where(text, list(about))) is not None:
                spans.append(Span(field, where[0], where[1], error["path"], None, message))
        return Score(0.0, "false", spans, {"schema_valid": False, "errors": errors})


def _where(text: str, parts: list[PathPart]) -> tuple[int, int] | None:
    """Where the path's value is written; for a value the output lacks (a missing field), the closing
    character of its nearest enclosing value, where it would go. Marking the whole object instead
    would hide the other errors inside it: the page shows overlapping spans as the first one."""
    if (where := locate(text, parts)) is not None:
        return where
    for depth in range(len(parts) - 1, -1, -1):
        if (where := locate(text, parts[:depth])) is not None:
            return where[1] - 1, where[1]
    return None
