"""The demo project: a user and interactions scored through the same pipeline as a user's upload."""

from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from properties.models import Membership, Project
from properties.projects import project_templates
from properties.uploads import ingest

DEMO_USERNAME = "demo"
DEMO_PROJECT = "Demo: support assistant"
DEMO_RUN = "baseline"
DEMO_FILE = Path(__file__).resolve().parent / "demo" / "interactions.csv"


def create_demo() -> tuple[str | None, Project]:
    """Create the demo user and project once. Returns the new password (None when the user existed)."""
    User = get_user_model()
    password = None
    with transaction.atomic():
        user = User.objects.filter(username=DEMO_USERNAME).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = User.objects.create_user(DEMO_USERNAME, password=password)
        project = Project.objects.filter(name=DEMO_PROJECT, memberships__user=user).first()
        if project is not None:
            return password, project
        project = Project(
            name=DEMO_PROJECT,
            description="Questions to a support assistant with retrieved documents, scored on start.",
        )
        project_templates.apply(project, "rag")
        if settings.EVALSITE_DEFAULT_PROPERTIES:
            # The operator chose what new projects score by default (cheap properties on a machine
            # without models, say): the demo scores those, with the RAG template's key properties.
            project.enabled_properties = project_templates.default_properties()
        project.save()
        project.add_member(user, Membership.Role.OWNER)
        # Scored through the pipeline: a worker plans the job once this transaction commits.
        ingest.ingest_path(project, DEMO_RUN, DEMO_FILE, user=user, start_scoring=True)
    return password, project
