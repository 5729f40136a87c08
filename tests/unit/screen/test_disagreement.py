"""`disagrees:<property>` in the Data Screen's filter: the interactions where a property's verdict
and a person's label differ, furthest from the threshold first; the rules' labels never count."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from properties.annotations import annotation
from properties.screen import datascreen, filters
from tests.factories import InteractionFactory, ProjectFactory, RunFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

# (id, grounded_in_context, label, source): the default threshold is 0.5, higher is better.
ROWS = [
    ("pass-bad-far", 0.95, "bad", "person"),  # passes, a person says bad: 0.45 from the threshold
    ("pass-bad-near", 0.55, "bad", ""),  # passes, bad in the uploaded file: 0.05 away
    ("fail-good", 0.2, "good", "person"),  # fails, good: 0.3 away
    ("fail-good-rules", 0.1, "good", "estimated"),  # a rule's label: left out
    ("pass-good", 0.8, "good", "person"),  # agrees
    ("fail-bad", 0.3, "bad", "person"),  # agrees
    ("unlabelled", 0.9, "unknown", ""),
]


@pytest.fixture
def run():
    run = RunFactory(project=ProjectFactory(enabled_properties=["grounded_in_context"]))
    for uid, value, label, source in ROWS:
        interaction = InteractionFactory(run=run, user_interaction_id=uid)
        interaction.annotation, interaction.annotation_source = label, source
        interaction.save()
        add_value(interaction, "grounded_in_context", value=value)
    return run


def listed(run, query_string):
    query = datascreen.ScreenQuery.from_params(QueryDict(query_string))
    return [i.user_interaction_id for i in datascreen.filtered_interactions(run, query)], query.problems


def test_disagreements_furthest_from_the_threshold_first(run):
    ids, problems = listed(run, "where=disagrees:grounded_in_context")
    assert problems == []
    assert ids == ["pass-bad-far", "fail-good", "pass-bad-near"]
    # Sorting by a column still wins, and other conditions narrow the list.
    assert listed(run, "where=disagrees:grounded_in_context&sort=-id")[0] == [
        "fail-good",
        "pass-bad-near",
        "pass-bad-far",
    ]
    assert listed(run, "where=disagrees:grounded_in_context&where=grounded_in_context>0.5")[0] == [
        "pass-bad-far",
        "pass-bad-near",
    ]
    assert listed(run, "where=disagrees:grounded_in_context&annotation=good")[0] == ["fail-good"]


def test_the_threshold_and_direction_of_the_project_decide(run):
    project = run.project
    project.pass_criteria = {"grounded_in_context": {"direction": "higher", "threshold": 0.25, "tolerance": 0.01}}
    project.save()
    # At 0.25 only 0.2 fails: fail-good disagrees 0.05 away; the two passing bad ones 0.7 and 0.3 away;
    # fail-bad (0.3) now passes while bad: 0.05 away, after fail-good by id.
    assert listed(run, "where=disagrees:grounded_in_context")[0] == [
        "pass-bad-far",
        "pass-bad-near",
        "fail-good",
        "fail-bad",
    ]
    project.pass_criteria = {"grounded_in_context": {"direction": "lower", "threshold": 0.5, "tolerance": 0.01}}
    project.save()
    # Lower is better: 0.8 fails while good (0.3 away), 0.3 passes while bad (0.2 away).
    assert listed(run, "where=disagrees:grounded_in_context")[0] == ["pass-good", "fail-bad"]


def test_a_property_without_pass_or_fail_says_so(run):
    run.project.pass_criteria = {"grounded_in_context": {"direction": "", "threshold": None}}
    run.project.save()
    ids, problems = listed(run, "where=disagrees:grounded_in_context")
    assert ids == []
    assert problems == [
        "grounded_in_context.output neither passes nor fails: set its direction and threshold on its settings page"
    ]


def test_the_condition_reads_back_as_written():
    condition = filters.parse("disagrees: grounded_in_context")
    assert (condition.status, condition.address, str(condition)) == (
        "disagrees",
        "grounded_in_context.output",
        "disagrees:grounded_in_context.output",
    )


def test_rules_keep_labels_uploaded_with_the_data(run):
    uploaded = run.interactions.get(user_interaction_id="pass-bad-near")
    ruled = run.interactions.get(user_interaction_id="fail-good-rules")
    blocks = annotation.rules.parse_rules(
        "- annotation: good\n  conditions:\n    - {property: grounded_in_context.output, operator: GT, value: 0.0}"
    )
    annotation.apply_rules(blocks, [uploaded, ruled])
    uploaded.refresh_from_db()
    ruled.refresh_from_db()
    assert (uploaded.annotation, uploaded.annotation_source, uploaded.estimated_annotation) == ("bad", "", "good")
    assert (ruled.annotation, ruled.annotation_source) == ("good", "estimated")
