import time

import pytest
from django.urls import reverse

from properties.annotations import annotation, project_rules, rules
from properties.models import Project, ScoringJob
from properties.projects import project_templates
from properties.tasks import annotate_run_task
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

RULES = """
- annotation: bad
  operator: OR
  conditions:
    - {property: toxicity.output, operator: GT, value: 0.5}
    - {property: content_type.output, operator: IN, value: [sql]}
- annotation: good
  operator: AND
  conditions:
    - {property: toxicity.output, operator: LE, value: 0.5}
    - {property: content_type.output, operator: EQ, value: other}
"""


@pytest.mark.django_db
@pytest.mark.parametrize("template", list(project_templates.TEMPLATES))
def test_each_templates_default_rules_parse_and_name_only_its_properties(template):
    project = Project(name="p")
    project_templates.apply(project, template)
    project.save()
    blocks = project_rules.parse_for(project, project_rules.default_rules_text(project))
    named = {condition.prop for block in blocks for condition in block.conditions}
    assert named and named <= set(project.enabled_properties)
    assert [block.annotation for block in blocks] == ["bad", "good"]


@pytest.mark.django_db
def test_the_rag_defaults_can_label_good_and_follow_the_thresholds():
    """Once the good block needed fluency.output, which the RAG template does not score, and the PII
    rule (> 0.8) missed an e-mail address at 0.792 that fails PII Risk's threshold (0.5)."""
    project = Project(name="rag")
    project_templates.apply(project, "rag")
    project.save()
    text = project_rules.default_rules_text(project)
    assert "fluency" not in text
    blocks = project_rules.parse_for(project, text)
    passing = {
        "grounded_in_context.output": 0.9,
        "retrieval_relevance": 0.8,
        "context_relevancy": 0.7,
        "relevance.output": 0.9,
        "avoided_answer.output": 0.1,
        "pii_risk.output": 0.0,
        "toxicity.output": 0.01,
    }
    assert rules.decide(blocks, passing)[0] == "good"
    label, reason = rules.decide(blocks, {**passing, "pii_risk.output": 0.792})
    assert label == "bad" and "pii_risk.output=0.792 GE 0.5" in reason
    project.pass_criteria = {"grounded_in_context": {"direction": "higher", "threshold": 0.95}}
    stricter = project_rules.parse_for(project, project_rules.default_rules_text(project))
    assert rules.decide(stricter, passing)[0] == "bad", "a project's own threshold moves its default rules"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("condition", "message"),
    [
        (
            "{property: groundedness.output, operator: LT, value: 0.5}",
            "line 4: groundedness.output: the project scores no property 'groundedness'",
        ),
        (
            "{property: toxicity.output, operator: GT, value: 2}",
            "line 4: toxicity.output GT 2: the value is outside the property's range (0 to 1)",
        ),
        (
            "{property: toxicity.output, operator: LT, value: -1}",
            "line 4: toxicity.output LT -1: the value is outside the property's range (0 to 1)",
        ),
        ("{property: toxicity.input, operator: GT, value: 0.5}", None),
        ("{property: grounded_in_context.input, operator: GT, value: 0.5}", "has no input value"),
        ("{property: content_type.output, operator: GT, value: 0.5}", "is a label, not a number"),
        ("{property: content_type.output, operator: IN, value: [sql, poetry]}", "has no label poetry"),
        ("{property: toxicity.output, operator: IN, value: [0.1, 1.5]}", "outside the property's range"),
    ],
)
def test_rules_are_checked_against_the_projects_properties_and_ranges(condition, message):
    project = ProjectFactory(enabled_properties=["toxicity", "grounded_in_context", "content_type"])
    text = f"# checked\n- annotation: bad\n  conditions:\n    - {condition}\n"
    if message is None:
        assert project_rules.parse_for(project, text)
        return
    with pytest.raises(rules.RulesError) as error:
        project_rules.parse_for(project, text)
    assert any(message in problem for problem in error.value.problems), error.value.problems


