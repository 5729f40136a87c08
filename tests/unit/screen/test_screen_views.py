import csv
import io
import json
import warnings

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from django.urls import reverse
from django.utils.html import escape

from properties import export
from properties.models import Interaction
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.annotations.test_rules import HOSTILE_RULES
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

XSS = '<script>window.pwned=1</script> <img src=x onerror="window.pwned=2"> &amp; &lt;b&gt; "quotes"'


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def run(user):
    project = ProjectFactory(owner=user)
    run = RunFactory(project=project, name="baseline")
    for i, toxicity in enumerate([0.1, 0.7, 0.4]):
        interaction = InteractionFactory(run=run, user_interaction_id=f"row-{i}", output=f"answer {i} {XSS}")
        add_value(interaction, "toxicity", value=toxicity)
    return run


@pytest.fixture
def client_in(client, user):
    client.force_login(user)
    return client


def test_data_screen_filters_sorts_and_serves_its_fragment_to_htmx(client_in, run):
    url = reverse("properties:run-detail", args=[run.pk])
    page = client_in.get(url, {"where": "toxicity.output>0.3", "sort": "-toxicity.output"}).content.decode()
    assert page.index('title="row-1"') < page.index('title="row-2"')
    assert 'title="row-0"' not in page
    assert 'value="toxicity.output&gt;0.3"' in page
    fragment = client_in.get(url, {"where": "toxicity.output<0.2"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="screen")
    body = fragment.content.decode()
    assert "<html" not in body and 'id="screen"' in body
    assert 'title="row-0"' in body and 'title="row-1"' not in body
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in body
    assert "<script>window.pwned" not in body


def test_detail_highlights_evidence_from_offsets_on_escaped_text(client_in, run):
    interaction = Interaction.objects.get(user_interaction_id="row-1")
    start = interaction.output.index("<img")
    value = add_value(interaction, "invalid_links", value=1.0)
    value.spans = [{"field": "output", "start": start, "end": start + 4, "label": "404", "score": 1.0, "note": "dead"}]
    value.save()
    url = reverse("properties:interaction-detail", args=[interaction.pk])
    body = client_in.get(url, {"highlight": "invalid_links.output"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in body
    assert (
        '<mark class="evidence ev-problem ev-problem-3" id="ev-1" tabindex="0" title="bad link “404” · dead" '
        'data-label="bad link" aria-describedby="ev-item-1">&lt;img</mark>'
    ) in body
    assert "onerror=&quot;window.pwned=2&quot;" in body
    plain = client_in.get(url, {"highlight": "toxicity.output"}).content.decode()
    assert "has no evidence spans" in plain and "<mark" not in plain


def test_span_notes_quoting_uploaded_text_are_escaped_in_the_title(client_in, run):
    """Notes quote uploaded text (the closest passage of an ungrounded statement, say)."""
    interaction = Interaction.objects.get(user_interaction_id="row-1")
    value = add_value(interaction, "grounded_in_context", value=0.2)
    note = 'closest passage: "><script>window.pwned=3</script>'
    value.spans = [{"field": "output", "start": 0, "end": 3, "label": "ungrounded", "score": 0.2, "note": note}]
    value.save()
    url = reverse("properties:interaction-detail", args=[interaction.pk])
    body = client_in.get(url, {"highlight": "grounded_in_context.output"}, HTTP_HX_REQUEST="true").content.decode()
    assert "&quot;&gt;&lt;script&gt;window.pwned=3&lt;/script&gt;" in body
    assert "<script>window.pwned=3" not in body


def test_a_person_annotates_from_the_detail_pane(client_in, run):
    interaction = Interaction.objects.get(user_interaction_id="row-0")
    url = reverse("properties:interaction-annotate", args=[interaction.pk])
    response = client_in.post(url, {"annotation": "bad", "reason": "made up a date"}, HTTP_HX_REQUEST="true")
    assert "made up a date" in response.content.decode()
    assert "hx-swap-oob" not in response.content.decode(), "its own page has no table to update"
    interaction.refresh_from_db()
    assert (interaction.annotation, interaction.annotation_source) == ("bad", "person")


def test_rules_page_shows_errors_with_lines_and_keeps_the_saved_rules(client_in, run):
    run.project.enabled_properties = ["toxicity"]  # rules may name only the properties the project scores
    run.project.save()
    url = reverse("properties:project-rules", args=[run.project.pk])
    assert "annotation: bad" in client_in.get(url).content.decode()
    bad = "- annotation: bad\n  conditions:\n    - {property: toxicity.output, operator: HUGE, value: 1}\n"
    page = client_in.post(url, {"rules": bad}).content.decode()
    assert "line 3: unknown operator" in page
    run.project.refresh_from_db()
    assert run.project.annotation_rules == ""
    good = "- annotation: bad\n  conditions:\n    - {property: toxicity.output, operator: GT, value: 0.5}\n"
    assert client_in.post(url, {"rules": good}).status_code == 302
    run.project.refresh_from_db()
    assert run.project.annotation_rules == good.strip()


@pytest.mark.parametrize(("text", "message"), HOSTILE_RULES)
def test_hostile_rules_are_a_message_on_the_rules_page(client_in, run, text, message):
    response = client_in.post(reverse("properties:project-rules", args=[run.project.pk]), {"rules": text})
    assert response.status_code == 200
    assert escape(message) in response.content.decode()
    assert len(response.content) < 200_000 + len(escape(text)), "the page shows the text once, and one message"


def test_compare_two_runs_with_charts_and_row_by_row(client_in, run):
    run.project.enabled_properties = ["toxicity"]
    run.project.save()
    other = RunFactory(project=run.project, name="candidate")
    for i, toxicity in enumerate([0.2, 0.1, 0.9]):
        add_value(
            InteractionFactory(run=other, user_interaction_id=f"row-{i}", output=f"new {i}"), "toxicity", value=toxicity
        )
    url = reverse("properties:project-compare", args=[run.project.pk])
    page = client_in.get(url, {"runs": [run.pk, other.pk]}).content.decode()
    assert 'data-address="toxicity.output"' in page
    assert 'id="chart-score"' not in page and "labelled good or bad yet" in page, "no labels: no score chart"
    assert 'id="row-diff" hx-get=' in page and 'hx-trigger="load"' in page, "the row-by-row view is a fragment"
    fragment = client_in.get(url, {"runs": [run.pk, other.pk]}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff")
    body = fragment.content.decode()
    assert "<html" not in body
    assert body.index(">row-1<") < body.index(">row-0<"), "largest change first"
    assert "<del>" in body and "<ins>new</ins>" in body
    without_js = client_in.get(url, {"runs": [run.pk, other.pk], "property": "toxicity.output"}).content.decode()
    assert "<html" in without_js and 'id="row-diff-table"' in without_js
    assert client_in.get(url, {"runs": [run.pk]}).status_code == 404


def test_exports(client_in, run):
    body = b"".join(client_in.get(reverse("properties:run-export", args=[run.pk, "csv"])).streaming_content)
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert [row["user_interaction_id"] for row in rows] == ["row-0", "row-1", "row-2"]
    assert rows[1]["toxicity.output"] == "0.7"
    assert rows[0]["output"].endswith(XSS)
    body = b"".join(client_in.get(reverse("properties:run-export", args=[run.pk, "json"])).streaming_content)
    records = json.loads(body)
    assert records[1]["properties"]["toxicity.output"]["value"] == 0.7
    other = RunFactory(project=run.project)
    InteractionFactory(run=other, user_interaction_id="row-0")
    url = reverse("properties:compare-export", args=[run.project.pk, "json"])
    body = b"".join(client_in.get(url, {"runs": [run.pk, other.pk]}).streaming_content)
    assert json.loads(body)[0]["user_interaction_id"] == "row-0"
    assert client_in.get(reverse("properties:run-export", args=[run.pk, "xml"])).status_code == 404


def _download(client, run, file_format, **params):
    response = client.get(reverse("properties:run-export", args=[run.pk, file_format]), params)
    body = b"".join(response.streaming_content).decode()
    return json.loads(body) if file_format == "json" else list(csv.DictReader(io.StringIO(body, newline="")))


def test_exports_follow_the_view_and_carry_verdicts_and_evidence(client_in, run):
    """The filter, search and sort of the Data Screen's URL; pass or fail; the spans with their text."""
    second = run.interactions.get(user_interaction_id="row-1")
    value = second.property_values.get(property_name="toxicity")
    value.spans = [{"field": "output", "start": 0, "end": 6, "label": "insult", "score": 0.9, "note": "rude"}]
    value.save()
    view = {"where": "failing:toxicity.output OR toxicity.output < 0.2", "sort": "-toxicity.output"}
    page = client_in.get(reverse("properties:run-detail", args=[run.pk]), view)
    shown = [row.interaction.user_interaction_id for row in page.context["rows"]]
    assert shown == ["row-1", "row-0"]

    rows = _download(client_in, run, "csv", **view)
    assert [row["user_interaction_id"] for row in rows] == shown
    assert [row["toxicity.output verdict"] for row in rows] == ["fail", "pass"]
    assert json.loads(rows[0]["toxicity.output evidence"]) == [
        {"field": "output", "text": "answer", "label": "insult", "score": 0.9, "note": "rude"}
    ]
    assert rows[1]["toxicity.output evidence"] == ""
    records = _download(client_in, run, "json", **view)
    assert [record["user_interaction_id"] for record in records] == shown
    toxicity = records[0]["properties"]["toxicity.output"]
    assert toxicity["verdict"] == "fail" and toxicity["evidence"][0]["text"] == "answer"
    # Repeated `where=` (older links), annotation and search are the view too.
    assert len(_download(client_in, run, "csv", where=["toxicity.output > 0.2", "toxicity.output < 0.5"])) == 1
    assert [r["user_interaction_id"] for r in _download(client_in, run, "json", q="answer 2")] == ["row-2"]


def test_an_export_under_a_broken_filter_is_refused_with_the_reason(client_in, run):
    response = client_in.get(reverse("properties:run-export", args=[run.pk, "csv"]), {"where": "toxicity.output >"})
    assert response.status_code == 400 and response["Content-Type"].startswith("text/plain")
    assert "column 18: the filter ends too early" in response.content.decode()


def test_the_screen_keeps_a_broken_filter_and_shows_no_rows(client_in, run):
    page = client_in.get(reverse("properties:run-detail", args=[run.pk]), {"where": "toxicity.output > <b>"})
    html = page.content.decode()
    assert page.context["rows"] == []
    assert 'value="toxicity.output &gt; &lt;b&gt;"' in html and 'aria-invalid="true"' in html
    assert "column 19: unexpected &#x27;&lt;&#x27;" in html and "<b>" not in html.split("filter-error", 1)[1][:600]
    assert "Export this view" not in html


FORMULAS = ['=HYPERLINK("http://evil.example","x")', "=cmd|' /C calc'!A0", "+1+2", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_csv_exports_write_formula_cells_as_text(client_in, run):
    for i, formula in enumerate(FORMULAS):
        InteractionFactory(run=run, user_interaction_id=formula, input=f"q{i}", output=formula)
    body = b"".join(client_in.get(reverse("properties:run-export", args=[run.pk, "csv"])).streaming_content)
    rows = list(csv.DictReader(io.StringIO(body.decode(), newline="")))[3:]
    assert [row["output"] for row in rows] == ["'" + formula for formula in FORMULAS]
    assert [row["user_interaction_id"] for row in rows] == ["'" + formula for formula in FORMULAS]
    assert rows[0]["input"] == "q0", "text that is not a formula is left alone"
    json_body = b"".join(client_in.get(reverse("properties:run-export", args=[run.pk, "json"])).streaming_content)
    assert [record["output"] for record in json.loads(json_body)[3:]] == FORMULAS, "JSON is not a spreadsheet"


def test_comparison_csv_keeps_negative_deltas_numbers_and_neutralises_text(client_in, run):
    other = RunFactory(project=run.project, name="=candidate")
    add_value(InteractionFactory(run=other, user_interaction_id="row-1", output="-1 point"), "toxicity", value=0.2)
    url = reverse("properties:compare-export", args=[run.project.pk, "csv"])
    body = b"".join(client_in.get(url, {"runs": [run.pk, other.pk]}).streaming_content).decode()
    (row,) = list(csv.DictReader(io.StringIO(body, newline="")))
    assert row["output (=candidate)"] == "'-1 point"
    assert float(row["toxicity.output delta"]) == pytest.approx(-0.5)


def test_project_page_lists_runs_with_score_and_means_and_pins(client_in, run):
    url = reverse("properties:project-detail", args=[run.project.pk])
    page = client_in.get(url).content.decode()
    assert "toxicity.output" in page and "0.400" in page
    client_in.post(reverse("properties:run-pin", args=[run.pk]))
    run.refresh_from_db()
    assert run.pinned


def test_property_settings_list_custom_scorers_and_validate_their_configuration(client_in, run):
    url = reverse("properties:project-detail", args=[run.project.pk])
    page = client_in.get(url).content.decode()
    assert "slow_word_count" in page and "custom" in page and "built-in" in page
    post = reverse("properties:project-properties", args=[run.project.pk])
    bad = client_in.post(post, {"enabled": ["word_count"], "configuration": '{"slow_word_count": {"speed": 3}}'})
    assert bad.status_code == 200
    assert "slow_word_count: " in bad.content.decode() and "speed" in bad.content.decode()
    unknown = client_in.post(post, {"enabled": ["word_count"], "configuration": '{"nope": {}}'})
    assert "unknown property" in unknown.content.decode()
    good = client_in.post(
        post, {"enabled": ["word_count", "slow_word_count"], "configuration": '{"slow_word_count": {"seconds": 0.01}}'}
    )
    assert good.status_code == 302
    run.project.refresh_from_db()
    assert run.project.enabled_properties == ["word_count", "slow_word_count"]
    assert run.project.property_config == {"slow_word_count": {"seconds": 0.01}}


def test_project_page_shows_the_pii_risk_factors_with_the_projects_overrides(client_in, run):
    run.project.property_config = {"pii_risk": {"risk_factors": {"email": 0.25}}}
    run.project.save()
    page = client_in.get(reverse("properties:project-detail", args=[run.project.pk])).content.decode()
    assert "PII Risk factors" in page and "<code>credit_card</code>" in page
    assert "0.25 (this project)" in page


@pytest.mark.parametrize("file_format", ["csv", "json"])
def test_exports_stream_under_asgi_without_reading_the_export_whole(user, run, monkeypatch, file_format):
    monkeypatch.setattr(export, "ASYNC_STEP", 2)
    monkeypatch.setattr(export, "STREAM_CHUNK_CHARS", 1)  # a chunk a row: several steps
    client = AsyncClient()

    async def download() -> bytes:
        await client.aforce_login(user)
        response = await client.get(reverse("properties:run-export", args=[run.pk, file_format]))
        return b"".join([chunk async for chunk in response.streaming_content])

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Django warns when it must read a sync iterator whole
        body = async_to_sync(download)()
    if file_format == "csv":
        ids = [row["user_interaction_id"] for row in csv.DictReader(io.StringIO(body.decode()))]
    else:
        ids = [record["user_interaction_id"] for record in json.loads(body)]
    assert ids == ["row-0", "row-1", "row-2"]
