"""Secrets and outbound requests are the operator's: canary secrets in the environment and loopback
servers that record what reaches them show that a project can neither send the server's secrets
anywhere nor make the server connect where the operator did not allow."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client
from django.urls import reverse

from properties.models import ApiToken, PropertyValue, ScoringJob
from properties.pipeline import scoring
from properties.scorers.llm.judges import LLMHallucinationFree
from properties.scorers.net import policy
from properties.web.forms import store_project_key
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

pytest_plugins = ["tests.unit.llm_server"]

CANARY = "sk-canary-0123456789abcdefCANARY"
VERDICT = json.dumps({"reasoning": "fine", "has_hallucination": False})


class Recorder:
    """A loopback server that records every request; answers a redirect to `redirect_to` if set."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        self.redirect_to = ""
        # A provider that answers 401 quoting every header and the body it received.
        self.echo = False
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.seen.append((self.path, dict(self.headers), body))
                if recorder.echo:
                    quoted = f"Incorrect API key provided: {self.headers.get('Authorization')}; {dict(self.headers)}"
                    payload = json.dumps({"error": {"message": f"{quoted}; body: {body.decode()}"}}).encode()
                    self.send_response(401)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if recorder.redirect_to:
                    self.send_response(307)
                    self.send_header("Location", recorder.redirect_to + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": VERDICT}}]}).encode()
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def everything_sent(self) -> str:
        return json.dumps([(path, headers, body.decode(errors="replace")) for path, headers, body in self.seen])

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    yield server
    server.close()


@pytest.fixture
def canaries(monkeypatch) -> None:
    """The server's own secrets and the operator's provider key, as canaries."""
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("DATABASE_URL_CANARY", CANARY)


def judged_run(config: dict):
    project = ProjectFactory(enabled_properties=["llm_hallucination_free"], property_config=config)
    run = RunFactory(project=project)
    InteractionFactory.create_batch(2, run=run, output="Paris is in France.")
    for chunk in scoring.plan_job(run).chunks.all():
        scoring.score_chunk(chunk.pk)
    return project, list(PropertyValue.objects.filter(run=run).values_list("status", "error"))


@pytest.mark.django_db
def test_a_project_base_url_the_operator_did_not_list_is_never_contacted(recorder, canaries, settings):
    settings.EVALSITE_LLM_BASE_URLS = []
    config = {"llm_hallucination_free": {"model_id": "openai/gpt-4o-mini", "base_url": recorder.url}}
    _, values = judged_run(config)  # as if saved around the form
    assert {status for status, _ in values} == {"error"}
    assert "not allowed by the operator" in values[0][1]
    assert recorder.seen == []


@pytest.mark.django_db
def test_the_operators_key_never_goes_to_a_listed_base_url_unless_named_for_it(recorder, canaries, settings):
    settings.EVALSITE_LLM_BASE_URLS = [recorder.url]
    _, values = judged_run({"llm_hallucination_free": {"model_id": "openai/gpt-4o-mini", "base_url": recorder.url}})
    assert {status for status, _ in values} == {"ok"}
    assert len(recorder.seen) == 2 and CANARY not in recorder.everything_sent()
    assert recorder.seen[0][1]["authorization"] == "Bearer no-key"


@pytest.mark.django_db
def test_a_redirect_from_a_listed_base_url_to_an_unlisted_address_is_refused(recorder, canaries, settings):
    inner = Recorder()  # another loopback port: private, and not listed
    try:
        recorder.redirect_to = inner.url.removesuffix("/v1")
        settings.EVALSITE_LLM_BASE_URLS = [recorder.url]
        [score] = LLMHallucinationFree(model_id="openai/judge", base_url=recorder.url).run_batch(["x"], ["q"])
    finally:
        inner.close()
    assert score.error and "refused by the network guard" in score.error and "loopback" in score.error
    assert len(recorder.seen) == 1 and inner.seen == []


@pytest.mark.django_db
def test_an_unlisted_base_url_is_refused_at_save_and_a_key_never_goes_into_configuration(client, recorder):
    user = UserFactory()
    project = ProjectFactory(owner=user)
    client.force_login(user)
    url = reverse("properties:project-properties", args=[project.pk])
    config = {
        "llm_hallucination_free": {"model_id": "openai/gpt-4o-mini", "base_url": recorder.url},
        "llm_summarization": {"model_id": "openai/gpt-4o-mini", "api_key": CANARY},
        "invalid_links": {"allow_private_addresses": True},
        "llm_context_relevancy": {"model_id": "openai/gpt-4o-mini", "api_key_variable": "SECRET_KEY"},
        "llm_context_entity_recall": {"model_id": "openai/gpt-4o-mini", "api_key_name": "missing"},
    }
    page = client.post(url, {"enabled": ["word_count"], "configuration": json.dumps(config)}).content.decode()
    assert "not allowed by the operator (EVALSITE_LLM_BASE_URLS" in page
    assert "a key never goes into the configuration" in page
    assert "allow_private_addresses is the operator&#x27;s setting (EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES)" in page
    assert "cannot hold a provider key" in page or "is not a provider key variable the operator allows" in page
    assert "the project has no provider key named &quot;missing&quot;" in page
    project.refresh_from_db()
    # Nothing saved; the key appears once, in the user's own unsaved text echoed back for correction.
    assert project.property_config == {} and page.count(CANARY) == 1


@pytest.mark.django_db
def test_a_stored_project_key_is_used_by_name_encrypted_at_rest_and_never_shown(client, recorder, settings):
    settings.EVALSITE_LLM_BASE_URLS = [recorder.url]
    user = UserFactory()
    project = ProjectFactory(owner=user)
    client.force_login(user)
    client.post(reverse("properties:project-keys", args=[project.pk]), {"name": "team-openai", "key": CANARY})
    stored = project.provider_keys.get()
    assert CANARY not in stored.encrypted and stored.key() == CANARY
    pages = [
        client.get(reverse("properties:project-keys", args=[project.pk])).content.decode(),
        client.get(reverse("properties:project-detail", args=[project.pk])).content.decode(),
    ]
    assert all(CANARY not in page and CANARY[-4:] not in page for page in pages) and "team-openai" in pages[0]
    config = {"model_id": "openai/gpt-4o-mini", "base_url": recorder.url, "api_key_name": "team-openai"}
    project.property_config = {"llm_hallucination_free": config}
    project.enabled_properties = ["llm_hallucination_free"]
    project.save()
    run = RunFactory(project=project)
    InteractionFactory(run=run)
    for chunk in scoring.plan_job(run).chunks.all():
        scoring.score_chunk(chunk.pk)
    assert recorder.seen[0][1]["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in json.dumps(list(PropertyValue.objects.values("details", "error", "scorer_version")))


@pytest.mark.django_db
def test_a_key_cannot_be_stored_without_the_operators_secrets_key(client, settings):
    settings.EVALSITE_SECRETS_KEY = []
    user = UserFactory()
    project = ProjectFactory(owner=user)
    client.force_login(user)
    page = client.post(reverse("properties:project-keys", args=[project.pk]), {"name": "k", "key": CANARY})
    assert "its operator has not set EVALSITE_SECRETS_KEY" in page.content.decode()
    assert not project.provider_keys.exists()


@pytest.mark.django_db
def test_another_users_keys_page_is_a_404(client):
    project = ProjectFactory(owner=UserFactory())
    store_project_key(project, "k", CANARY)
    client.force_login(UserFactory())
    assert client.get(reverse("properties:project-keys", args=[project.pk])).status_code == 404
    key = project.provider_keys.get()
    assert client.post(reverse("properties:project-key-delete", args=[project.pk, key.pk])).status_code == 404


@pytest.mark.parametrize(
    "name", ["SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "EVALSITE_SECRETS_KEY", "PGPASSWORD"]
)
def test_the_apps_own_settings_can_never_be_listed_as_key_variables(name):
    with pytest.raises(policy.OutboundRefused, match="cannot hold a provider key"):
        policy.configure(llm_key_variables=["OPENAI_API_KEY", name])


def test_the_start_policy_refuses_every_base_url_and_private_link():
    default = policy.OutboundPolicy()
    assert not default.allow_private_links
    with pytest.raises(policy.OutboundRefused):
        default.check_llm_base_url("http://127.0.0.1:11434")


@pytest.mark.parametrize(
    ("listed", "wanted", "allowed"),
    [
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434/v1", True),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/", True),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v2", False),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v10", False),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11435", False),
        ("http://127.0.0.1:11434", "https://127.0.0.1:11434", False),
        ("https://llm.example.com", "https://llm.example.com.evil.test", False),
        ("https://llm.example.com", "https://user:pw@llm.example.com", False),
    ],
)
def test_base_urls_match_the_operators_list_by_origin_and_path(listed, wanted, allowed):
    with policy.temporarily(llm_base_urls=[listed]):
        if allowed:
            policy.current().check_llm_base_url(wanted)
        else:
            with pytest.raises(policy.OutboundRefused):
                policy.current().check_llm_base_url(wanted)


MISTRAL_CANARY = "mistral-canary-7f3a9c0d1e2b4a5f"


@pytest.mark.django_db
def test_a_key_a_provider_echoes_back_is_stored_and_shown_nowhere(recorder, canaries, settings, monkeypatch, caplog):
    """An allowed key variable in a format no pattern knows, quoted back by the provider in its 401."""
    monkeypatch.setenv("MISTRAL_API_KEY", MISTRAL_CANARY)
    settings.EVALSITE_LLM_BASE_URLS = [recorder.url]
    recorder.echo = True
    config = {
        "llm_hallucination_free": {
            "model_id": "openai/judge",
            "base_url": recorder.url,
            "api_key_variable": "MISTRAL_API_KEY",
        }
    }
    project, values = judged_run(config)
    assert MISTRAL_CANARY in recorder.everything_sent(), "the key was sent, and echoed back"
    assert {status for status, _ in values} == {"error"}
    assert "Incorrect API key provided: Bearer ***" in values[0][1]
    job = ScoringJob.objects.get(run__project=project)
    stored = json.dumps([values, job.last_error, job.failure, job.notice])
    assert MISTRAL_CANARY not in stored and MISTRAL_CANARY not in caplog.text
    # The API shows what is stored.
    user = UserFactory()
    project.add_member(user, "owner")
    _, secret = ApiToken.issue(user, "t")
    client = Client()
    answered = client.get(f"/api/jobs/{job.pk}", HTTP_AUTHORIZATION=f"Bearer {secret}").content.decode()
    answered += client.get(
        f"/api/runs/{job.run_id}/interactions", HTTP_AUTHORIZATION=f"Bearer {secret}"
    ).content.decode()
    assert "Incorrect API key" in answered and MISTRAL_CANARY not in answered


@pytest.mark.django_db
def test_the_servers_own_secrets_are_scrubbed_from_stored_errors_and_logs(settings, monkeypatch, caplog):
    """A scorer (a user's plugin, say) whose error quotes the server's secret key and connection URLs."""
    import logging

    from properties import provider_keys
    from properties.scorers import registry
    from properties.scorers.base import Scorer

    broker = "redis://:broker-password-4711@redis.internal:6379/0"
    database = "postgres://evalsite:db-password-0815@db.internal:5432/evalsite"
    monkeypatch.setenv("CELERY_BROKER_URL", broker)
    monkeypatch.setenv("DATABASE_URL", database)
    settings.SECRET_KEY = "django-secret-key-canary-42"
    settings.EVALSITE_SECRETS_KEY = ["fernet-key-canary-000000000000000000000000="]
    leaks = [settings.SECRET_KEY, settings.EVALSITE_SECRETS_KEY[0], broker, database]

    class Leaky(Scorer):
        @staticmethod
        def name() -> str:
            return "leaky"

        def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
            raise RuntimeError(" ".join(leaks) + " and the passwords alone: db-password-0815 broker-password-4711")

    with registry.temporarily(Leaky):
        project = ProjectFactory(enabled_properties=["leaky"])
        run = RunFactory(project=project)
        InteractionFactory.create_batch(2, run=run)
        job = scoring.plan_job(run)
        for chunk in job.chunks.filter(kind="score"):
            scoring.score_chunk(chunk.pk)
    job.refresh_from_db()
    errors = list(PropertyValue.objects.filter(run=run).values_list("error", flat=True))
    text = json.dumps([errors, job.last_error])
    assert "RuntimeError" in text and "***" in text
    for secret in [*leaks, "db-password-0815", "broker-password-4711"]:
        assert secret not in text
    caplog.set_level(logging.INFO)
    logging.getLogger("properties.test").warning("connecting to %s", broker)
    record = caplog.records[-1]
    assert provider_keys.ScrubSecrets().filter(record) and broker not in record.getMessage()


@pytest.mark.django_db
def test_a_project_configuration_never_names_code_to_import(client, settings):
    """`{"schema": {"pydantic_model": "this.s"}}` once imported `this` in the worker; `torch.X` grew a
    pool process by 330 MB for good. Now only models the operator registered by name are imported."""
    import sys

    settings.EVALSITE_PYDANTIC_MODELS = {"order": "tests.unit.scorers.schema_models.Order"}
    user = UserFactory()
    project = ProjectFactory(owner=user, enabled_properties=["schema"])
    client.force_login(user)
    url = reverse("properties:project-properties", args=[project.pk])
    refused = {"schema": {"pydantic_model": "this.s"}}
    page = client.post(url, {"enabled": ["schema"], "configuration": json.dumps(refused)}).content.decode()
    assert "pydantic_model names one of the objects this server&#x27;s operator registered in " in page
    assert "EVALSITE_PYDANTIC_MODELS (order); a project&#x27;s configuration cannot name code to import" in page
    project.refresh_from_db()
    assert project.property_config == {}
    # Written around the form (or saved before the rule): every value fails, nothing is imported.
    sys.modules.pop("this", None)
    project.property_config = refused
    project.save()
    run = RunFactory(project=project)
    InteractionFactory(run=run, output='{"id": 1}')
    for chunk in scoring.plan_job(run).chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    [(status, error)] = PropertyValue.objects.filter(run=run).values_list("status", "error")
    assert status == "error" and "cannot name code to import" in error
    assert "this" not in sys.modules
    # A registered model, by its name: saved, and scored with the operator's class.
    allowed = {"schema": {"pydantic_model": "order"}}
    client.post(url, {"enabled": ["schema"], "configuration": json.dumps(allowed)})
    project.refresh_from_db()
    assert project.property_config == allowed
    run = RunFactory(project=project)
    InteractionFactory(run=run, output='{"id": 7, "items": [{"sku": "A1", "quantity": 2}]}')
    InteractionFactory(run=run, output='{"id": "seven"}')
    for chunk in scoring.plan_job(run).chunks.filter(kind="score"):
        scoring.score_chunk(chunk.pk)
    values = sorted(PropertyValue.objects.filter(run=run).values_list("value", flat=True))
    assert values == [0.0, 1.0]
