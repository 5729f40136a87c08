"""Saved views: one user saves a filtered view with two columns on one run, opens it from the list on
another run of the project, and shares its link with a colleague, who sees the same view. Screenshots
go to test-artifacts/."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import REPORT_CSP_VIOLATIONS
from tests.e2e.test_data_screen_journey import HOSTILE, log_in, upload, write_run
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.e2e

VIEWPORT = {"width": 1440, "height": 900}
FILTER = "word_count.output >= 3"
COLUMNS = ["char_count.output", "word_count.output"]


def column_headers(page):
    return page.locator("#interactions thead a[data-sort]").evaluate_all("els => els.map(e => e.dataset.sort)")


def test_save_a_view_open_it_on_another_run_and_share_it(page, browser, live_server, live_worker, tmp_path, artifacts):
    grace, ada = UserFactory(username="grace"), UserFactory(username="ada")
    UserFactory(username="mallory")
    project = ProjectFactory(
        name="RAG bot", owner=grace, enabled_properties=["word_count", "char_count", "invalid_links"]
    )
    project.add_member(ada)
    first, second = tmp_path / "v1.csv", tmp_path / "v2.csv"
    write_run(first, ["Paris.", "See the status page.", HOSTILE, "Hi!"])
    write_run(second, ["The capital of France is Paris.", "I do not know.", HOSTILE, "Hello there, friend!"])

    page.set_viewport_size(VIEWPORT)
    log_in(page, live_server, "grace")
    upload(page, "RAG bot", "v1", first)
    upload(page, "RAG bot", "v2", second)
    page.get_by_role("link", name="RAG bot").click()
    page.get_by_role("link", name="v1", exact=True).click()
    expect(page.locator("#saved-views")).to_contain_text("none yet")

    # A filter and two columns, sorted by one of them, then saved under a name.
    page.get_by_label("Filter", exact=True).fill(FILTER)
    page.locator(".column-picker summary").click()
    for box in page.locator(".column-picker input[name=col]").all():
        box.set_checked(box.get_attribute("value") in COLUMNS)
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_test_id("match-count")).to_have_text("2 interactions")
    page.locator('a[data-sort="word_count.output"]').click()
    expect(page.locator('a[data-sort="word_count.output"]')).to_contain_text("↑")
    page.get_by_label("Save this view as").fill("Wordy <answers>")
    page.get_by_role("button", name="Save view").click()
    expect(page.locator(".message")).to_have_text(
        "View Wordy <answers> saved: open it on any run of RAG bot from Saved views."
    )
    expect(page.get_by_test_id("shown-view")).to_contain_text("Showing the saved view Wordy <answers>")
    assert column_headers(page) == COLUMNS
    page.screenshot(path=str(artifacts / "saved-view-saved.png"))

    # On the other run, from the list: the same filter, columns and sort.
    page.get_by_role("link", name="RAG bot").click()
    page.get_by_role("link", name="v2", exact=True).click()
    expect(page.get_by_test_id("shown-view")).to_have_count(0)
    page.get_by_test_id("saved-view").filter(has_text="Wordy <answers>").click()
    expect(page.get_by_label("Filter", exact=True)).to_have_value(FILTER)
    expect(page.get_by_test_id("match-count")).to_have_text("4 interactions")
    expect(page.locator('a[data-sort="word_count.output"]')).to_contain_text("↑")
    assert column_headers(page) == COLUMNS
    expect(page.get_by_test_id("saved-view").filter(has_text="Wordy <answers>")).to_have_attribute(
        "aria-current", "true"
    )
    page.locator(".saved-view-details summary").click()
    page.screenshot(path=str(artifacts / "saved-view-other-run.png"))
    link = page.get_by_test_id("share-link").input_value()
    assert link.startswith(live_server.url) and "?view=" in link

    # The link, opened by a colleague in the project: the same view; by someone outside it: a 404.
    for username, expected in (("ada", 200), ("mallory", 404)):
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(REPORT_CSP_VIOLATIONS)
        other = context.new_page()
        log_in(other, live_server, username)
        response = other.goto(link)
        assert response.status == expected
        if username == "ada":
            expect(other.get_by_label("Filter", exact=True)).to_have_value(FILTER)
            expect(other.get_by_test_id("match-count")).to_have_text("4 interactions")
            assert column_headers(other) == COLUMNS
            expect(other.get_by_test_id("shown-view")).to_contain_text("Wordy <answers>")
            # Ada did not save it and does not own the project: no delete button for her.
            other.locator(".saved-view-details summary").click()
            expect(other.get_by_role("button", name="Delete the view Wordy <answers>")).to_have_count(0)
            other.screenshot(path=str(artifacts / "saved-view-shared.png"))
        context.close()

    # Its author deletes it.
    page.get_by_role("button", name="Delete the view Wordy <answers>").click()
    expect(page.locator(".message")).to_have_text("View Wordy <answers> deleted.")
    expect(page.get_by_test_id("saved-view")).to_have_count(0)
    assert page.evaluate("window.pwned") is None
