"""A property measured against the team's labels: annotate in the Data Screen until there are enough,
read the figures on the property's page, apply the suggested threshold, see the pass rate follow,
and list the disagreements. Screenshots go to test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from properties.models import PropertyValue, ThresholdChange
from properties.quality import criteria
from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.e2e

# Good answers score high on Grounded in Context, bad ones low, with three exceptions: two good ones
# low (0.3, 0.45) and one bad one high (0.9). The labels came with the data (uploaded).
GOOD = [0.3, 0.45, *(round(0.62 + 0.02 * i, 2) for i in range(18))]  # 20
BAD = [*(round(0.05 + 0.03 * i, 2) for i in range(18)), 0.9]  # 19: 0.05 ... 0.56, and 0.9
# Not labelled yet: the journey labels the first bad and the second good; the third stays unknown.
UNLABELLED = [("new-low", 0.2), ("new-high", 0.8), ("new-middle", 0.5)]


@pytest.fixture
def labelled(live_server):
    user = UserFactory(username="rita")
    project = ProjectFactory(
        owner=user,
        name="Support bot",
        enabled_properties=["grounded_in_context"],
        key_properties=["grounded_in_context"],
    )
    run = RunFactory(project=project, name="v1")
    rows = [(f"good-{i}", v, "good") for i, v in enumerate(GOOD)] + [(f"bad-{i}", v, "bad") for i, v in enumerate(BAD)]
    for uid, number, label in [*rows, *((uid, number, "unknown") for uid, number in UNLABELLED)]:
        interaction = InteractionFactory(run=run, user_interaction_id=uid, output=f"The answer of {uid}.")
        interaction.annotation = label
        interaction.save()
        PropertyValue.objects.create(
            interaction=interaction,
            run=run,
            property_name="grounded_in_context",
            field="output",
            value=number,
            scorer_version="1:e2e",
        )
    return project, run


def pass_rate(page):
    return page.locator('[data-testid=pass-rate][data-address="grounded_in_context.output"] strong')


def test_annotate_read_the_agreement_and_apply_the_suggested_threshold(page, live_server, labelled, artifacts):
    project, run = labelled
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "rita")
    settings_url = f"{live_server.url}/projects/{project.pk}/properties/grounded_in_context/"

    # 20 good and 19 bad: one bad label short of the figures.
    page.goto(settings_url)
    expect(page.get_by_test_id("agreement-needed")).to_contain_text("1 more bad (now 20 good, 19 bad)")
    page.screenshot(path=str(artifacts / "agreement-needed.png"), full_page=True)

    # At 0.5: 18 high good, new-high, 0.5, 0.53, 0.56 and 0.9 bad, and new-middle pass: 24 of 42.
    page.goto(f"{live_server.url}/runs/{run.pk}/?annotation=unknown")
    expect(pass_rate(page)).to_have_text("57%")
    expect(page.get_by_test_id("match-count")).to_have_text("3 interactions")
    page.keyboard.press("j")
    expect(page.locator("#detail-pane[data-ready] h2")).to_contain_text("new-low")
    page.keyboard.press("b")
    expect(page.locator("#detail-pane[data-ready]").get_by_test_id("annotation")).to_have_text("bad (person)")
    page.keyboard.press("j")
    expect(page.locator("#detail-pane[data-ready] h2")).to_contain_text("new-high")
    page.keyboard.press("g")
    expect(page.locator("#detail-pane[data-ready]").get_by_test_id("annotation")).to_have_text("good (person)")

    # 21 good and 20 bad now. ROC-AUC: of 420 (good, bad) pairs, the good 0.3 is below 10 bad values
    # (0.32 ... 0.56, and 0.9), 0.45 below 5 (0.47 ... 0.56, and 0.9), the bad 0.9 above 15 good
    # (0.62 ... 0.88, and new-high's 0.8) and level with one (0.9, half a pair):
    # (420 - 10 - 5 - 15 - 0.5) / 420 = 0.927.
    page.goto(settings_url)
    expect(page.get_by_test_id("agreement-sources")).to_contain_text(
        "21 good and 20 bad (2 set in the Data Screen, 39 uploaded with the data)"
    )
    expect(page.get_by_test_id("agreement-auc")).to_contain_text(re.compile(r"^0\.927 \(95% interval 0\.\d+ to "))
    current = page.get_by_test_id("agreement-current")
    # At 0.5: 19 of 21 good pass (0.3 and 0.45 fail); 4 of 20 bad pass (0.5, 0.53, 0.56, 0.9).
    expect(current.locator("tbody tr").nth(0)).to_have_text(re.compile(r"Passes\s*19\s*4"))
    expect(current.locator("tbody tr").nth(1)).to_have_text(re.compile(r"Fails\s*2\s*16"))
    expect(current.locator("tfoot")).to_contain_text("Balanced accuracy 0.852")
    suggested = page.get_by_test_id("agreement-suggested")
    # Between 0.56 and 0.62 the split is best, written 0.6: only 0.9 of the bad passes.
    expect(suggested.locator("caption")).to_have_text("Suggested threshold 0.6")
    expect(suggested.locator("tbody tr").nth(0)).to_have_text(re.compile(r"Passes\s*19\s*1"))
    expect(suggested.locator("tfoot")).to_contain_text("Balanced accuracy 0.927")
    expect(page.locator("#agreement-chart-plot .main-svg").first).to_be_visible()
    page.locator("#agreement").screenshot(path=str(artifacts / "agreement-figures.png"))

    page.get_by_test_id("apply-threshold").click()
    expect(page.get_by_text("Pass rates and filters use it from now on.")).to_be_visible()
    expect(page.get_by_test_id("threshold-change")).to_contain_text("Set by rita on", ignore_case=False)
    expect(page.get_by_test_id("threshold-change")).to_contain_text(
        "from the suggestion of the team's labels (it was 0.5)"
    )
    expect(page.get_by_test_id("agreement-applied")).to_have_text("The current threshold is the suggested one.")
    page.screenshot(path=str(artifacts / "agreement-applied.png"), full_page=True)
    project.refresh_from_db()
    assert criteria.criterion_for(project, "grounded_in_context").threshold == 0.6
    assert ThresholdChange.objects.get(project=project).set_by.username == "rita"

    # The pass rate follows: 18 high good, new-high and the bad 0.9 pass: 20 of 42.
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    expect(pass_rate(page)).to_have_text("48%")
    page.screenshot(path=str(artifacts / "agreement-pass-rate.png"))

    # The disagreements: the good 0.3 and 0.45 fail, the bad 0.9 passes.
    page.goto(settings_url)
    page.get_by_test_id("agreement-disagreements").get_by_role("link", name="v1 (3)").click()
    expect(page.get_by_test_id("match-count")).to_have_text("3 interactions")
    assert "disagrees" in page.url
    # Furthest from 0.6 first: 0.9 and 0.3 (0.3 away each), then 0.45.
    expect(page.locator("#interactions tbody tr").last).to_contain_text("good-1")
    page.screenshot(path=str(artifacts / "agreement-disagreements.png"), full_page=True)
