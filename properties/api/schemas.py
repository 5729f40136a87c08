"""The API's request and response schemas, and the errors every route may answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import AfterValidator

from properties.projects import project_templates
from properties.screen import filters
from properties.uploads.file_formats import BAD_TEXT

MAX_PAGE = 500


# Offsets past this are refused (422) rather than sent to the database, whose integers are 64-bit.
MAX_OFFSET = 10**12


def _storable(value: Any) -> Any:
    """Text the database can store: no NUL character (PostgreSQL refuses it), no lone surrogate, no
    noncharacter, in a string or anywhere in a JSON value (keys too); refused, not cleaned, so that
    what is stored is what was sent."""
    if isinstance(value, str):
        if BAD_TEXT.search(value):
            raise ValueError("contains a NUL character, a lone surrogate or a noncharacter, which cannot be stored")
    elif isinstance(value, dict):
        for key, item in value.items():
            _storable(key)
            _storable(item)
    elif isinstance(value, list):
        for item in value:
            _storable(item)
    return value


StorableText = Annotated[str, AfterValidator(_storable)]
StorableJSON = Annotated[dict[str, Any], AfterValidator(_storable)]


class ErrorOut(Schema):
    detail: Any


ERRORS: dict[int, type[Schema]] = dict.fromkeys((400, 401, 404, 413, 422, 429), ErrorOut)


class ProjectIn(Schema):
    name: StorableText = Field(min_length=1, max_length=200)
    description: StorableText = ""
    template: Literal[tuple(project_templates.TEMPLATES)] = Field(  # type: ignore[valid-type]
        project_templates.DEFAULT_TEMPLATE,
        description="What the application does: its template picks the properties scored and the key ones.",
    )
    properties: list[str] | None = Field(None, description="Properties scored; the template's if omitted.")


class ProjectOut(Schema):
    id: int
    name: str
    description: str
    template: str
    enabled_properties: list[str]
    key_properties: list[str]
    created_at: datetime


class PassCriterionIn(Schema):
    direction: Literal["higher", "lower", ""] = Field(
        description="higher: passes at the threshold and above; lower: passes below it; empty: no pass or fail."
    )
    threshold: float | None = Field(None, description="Inside the property's range; needed with a direction.")
    tolerance: float | None = Field(None, ge=0, description="The smallest change the row-by-row comparison shows.")
    key: bool = Field(False, description="A key property: a default Data Screen column and comparison chart.")


class PassCriterionOut(Schema):
    property: str
    direction: str
    threshold: float | None
    tolerance: float
    low: float | None = Field(description="The property's range, low end; null: unbounded.")
    high: float | None
    key: bool
    describe: str = Field(description='In words: "lower is better; passes below 0.5".')


class RunIn(Schema):
    name: StorableText = Field(min_length=1, max_length=200)
    environment: Literal["evaluation", "production"] = "evaluation"
    description: StorableText = ""
    metadata: StorableJSON = {}


class RunOut(Schema):
    id: int
    project_id: int
    name: str
    environment: str
    description: str
    metadata: dict[str, Any]
    created_at: datetime


class InteractionsIn(Schema):
    interactions: list[dict[str, Any]] = Field(min_length=1, description="Rows, as in an uploaded JSON file.")
    column_mapping: dict[str, str | list[str]] | None = None


class RowErrorOut(Schema):
    row: int | None = Field(description="1-based position in the batch; null for a problem with the whole batch")
    field: str
    reason: str


class LogOut(Schema):
    accepted: int
    rejected: int
    errors: list[RowErrorOut]


class ScoreIn(Schema):
    properties: list[str] | None = Field(None, description="The project's enabled properties if omitted.")


class JobOut(Schema):
    id: int
    run_id: int
    status: str = Field(
        description="planning (a worker lists what to score), pending, running, done, failed, cancelled"
    )
    properties: list[str]
    total: int
    done: int
    failed: int
    not_applicable: int = Field(description="Of done, the items the property does not apply to (no documents...).")
    percent: int
    last_error: str
    failure: str = Field(description="Why the job failed or was cancelled; empty otherwise.")
    notice: str = Field(description="The latest word on the job: chunks sent again after a worker was lost...")


class WaitingOut(Schema):
    chunks: int = Field(description="Chunks of other runs in flight on the queues this run waits on.")
    jobs: int
    projects: int
    seconds: float | None = Field(description="Their time to finish at the queues' current rate; null: unknown.")
    text: str = Field(description='In words, as the run page says it: "after 1 job of another project, ..."')


class RunProgressOut(Schema):
    status: str = Field(description="none, planning, pending, running (some job open), else the latest job's")
    total: int = Field(description="Items of every job of the run: values for scoring, interactions for rules.")
    done: int
    failed: int
    not_applicable: int
    left: int
    percent: int
    jobs: int
    open_jobs: int
    seconds_left: float | None = Field(description="From the rate measured on the open jobs; null: not yet known.")
    waiting_behind: WaitingOut | None = Field(description="While none of the run's chunks has started.")
    by_kind: dict[str, dict[str, int]] = Field(description="The same counts per kind of job: scoring, annotation.")


class InteractionOut(Schema):
    id: int
    user_interaction_id: str
    input: str
    information_retrieval: list[Any]
    output: str
    expected_output: str
    annotation: str
    metadata: dict[str, Any]
    properties: dict[str, float | str | None]
    not_applicable: dict[str, str] = Field(
        default_factory=dict,
        description="Why a property whose value is null does not apply here (no documents, no reference), by address.",
    )


class InteractionPage(Schema):
    count: int
    items: list[InteractionOut]


class InteractionFilters(Schema):
    filter: list[str] = Field(
        [],
        max_length=filters.MAX_CONDITIONS,
        description=(
            "Filters in the Data Screen's language, e.g. `toxicity.output < 0.1`, `failing:grounded_in_context`, "
            '`annotation = bad OR text ~ "refund"` (repeated: all must hold; '
            f"at most {filters.MAX_CONDITIONS} conditions)."
        ),
    )
    annotation: Literal["good", "bad", "unknown"] | None = None
    view: int | None = Field(
        None,
        description="A saved view of the run's project (GET /api/projects/{id}/views): its filter, annotation, "
        "search and sort; `filter=` and `annotation=` narrow it further.",
    )
    limit: int = Field(50, ge=1, le=MAX_PAGE)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)


class PropertySummary(Schema):
    count: int
    errors: int
    not_applicable: int = 0
    mean: float | None


class LLMUsageOut(Schema):
    """What the run's LLM-judged properties used, summed (cost only where the price is known)."""

    calls: int
    tokens: int
    cost_usd: float
    unpriced_calls: int


