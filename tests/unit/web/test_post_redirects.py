"""Every form that changes or creates something redirects after its POST, so a reload repeats nothing.

Each URL of the app is either posted to below, with valid data and no htmx, or listed as read-only:
a new URL fails the first test until it is put in one of the two.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import get_resolver, reverse

from properties.models import ApiToken, Upload
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory

RULES = "- annotation: bad\n  conditions:\n    - {property: word_count.output, operator: GT, value: 9}\n"
READ_ONLY = {
    "properties:project-detail",
    "properties:prompt-preview",
    "properties:project-compare",
    "properties:compare-export",
    "properties:upload-detail",
    "properties:run-detail",
    "properties:run-export",
    "properties:job-progress",
    "properties:run-progress",
    "properties:interaction-detail",
}


def app_url_names() -> set[str]:
    names = set()
    for namespace in ("properties", "tokens"):
        resolver = get_resolver().namespace_dict[namespace][1]
        names.update(f"{namespace}:{name}" for name in resolver.reverse_dict if isinstance(name, str))
    return names


class World:
    """A project with a scored-looking run, owned by the logged-in user."""

    def __init__(self, client) -> None:
        self.user = UserFactory()
        client.force_login(self.user)
        self.project = ProjectFactory(owner=self.user, enabled_properties=["word_count"])
        self.run = RunFactory(project=self.project)
        self.interaction = InteractionFactory(run=self.run)
        self.key = self.project.provider_keys.create(name="old", encrypted="x")


def posts(world: World) -> dict[str, tuple[str, dict]]:
    project, run = world.project.pk, world.run.pk
    prompt = world.project.prompt_properties.create(
        name="Tone", property_name="prompt_tone", template="Polite? {output}", model_id="openai/m"
    )
    upload = Upload.objects.create(
        project=world.project, run_name="v2", original_name="a.csv", file=SimpleUploadedFile("a.csv", b"output\nhi\n")
    )
    token = ApiToken.issue(world.user, "old")[0]
    view = world.project.saved_views.create(name="Old", where="word_count.output > 9", created_by=world.user)
    judge = {"name": "Polite", "template": "Polite? {output}", "output_type": "score", "model_id": "openai/m"}
    return {
        "properties:project-list": (reverse("properties:project-list"), {"name": "New", "description": ""}),
        "properties:project-properties": (
            reverse("properties:project-properties", args=[project]),
            {"enabled": ["word_count"], "configuration": "{}"},
        ),
        "properties:project-rename": (reverse("properties:project-rename", args=[project]), {"name": "Renamed"}),
        "properties:property-settings": (
            reverse("properties:property-settings", args=[project, "word_count"]),
            {"direction": "higher", "threshold": "5", "tolerance": "0.01", "key": "on"},
        ),
        "properties:property-apply-threshold": (
            reverse("properties:property-apply-threshold", args=[project, "word_count"]),
            {"threshold": "5", "direction": "higher"},
        ),
        "properties:project-rules": (
            reverse("properties:project-rules", args=[project]),
            {"rules": RULES},
        ),
        "properties:prompt-property-create": (reverse("properties:prompt-property-create", args=[project]), judge),
        "properties:prompt-property-edit": (
            reverse("properties:prompt-property-edit", args=[project, prompt.pk]),
            {**judge, "preview": "1"},
        ),
        "properties:prompt-property-delete": (
            reverse("properties:prompt-property-delete", args=[project, prompt.pk]),
            {},
        ),
        "properties:project-keys": (reverse("properties:project-keys", args=[project]), {"name": "k", "key": "sk-1"}),
        "properties:project-key-delete": (reverse("properties:project-key-delete", args=[project, world.key.pk]), {}),
        "properties:upload-create": (
            reverse("properties:upload-create", args=[project]),
            {"run_name": "v3", "environment": "evaluation", "file": SimpleUploadedFile("b.csv", b"output\nhello\n")},
        ),
        "properties:upload-mapping": (reverse("properties:upload-mapping", args=[upload.pk]), {"output": "output"}),
        "properties:upload-resume": (reverse("properties:upload-resume", args=[upload.pk]), {}),
        "properties:run-rescore": (reverse("properties:run-rescore", args=[run]), {}),
        "properties:run-annotate": (reverse("properties:run-annotate", args=[run]), {}),
        "properties:run-pin": (reverse("properties:run-pin", args=[run]), {}),
        "properties:run-rename": (reverse("properties:run-rename", args=[run]), {"name": "renamed"}),
        "properties:interaction-annotate": (
            reverse("properties:interaction-annotate", args=[world.interaction.pk]),
            {"annotation": "good", "reason": ""},
        ),
        "properties:saved-view-create": (
            reverse("properties:saved-view-create", args=[run]),
            {"name": "Wordy", "where": "word_count.output > 3", "col": ["word_count.output"]},
        ),
        "properties:saved-view-delete": (reverse("properties:saved-view-delete", args=[run, view.pk]), {}),
        "tokens:token-list": (reverse("tokens:token-list"), {"name": "CI"}),
        "tokens:token-revoke": (reverse("tokens:token-revoke", args=[token.pk]), {}),
        # Last: they delete what the others post to.
        "properties:run-delete": (reverse("properties:run-delete", args=[run]), {}),
        "properties:project-delete": (reverse("properties:project-delete", args=[project]), {}),
    }


@pytest.mark.django_db
def test_every_url_is_posted_to_here_or_read_only(client):
    assert app_url_names() == READ_ONLY | set(posts(World(client)))


@pytest.mark.django_db
def test_every_post_redirects(client, django_capture_on_commit_callbacks):
    world = World(client)
    answers = {}
    with django_capture_on_commit_callbacks():  # tasks are not sent: this is about the answers
        for name, (url, data) in posts(world).items():
            response = client.post(url, data)
            answers[name] = (response.status_code, response.get("Location", "").split("/")[-3:-1])
    assert {name: status for name, (status, _) in answers.items()} == dict.fromkeys(answers, 302)
    assert answers["properties:prompt-property-edit"][1][0] == "prompt-previews", "a preview shows on its own page"
