"""The REST API: token auth, ownership, per-row validation, limits, scoring, filters, summaries."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.cache import cache

from evalsite.file_cache import LockedFileBasedCache
from properties.models import ApiToken, Interaction, PromptProperty, PropertyValue, RunLLMUsage, ScoringJob
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def auth(user) -> dict[str, str]:
    _, secret = ApiToken.issue(user, "tests")
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def post(client, url, data, auth):
    return client.post(url, data, content_type="application/json", **auth)


def test_no_token_or_a_bad_or_revoked_token_is_401(client, user, auth):
    assert client.get("/api/projects").status_code == 401
    assert client.get("/api/projects", HTTP_AUTHORIZATION="Bearer evs_wrong").status_code == 401
    ApiToken.objects.get(user=user).revoke()
    response = client.get("/api/projects", **auth)
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}


def test_tokens_are_stored_hashed(user):
    token, secret = ApiToken.issue(user, "ci")
    assert secret.startswith("evs_") and secret not in (token.key_hash, token.key_prefix + "x")
    assert ApiToken.authenticate(secret) == token


def test_another_users_project_run_and_job_are_404(client, auth):
    run = RunFactory()  # owned by someone else
    job = ScoringJob.objects.create(run=run)
    assert client.get(f"/api/projects/{run.project.pk}", **auth).status_code == 404
    assert client.get(f"/api/runs/{run.pk}/summary", **auth).status_code == 404
    assert (
        post(client, f"/api/runs/{run.pk}/interactions", {"interactions": [{"output": "x"}]}, auth).status_code == 404
    )
    assert client.get(f"/api/jobs/{job.pk}", **auth).status_code == 404


def test_create_project_run_log_and_read_back(client, user, auth):
    project = post(client, "/api/projects", {"name": "Bot", "properties": ["word_count"]}, auth)
    assert project.status_code == 201
    run = post(client, f"/api/projects/{project.json()['id']}/runs", {"name": "v1"}, auth)
    assert run.status_code == 201
    again = post(client, f"/api/projects/{project.json()['id']}/runs", {"name": "v1"}, auth)
    assert again.status_code == 409
    rows = [
        {"user_interaction_id": "a", "input": "hi", "output": "hello there"},
        {"user_interaction_id": "b", "input": "bye"},
        {"user_interaction_id": "a", "output": "duplicate"},
        {"question": "q", "answer": "mapped by name", "annotation": "thumbs up"},
        {"output": "x", "annotation": "maybe"},
    ]
    logged = post(client, f"/api/runs/{run.json()['id']}/interactions", {"interactions": rows}, auth)
    assert logged.status_code == 200
    body = logged.json()
    assert (body["accepted"], body["rejected"]) == (2, 3)
    assert [(e["row"], e["field"]) for e in body["errors"]] == [
        (2, "output"),
        (3, "user_interaction_id"),
        (5, "annotation"),
    ]
    stored = Interaction.objects.filter(run_id=run.json()["id"]).order_by("pk")
    assert [(i.input, i.output, i.annotation) for i in stored] == [
        ("hi", "hello there", "unknown"),
        ("q", "mapped by name", "good"),
    ]


def test_batch_and_body_limits_are_413_with_the_limit(client, user, auth, settings):
    run = RunFactory(project=ProjectFactory(owner=user))
    settings.EVALSITE_API_MAX_BATCH = 2
    response = post(client, f"/api/runs/{run.pk}/interactions", {"interactions": [{"output": "x"}] * 3}, auth)
    assert response.status_code == 413
    assert response.json()["detail"] == "a batch of 3 interactions is over the limit of 2"
    settings.EVALSITE_API_MAX_BODY_BYTES = 100
    response = post(client, f"/api/runs/{run.pk}/interactions", {"interactions": [{"output": "x" * 200}]}, auth)
    assert response.status_code == 413
    assert "over the limit of 100 bytes" in response.json()["detail"]


def test_rate_limit_is_429_with_retry_after(client, auth, settings):
    settings.EVALSITE_API_RATE_LIMIT = 2
    assert [client.get("/api/projects", **auth).status_code for _ in range(2)] == [200, 200]
    response = client.get("/api/projects", **auth)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "2 requests per minute" in response.json()["detail"]


def test_start_scoring_and_read_progress(client, user, auth, django_capture_on_commit_callbacks):
    run = RunFactory(project=ProjectFactory(owner=user))
    InteractionFactory.create_batch(3, run=run)
    assert post(client, f"/api/runs/{run.pk}/score", {"properties": ["nope"]}, auth).status_code == 400
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = post(client, f"/api/runs/{run.pk}/score", {"properties": ["word_count"]}, auth)
    assert response.status_code == 202
    assert len(callbacks) == 1  # the planning task is handed to a worker after commit
    job = response.json()
    assert (job["status"], job["total"], job["properties"]) == ("planning", 0, ["word_count"])
    from properties.pipeline import scoring

    stored = ScoringJob.objects.get(pk=job["id"])
    scoring.plan_chunks(stored.chunks.get(kind="plan").pk)
    assert client.get(f"/api/jobs/{job['id']}", **auth).json()["total"] == 3
    scoring.score_chunk(stored.chunks.get(kind="score").pk)
    progress = client.get(f"/api/jobs/{job['id']}", **auth).json()
    assert (progress["status"], progress["done"], progress["percent"]) == ("done", 3, 100)


def _values(run, rows):
    for interaction, (tox, label) in zip(InteractionFactory.create_batch(len(rows), run=run), rows, strict=True):
        PropertyValue.objects.create(
            interaction=interaction, run=run, property_name="toxicity", field="output", value=tox, scorer_version="1"
        )
        interaction.annotate(label)


def test_interactions_filter_on_property_ranges_and_annotation(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    _values(run, [(0.05, "good"), (0.5, "bad"), (0.09, "bad")])
    url = f"/api/runs/{run.pk}/interactions"
    low = client.get(url, {"filter": "toxicity.output<0.1"}, **auth).json()
    assert low["count"] == 2
    assert [item["properties"]["toxicity.output"] for item in low["items"]] == [0.05, 0.09]
    both = client.get(url, {"filter": ["toxicity.output<0.1", "toxicity.output>=0.06"], "annotation": "bad"}, **auth)
    assert both.json()["count"] == 1
    bad = client.get(url, {"filter": "toxicity<<1"}, **auth)
    assert bad.status_code == 400 and "bad filter" in bad.json()["detail"]
    # A property with a value per field must name the field; the answer shows how.
    ambiguous = client.get(url, {"filter": "toxicity<0.1"}, **auth)
    assert ambiguous.status_code == 400
    assert "write toxicity.input or toxicity.output" in ambiguous.json()["detail"]


def test_interactions_filter_in_the_data_screens_language(client, user, auth):
    """The API reads the filters the Data Screen shows: statuses, OR, NOT, annotation, text."""
    run = RunFactory(project=ProjectFactory(owner=user))
    _values(run, [(0.05, "good"), (0.7, "bad"), (0.09, "bad")])
    url = f"/api/runs/{run.pk}/interactions"

    def uids(text):
        response = client.get(url, {"filter": text}, **auth)
        assert response.status_code == 200, response.json()
        return [item["properties"]["toxicity.output"] for item in response.json()["items"]]

    assert uids("failing:toxicity.output") == [0.7]
    assert uids("passing:toxicity.output AND annotation = bad") == [0.09]
    assert uids("toxicity.output < 0.06 OR toxicity.output > 0.5") == [0.05, 0.7]
    assert uids("NOT annotation = good") == [0.7, 0.09]
    assert uids("disagrees:toxicity.output") == [0.09], "passes, yet labelled bad"
    broken = client.get(url, {"filter": "failing:toxicity.output AND"}, **auth)
    assert broken.status_code == 400
    assert "column 28: the filter ends too early" in broken.json()["detail"]


def test_a_property_scored_on_one_field_needs_no_field_name(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    for interaction, valid in zip(InteractionFactory.create_batch(2, run=run), [1.0, 0.0], strict=True):
        PropertyValue.objects.create(
            interaction=interaction,
            run=run,
            property_name="valid_json",
            field="output",
            value=valid,
            scorer_version="1",
        )
    found = client.get(f"/api/runs/{run.pk}/interactions", {"filter": "valid_json=1"}, **auth).json()
    assert [item["properties"]["valid_json.output"] for item in found["items"]] == [1.0]


def test_run_summary_has_means_and_annotation_counts(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    _values(run, [(0.2, "good"), (0.4, "bad")])
    summary = client.get(f"/api/runs/{run.pk}/summary", **auth).json()
    assert summary["interactions"] == 2
    assert summary["properties"]["toxicity.output"] == {
        "count": 2,
        "errors": 0,
        "not_applicable": 0,
        "mean": pytest.approx(0.3),
    }
    assert summary["annotations"] == {"good": 1, "bad": 1, "unknown": 0}
    assert summary["llm_usage"] == {"calls": 0, "tokens": 0, "cost_usd": 0, "unpriced_calls": 0}


def test_run_summary_sums_llm_usage_over_the_judged_properties(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    RunLLMUsage.objects.create(run=run, property_name="llm_hallucination_free", calls=3, tokens=300, cost_usd=0.25)
    RunLLMUsage.objects.create(run=run, property_name="prompt_polite", calls=2, tokens=100, unpriced_calls=2)
    usage = client.get(f"/api/runs/{run.pk}/summary", **auth).json()["llm_usage"]
    assert usage == {"calls": 5, "tokens": 400, "cost_usd": pytest.approx(0.25), "unpriced_calls": 2}


def test_scoring_by_name_accepts_the_projects_prompt_properties(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    PromptProperty.objects.create(
        project=run.project, name="Polite", property_name="prompt_polite", template="Is it polite? {output}"
    )
    started = client.post(
        f"/api/runs/{run.pk}/score", {"properties": ["prompt_polite"]}, content_type="application/json", **auth
    )
    assert started.status_code == 202
    other = RunFactory(project=ProjectFactory(owner=user))
    refused = client.post(
        f"/api/runs/{other.pk}/score", {"properties": ["prompt_polite"]}, content_type="application/json", **auth
    )
    assert refused.status_code == 400 and "unknown properties: prompt_polite" in refused.json()["detail"]


def test_openapi_schema_and_docs_need_a_login_and_load_nothing_from_elsewhere(client, user):
    for url in ("/api/openapi.json", "/api/docs"):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")
    client.force_login(user)
    schema = client.get("/api/openapi.json").json()
    assert "/api/runs/{run_id}/interactions" in schema["paths"]
    page = client.get("/api/docs").content.decode()
    scripts_and_styles = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert scripts_and_styles == [
        "/static/vendor/swagger-ui/swagger-ui.css",
        "/static/vendor/swagger-ui/swagger-ui-bundle.js",
        "/static/api_docs.js",
    ]
    for url in scripts_and_styles:
        assert finders.find(url.removeprefix("/static/")), f"{url} is not in static/"
    assert '"validatorUrl": null' in page, "the UI must not send the schema to validator.swagger.io"


def test_an_offset_past_64_bits_is_a_json_4xx_naming_it(client, user, auth):
    run = RunFactory(project=ProjectFactory(owner=user))
    response = client.get(f"/api/runs/{run.pk}/interactions", {"offset": 2**63}, **auth)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "offset"]


# What check_limits does for each request, in a process of its own (a web worker).
COUNT_REQUESTS = """
import sys
from evalsite.file_cache import LockedFileBasedCache
counter = LockedFileBasedCache(sys.argv[1], {})
for _ in range(int(sys.argv[2])):
    counter.add("requests", 0, timeout=60)
    counter.incr("requests")
