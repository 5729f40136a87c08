"""The comparison page and the panel's evidence at 1440x900: no empty chart fills the first screen,
rows not applicable in both runs are not changes, the legend lists only the kinds present, and
"about" reads as one word."""

import pytest
from playwright.sync_api import expect

from tests.e2e import test_screen_journeys
from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.e2e

rag = test_screen_journeys.rag  # the RAG project with evidence of every kind, as a fixture here too


def test_two_runs_compared_without_labels_and_with_rows_not_applicable(page, live_server, artifacts):
    user = UserFactory(username="cleo")
    project = ProjectFactory(
        owner=user,
        name="Docs bot",
        enabled_properties=["retrieval_relevance", "grounded_in_context"],
        key_properties=["retrieval_relevance", "grounded_in_context"],
    )
    runs = [RunFactory(project=project, name=name) for name in ("v1", "v2")]
    for n, run in enumerate(runs):
        for i in range(6):
            interaction = InteractionFactory(run=run, user_interaction_id=f"q{i}", input=f"question {i}")
            if i < 2:  # no documents retrieved in either run
                add_value(interaction, "retrieval_relevance", "interaction", status="not_applicable")
            else:
                add_value(interaction, "retrieval_relevance", "interaction", value=0.2 + 0.1 * i + 0.3 * n)
            add_value(interaction, "grounded_in_context", value=0.5 + 0.05 * n)
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "cleo")
    page.get_by_role("link", name="Docs bot").click()
    for run in runs:
        page.get_by_label(f"Compare {run.name}").check()
    page.get_by_role("button", name="Compare selected runs").click()
    expect(page.get_by_test_id("no-score-chart")).to_contain_text("No interaction of these runs is labelled")
    expect(page.locator("#chart-score-plot")).to_have_count(0)
    first_card = page.locator(".property-card").first
    expect(first_card.locator(".chart .main-svg").first).to_be_visible()
    assert first_card.bounding_box()["y"] < 900, "the first property starts on the first screen"
    page.screenshot(path=str(artifacts / "comparison-first-screen.png"))
    summary = page.get_by_test_id("diff-summary")
    expect(summary).to_contain_text("6 matched")
    expect(summary).to_contain_text("4 changed by 0.01 or more in Retrieval Relevance")
    expect(summary).to_contain_text("2 without a value in either run")
    expect(page.locator("#row-diff-table tbody tr")).to_have_count(4)
    page.locator("#row-diff").screenshot(path=str(artifacts / "comparison-row-diff.png"))


def test_the_legend_names_only_the_kinds_present_and_about_is_one_word(page, live_server, rag, artifacts):
    project, run = rag
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.get_by_role("link", name="refund-1", exact=True).click()
    page.locator('#detail-pane [data-property="avoided_answer.output"]').click()
    legend = page.locator(".legend .legend-item")
    expect(legend).to_have_count(1)
    expect(legend).to_contain_text("Problem")
    page.locator('#detail-pane [data-property="grounded_in_context.output"]').click()
    # Ungrounded statements, and their closest passages, which do not support them: grey, never support.
    expect(legend).to_have_count(2)
    expect(page.locator(".legend")).to_contain_text("Neutral")
    expect(page.locator(".legend")).not_to_contain_text("Support")
    # At its narrowest the panel squeezes the property table: "about" once broke into "abo" and "ut".
    page.evaluate("localStorage.setItem('evalsite.paneWidth', '320')")
    page.reload()
    abouts = page.locator("#detail-pane details.about > summary")
    expect(abouts.first).to_be_visible()
    heights = {round(abouts.nth(i).bounding_box()["height"]) for i in range(abouts.count())}
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('details.about > summary')).lineHeight)")
    assert max(heights) <= line + 1, f"'about' wraps: heights {heights}, one line is {line}px"
    page.screenshot(path=str(artifacts / "panel-legend-about.png"))
