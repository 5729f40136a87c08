"""Beat keeps sending after the broker refused a send (evalsite/beat.py), on the SQLite broker."""

import sqlite3

import pytest
from celery.beat import PersistentScheduler, ScheduleEntry, SchedulingError

from evalsite.beat import ReconnectingScheduler
from evalsite.celery import app
from tests.conftest import QueueReader, celery_broker


def sweep_entry() -> ScheduleEntry:
    return ScheduleEntry(name="sweep", task="properties.sweep_pipeline", schedule=30, app=app, options={"queue": "cpu"})


def send(scheduler) -> str:
    try:
        scheduler.apply_async(sweep_entry(), producer=scheduler.producer, advance=False)  # as beat.tick() does
    except SchedulingError:
        return "refused"
    return "sent"


@pytest.mark.parametrize(
    ("scheduler_class", "outcomes"),
    [(PersistentScheduler, ["sent", "refused", "refused"]), (ReconnectingScheduler, ["sent", "refused", "sent"])],
)
def test_a_refused_send_does_not_stop_the_schedule(tmp_path, scheduler_class, outcomes):
    broker_file = tmp_path / "broker.sqlite3"
    previous = app.conf.broker_transport_options
    # Give up on a locked file at once, not after SQLite's 5 s.
    app.conf.broker_transport_options = {"connect_args": {"timeout": 0.05}}
    try:
        with celery_broker(f"sqla+sqlite:///{broker_file}"):
            scheduler = scheduler_class(app, schedule_filename=str(tmp_path / "schedule"), lazy=True)
            sent = [send(scheduler)]
            lock = sqlite3.connect(broker_file)
            lock.execute("BEGIN EXCLUSIVE")
            sent.append(send(scheduler))
            lock.rollback()
            lock.close()
            sent.append(send(scheduler))
            queued = QueueReader(app).take("cpu")
    finally:
        app.conf.broker_transport_options = previous
    assert sent == outcomes
    assert queued == [("properties.sweep_pipeline", ())] * outcomes.count("sent")


def test_evalsite_runs_the_reconnecting_scheduler():
    assert app.conf.beat_scheduler == "evalsite.beat:ReconnectingScheduler"