"""


def test_the_default_cache_counts_requests_across_processes(tmp_path, settings):
    assert settings.CACHES["default"]["BACKEND"] == "evalsite.file_cache.LockedFileBasedCache"
    workers = [
        subprocess.Popen([sys.executable, "-c", COUNT_REQUESTS, str(tmp_path), "150"], cwd=ROOT) for _ in range(4)
    ]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0, 0, 0]
    assert LockedFileBasedCache(str(tmp_path), {}).get("requests") == 600, "no count lost between processes"


def test_token_page_shows_a_new_token_once_and_revokes(client, user):
    client.force_login(user)
    created = client.post("/settings/api-tokens/", {"name": "ci"}, follow=True)
    assert created.redirect_chain == [("/settings/api-tokens/", 302)], "a reload must not create a second token"
    secret = created.context["new_secret"]
    assert secret in created.content.decode()
    listing = client.get("/settings/api-tokens/").content.decode()
    assert "ci" in listing and secret not in listing
    assert ApiToken.objects.filter(user=user).count() == 1
    token = ApiToken.objects.get(user=user)
    other = UserFactory()
    client.force_login(other)
    assert client.post(f"/settings/api-tokens/{token.pk}/revoke/").status_code == 404
    client.force_login(user)
    assert client.post(f"/settings/api-tokens/{token.pk}/revoke/").status_code == 302
    assert ApiToken.authenticate(secret) is None


def test_a_pass_criterion_is_set_through_the_api_within_the_propertys_range(client, user, auth):
    project = ProjectFactory(owner=user, enabled_properties=["toxicity"])
    url = f"/api/projects/{project.pk}/properties/toxicity"

    def put(body):
        return client.put(url, body, content_type="application/json", **auth)

    for threshold in (2, -1):
        refused = put({"direction": "lower", "threshold": threshold})
        assert refused.status_code == 400
        assert refused.json()["detail"] == (
            f"threshold: {threshold} is outside toxicity's range (0 to 1): every value would pass or fail"
        )
    assert put({"direction": "lower"}).status_code == 400, "a direction needs a threshold"
    assert put({"direction": "lower", "threshold": 0.3, "tolerance": -1}).status_code == 422
    unknown = f"/api/projects/{project.pk}/properties/groundedness"
    answer = client.put(unknown, {"direction": ""}, content_type="application/json", **auth)
    assert answer.status_code == 400 and answer.json()["detail"].startswith("unknown properties: groundedness")
    saved = put({"direction": "lower", "threshold": 0.3, "key": True})
    assert saved.status_code == 200
    assert saved.json() | {"describe": ""} == {
        "property": "toxicity",
        "direction": "lower",
        "threshold": 0.3,
        "tolerance": 0.01,
        "low": 0.0,
        "high": 1.0,
        "key": True,
        "describe": "",
    }
    project.refresh_from_db()
    assert project.pass_criteria["toxicity"]["threshold"] == 0.3 and project.key_properties == ["toxicity"]
    other = RunFactory().project  # someone else's
    assert (
        client.put(
            f"/api/projects/{other.pk}/properties/toxicity", {"direction": ""}, content_type="application/json", **auth
        ).status_code
        == 404
    )


def test_text_that_cannot_be_stored_is_a_422_naming_the_field(client, auth):
    # PostgreSQL refuses NUL in text and in JSON: it was a 500 there.
    response = post(client, "/api/projects", {"name": "Bot", "description": "a\u0000b"}, auth)
    assert response.status_code == 422 and "description" in response.content.decode()
    assert "NUL" in response.content.decode()
    project = post(client, "/api/projects", {"name": "Bot", "properties": ["word_count"]}, auth).json()
    runs = f"/api/projects/{project['id']}/runs"
    refused = post(client, runs, {"name": "v1", "metadata": {"notes": ["ok", {"k\u0000": 1}]}}, auth)
    assert refused.status_code == 422 and "metadata" in refused.content.decode()
    assert post(client, runs, {"name": "v1", "metadata": {"notes": ["ok", {"émoji 🙂": 1}]}}, auth).status_code == 201
