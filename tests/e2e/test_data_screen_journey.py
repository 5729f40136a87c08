import csv
import re

import pytest
from playwright.sync_api import expect

from tests.factories import TEST_PASSWORD, ProjectFactory, UserFactory

pytestmark = pytest.mark.e2e

# Output text that would run script if it were ever inserted as markup.
HOSTILE = (
    '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2"> &amp; &lt;b&gt; "tags" & <b>bold</b>'
)
QUESTIONS = ["What is the capital of France?", "Where is the status page?", "Write hostile text.", "Say hi."]


def write_run(path, outputs):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "answer"])
        for i, (question, answer) in enumerate(zip(QUESTIONS, outputs, strict=True)):
            writer.writerow([f"q{i}", question, answer])


def log_in(page, live_server, username):
    page.goto(f"{live_server.url}/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(TEST_PASSWORD)
    page.get_by_role("button", name="Log in").click()


def upload(page, project_name, run_name, path):
    page.get_by_role("link", name="Projects").click()
    page.get_by_role("link", name=project_name).click()
    page.get_by_role("link", name="Upload interactions").click()
    page.get_by_label("Run name").fill(run_name)
    page.get_by_label("File").set_input_files(str(path))
    page.get_by_role("button", name="Upload and map columns").click()
    page.get_by_role("button", name="Import into run").click()
    expect(page.get_by_test_id("progress-label")).to_have_text("100%", timeout=90_000)


def test_upload_two_runs_filter_highlight_annotate_and_compare(page, live_server, live_worker, tmp_path, artifacts):
    UserFactory(username="grace")
    ProjectFactory(
        name="RAG bot",
        owner=UserFactory(username="grace"),
        enabled_properties=["word_count", "invalid_links", "content_type"],
    )
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    first, second = tmp_path / "v1.csv", tmp_path / "v2.csv"
    # A link to this machine is never contacted by default: it is marked "not checked".
    link_answer = "See http://127.0.0.1:9/status for the status page."
    write_run(first, ["Paris.", link_answer, HOSTILE, "Hi!"])
    write_run(second, ["The capital of France is Paris.", "I do not know.", HOSTILE, "Hello there, friend!"])

    log_in(page, live_server, "grace")
    upload(page, "RAG bot", "v1", first)
    upload(page, "RAG bot", "v2", second)

    page.get_by_role("link", name="RAG bot").click()
    page.get_by_role("link", name="v1", exact=True).click()
    page.get_by_label("Filter", exact=True).fill("word_count.output>=3")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_test_id("match-count")).to_have_text("2 interactions")
    assert "where=word_count.output" in page.url, "filters live in the URL"
    page.reload()
    expect(page.get_by_test_id("match-count")).to_have_text("2 interactions")

    page.get_by_role("link", name="q1").click()
    page.locator('[data-property="invalid_links.output"]').click()
    mark = page.locator('#detail-pane [data-field="output"] mark.evidence')
    expect(mark).to_have_text("http://127.0.0.1:9/status")
    expect(mark).to_have_attribute("title", re.compile(r"^link not checked · not contacted: .*127\.0\.0\.1"))
    page.screenshot(path=str(artifacts / "data-screen-highlight.png"), full_page=True)

    page.locator("#detail-pane input[name=reason]").fill("link to a private page")
    page.locator("#detail-pane").get_by_role("button", name="Bad (b)").click()
    expect(page.get_by_test_id("annotation")).to_have_text("bad (person)")
    expect(page.locator("#interactions tr.selected [data-testid=row-annotation]")).to_have_text("bad")

    # The hostile output reads back exactly, as text, and nothing in it ran.
    page.goto(page.url.split("?")[0])
    page.get_by_role("link", name="q2").click()
    expect(page.locator('#detail-pane [data-field="output"]')).to_have_text(HOSTILE)
    assert page.evaluate("window.pwned") is None
    assert dialogs == []

    page.get_by_role("link", name="RAG bot").click()
    page.get_by_label("Compare v1").check()
    page.get_by_label("Compare v2").check()
    page.get_by_role("button", name="Compare selected runs").click()
    page.get_by_role("checkbox", name="Word Count (output)").check()
    page.get_by_role("button", name="Show").click()
    expect(page.locator('[data-address="word_count.output"] svg.main-svg').first).to_be_visible()
    page.locator("select[name=property]").select_option("word_count.output")
    # q2's hostile output is the same in both runs: its word count did not change.
    expect(page.get_by_test_id("diff-summary")).to_contain_text("3 changed by 1 or more in Word Count (output)")
    expect(page.locator("#row-diff-table tbody tr")).to_have_count(3)
    expect(page.locator("#row-diff ins").first).to_be_visible()
    page.screenshot(path=str(artifacts / "comparison-row-diff.png"), full_page=True)
    assert page.evaluate("window.pwned") is None
