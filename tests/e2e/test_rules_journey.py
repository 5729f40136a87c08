"""The annotation rules page at 1440x900: defaults from the RAG template, a rule on a property the
project does not score refused with its line, and a preview of what the rules would label."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.e2e


def test_rules_are_checked_and_previewed_before_they_are_saved(page, live_server, artifacts):
    user = UserFactory(username="rosa")
    project = ProjectFactory(
        owner=user,
        name="Docs bot",
        template="rag",
        enabled_properties=["grounded_in_context", "pii_risk", "toxicity"],
        key_properties=["grounded_in_context"],
    )
    run = RunFactory(project=project, name="v1")
    for i in range(10):
        interaction = InteractionFactory(run=run, user_interaction_id=f"q{i}")
        add_value(interaction, "grounded_in_context", value=0.9 if i < 6 else 0.2)
        add_value(interaction, "toxicity", value=0.01)
        add_value(interaction, "pii_risk", value=0.792 if i == 0 else 0.0)  # an e-mail address
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rosa")
    page.goto(f"{live_server.url}/projects/{project.pk}/rules/")
    box = page.locator("#id_rules")
    expect(box).to_contain_text("{property: pii_risk.output, operator: GE, value: 0.5}")
    expect(box).not_to_contain_text("fluency")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_test_id("preview-counts")).to_have_text("5 good, 5 bad, 0 unchanged")
    page.screenshot(path=str(artifacts / "rules-preview.png"), full_page=True)

    box.fill(
        "- annotation: bad\n  conditions:\n    - {property: groundedness.output, operator: LT, value: 0.5}\n"
        "    - {property: toxicity.output, operator: GT, value: 2}\n"
    )
    page.get_by_role("button", name="Preview").click()
    errors = page.locator("#rules-errors li")
    expect(errors).to_have_count(2)
    expect(errors.nth(0)).to_contain_text("line 3: groundedness.output: the project scores no property 'groundedness'")
    expect(errors.nth(1)).to_contain_text("line 4: toxicity.output GT 2: the value is outside the property's range")
    expect(box).to_have_value(re.compile("groundedness.output"))  # the text stays as typed
    page.get_by_role("button", name="Validate and save").click()
    expect(page.locator("#rules-errors li")).to_have_count(2)
    page.screenshot(path=str(artifacts / "rules-refused.png"), full_page=True)
    project.refresh_from_db()
    assert project.annotation_rules == ""

    box.fill("- annotation: good\n  conditions:\n    - {property: grounded_in_context, operator: GE, value: 0.8}")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_test_id("preview-counts")).to_have_text("6 good, 0 bad, 4 unchanged")
    page.get_by_role("button", name="Validate and save").click()
    expect(page.get_by_text("Rules saved.")).to_be_visible()
