"""Each broken file has one documented outcome, and the pages say it truthfully: an unclosed CSV
quote rejects its row and the rows after it are read; a JSON array cut short keeps the items before
the break, and says so before and after the import."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from properties.models import Upload
from tests.factories import ProjectFactory, RunFactory, UserFactory
from tests.unit.uploads.test_ingest import run_ingest

pytestmark = pytest.mark.django_db

VALID_ROWS = "".join(f"q{n},answer {n}\n" for n in range(100))


def test_an_unclosed_quote_rejects_its_row_and_keeps_the_rows_after_it():
    """Once: 0 accepted, 1 rejected, and the 100 rows after the quote vanished unreported."""
    text = 'input,output\nfirst,fine\nbroken,"never closed\n' + VALID_ROWS
    result = run_ingest(RunFactory(), "rows.csv", text)
    assert (result.accepted, result.rejected) == (101, 1)
    [error] = result.errors
    assert error.line == 3 and "a quote opened in this row is never closed" in error.reason


def test_a_quoted_cell_over_several_lines_is_still_one_row():
    text = 'input,output\n"two\nlines","and, a comma"\nlast,row\n'
    result = run_ingest(RunFactory(), "rows.csv", text)
    assert (result.accepted, result.rejected) == (2, 0)


def test_an_unclosed_quote_near_the_end_rejects_one_row_by_its_line():
    text = "input,output\n" + VALID_ROWS + 'q100,"cut\nq101,answer\n'
    result = run_ingest(RunFactory(), "rows.csv", text)
    assert (result.accepted, result.rejected) == (101, 1) and result.errors[0].line == 102


def test_a_quote_closed_rows_later_loses_no_row_unreported():
    """Once: the quote opened on line 3 closed on line 5 and the row failed there; lines 3 to 5 were
    lost and the page said 1 rejected. Now the row where the quote opened is rejected and the lines
    it swallowed are read again: every line of the file is stored or reported."""
    text = 'input,output\na,one\nb,"never closed\nc,three\nd,"four"\ne,five\n'
    result = run_ingest(RunFactory(), "rows.csv", text)
    assert (result.accepted, result.rejected) == (4, 1)
    [error] = result.errors
    assert error.line == 3 and "a quote opened in this row" in error.reason


def test_a_json_array_cut_short_keeps_the_items_before_and_says_so():
    items = [{"input": f"q{n}", "output": f"a{n}"} for n in range(3)]
    text = json.dumps(items)[:-30]  # inside the third item
    result = run_ingest(RunFactory(), "rows.json", text)
    assert result.accepted == 2
    assert result.fatal == "the file ends before its JSON array is closed, after item 2"


def test_the_pages_state_what_happens_to_a_json_array_cut_short(client):
    """Once the upload page said "nothing was stored ... the items before are kept", and stored nothing."""
    user = UserFactory()
    project = ProjectFactory(owner=user, enabled_properties=["word_count"])
    client.force_login(user)
    items = [{"input": f"q{n}", "output": f"a{n}"} for n in range(3)]
    upload = SimpleUploadedFile("cut.json", json.dumps(items)[:-30].encode())
    response = client.post(
        reverse("properties:upload-create", args=[project.pk]),
        {"file": upload, "run_name": "cut", "environment": "evaluation"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    mapping = client.get(response.url).content.decode()
    assert (
        "The file is cut short: the file ends before its JSON array is closed, after item 2: the rows before" in mapping
    )
    stored = Upload.objects.get()
    form = {"input": "input", "output": "output"}
    done = client.post(reverse("properties:upload-mapping", args=[stored.pk]), form, follow=True).content.decode()
    stored.refresh_from_db()
    assert stored.accepted == 2 and stored.run.interactions.count() == 2
    assert "Reading stopped at a problem with the whole file: the file ends before its JSON array is closed" in done
    assert "The rows before it were kept." in done and "nothing was stored" not in done


def test_a_json_array_cut_short_before_any_item_is_refused_whole(client):
    user = UserFactory()
    project = ProjectFactory(owner=user)
    client.force_login(user)
    upload = SimpleUploadedFile("cut.json", b'[{"input": "q", "outp')
    page = client.post(
        reverse("properties:upload-create", args=[project.pk]),
        {"file": upload, "run_name": "cut", "environment": "evaluation"},
    )
    text = page.content.decode()
    assert "nothing was stored" in text and "before any row that can be stored" in text
    assert not Upload.objects.filter(accepted__gt=0).exists()