@pytest.mark.django_db
def test_a_preview_counts_what_the_rules_would_label_and_saves_nothing():
    project = ProjectFactory(annotation_rules=RULES, enabled_properties=["toxicity", "content_type"])
    run = RunFactory(project=project)
    for toxicity, kind in [(0.9, "other"), (0.1, "other"), (0.1, "other"), (0.3, "sql"), (None, None)]:
        interaction = InteractionFactory(run=run)
        if toxicity is not None:
            add_value(interaction, "toxicity", value=toxicity)
            add_value(interaction, "content_type", label=kind)
    annotation.annotate_by_person(run.interactions.first(), "good", "read it")
    found = annotation.preview_rules(annotation.rules_for(run), run)
    assert (found.good, found.bad, found.unchanged, found.by_person, found.total) == (2, 2, 1, 1, 5)
    assert not run.interactions.filter(annotation_source="estimated").exists(), "a preview stores nothing"


def test_blocks_are_tried_in_order_and_label_only_unlabelled_rows():
    blocks = rules.parse_rules(RULES)
    assert rules.decide(blocks, {"toxicity.output": 0.9, "content_type.output": "other"})[0] == "bad"
    assert rules.decide(blocks, {"toxicity.output": 0.1, "content_type.output": "sql"})[0] == "bad"
    label, reason = rules.decide(blocks, {"toxicity.output": 0.1, "content_type.output": "other"})
    assert label == "good"
    assert "toxicity.output=0.1 LE 0.5" in reason
    # A missing value never satisfies a condition.
    assert rules.decide(blocks, {"content_type.output": "other"}) == ("unknown", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- annotation: bad\n  conditions: [", "line 2: not valid YAML"),
        ("annotation: bad", "line 1: the rules must be a list"),
        (
            "- annotation: great\n  conditions:\n    - {property: x, operator: GT, value: 1}",
            "line 1: annotation must be",
        ),
        (
            "- annotation: bad\n  conditions:\n    - {property: x, operator: BIGGER, value: 1}",
            "line 3: unknown operator",
        ),
        (
            "- annotation: bad\n  conditions:\n    - {property: x, operator: GT, value: high}",
            "line 3: GT needs a number",
        ),
        ("- annotation: bad\n  conditions:\n    - {property: x, operator: IN, value: sql}", "line 3: IN needs a list"),
        ("- annotation: bad\n  conditions: []", "line 2: a block needs a non-empty list"),
        ("- annotation: bad\n  operator: XOR\n  conditions:\n    - {property: x, operator: GT, value: 1}", "line 2:"),
        ("- annotation: bad\n  conditions:\n    - {operator: GT, value: 1}", "line 3: missing 'property'"),
        ("", "the rules are empty"),
        ("- annotation: bad\n  where: toxicity.output >", "line 2: where: column 18: the filter ends too early"),
        ("- annotation: bad\n  where: [a]", "line 2: 'where' must be a single value"),
        (
            "- annotation: bad\n  where: toxicity.output > 1\n"
            "  conditions:\n    - {property: x, operator: GT, value: 1}",
            "line 1: a block has either 'where' or 'conditions'",
        ),
    ],
)
def test_invalid_rules_name_the_line_and_reason(text, message):
    with pytest.raises(rules.RulesError) as error:
        rules.parse_rules(text)
    assert any(message in problem for problem in error.value.problems), error.value.problems


