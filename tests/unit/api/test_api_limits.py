"""The API answers JSON 4xx for every bad request it can be sent, with the limits of the upload:
filter terms (a subquery each) and keys per row."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from properties.models import ApiToken
from properties.screen.filters import MAX_CONDITIONS
from properties.uploads.file_formats import MAX_COLUMNS
from tests.factories import ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(client):
    user = UserFactory()
    project = ProjectFactory()
    project.add_member(user, "owner")
    run = RunFactory(project=project)
    _, secret = ApiToken.issue(user, "tests")
    return client, run, {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.mark.parametrize("terms", [MAX_CONDITIONS + 1, 990, 1500])
def test_too_many_filter_terms_is_a_json_4xx_never_a_server_error(setup, terms):
    client, run, auth = setup
    query = urlencode([("filter", "toxicity.output<0.5")] * terms)
    response = client.get(f"/api/runs/{run.pk}/interactions?{query}", **auth)
    assert response.status_code in (400, 422) and response["Content-Type"].startswith("application/json")
    assert "detail" in response.json()


def test_the_most_filter_terms_still_answer(setup):
    client, run, auth = setup
    query = urlencode([("filter", "toxicity.output<0.5")] * MAX_CONDITIONS)
    response = client.get(f"/api/runs/{run.pk}/interactions?{query}", **auth)
    assert response.status_code == 200 and response.json()["count"] == 0


def test_a_row_with_more_keys_than_a_file_has_columns_is_rejected_by_position(setup):
    client, run, auth = setup
    wide = {"input": "q", "output": "a", **{f"k{n}": n for n in range(MAX_COLUMNS + 1)}}
    batch = {"interactions": [{"input": "q", "output": "fine"}, wide]}
    response = client.post(f"/api/runs/{run.pk}/interactions", batch, content_type="application/json", **auth)
    body = response.json()
    assert response.status_code == 200 and (body["accepted"], body["rejected"]) == (1, 1)
    assert body["errors"] == [
        {"row": 2, "field": "", "reason": f"the object has {MAX_COLUMNS + 3:,} keys; at most {MAX_COLUMNS:,} are read"}
    ]
