"""Journeys through the Data Screen, its side panel and keys, the evidence of each kind, the
comparison of several runs, and project templates. Screenshots go to test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from properties.models import Interaction, PropertyValue
from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.e2e

DOCUMENT = (
    "Refunds are accepted within 30 days of delivery. Contact Dana Smith at dana@example.com or +1 415 555 0100 "
    "for help. Shipping takes five working days."
)
OUTPUT = (
    "You can ask for a refund within 60 days. Write to dana@example.com for help. "
    "I cannot help with anything else. See https://example.invalid/refunds for details."
)
QUESTION = "How long do I have to ask for a refund?"


def span(text, piece, label, score=None, note="", field="output", occurrence=0):
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(piece, start + 1)
    return {"field": field, "start": start, "end": start + len(piece), "label": label, "score": score, "note": note}


def value(interaction, prop, number, spans=(), field="output", label="", details=None):
    return PropertyValue.objects.create(
        interaction=interaction,
        run=interaction.run,
        property_name=prop,
        field=field,
        value=number,
        label=label,
        spans=list(spans),
        details=details or {},
        scorer_version="1:e2e",
        model="all-MiniLM-L6-v2-int8@8199be6f699a+grounded-head@0123456789ab+a-very-long-model-identifier-that-must-wrap",
    )


def evidence(interaction):
    """One value per kind of evidence, with spans as the scorers write them."""
    doc = "information_retrieval[0]"
    value(
        interaction,
        "grounded_in_context",
        0.18,
        [
            span(OUTPUT, "You can ask for a refund within 60 days.", "ungrounded", 0.08, "60 is not in the passage"),
            span(
                DOCUMENT,
                "Refunds are accepted within 30 days of delivery.",
                "closest passage",
                0.08,
                "for: 60 days",
                doc,
            ),
            span(OUTPUT, "Write to dana@example.com for help.", "ungrounded", 0.41, "closest passage: document 1"),
        ],
    )
    value(
        interaction,
        "coverage",
        0.42,
        [
            span(
                OUTPUT, "refund", "refund", 2.0, "covered (lemma); noun phrase, 3 mention(s) in the source, weight 2.0"
            ),
            span(
                DOCUMENT, "Dana Smith", "Dana Smith", 2.4, "missed; person, 1 mention(s) in the source, weight 2.4", doc
            ),
            span(
                DOCUMENT, "five working days", "five working days", 1.0, "missed; date, 1 mention(s), weight 1.0", doc
            ),
        ],
    )
    value(
        interaction,
        "pii_risk",
        0.72,
        [
            span(OUTPUT, "dana@example.com", "email", 0.72, "confidence 0.90 x risk factor 0.80"),
            span(OUTPUT, "60 days", "date", 0.09, "confidence 0.90 x risk factor 0.10"),
        ],
    )
    value(
        interaction,
        "avoided_answer",
        0.66,
        [span(OUTPUT, "I cannot help with anything else.", "refusal", 0.66, "refusal phrase “I cannot help”")],
    )
    value(
        interaction,
        "invalid_links",
        1.0,
        [span(OUTPUT, "https://example.invalid/refunds", "dns error", 1.0, "the host does not resolve")],
    )
    value(
        interaction,
        "retrieval_relevance",
        0.81,
        [
            span(DOCUMENT, "Refunds are accepted within 30 days of delivery.", "relevant chunk", 0.81, "relevant", doc),
            span(DOCUMENT, "Shipping takes five working days.", "not relevant", 0.12, "not relevant: 0.12", doc),
        ],
        field="interaction",
    )


@pytest.fixture
def rag(live_server):
    user = UserFactory(username="rita")
    project = ProjectFactory(
        owner=user,
        name="Docs bot",
        template="rag",
        enabled_properties=["grounded_in_context", "retrieval_relevance", "coverage", "pii_risk", "avoided_answer"]
        + ["invalid_links", "toxicity"],
        key_properties=["grounded_in_context", "retrieval_relevance", "avoided_answer", "toxicity"],
    )
    run = RunFactory(project=project, name="v1")
    first = InteractionFactory(
        run=run, user_interaction_id="refund-1", input=QUESTION, information_retrieval=[DOCUMENT], output=OUTPUT
    )
    evidence(first)
    value(first, "toxicity", 0.02)
    for i in range(2, 13):
        interaction = InteractionFactory(
            run=run, user_interaction_id=f"refund-{i}", input=f"Question {i} about refunds?", output=f"Answer {i}."
        )
        value(interaction, "grounded_in_context", 0.9 if i % 3 else 0.3)
        value(interaction, "toxicity", 0.7 if i == 5 else 0.05)
        if i == 4:
            PropertyValue.objects.create(
                interaction=interaction,
                run=run,
                property_name="retrieval_relevance",
                field="interaction",
                status=PropertyValue.Status.NOT_APPLICABLE,
                details={"not_applicable": "no retrieved documents to judge"},
                scorer_version="1:e2e",
            )
    return project, run


def test_each_kind_of_evidence_reads_without_hovering(page, live_server, rag, artifacts):
    project, run = rag
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.get_by_role("link", name="refund-1", exact=True).click()
    expect(page.locator("#detail-pane")).to_be_visible()
    shots = {
        "grounded_in_context": ("ungrounded statement", "data-screen-ungrounded.png"),
        "coverage": ("missed topic", "data-screen-coverage.png"),
        "pii_risk": ("personal data", "data-screen-pii.png"),
        "avoided_answer": ("refusal", "data-screen-refusal.png"),
        "invalid_links": ("bad link", "data-screen-bad-link.png"),
        "retrieval_relevance": ("relevant chunk", "data-screen-retrieval.png"),
    }
    for prop, (kind, shot) in shots.items():
        address = prop if prop == "retrieval_relevance" else f"{prop}.output"
        page.locator(f'#detail-pane [data-property="{address}"]').click()
        expect(page.get_by_test_id("evidence-list")).to_contain_text(kind)
        assert f"highlight={address}" in page.url, "the chosen property is in the URL"
        page.screenshot(path=str(artifacts / shot))

    # Ungrounded statements are warm; their closest passage, which does not support them, is grey
    # (never painted as support); the legend says so in words.
    page.locator('#detail-pane [data-property="grounded_in_context.output"]').click()
    expect(page.locator(".legend")).to_contain_text("Problem: warm, darker the worse")
    ungrounded = page.locator('mark[data-label="ungrounded statement"]').first
    expect(ungrounded).to_have_class(re.compile(r"ev-problem-3"))
    passage = page.locator('mark[data-label="closest passage, not supporting"]')
    expect(passage).to_have_class(re.compile(r"ev-neutral"))
    expect(page.get_by_test_id("evidence-list")).to_contain_text("support probability 0.08")
    # The list is the keyboard and screen-reader path: a link per span moves the focus to its mark.
    page.get_by_test_id("evidence-list").get_by_role("link").first.click()
    expect(page.locator("mark#ev-1")).to_be_focused()
    expect(page.locator("mark#ev-1")).to_have_attribute("aria-describedby", "ev-item-1")
    # Coverage says what its numbers are.
    page.locator('#detail-pane [data-property="coverage.output"]').click()
    expect(page.get_by_test_id("evidence-list")).to_contain_text("salience 2.40")
    expect(page.get_by_test_id("evidence-list")).not_to_contain_text("weight")
    # Risky PII is a dark problem; harmless PII, under the project's threshold, is grey.
    page.locator('#detail-pane [data-property="pii_risk.output"]').click()
    expect(page.locator('mark[data-label="personal data"]')).to_have_class(re.compile(r"ev-problem-3"))
    harmless = page.locator('mark[data-label="personal data, under the threshold"]')
    expect(harmless).to_have_class(re.compile(r"ev-neutral"))
    # A long model id stays inside the panel.
    page.locator('#detail-pane [data-property="pii_risk.output"]').locator("xpath=../..").get_by_text(
        "about", exact=True
    ).click()
    model = page.locator("#detail-pane .model-id code").first
    assert model.bounding_box()["x"] + model.bounding_box()["width"] <= 1440


def test_the_table_keeps_its_width_the_panel_resizes_closes_and_keeps_its_state_in_the_url(
    page, live_server, rag, artifacts
):
    project, run = rag
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    headers = page.locator("#interactions thead th")
    # Id and annotation, the key properties by name in the project's order, then output and input.
    expect(headers.nth(2)).to_have_text("Grounded in Context")
    expect(headers.nth(2)).to_have_attribute("title", "Grounded in Context — grounded_in_context.output")
    expect(headers.nth(6)).to_have_text("Output")
    table_width = page.locator("#interactions").bounding_box()["width"]
    page.get_by_role("link", name="refund-3", exact=True).click()
    expect(page.locator("#detail-pane h2")).to_contain_text("refund-3")
    assert "i=" in page.url
    assert page.locator("#interactions").bounding_box()["width"] == table_width, "the table keeps its width"
    expect(page.locator("#interactions tr.selected")).to_contain_text("refund-3")
    page.reload()
    expect(page.locator("#detail-pane h2")).to_contain_text("refund-3")  # the URL keeps the panel
    handle = page.locator("[data-pane-resizer]").bounding_box()
    page.mouse.move(handle["x"] + 3, handle["y"] + 200)
    page.mouse.down()
    page.mouse.move(900, handle["y"] + 200)
    page.mouse.up()
    width = page.locator("#detail-pane").bounding_box()["width"]
    assert 520 <= width <= 560, width
    page.reload()
    assert abs(page.locator("#detail-pane").bounding_box()["width"] - width) < 2, "the width is remembered"
    page.get_by_role("link", name="next (j) →").click()
    expect(page.locator("#detail-pane h2")).to_contain_text("refund-4")
    expect(page.locator("#detail-pane")).to_contain_text("no retrieved documents to judge")  # n/a, with why
    page.screenshot(path=str(artifacts / "data-screen-panel.png"))
    page.get_by_role("link", name="Close the panel (Esc)").click()
    expect(page.locator("#detail-pane")).to_be_hidden()
    assert "i=" not in page.url
    # Pass rates, then a click on one shows its failures.
    expect(page.get_by_test_id("overall-pass-rate")).to_be_visible()
    page.locator('[data-testid=pass-rate][data-address="grounded_in_context.output"]').click()
    expect(page.get_by_test_id("match-count")).to_have_text("5 interactions")
    assert "failing%3Agrounded_in_context" in page.url or "failing:grounded_in_context" in page.url
    page.screenshot(path=str(artifacts / "data-screen-failing.png"), full_page=True)


def test_keyboard_only_annotation_of_ten_interactions(page, live_server, rag, artifacts):
    project, run = rag
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/runs/{run.pk}/?sort=id")
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_be_visible()
    page.screenshot(path=str(artifacts / "data-screen-shortcuts.png"))
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts")).to_be_hidden()
    labels = ["good", "bad"] * 5
    for number, label in enumerate(labels, start=1):
        page.keyboard.press("j")
        # Keys wait for the panel: a held key must not skip an interaction nobody has seen.
        expect(page.locator("#detail-pane[data-ready] h2")).to_contain_text(f"refund-{number}")
        if number == 3:
            page.keyboard.press("n")
            page.keyboard.type("made up the return window")
            page.keyboard.press("Escape")
        page.keyboard.press(label[0])
        expect(page.locator("#detail-pane[data-ready]").get_by_test_id("annotation")).to_have_text(f"{label} (person)")
        expect(page.locator(f"#row-{row_pk(run, number)} [data-testid=row-annotation]")).to_have_text(label)
        expect(page.get_by_test_id("good-count")).to_have_text(str((number + 1) // 2))
        expect(page.get_by_test_id("bad-count")).to_have_text(str(number // 2))
    expect(page.get_by_test_id("run-score")).to_have_text("50%")
    page.keyboard.press("k")
    expect(page.locator("#detail-pane h2")).to_contain_text("refund-9")
    page.screenshot(path=str(artifacts / "data-screen-keyboard.png"))
    annotated = dict(run.interactions.exclude(annotation="unknown").values_list("user_interaction_id", "annotation"))
    assert annotated == {f"refund-{n}": label for n, label in enumerate(labels, start=1)}
    assert Interaction.objects.get(user_interaction_id="refund-3").annotation_reason == "made up the return window"


def row_pk(run, number):
    return run.interactions.get(user_interaction_id=f"refund-{number}").pk


def test_comparing_four_runs_on_chosen_properties(page, live_server, artifacts):
    user = UserFactory(username="cora")
    project = ProjectFactory(
        owner=user,
        name="Support bot",
        enabled_properties=["grounded_in_context", "toxicity", "relevance", "content_type"],
        key_properties=["grounded_in_context", "toxicity"],
    )
    runs = [RunFactory(project=project, name=f"v{n}") for n in range(1, 5)]
    for n, run in enumerate(runs):
        for i in range(40):
            interaction = InteractionFactory(run=run, user_interaction_id=f"q{i}", output=f"answer {i} of {run.name}")
            value(interaction, "grounded_in_context", min(1.0, 0.2 + 0.015 * i + 0.1 * n))
            value(interaction, "toxicity", 0.02 * ((i + n) % 10))
            value(interaction, "content_type", None, label="sql" if i < 10 * n else "other")
    log_in(page, live_server, "cora")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.get_by_role("link", name="Support bot").click()
    for run in runs:
        page.get_by_label(f"Compare {run.name}").check()
    page.get_by_role("button", name="Compare selected runs").click()
    cards = page.locator(".property-card")
    expect(cards).to_have_count(2)  # the key properties
    expect(cards.nth(0)).to_have_attribute("data-address", "grounded_in_context.output")
    expect(cards.nth(0).locator(".chart .main-svg").first).to_be_visible()
    expect(cards.nth(0).locator("[data-testid=pass-rate]")).to_have_text(["50%", "65%", "82%", "100%"])
    expect(cards.nth(0).locator(".chart")).to_have_count(3)  # distribution, mean and pass rate, trend
    page.get_by_role("checkbox", name="Relevance", exact=True).check()
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".property-card")).to_have_count(3)
    expect(page.locator('[data-address="relevance.output"] .property-table')).to_contain_text("no data")
    expect(page.locator('[data-address="relevance.output"] .chart')).to_have_count(0)
    expect(page.locator('[data-address="relevance.output"]').get_by_test_id("no-chart")).to_be_visible()
    page.screenshot(path=str(artifacts / "comparison.png"), full_page=True)
    # A property of labels is compared by the share of each label, not by a mean.
    page.get_by_role("checkbox", name="Content Type", exact=True).check()
    page.get_by_role("button", name="Show").click()
    labels = page.locator('[data-address="content_type.output"]')
    expect(labels.get_by_test_id("label-shares")).to_have_text(
        ["other 100% · sql 0%", "other 75% · sql 25%", "other 50% · sql 50%", "other 25% · sql 75%"]
    )
    expect(labels.locator(".chart")).to_have_count(1)
    expect(labels.locator(".chart .main-svg").first).to_be_visible()
    labels.screenshot(path=str(artifacts / "comparison-labels.png"))


def test_a_project_starts_from_a_template(page, live_server, artifacts):
    UserFactory(username="tess")
    log_in(page, live_server, "tess")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.get_by_label("Name").fill("Handbook RAG")
    page.get_by_text("RAG question answering").click()
    page.screenshot(path=str(artifacts / "project-templates.png"), full_page=True)
    page.get_by_role("button", name="Create project").click()
    expect(page.get_by_role("heading", name="Handbook RAG")).to_contain_text("RAG question answering")
    for name in ("grounded_in_context", "retrieval_relevance", "context_relevancy"):
        expect(page.locator(f"#prop-{name}")).to_be_checked()
    expect(page.locator("#prop-valid_json")).not_to_be_checked()
    page.get_by_role("link", name="retrieval_relevance").click()
    expect(page.get_by_test_id("behaviour")).to_contain_text("cases pass")
    expect(page.get_by_test_id("quality")).to_contain_text(re.compile("not measured|ROC"))
    expect(page.locator(".model-id")).to_contain_text("the packaged default")
    page.screenshot(path=str(artifacts / "property-report-card.png"), full_page=True)


def test_a_false_format_check_and_a_hard_text_show_what_makes_them_so(page, live_server, artifacts):
    # The values come from the scorers themselves: Valid JSON marks the prose that is not JSON, Schema
    # the missing field where its object ends, Reading Ease its hardest sentence with its own score,
    # Compression Ratio the output that is longer than its input.
    from properties.scorers.compression_ratio import CompressionRatio
    from properties.scorers.reading_ease import ReadingEase
    from properties.scorers.schema import Schema
    from properties.scorers.valid_json import ValidJSON

    user = UserFactory(username="fay")
    project = ProjectFactory(
        owner=user, name="Forms bot", enabled_properties=["valid_json", "schema", "reading_ease", "compression_ratio"]
    )
    run = RunFactory(project=project, name="v1")
    output = (
        "Sure! Notwithstanding the aforementioned provisions, indemnification obligations survive "
        "termination. Here is the order."
    )
    interaction = InteractionFactory(run=run, user_interaction_id="form-1", input="Give me the order.", output=output)
    schema = Schema(json_schema={"type": "object", "required": ["order_id"]})
    for prop, scorer in (("valid_json", ValidJSON()), ("reading_ease", ReadingEase()), ("schema", schema)):
        scorer.current_field = "output"
        score = scorer.run_batch([output])[0]
        value(interaction, prop, score.value, [s.to_dict() for s in score.spans], label=score.label or "")
    ratio = CompressionRatio().run_batch([output], input_text_batch=[interaction.input])[0]
    value(interaction, "compression_ratio", ratio.value, [s.to_dict() for s in ratio.spans], field="interaction")
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "fay")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.get_by_role("link", name="form-1", exact=True).click()
    for prop, kind, words in (
        ("compression_ratio", "output too long for its input", "characters of output for 18 of input"),
        ("valid_json", "format error", "not JSON"),
        ("reading_ease", "hard sentence", "syllables a word"),
    ):
        page.locator(f'#detail-pane [data-property^="{prop}"]').click()
        listed = page.get_by_test_id("evidence-list")
        expect(listed).to_contain_text(kind)
        expect(listed).to_contain_text(words)
        page.screenshot(path=str(artifacts / f"data-screen-{prop.replace('_', '-')}.png"))
        if prop == "compression_ratio":
            expect(page.locator('mark[data-label="output too long for its input"]')).to_have_text(output)
    expect(page.locator('mark[data-label="hard sentence"]')).to_have_text(
        re.compile(r"^Notwithstanding.*termination\.$")
    )
