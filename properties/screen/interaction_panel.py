"""The side panel of one interaction: its fields with the chosen property's evidence marked, its
property values judged pass or fail with what each property is, and its annotation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from properties.models import Interaction, PropertyValue
from properties.projects import property_names
from properties.quality import criteria, report_card
from properties.quality.criteria import Criterion
from properties.screen import highlight
from properties.screen.forms import AnnotationForm

TEXT_FIELDS = ("input", "full_prompt", "history", "output", "expected_output")


@dataclass(frozen=True)
class Chip:
    """One property value in the panel: value, verdict, and the property's report card."""

    value: PropertyValue
    criterion: Criterion
    verdict: str
    card: report_card.Card
    # The name the table's header shows: a prompt property's own name, where its card has only its slug.
    name: property_names.PropertyName

    @property
    def reason(self) -> str:
        if self.verdict == "n/a":
            return criteria.not_applicable_reason(self.value)
        return self.value.error if self.verdict == "error" else ""


def panel_context(interaction: Interaction, highlight_address: str | None) -> dict[str, Any]:
    project = interaction.run.project
    values = list(interaction.property_values.order_by("property_name", "field"))
    names = property_names.names_for(project, [value.address for value in values])
    chips = []
    for value in values:
        criterion = criteria.criterion_for(project, value.property_name)
        card = report_card.card_for(value.property_name, criterion)
        chips.append(Chip(value, criterion, criteria.verdict(value, criterion), card, names[value.address]))
    selected = next((chip for chip in chips if chip.value.address == highlight_address), None)
    evidence = (
        highlight.evidence_of(selected.value.property_name, selected.value.spans, selected.criterion)
        if selected
        else []
    )
    spans = highlight.by_field(evidence)
    documents = [
        (
            f"information_retrieval[{i}]",
            highlight.segments(document_text(document), spans.get(f"information_retrieval[{i}]", [])),
        )
        for i, document in enumerate(interaction.information_retrieval)
    ]
    texts = {name: highlight.segments(getattr(interaction, name), spans.get(name, [])) for name in TEXT_FIELDS}
    return {
        "interaction": interaction,
        "chips": chips,
        "selected": selected,
        "evidence": evidence,
        "legend": highlight.legend(evidence) if evidence else [],
        "texts": texts,
        "documents": documents,
        "annotation_form": AnnotationForm(
            initial={"annotation": interaction.annotation, "reason": interaction.annotation_reason}
        ),
    }


def document_text(document: Any) -> str:
    """Spans index into the document's text: a string, or the text of a record (as the scorers read it)."""
    if isinstance(document, dict):
        for key in ("content", "text", "page_content"):
            if isinstance(document.get(key), str):
                return document[key]
    return str(document)
