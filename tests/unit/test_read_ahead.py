"""Pages read ahead in a thread: failures surface, an abandoned reader stops, connections close."""

import itertools
import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse

from properties import export, read_ahead
from tests.factories import InteractionFactory, ProjectFactory, RunFactory, UserFactory


def _threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "export-read-ahead"]


def test_pages_arrive_in_order_at_most_depth_ahead():
    made = []

    def pages():
        for number in range(5):
            made.append(number)
            yield number

    pages_read = read_ahead.read_ahead(pages, depth=1)
    assert next(pages_read) == 0
    time.sleep(0.2)
    assert len(made) <= 3, "one taken, one queued, one waiting for room"
    assert list(pages_read) == [1, 2, 3, 4]
    assert not _threads()


def test_a_failure_in_the_thread_is_the_callers_error():
    def pages():
        yield "first"
        raise ValueError("the page query failed")

    pages_read = read_ahead.read_ahead(pages)
    assert next(pages_read) == "first"
    with pytest.raises(ValueError, match="the page query failed"):
        next(pages_read)
    assert not _threads()


def test_a_caller_that_stops_stops_the_thread():
    made = []

    def pages():
        for number in range(1000):
            made.append(number)
            yield number

    pages_read = read_ahead.read_ahead(pages)
    assert next(pages_read) == 0
    pages_read.close()  # what a server does with an abandoned download
    assert not _threads()
    assert len(made) < 10


@pytest.mark.django_db(transaction=True)
def test_the_thread_reads_on_its_own_connection_and_closes_it():
    get_user_model().objects.create(username="seen")
    seen = []

    def pages():
        seen.append((id(connection.connection), get_user_model().objects.filter(username="seen").count()))
        yield connection.connection
        yield None

    connection.ensure_connection()
    own = connection.connection
    thread_connection = next(read_ahead.read_ahead(pages))
    assert thread_connection is not own and seen[0][1] == 1
    assert not _threads()


@pytest.mark.django_db(transaction=True)
def test_an_export_whose_reader_fails_ends_with_the_error(monkeypatch):
    monkeypatch.setattr(export, "EXPORT_PAGE", 2)
    monkeypatch.setattr(export, "READ_AHEAD_VENDORS", {"sqlite", "postgresql"})
    run = RunFactory(project=ProjectFactory(owner=UserFactory()))
    for number in range(5):
        InteractionFactory(run=run, user_interaction_id=f"row-{number}")
    rows = export.PageReader.rows
    pages = []

    def failing_rows(self, ids):
        pages.append(ids)
        if len(pages) == 2:
            raise RuntimeError("the server went away")
        return rows(self, ids)

    monkeypatch.setattr(export.PageReader, "rows", failing_rows)
    chunks = export.csv_stream(export.run_csv_rows(run))
    with pytest.raises(RuntimeError, match="the server went away"):
        list(chunks)
    assert not _threads()


@pytest.mark.django_db(transaction=True)
def test_an_abandoned_download_stops_the_thread(client, monkeypatch):
    monkeypatch.setattr(export, "EXPORT_PAGE", 2)
    monkeypatch.setattr(export, "STREAM_CHUNK_CHARS", 100)
    monkeypatch.setattr(export, "READ_AHEAD_VENDORS", {"sqlite", "postgresql"})
    user = UserFactory()
    run = RunFactory(project=ProjectFactory(owner=user))
    for number in range(10):
        InteractionFactory(run=run, user_interaction_id=f"row-{number}")
    client.force_login(user)
    response = client.get(reverse("properties:run-export", args=[run.pk, "csv"]))
    chunks = iter(response.streaming_content)
    assert b"row-0" in next(chunks) + next(chunks), "the header, then the first page's rows"
    assert _threads(), "reading ahead while the first page is sent"
    response.close()  # what the server does when the browser goes away
    assert not _threads()


@pytest.mark.django_db
def test_inside_a_transaction_the_export_reads_on_its_own_connection(monkeypatch):
    monkeypatch.setattr(export, "READ_AHEAD_VENDORS", {"sqlite", "postgresql"})
    monkeypatch.setattr(read_ahead, "read_ahead", lambda *args: pytest.fail("a second connection sees no rows"))
    run = RunFactory(project=ProjectFactory(owner=UserFactory()))
    InteractionFactory(run=run, user_interaction_id="uncommitted")
    assert "uncommitted" in "".join(export.csv_stream(export.run_csv_rows(run)))


def test_sources_read_in_turns_give_their_items_in_turn_and_end_together():
    def source(items):
        return lambda: iter(items)

    dealt = [source([0, 3, 6]), source([1, 4]), source([2, 5])]
    assert list(read_ahead.in_turns(dealt)) == [0, 1, 2, 3, 4, 5, 6]
    assert not _threads()
    # A source with nothing at its turn ends the items, though a later one has more.
    assert list(read_ahead.in_turns([source([0, 3]), source([1]), source([2, "never"])])) == [0, 1, 2, 3]
    assert not _threads()


def test_a_failure_in_one_source_is_the_callers_error_and_stops_every_thread():
    def failing():
        yield "first"
        raise ValueError("the page query failed")

    def endless():
        yield from range(10**6)

    read = read_ahead.in_turns([endless, failing])
    assert [next(read), next(read)] == [0, "first"]
    assert next(read) == 1
    with pytest.raises(ValueError, match="the page query failed"):
        next(read)
    assert not _threads()


def test_a_caller_that_stops_reading_in_turns_stops_every_thread():
    read = read_ahead.in_turns([lambda: iter(range(1000)), lambda: iter(range(1000))])
    assert next(read) == 0 and next(read) == 0
    assert len(_threads()) == 2
    read.close()
    assert not _threads()


def test_items_dealt_in_turns_are_read_once_in_order_and_given_back_in_order():
    drawn = []

    def items():
        for number in range(7):
            drawn.append(number)
            yield number

    hands = read_ahead.dealt(items(), 3)
    assert list(hands[2]()) == [2, 5], "the third hand draws the items before its own"
    assert list(hands[0]()) == [0, 3, 6] and list(hands[1]()) == [1, 4]
    assert drawn == list(range(7)), "read once"
    assert list(read_ahead.in_turns(read_ahead.dealt(iter(range(7)), 2))) == list(range(7))
    assert not _threads()


def test_a_failure_drawing_an_item_is_raised_by_every_hand_that_draws_after_it():
    def items():
        yield from range(3)
        raise ValueError("the ids query failed")

    first, second = read_ahead.dealt(items(), 2)
    assert list(itertools.islice(first(), 2)) == [0, 2]
    with pytest.raises(ValueError, match="the ids query failed"):
        list(first())
    with pytest.raises(ValueError, match="the ids query failed"):
        list(second())  # holds 1, then would end as if the ids had: it raises instead
    with pytest.raises(ValueError, match="the ids query failed"):
        list(read_ahead.in_turns(read_ahead.dealt(items(), 2)))
    assert not _threads()