@pytest.mark.django_db
def test_the_rules_job_estimates_labels_and_keeps_a_persons(django_capture_on_commit_callbacks):
    project = ProjectFactory(annotation_rules=RULES, enabled_properties=["toxicity", "content_type"])
    run = RunFactory(project=project)
    toxic, clean, person, unlabelled = (InteractionFactory(run=run) for _ in range(4))
    for interaction, toxicity, kind in [(toxic, 0.9, "other"), (clean, 0.1, "other"), (person, 0.9, "other")]:
        add_value(interaction, "toxicity", value=toxicity)
        add_value(interaction, "content_type", label=kind)
    annotation.annotate_by_person(person, "good", "I read it")
    with django_capture_on_commit_callbacks() as callbacks:
        job = annotation.plan_annotation(run)
    assert len(callbacks) == 1, "the job is enqueued once the transaction commits"
    annotate_run_task(job.pk)
    annotate_run_task(job.pk)  # a redelivered job changes nothing
    job.refresh_from_db()
    assert (job.kind, job.status, job.done, job.total) == (ScoringJob.Kind.ANNOTATION, "done", 4, 4)
    for interaction in (toxic, clean, person, unlabelled):
        interaction.refresh_from_db()
    assert (toxic.annotation, toxic.annotation_source) == ("bad", "estimated")
    assert (clean.annotation, clean.annotation_source) == ("good", "estimated")
    assert (person.annotation, person.annotation_source, person.estimated_annotation) == ("good", "person", "bad")
    assert (unlabelled.annotation, unlabelled.annotation_source) == ("unknown", "")
    score = annotation.run_score(run)
    assert score.score == pytest.approx(2 / 3)
    assert score.person_score == 1.0
    assert (score.agreement_count, score.agreement_total) == (0, 1)


WHERE_RULES = """
- annotation: bad
  where: failing:toxicity.output OR (content_type = sql AND text ~ "drop table")
- annotation: good
  operator: AND
  conditions:
    - {property: toxicity.output, operator: LE, value: 0.5}
"""


@pytest.mark.django_db
def test_a_block_may_be_a_filter_of_the_data_screen(django_capture_on_commit_callbacks):
    """`where:` takes the Data Screen's language, evaluated by the same query, beside plain blocks."""
    project = ProjectFactory(annotation_rules=WHERE_RULES, enabled_properties=["toxicity", "content_type"])
    run = RunFactory(project=project)
    rows = [(0.9, "other", "fine"), (0.1, "sql", "DROP TABLE users;"), (0.1, "sql", "select 1"), (None, "", "none")]
    made = []
    for toxicity, kind, output in rows:
        interaction = InteractionFactory(run=run, output=output)
        if toxicity is not None:
            add_value(interaction, "toxicity", value=toxicity)
            add_value(interaction, "content_type", label=kind)
        made.append(interaction)
    blocks = rules.parse_rules(WHERE_RULES)
    assert str(blocks[0].where) == 'failing:toxicity.output OR (content_type.output = sql AND text ~ "drop table")'
    with django_capture_on_commit_callbacks(execute=True):
        job = annotation.plan_annotation(run)
    annotate_run_task(job.pk)
    labels = []
    for interaction in made:
        interaction.refresh_from_db()
        labels.append((interaction.annotation, interaction.annotation_reason.split(" ")[0]))
    assert labels == [("bad", "matches"), ("bad", "matches"), ("good", "toxicity.output=0.1"), ("unknown", "")]


@pytest.mark.django_db
def test_a_person_clearing_a_label_falls_back_to_the_estimate():
    interaction = InteractionFactory()
    interaction.estimated_annotation = "bad"
    interaction.save()
    annotation.annotate_by_person(interaction, "good", "fine")
    annotation.annotate_by_person(interaction, "unknown", "")
    interaction.refresh_from_db()
    assert (interaction.annotation, interaction.annotation_source) == ("bad", "estimated")


