"""An upload is resumable: a process killed mid-import leaves the upload *interrupted* with the rows
stored so far (never "stored 0/0"), and Resume completes it with every row stored exactly once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone

from properties.models import Upload
from properties.uploads import ingest
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

ROWS = 2_500
CSV = "id,input,output\n" + "".join(f"r{n},question {n},answer {n}\n" for n in range(ROWS)) + "bad,no output,\n"


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs, not even an `except Exception`."""


def stored_upload(project) -> Upload:
    upload = Upload(project=project, run_name="big", original_name="big.csv")
    upload.file.save("big.csv", ContentFile(CSV.encode()), save=True)
    return upload


def kill_after_batches(monkeypatch, batches: int) -> None:
    flush = ingest._BatchWriter.flush
    done = {"batches": 0}

    def dying_flush(self):
        if done["batches"] == batches and self.pending:
            raise Killed
        flush(self)
        done["batches"] += 1

    monkeypatch.setattr(ingest._BatchWriter, "flush", dying_flush)


def test_a_killed_import_is_interrupted_with_what_it_stored_and_resume_stores_each_row_once(monkeypatch, client):
    monkeypatch.setattr(ingest, "BATCH_SIZE", 1000)
    user = UserFactory()
    project = ProjectFactory(owner=user, enabled_properties=["word_count"])
    upload = stored_upload(project)
    kill_after_batches(monkeypatch, 2)
    with pytest.raises(Killed):
        ingest.ingest_upload(upload, {"user_interaction_id": "id", "input": "input", "output": "output"})
    monkeypatch.undo()
    upload.refresh_from_db()
    # What the page reads: the rows stored so far, as committed with their batches.
    assert (upload.status, upload.accepted, upload.lines_done) == ("importing", 2000, 2001)
    assert upload.run.interactions.count() == 2000
    assert not upload.interrupted, "a live import is not interrupted yet"
    client.force_login(user)
    page = client.get(reverse("properties:upload-detail", args=[upload.pk])).content.decode()
    assert "Importing: 2000 rows stored so far (line 2001)" in page
    # Its process is gone: no progress for longer than an import ever pauses.
    Upload.objects.filter(pk=upload.pk).update(progress_at=timezone.now() - timedelta(minutes=5))
    page = client.get(reverse("properties:upload-detail", args=[upload.pk])).content.decode()
    assert "The import was interrupted after line 2001: 2000 rows stored so far" in page
    assert "stored 0/0" not in page
    resumed = client.post(reverse("properties:upload-resume", args=[upload.pk]), follow=True).content.decode()
    upload.refresh_from_db()
    assert (upload.status, upload.accepted, upload.rejected) == ("ingested", ROWS, 1)
    assert upload.run.interactions.count() == ROWS, "every row once"
    assert [error["line"] for error in upload.row_problems] == [ROWS + 2]
    assert "already in run" not in resumed and f'<strong data-testid="accepted">{ROWS}</strong>' in resumed
    assert upload.run.jobs.count() == 1, "scored once it is complete"
    # A second Resume finds nothing to do.
    again = client.post(reverse("properties:upload-resume", args=[upload.pk]), follow=True).content.decode()
    assert "not interrupted: nothing to resume" in again and upload.run.interactions.count() == ROWS


def test_only_one_request_takes_an_interrupted_import():
    upload = stored_upload(ProjectFactory())
    Upload.objects.filter(pk=upload.pk).update(status="importing", progress_at=timezone.now() - timedelta(minutes=5))
    assert ingest.claim_resume(upload) is True
    assert ingest.claim_resume(upload) is False
