"""The prompt property page's Preview: judged by a worker on the `llm` queue, never in the web process.

The web request stores what to judge (the unsaved property as plain data, and a key typed for
this preview only, encrypted) and hands one task over after commit; the page polls until the
worker has stored the verdicts, or says that no worker took the preview.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from properties import provider_keys
from properties.models import Interaction, Project, PromptPreview, PromptProperty
from properties.scorers.base import ScorerUnavailable

# Previews are kept this long for the page to read, then deleted when the next one starts.
KEEP_FOR = timedelta(hours=1)


def start_preview(project: Project, user, prompt: PromptProperty, new_key: str = "") -> PromptPreview:
    from properties.tasks import preview_prompt_task

    run = project.runs.order_by("-created_at", "-pk").first()
    ids = []
    if run is not None:
        ids = list(run.interactions.order_by("pk").values_list("pk", flat=True)[: PromptProperty.PREVIEW_ITEMS])
    with transaction.atomic():
        PromptPreview.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()
        preview = PromptPreview.objects.create(
            project=project,
            created_by=user,
            spec=prompt.spec(),
            encrypted_key=provider_keys.encrypt(new_key) if new_key else "",
            run=run,
            interaction_ids=ids,
            status=PromptPreview.Status.WAITING if ids else PromptPreview.Status.DONE,
        )
        if ids:
            preview_prompt_task.apply_async_on_commit(args=(preview.pk,), queue="llm")
    return preview


def run_preview(preview_id: int) -> None:
    """Judge the preview's interactions and store the verdicts (the task's body)."""
    preview = PromptPreview.objects.select_related("project").filter(pk=preview_id).first()
    if preview is None or preview.status != PromptPreview.Status.WAITING:
        return  # deleted, or already judged by an earlier delivery of the same task
    key = provider_keys.decrypt(preview.encrypted_key) if preview.encrypted_key else None
    interactions = Interaction.objects.in_bulk(preview.interaction_ids)
    ordered = [interactions[pk] for pk in preview.interaction_ids if pk in interactions]
    try:
        scores = preview.prompt().preview(ordered, api_key=key)
    except ScorerUnavailable as exc:
        preview.status, preview.error = PromptPreview.Status.FAILED, provider_keys.scrub(str(exc))
    else:
        preview.status = PromptPreview.Status.DONE
        preview.interaction_ids = [interaction.pk for interaction in ordered]
        preview.results = [
            {
                "ok": score.ok,
                "value": score.value,
                "label": score.label,
                "reasoning": (score.details or {}).get("reasoning", ""),
                "error": provider_keys.scrub(score.error or ""),
            }
            for score in scores
        ]
    preview.encrypted_key = ""  # used once, never kept
    preview.save(update_fields=["status", "error", "results", "interaction_ids", "encrypted_key"])