# The billion laughs as the value of a NEQ condition: nine lists of nine, nine levels deep (9**9
# "lol"s) in 428 bytes, which PyYAML shares while parsing and expands when the value is shown.
LAUGHS = "- annotation: bad\n  conditions:\n  - property: x\n    operator: NEQ\n    value:\n" + "".join(
    f"    - &{name} [{','.join([item] * 9)}]\n"
    for item, name in zip(["lol", *(f"*{n}" for n in "abcdefgh")], "abcdefghi", strict=True)
)
# The classic form, a mapping of 219 bytes.
CLASSIC_LAUGHS = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{name}: &{name} [{','.join([f'*{before}'] * 9)}]\n" for before, name in zip("abcde", "bcdef", strict=True)
)
HOSTILE_RULES = [
    (LAUGHS, "line 7: aliases (*name) are not allowed"),
    (CLASSIC_LAUGHS, "line 2: aliases (*name) are not allowed"),
    ("- annotation: bad\n  conditions:\n    - &c {property: x, operator: GT, value: 1}\n    - *c\n", "line 4: aliases"),
    ("- !!python/object/apply:os.system [touch /tmp/pwned]\n", "line 1: the tag !!python/object/apply:os.system"),
    ("- annotation: !!python/name:os.system bad\n", "line 1: the tag !!python/name:os.system is not part"),
    ("- annotation: !shout bad\n", "line 1: the tag !shout is not part of the rules language"),
    (
        "- {annotation: bad, conditions: [{property: x, operator: EQ, value: !!binary aGk=}]}",
        "line 1: the tag !!binary",
    ),
    ("[" * 5000 + "]" * 5000, "line 1: nested deeper than 10 levels"),
    ("".join(" " * i + "-\n" for i in range(400)), "line 11: nested deeper than 10 levels"),
    ("#" * 100_001, "the rules are 100,001 characters long; the limit is 100,000"),
    (
        "- {annotation: bad, conditions: [{property: x, operator: GT, value: " + "9" * 5000 + "}]}",
        "line 1: not a value",
    ),
    ("- {annotation: bad, conditions: [{property: x, operator: GT, value: " + "9" * 400 + "}]}", "too large a number"),
    (
        "- annotation: bad\n  conditions:\n"
        + "".join(f"    - {{property: p{n}.output, operator: GT, value: 0.5}}\n" for n in range(501)),
        "the rules have 501 conditions; the limit is 500",
    ),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE_RULES)
def test_hostile_rules_are_refused_quickly_with_a_short_message(text, message):
    started = time.perf_counter()
    with pytest.raises(rules.RulesError) as error:
        rules.parse_rules(text)
    assert time.perf_counter() - started < 1
    assert len(error.value.problems) == 1 and message in error.value.problems[0], error.value.problems
    assert len(error.value.problems[0]) < 300


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- ? [a, b]\n  : x\n", "line 1: a key must be a plain name, not a list or a mapping"),
        ("- annotation: bad\n  conditions:\n    - ? {a: b}\n      : x\n", "line 3: a key must be a plain name"),
    ],
)
def test_complex_keys_are_a_message_not_a_server_error(text, message):
    """A list or a mapping as a key once answered a server error on the rules page."""
    with pytest.raises(rules.RulesError) as error:
        rules.parse_rules(text)
    assert error.value.problems[0].startswith(message), error.value.problems


def test_a_label_shows_a_long_value_cut_short():
    values = ", ".join(f"category-{i}" for i in range(1000))
    blocks = rules.parse_rules(
        f"- {{annotation: bad, conditions: [{{property: x, operator: NIN, value: [{values}]}}]}}"
    )
    label, reason = rules.decide(blocks, {"x": "other"})
    assert label == "bad" and reason.startswith("x=other NIN ['category-0'")
    assert len(reason) < 200 and reason.endswith("…")


def test_many_problems_are_reported_up_to_a_limit():
    text = "".join(
        f"- {{annotation: bad, conditions: [{{property: x, operator: GT, value: v{i}}}]}}\n" for i in range(80)
    )
    with pytest.raises(rules.RulesError) as error:
        rules.parse_rules(text)
    assert len(error.value.problems) == rules.MAX_PROBLEMS + 1
    assert error.value.problems[-1] == "... and 30 more problems"


