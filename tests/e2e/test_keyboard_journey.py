"""Keys on the Data Screen at 1440x900: after a note saved with Enter the keys act on the screen
again, keys pressed while the next interaction loads are queued (five quick j's move five rows, across
a page's end too), and the address bar names the open interaction by its id."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.e2e


@pytest.fixture
def long_run(live_server):
    user = UserFactory(username="kim")
    project = ProjectFactory(owner=user, name="Keys bot", enabled_properties=["toxicity"], key_properties=["toxicity"])
    run = RunFactory(project=project, name="v1")
    for n in range(1, 54):  # a page is 50 rows: 3 on the second page
        add_value(InteractionFactory(run=run, user_interaction_id=f"row-{n:02d}"), "toxicity", value=0.01 * n)
    return run


def opened(page, name):
    expect(page.locator("#detail-pane[data-ready] h2")).to_contain_text(name)


def test_a_note_saved_with_enter_gives_the_keys_back_to_the_screen(page, live_server, long_run, artifacts):
    run = long_run
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "kim")
    page.goto(f"{live_server.url}/runs/{run.pk}/?sort=id")
    page.keyboard.press("j")
    opened(page, "row-01")
    page.keyboard.press("n")
    expect(page.locator("#id_reason")).to_be_focused()
    page.keyboard.type("made up the return window")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("annotation-reason")).to_have_text("made up the return window")
    expect(page.locator("#id_reason")).not_to_be_focused()
    page.keyboard.press("j")
    opened(page, "row-02")
    page.keyboard.press("g")
    expect(page.locator("#detail-pane[data-ready]").get_by_test_id("annotation")).to_have_text("good (person)")
    page.screenshot(path=str(artifacts / "keys-after-note.png"))
    first = run.interactions.get(user_interaction_id="row-01")
    assert first.annotation_reason == "made up the return window", "nothing typed into the note after Enter"
    assert run.interactions.get(user_interaction_id="row-02").annotation == "good"


def test_quick_keys_are_queued_and_page_ends_link_to_the_interaction(page, live_server, long_run, artifacts):
    run = long_run
    ids = dict(run.interactions.values_list("user_interaction_id", "pk"))
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "kim")
    page.goto(f"{live_server.url}/runs/{run.pk}/?sort=id")
    for _ in range(5):
        page.keyboard.press("j")  # no wait between presses: the later ones arrive while loading
    opened(page, "row-05")
    assert f"i={ids['row-05']}" in page.url
    page.keyboard.press("j")
    page.keyboard.press("g")
    opened(page, "row-06")
    expect(page.locator("#detail-pane[data-ready]").get_by_test_id("annotation")).to_have_text("good (person)")
    # From the last row of the first page, three quick j's: the next page, then two more rows.
    page.goto(f"{live_server.url}/runs/{run.pk}/?sort=id&i={ids['row-50']}")
    opened(page, "row-50")
    next_link = page.locator("[data-pane-next]")
    expect(next_link).to_have_attribute("href", re.compile(rf"i={ids['row-51']}"))
    expect(next_link).not_to_have_attribute("href", re.compile("first"))
    for _ in range(3):
        page.keyboard.press("j")
    opened(page, "row-53")
    assert f"i={ids['row-53']}" in page.url and "first" not in page.url
    # The table beside the panel is the second page, its open row marked.
    expect(page.locator(".pager")).to_contain_text("page 2 of 2")
    expect(page.locator("#interactions tbody tr.selected")).to_have_attribute("id", f"row-{ids['row-53']}")
    page.screenshot(path=str(artifacts / "keys-queued-next-page.png"))
    # The URL is a link to share: opened afresh, it shows the same interaction.
    shared = page.url
    page.goto(shared)
    opened(page, "row-53")
