import pytest
from playwright.sync_api import expect

from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.e2e

CSV = "question,answer\nWhat is 2+2?,Four\nName a colour.,\nCapital of France?,Paris is the capital.\n"


def test_log_in_upload_map_and_watch_scoring_finish(page, live_server, live_worker, tmp_path, artifacts):
    user = UserFactory(username="ada")
    user.set_password("a long test password")
    user.save()
    project = ProjectFactory(name="Support bot", enabled_properties=["word_count", "char_count"])
    project.add_member(user, "owner")
    csv_file = tmp_path / "interactions.csv"
    csv_file.write_text(CSV)

    page.goto(f"{live_server.url}/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("a long test password")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Support bot").click()
    page.get_by_role("link", name="Upload interactions").click()
    page.get_by_label("Run name").fill("v1")
    page.get_by_label("File").set_input_files(str(csv_file))
    page.get_by_role("button", name="Upload and map columns").click()

    expect(page.get_by_role("heading", name="Map the columns of interactions.csv")).to_be_visible()
    expect(page.locator("#id_input")).to_have_value("question")
    expect(page.locator("#id_output")).to_have_value("answer")
    page.get_by_role("button", name="Import into run").click()

    expect(page.get_by_test_id("accepted")).to_have_text("2")
    expect(page.get_by_test_id("rejected")).to_have_text("1")
    error_row = page.locator("#row-errors tbody tr")
    expect(error_row).to_have_count(1)
    expect(error_row.locator("td").nth(0)).to_have_text("3")
    expect(error_row.locator("td").nth(1)).to_have_text("output")
    expect(page.get_by_test_id("progress-label")).to_have_text("100%", timeout=90_000)
    page.screenshot(path=str(artifacts / "upload-finished.png"), full_page=True)