@pytest.mark.django_db
def test_a_rules_task_yields_its_process_after_its_time_budget(settings, monkeypatch, memory_broker):
    """1,638 conditions on 50,000 rows once held a pool process for 92 s: now a task stops after
    EVALSITE_RULES_TASK_BUDGET_S and the rest continues in a new task at the back of the queue."""
    settings.EVALSITE_RULES_TASK_BUDGET_S = 0.0
    monkeypatch.setattr(annotation, "RULES_PAGE", 2)
    run = RunFactory()
    interactions = InteractionFactory.create_batch(5, run=run)
    job = annotation.plan_annotation(run)
    memory_broker.take("cpu")
    annotate_run_task(job.pk)
    job.refresh_from_db()
    sent = memory_broker.take("cpu")
    assert (job.done, job.total) == (2, 5)
    assert sent == [("properties.annotate_run", (job.pk, interactions[1].pk))]
    chunk = job.chunks.get()
    assert chunk.sent_at is not None and chunk.started_at is None, "sent again, not begun"
    while sent:
        annotate_run_task(*sent[0][1])
        sent = memory_broker.take("cpu")
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 5, 5)
    assert job.chunks.get().state == "done"


@pytest.mark.django_db
def test_the_rules_page_previews_checks_and_saves(client):
    user = UserFactory()
    client.force_login(user)
    project = ProjectFactory(owner=user, enabled_properties=["toxicity", "content_type"])
    run = RunFactory(project=project, name="v1")
    for toxicity in (0.9, 0.1, 0.2):
        interaction = InteractionFactory(run=run)
        add_value(interaction, "toxicity", value=toxicity)
        add_value(interaction, "content_type", label="other")
    url = reverse("properties:project-rules", args=[project.pk])
    page = client.get(url).content.decode()
    assert "{property: toxicity.output, operator: GE, value: 0.5}" in page, "defaults from the project"
    preview = client.post(url, {"rules": RULES, "run": run.pk, "preview": "1"}, HTTP_HX_REQUEST="true")
    body = preview.content.decode()
    assert "<html" not in body and 'data-testid="preview-counts">2 good, 1 bad, 0 unchanged<' in body
    project.refresh_from_db()
    assert project.annotation_rules == "", "a preview saves nothing"
    unknown = RULES.replace("toxicity.output, operator: GT, value: 0.5", "groundedness.output, operator: GT, value: 2")
    refused = client.post(url, {"rules": unknown, "run": run.pk}).content.decode()
    # The form strips the text's first blank line: lines count from "- annotation: bad".
    assert "line 4: groundedness.output: the project scores no property &#x27;groundedness&#x27;" in refused
    assert client.post(url, {"rules": RULES, "run": run.pk}).status_code == 302
    project.refresh_from_db()
    assert project.annotation_rules == RULES.strip()


@pytest.mark.django_db
def test_a_where_block_naming_a_property_the_project_does_not_score_is_refused():
    project = ProjectFactory(enabled_properties=["toxicity"])
    text = "- annotation: bad\n  where: failing:groundedness OR toxicity.output > 0.5\n"
    with pytest.raises(rules.RulesError, match="block 1, where: the project scores no property 'groundedness'"):
        project_rules.parse_for(project, text)


def test_the_kept_count_and_score_follow_labels_rows_and_jobs(db, django_capture_on_commit_callbacks):
    """Kept between pages, counted again when a person labels, rows are stored or a job moves on."""
    run = RunFactory()
    first = InteractionFactory(run=run)
    InteractionFactory(run=run)
    assert annotation.kept_run_score(run) == (2, annotation.run_score(run))
    InteractionFactory(run=run)  # stored without anything the state notices: still the kept count
    assert annotation.kept_run_score(run)[0] == 2
    with django_capture_on_commit_callbacks(execute=True):
        annotation.annotate_by_person(first, "good", "")
    size, score = annotation.kept_run_score(run)
    assert (size, score.person_good) == (3, 1)
    InteractionFactory(run=run)
    run.next_api_batch()  # an API batch stores rows
    assert annotation.kept_run_score(run)[0] == 4
    InteractionFactory(run=run)
    ScoringJob.objects.create(run=run, total=5, properties=[])
    assert annotation.kept_run_score(run)[0] == 5
