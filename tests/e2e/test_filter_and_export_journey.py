"""The filter language in the Data Screen's box, its errors, and an export of the filtered, sorted
view. Screenshots go to test-artifacts/."""

import csv
import json

import pytest
from playwright.sync_api import expect

from tests.e2e.test_data_screen_journey import log_in
from tests.e2e.test_screen_journeys import rag  # noqa: F401  (the fixture: a RAG run of 12 interactions)

pytestmark = pytest.mark.e2e

# refund-1 and every third interaction fail Grounded in Context, refund-5 is toxic, refund-4's
# Retrieval Relevance does not apply; refund-9 is left out by its text.
FILTER = '(failing:grounded_in_context OR toxicity.output > 0.5 OR na:retrieval_relevance) AND NOT input ~ "Question 9"'
EXPECTED = {"refund-1", "refund-3", "refund-4", "refund-5", "refund-6", "refund-12"}
BROKEN = "failing:grounded_in_context AND (toxicity.output > 0.5 OR"


def shown_ids(page):
    return page.locator("#interactions tbody .interaction-id").evaluate_all("els => els.map(e => e.title)")


def test_filter_with_and_or_see_an_error_and_export_the_view(page, live_server, rag, artifacts, tmp_path):  # noqa: F811
    _, run = rag
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    box = page.get_by_label("Filter", exact=True)
    expect(box).to_have_attribute(
        "placeholder", "toxicity.output > 0.5 AND (content_type = sql OR failing:grounded_in_context)"
    )

    box.fill(FILTER)
    box.press("Enter")
    expect(page.get_by_test_id("match-count")).to_have_text("6 interactions")
    assert set(shown_ids(page)) == EXPECTED
    page.locator('a[data-sort="toxicity.output"]').click()
    expect(page.locator('a[data-sort="toxicity.output"]')).to_contain_text("↑")
    order = shown_ids(page)
    assert order[-1] == "refund-5", "sorted by toxicity, the toxic one last"
    page.screenshot(path=str(artifacts / "filter-and-or.png"))

    box = page.get_by_label("Filter", exact=True)
    box.fill(BROKEN)
    box.press("Enter")
    error = page.get_by_test_id("filter-error")
    expect(error).to_contain_text("column 58: the filter ends too early")
    expect(page.get_by_label("Filter", exact=True)).to_have_value(BROKEN)
    expect(page.get_by_test_id("match-count")).to_have_text("No interactions shown until the filter is fixed.")
    expect(page.locator("#interactions tbody tr")).to_have_count(1)  # the "fix the filter" line, no rows
    page.screenshot(path=str(artifacts / "filter-error.png"))

    box.fill(FILTER)
    box.press("Enter")
    expect(page.get_by_test_id("match-count")).to_have_text("6 interactions")
    with page.expect_download() as download:
        page.get_by_test_id("export-csv").click()
    path = tmp_path / "view.csv"
    download.value.save_as(path)
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["user_interaction_id"] for row in rows] == order, "the export is the view, in its order"
    by_id = {row["user_interaction_id"]: row for row in rows}
    assert by_id["refund-3"]["grounded_in_context.output verdict"] == "fail"
    assert by_id["refund-4"]["retrieval_relevance"] == "n/a: no retrieved documents to judge"
    spans = json.loads(by_id["refund-1"]["grounded_in_context.output evidence"])
    assert spans[0]["text"] == "You can ask for a refund within 60 days." and spans[0]["label"] == "ungrounded"
