"""Every page is served with local assets only: no CDN, no external URL in what the browser loads."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]

# What makes a browser fetch: src, href of stylesheets/icons/scripts, srcset, CSS url(), form actions.
FETCHED = re.compile(
    r"""(?:\bsrc|\bhref|\bsrcset|\baction|\bhx-get|\bhx-post|url\()\s*=?\s*["']?\s*((?:https?:)?//[^"'\s)>]+)"""
)


@pytest.fixture
def pages(client):
    user = UserFactory()
    client.force_login(user)
    project = ProjectFactory(owner=user, enabled_properties=["toxicity"], key_properties=["toxicity"])
    first, second = RunFactory(project=project), RunFactory(project=project)
    for run in (first, second):
        for row in ("a", "b"):
            add_value(InteractionFactory(run=run, user_interaction_id=row), "toxicity", value=0.3)
    interaction = first.interactions.first()
    return [
        reverse("properties:project-list"),
        reverse("properties:project-detail", args=[project.pk]),
        reverse("properties:property-settings", args=[project.pk, "toxicity"]),
        reverse("properties:run-detail", args=[first.pk]) + f"?i={interaction.pk}&highlight=toxicity.output",
        reverse("properties:interaction-detail", args=[interaction.pk]),
        reverse("properties:project-compare", args=[project.pk]) + f"?runs={first.pk}&runs={second.pk}",
        reverse("properties:upload-create", args=[project.pk]),
        reverse("tokens:token-list"),
        "/api/docs",
    ]


def test_no_page_loads_anything_from_another_site(client, pages):
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert FETCHED.findall(response.content.decode()) == [], url
    for asset in ("static/app.js", "static/app.css", "static/api_docs.js"):
        text = (ROOT / asset).read_text()
        assert not re.search(r"""(?:src|href|url\(|import)\s*[=(]?\s*["']?(?:https?:)?//""", text), asset


def test_the_external_url_check_catches_a_cdn():
    assert FETCHED.findall('<script src="https://cdn.example.com/x.js"></script>') == ["https://cdn.example.com/x.js"]
    assert FETCHED.findall("<link href='//fonts.example.com/a.css'>") == ["//fonts.example.com/a.css"]
    assert FETCHED.findall('<a href="/runs/1/">') == []


def test_the_favicon_is_served_locally(client):
    assert 'rel="icon" href="/static/favicon.svg"' in client.get(reverse("login")).content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"
