"""Every page works under the site's Content-Security-Policy (the page fixture fails on any
violation), and sends the security headers."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from properties.models import PromptProperty
from tests.e2e.test_data_screen_journey import log_in
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.e2e


@pytest.fixture
def site(live_server):
    user = UserFactory(username="ada")
    project = ProjectFactory(owner=user, name="Security tour", enabled_properties=["toxicity"])
    baseline, candidate = RunFactory(project=project, name="baseline"), RunFactory(project=project, name="candidate")
    # Two rows a run: the project page's interval of a mean needs two values (with one, SQLite's
    # sample standard deviation fails the page: a bug of its own, reported).
    for run, toxicity in ((baseline, 0.2), (candidate, 0.6)):
        for row in ("q1", "q2"):
            interaction = InteractionFactory(run=run, user_interaction_id=row, output=f"{row} of {run.name}")
            add_value(interaction, "toxicity", value=toxicity)
    prompt = PromptProperty.objects.create(
        project=project, name="Polite", property_name="prompt_polite", template="Is it polite? {output}"
    )
    interaction = baseline.interactions.first()
    return {
        "project list": reverse("properties:project-list"),
        "project": reverse("properties:project-detail", args=[project.pk]),
        "rules": reverse("properties:project-rules", args=[project.pk]),
        "keys": reverse("properties:project-keys", args=[project.pk]),
        "prompt property": reverse("properties:prompt-property-edit", args=[project.pk, prompt.pk]),
        "upload": reverse("properties:upload-create", args=[project.pk]),
        "data screen": reverse("properties:run-detail", args=[baseline.pk]),
        "interaction": reverse("properties:interaction-detail", args=[interaction.pk]),
        "compare": reverse("properties:project-compare", args=[project.pk])
        + f"?runs={baseline.pk}&runs={candidate.pk}",
        "tokens": reverse("tokens:token-list"),
        "property settings": reverse("properties:property-settings", args=[project.pk, "toxicity"]),
        "new project": reverse("properties:project-list") + "#new-project",
    }


def test_every_page_runs_under_the_policy(page, live_server, site):
    log_in(page, live_server, "ada")
    expect(page.get_by_role("link", name="Security tour")).to_be_visible()
    requested, failed = [], []
    page.on("request", lambda request: requested.append(request.url))
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    for name, path in site.items():
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, name
        headers = response.headers
        assert "script-src 'self'" in headers["content-security-policy"], name
        assert "frame-ancestors 'none'" in headers["content-security-policy"], name
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["referrer-policy"] == "same-origin", name
    page.goto(f"{live_server.url}{site['compare']}")
    expect(page.locator(".chart .main-svg").first).to_be_visible()  # plotly drew the charts
    expect(page.get_by_test_id("diff-summary")).to_be_visible()  # the row-by-row fragment loaded
    page.locator("select[name=property]").select_option("toxicity.output")  # the select submits its form
    expect(page.locator("#row-diff-table thead")).to_contain_text("Δ Toxicity (output)")
    outside = [url for url in requested if not url.startswith((live_server.url, "data:", "blob:"))]
    assert outside == [], "every asset is served by the site itself (no CDN)"
    assert failed == [], "no page asks for something the site does not have (a favicon, say)"
    assert any(url.endswith("/static/favicon.svg") for url in requested)


def test_the_api_docs_render_from_vendored_files(page, live_server, site):
    log_in(page, live_server, "ada")
    expect(page.get_by_role("link", name="Security tour")).to_be_visible()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_server.url}/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Evalsite API")
    expect(page.get_by_text("/api/runs/{run_id}/interactions").first).to_be_visible()
    assert all(url.startswith(live_server.url) for url in requested), requested


def test_a_run_named_like_a_link_is_drawn_as_text_in_the_charts(page, live_server, artifacts):
    """A run named `<a href=...>Baseline</a>` once became four live links in the comparison's charts,
    with inline-style violations of the policy (the page fixture fails on any)."""
    user = UserFactory(username="eve")
    project = ProjectFactory(owner=user, name="Names", enabled_properties=["toxicity"])
    hostile = '<a href="https://evil.example/phish">Baseline</a>'
    runs = [RunFactory(project=project, name=hostile), RunFactory(project=project, name="<b>candidate</b>")]
    for run, toxicity in zip(runs, (0.2, 0.6), strict=True):
        for row in ("q1", "q2"):
            add_value(InteractionFactory(run=run, user_interaction_id=row), "toxicity", value=toxicity)
    log_in(page, live_server, "eve")
    expect(page.get_by_role("link", name="Names")).to_be_visible()
    url = reverse("properties:project-compare", args=[project.pk])
    page.goto(f"{live_server.url}{url}?runs={runs[0].pk}&runs={runs[1].pk}")
    charts = page.locator(".chart .main-svg")
    expect(charts.first).to_be_visible()
    assert page.locator(".chart a").count() == 0, "no link inside a chart"
    assert page.locator(".chart b").count() == 0
    expect(page.locator(".chart text").filter(has_text="evil.example").first).to_have_text(hostile)
    page.screenshot(path=artifacts / "compare-hostile-run-names.png", full_page=True)