class SummaryOut(Schema):
    run_id: int
    interactions: int
    properties: dict[str, PropertySummary]
    annotations: dict[str, int]
    llm_usage: LLMUsageOut


class ConfusionOut(Schema):
    threshold: float
    passed_good: int
    passed_bad: int
    failed_good: int
    failed_bad: int
    balanced_accuracy: float = Field(description="Mean of the share of good that pass and of bad that fail.")
    precision: float | None = Field(description="Of the interactions failed, the share labelled bad; null: none fails.")
    recall: float = Field(description="Of the interactions labelled bad, the share failed.")


class SuggestionOut(ConfusionOut):
    goal: Literal["balanced_accuracy", "precision"]
    target_precision: float | None


class LabelAgreementOut(Schema):
    label: str
    good: int
    bad: int


class ThresholdChangeOut(Schema):
    threshold: float | None
    direction: str
    previous_threshold: float | None
    set_by: str | None
    set_at: datetime
    how: Literal["form", "suggested", "api"]
    note: str


class AgreementOut(Schema):
    property: str
    address: str = Field(description="The value measured: the interaction's, else the output's.")
    runs: list[int]
    direction: str = Field(description="higher or lower: the property's own, or inferred from the labels.")
    direction_inferred: bool
    threshold: float | None = Field(description="The project's current threshold; null without pass or fail.")
    sources: dict[str, dict[str, int]] = Field(
        description="Good and bad labels by source: person (Data Screen), uploaded (with the data), rules "
        "(auto-annotation, left out of the figures)."
    )
    good: int = Field(description="People's good labels on interactions with a value of the property.")
    bad: int
    without_value: int = Field(description="People's labels on interactions without a value (left out).")
    minimum_per_label: int
    needed: dict[str, int] = Field(description="More labels of each kind the figures need; figures are null until 0.")
    roc_auc: float | None
    roc_auc_interval: list[float] | None = Field(description="95% bootstrap interval (1000 stratified resamples).")
    current: ConfusionOut | None
    suggested: SuggestionOut | None = Field(description="Null when no threshold beats chance or reaches the target.")
    by_label: list[LabelAgreementOut] | None = Field(description="For a property of labels (Content Type) instead.")
    disagreements: dict[str, int] = Field(description="Interactions whose verdict contradicts the label, by run id.")
    threshold_change: ThresholdChangeOut | None = Field(description="Who set the current threshold, when and how.")


class ThresholdIn(Schema):
    threshold: float = Field(allow_inf_nan=False)
    direction: Literal["higher", "lower"] | None = Field(None, description="The current direction if omitted.")


class SavedViewIn(Schema):
    """Checked as the Data Screen checks a view it saves; each problem names its field."""

    name: str = Field(description="Unique within the project, at most 100 characters.")
    where: str = Field("", description="The filter, in the Data Screen's language (as `filter=` takes it).")
    annotation: str = Field("", description="good, bad, unknown or empty (any).")
    source: str = Field("", description="Who set the annotation: person, estimated (the rules) or empty (anyone).")
    search: str = Field("", description="Text searched in the input or output (the screen's Search box).")
    search_in: str = Field("both", description="both, input or output.")
    errors_only: bool = False
    columns: list[str] = Field([], description="Property addresses of the project, in order; empty: the key ones.")
    sort: str = Field("", description="id, annotation, user_interaction_id or a property address; - for descending.")


class SavedViewOut(Schema):
    id: int
    project_id: int
    name: str
    where: str
    annotation: str
    source: str
    search: str
    search_in: str
    errors_only: bool
    columns: list[str]
    sort: str
    created_by: str | None = Field(description="The author's username; null once their account is gone.")
    created_at: datetime

    @staticmethod
    def resolve_created_by(view: Any) -> str | None:
        return view.created_by.username if view.created_by else None
