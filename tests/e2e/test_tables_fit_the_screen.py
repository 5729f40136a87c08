"""The Data Screen and the project's runs table at 1440x900 with the RAG template's properties: no
page-wide horizontal scroll, the output in view, columns by display name in the template's order,
extra columns scrolling inside the table, and the side panel below the top bar. Screenshots go to
test-artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from properties.projects import project_templates
from tests.e2e.test_data_screen_journey import log_in
from tests.e2e.test_screen_journeys import DOCUMENT, OUTPUT, QUESTION, value
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.e2e

RAG = project_templates.get("rag")
# On the whole interaction; the others are on the output (PII Risk and Toxicity on the input too).
WHOLE = {"retrieval_relevance", "context_relevancy"}
TEMPLATE_COLUMNS = ["Grounded in Context", "Retrieval Relevance", "Context Relevancy", "Relevance", "Avoided Answer"]

# Widths the checks read from the page, in CSS pixels.
LAYOUT = """() => {
  const box = document.querySelector('.table-scroll');
  const table = document.querySelector('#interactions');
  const output = [...table.querySelectorAll('thead th')].find(th => th.textContent.trim() === 'Output');
  return {page: document.documentElement.scrollWidth, table: table.scrollWidth, box: box.clientWidth,
          boxRight: box.getBoundingClientRect().right, outputRight: output.getBoundingClientRect().right};
}"""


def uncovered(page, locator) -> bool:
    """Whether the element is what a click at its centre reaches (nothing drawn over it)."""
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return locator.evaluate("(el, [x, y]) => el.contains(document.elementFromPoint(x, y))", [x, y])


@pytest.fixture
def rag_runs(live_server):
    project = ProjectFactory(
        owner=UserFactory(username="tess"),
        name="Support docs",
        template="rag",
        enabled_properties=RAG.enabled_properties(),
        key_properties=list(RAG.key_properties),
    )
    runs = [RunFactory(project=project, name=f"v{n}") for n in range(2)]
    for run in runs:
        for i in range(8):
            interaction = InteractionFactory(
                run=run,
                user_interaction_id=f"ticket-{i}",
                input=QUESTION,
                information_retrieval=[DOCUMENT],
                output=OUTPUT,
            )
            for prop in RAG.properties:
                value(interaction, prop, 0.125 * i, field="interaction" if prop in WHOLE else "output")
            for prop in ("pii_risk", "toxicity"):
                value(interaction, prop, 0.1, field="input")
    return project, runs


def headers(page) -> list[str]:
    return [text.strip() for text in page.locator("#interactions thead th").all_inner_texts()]


def test_the_data_screen_fits_1440x900_with_the_templates_columns_in_its_order(page, live_server, rag_runs, artifacts):
    project, runs = rag_runs
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "tess")
    page.goto(f"{live_server.url}/runs/{runs[0].pk}/")
    assert headers(page) == ["Id", "Annotation", *TEMPLATE_COLUMNS, "Output", "Input"]
    grounded = page.locator("#interactions thead th.property").first
    expect(grounded).to_have_attribute("title", "Grounded in Context — grounded_in_context.output")
    layout = page.evaluate(LAYOUT)
    assert layout["page"] <= 1440, f"no horizontal page scroll: {layout}"
    assert layout["table"] <= layout["box"], f"the table fits its box: {layout}"
    assert layout["outputRight"] <= min(layout["boxRight"], 1440), f"the output is in view: {layout}"
    # A property cell is its mark and value.
    cell = page.locator("#row-" + str(runs[0].interactions.get(user_interaction_id="ticket-7").pk) + " td.num").first
    expect(cell.locator(".verdict")).to_have_text(re.compile(r"^[✓✗] 0\.875"))
    assert cell.bounding_box()["width"] < 130
    page.screenshot(path=str(artifacts / "data-screen-fits-1440.png"))

    # Apply keeps the template's order; so does a chosen subset with more columns, and the session remembers it.
    page.locator(".column-picker summary").click()
    page.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"columns=1&col=grounded_in_context\.output&col=retrieval_relevance&"))
    assert headers(page)[2:-2] == TEMPLATE_COLUMNS
    page.locator(".column-picker summary").click()
    for name in ("Toxicity (output)", "PII Risk (input)", "Information Density", "PII Risk (output)"):
        page.locator(".column-choice", has_text=name).get_by_role("checkbox").check()
    page.get_by_role("button", name="Apply").click()
    extra = ["Information Density", "PII Risk (input)", "PII Risk (output)", "Toxicity (output)"]
    expect(page.locator("#interactions thead th")).to_have_count(4 + 9)
    assert headers(page)[2:-2] == TEMPLATE_COLUMNS + extra
    page.reload()
    assert headers(page)[2:-2] == TEMPLATE_COLUMNS + extra, "remembered in that order"
    layout = page.evaluate(LAYOUT)
    assert layout["page"] <= 1440, f"extra columns scroll inside the table, not the page: {layout}"
    assert layout["table"] > layout["box"], layout
    assert layout["outputRight"] <= min(layout["boxRight"], 1440), f"the output is in view: {layout}"
    page.screenshot(path=str(artifacts / "data-screen-nine-columns.png"))
    page.locator(".table-scroll").evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    first_id = page.locator("#interactions tbody tr td:first-child a").first
    box_left = page.locator(".table-scroll").bounding_box()["x"]
    assert abs(first_id.bounding_box()["x"] - box_left) < 20, "the id column stays pinned"
    assert uncovered(page, first_id)
    expect(page.locator("#interactions thead th").last).to_be_in_viewport()
    page.screenshot(path=str(artifacts / "data-screen-nine-columns-scrolled.png"))

    # The side panel opens below the top bar, which stays in view and usable.
    first_id.click()
    expect(page.locator("#detail-pane h2")).to_contain_text("ticket-0")
    topbar = page.locator(".topbar").bounding_box()
    assert page.locator("#detail-pane").bounding_box()["y"] >= topbar["y"] + topbar["height"] - 1
    projects = page.locator(".topbar").get_by_role("link", name="Projects")
    assert uncovered(page, projects)
    page.evaluate("window.scrollBy(0, 600)")
    assert page.evaluate("window.scrollY") > 0
    expect(projects).to_be_in_viewport()
    assert uncovered(page, projects), "the top bar stays over the page when it scrolls"
    page.screenshot(path=str(artifacts / "data-screen-panel-below-top-bar.png"))


def test_the_project_runs_table_fits_1440x900_by_display_name(page, live_server, rag_runs, artifacts):
    project, runs = rag_runs
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, live_server, "tess")
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    names = [text.strip() for text in page.locator("#runs thead th.property").all_inner_texts()]
    assert names[:5] == TEMPLATE_COLUMNS, "the key properties first, in the template's order"
    assert len(names) == 10 and "Toxicity (input)" in names and not any("." in name for name in names)
    widths = page.evaluate(
        "() => ({page: document.documentElement.scrollWidth, table: document.querySelector('#runs').scrollWidth,"
        " box: document.querySelector('#runs').parentElement.clientWidth})"
    )
    assert widths["page"] <= 1440 and widths["table"] <= widths["box"], widths
    page.screenshot(path=str(artifacts / "project-runs-fit-1440.png"))
