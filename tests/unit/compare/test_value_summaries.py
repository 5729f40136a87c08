"""Each run's statistics kept for comparisons: read instead of the values while they hold, computed
again when a job scores the run, forgotten when values change outside a job, and the round edges
that let runs of about the same values share them."""

import re
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalsite.celery import app
from properties import tasks
from properties.compare import comparison
from properties.models import PropertyValue, RunValueSummary, ScoringChunk, ScoringJob
from properties.pipeline import scoring, sweeper
from properties.quality import criteria, value_summaries
from properties.quality.criteria import Criterion
from tests.factories import InteractionFactory, ProjectFactory, RunFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

GROUNDED = "grounded_in_context.output"
VALUE_TABLE = PropertyValue._meta.db_table


@pytest.fixture
def runs():
    project = ProjectFactory(enabled_properties=["grounded_in_context"], key_properties=["grounded_in_context"])
    runs = [RunFactory(project=project, name=f"v{n}") for n in range(2)]
    for run, numbers in zip(runs, ([0.1, 0.2, 0.9], [0.6, 0.7, 0.8, 0.95]), strict=True):
        for i, number in enumerate(numbers):
            add_value(InteractionFactory(run=run, user_interaction_id=f"q{i}"), "grounded_in_context", value=number)
    return runs


def compared(runs, address=GROUNDED):
    project = runs[0].project
    return comparison.compare_property(runs, address, criteria.criterion_for(project, address.partition(".")[0]))


def test_kept_statistics_are_read_instead_of_the_values(runs):
    first = compared(runs)
    assert RunValueSummary.objects.filter(run__in=runs).count() == 2
    with CaptureQueriesContext(connection) as queries:
        again = compared(runs)
    assert not [q for q in queries.captured_queries if VALUE_TABLE in q["sql"]], "no value is read"
    assert again.stats == first.stats
    stat = again.stats[runs[1].pk]
    assert (stat.count, stat.passing, sum(stat.counts)) == (4, 4, 4) and stat.mean == pytest.approx(0.7625)


def test_a_run_in_another_comparison_reuses_its_kept_row_and_computes_only_the_new_run(runs):
    compared(runs[:1])
    newer = RunFactory(project=runs[0].project, name="v2")
    add_value(InteractionFactory(run=newer), "grounded_in_context", value=0.4)
    with CaptureQueriesContext(connection) as queries:
        both = compared([runs[0], newer])
    grouped = [q["sql"] for q in queries.captured_queries if VALUE_TABLE in q["sql"] and "GROUP BY" in q["sql"]]
    assert len(grouped) == 1 and f"IN ({newer.pk})" in grouped[0], "only the new run's values are read"
    assert both.stats[newer.pk].count == 1 and both.stats[runs[0].pk].count == 3


def test_a_new_scoring_job_makes_the_kept_row_stale_and_nothing_is_kept_while_it_scores(runs):
    compared(runs)
    job = ScoringJob.objects.create(run=runs[0], properties=["grounded_in_context"], status="running", total=3)
    PropertyValue.objects.filter(run=runs[0]).update(value=0.99)
    scoring_now = compared(runs)
    assert scoring_now.stats[runs[0].pk].passing == 3, "read from the values while the job scores"
    assert not RunValueSummary.objects.filter(run=runs[0], state__contains=f"job {job.pk}").exists()
    ScoringJob.objects.filter(pk=job.pk).update(status="done", done=3)
    assert compared(runs).stats[runs[0].pk].mean == pytest.approx(0.99)
    assert list(RunValueSummary.objects.filter(run=runs[0]).values_list("state", flat=True)) == [f"job {job.pk} done"]


def compared_at(runs, threshold):
    """The comparison once the project's threshold is `threshold` (None: the default), and the
    statements of it that read values."""
    project = runs[0].project
    project.pass_criteria = {} if threshold is None else {"grounded_in_context": {"threshold": threshold}}
    project.save()
    with CaptureQueriesContext(connection) as queries:
        result = compared(runs)
    return result, [q["sql"] for q in queries.captured_queries if VALUE_TABLE in q["sql"]]


def test_another_threshold_reads_the_kept_row_and_counts_only_the_bin_it_falls_in(runs):
    compared(runs)
    stricter, reads = compared_at(runs, 0.87)
    assert len(reads) == 1 and re.search(r">= 0\.87\b.*< 0\.9\b", reads[0]), "one count, of the bin 0.85 to 0.9"
    assert [stricter.stats[run.pk].passing for run in runs] == [1, 1]
    assert RunValueSummary.objects.filter(run=runs[1]).count() == 1, "the kept row serves every threshold"
    assert compared_at(runs, None)[0].stats[runs[1].pk].passing == 4


def test_a_threshold_on_an_edge_is_read_from_the_histogram_alone(runs):
    compared(runs)
    on_edge, reads = compared_at(runs, 0.85)
    assert not reads, "no value is read"
    assert on_edge.stats[runs[1].pk].passing == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    numbers=st.lists(st.sampled_from([-0.5, 0.0, 0.05, 0.1, 0.33, 0.5, 0.55, 0.62, 0.999, 1.0, 1.4]), max_size=12),
    threshold=st.sampled_from([-1.0, 0.0, 0.05, 0.3, 0.5, 0.51, 0.62, 0.95, 1.0, 2.0]),
    direction=st.sampled_from([criteria.HIGHER, criteria.LOWER]),
)
def test_passing_counts_read_from_the_histogram_are_exact(django_db_blocker, numbers, threshold, direction):
    """Values outside the range, on an edge, on the threshold; thresholds on an edge, inside a bin
    and outside the range, in both directions: the same count as judging every value."""
    with django_db_blocker.unblock(), transaction.atomic():
        run = RunFactory()
        for number in numbers:
            add_value(InteractionFactory(run=run), "grounded_in_context", value=number)
        criterion = Criterion(direction=direction, threshold=threshold, low=0.0, high=1.0)
        for _ in range(2):  # computed, then read from the kept row
            stat = comparison.compare_property([run], GROUNDED, criterion).stats.get(run.pk)
            assert (stat.passing if stat else 0) == sum(bool(criterion.passes(n)) for n in numbers)
        transaction.set_rollback(True)


def test_values_stored_after_their_job_ended_forget_the_kept_rows(runs):
    compared(runs)
    setup = scoring.build_scorer(runs[0].project, "grounded_in_context")
    scoring.store_values(runs[0].pk, setup, {})
    assert list(RunValueSummary.objects.values_list("run_id", flat=True)) == [runs[1].pk]


def test_a_property_of_labels_is_kept_as_each_labels_count(runs):
    for interaction in runs[0].interactions.all():
        add_value(interaction, "content_type", label="sql" if interaction.user_interaction_id != "q2" else "json")
    first = compared(runs, "content_type.output")
    again = compared(runs, "content_type.output")
    assert again.labels == first.labels == ["sql", "json"]
    assert again.label_counts == {runs[0].pk: {"sql": 2, "json": 1}}
    assert runs[1].pk not in again.stats, "a run without values has no statistics"


@pytest.fixture
def word_count_job():
    """A planned scoring job of a run of three interactions, with Word Count."""
    project = ProjectFactory(enabled_properties=["word_count"])
    run = RunFactory(project=project)
    InteractionFactory.create_batch(3, run=run, input="two words", output="three words here")
    return scoring.plan_job(run)


def score_chunks(chunks, capture_on_commit) -> None:
    """Score the chunks as a worker does, with the tasks sent when their transactions commit run at once."""
    previous, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        with capture_on_commit(execute=True):
            for chunk in chunks:
                scoring.score_chunk(chunk.pk)
    finally:
        app.conf.task_always_eager = previous


def assert_kept_as_of(job) -> None:
    kept = RunValueSummary.objects.filter(run=job.run)
    assert sorted(kept.values_list("property_name", "field")) == [("word_count", "input"), ("word_count", "output")]
    assert set(kept.values_list("state", flat=True)) == {f"job {job.pk} done"}


def test_a_finished_scoring_job_has_its_runs_statistics_kept(word_count_job, django_capture_on_commit_callbacks):
    job = word_count_job
    run, project = job.run, job.run.project
    score_chunks(job.chunks.filter(kind="score"), django_capture_on_commit_callbacks)
    assert_kept_as_of(job)
    with CaptureQueriesContext(connection) as queries:
        output = comparison.compare_property([run], "word_count.output", criteria.criterion_for(project, "word_count"))
    grouped = [q for q in queries.captured_queries if VALUE_TABLE in q["sql"] and "GROUP BY" in q["sql"]]
    assert not grouped and output.stats[run.pk].mean == 3.0


def test_a_chunk_ending_after_its_job_keeps_the_statistics_again(
    word_count_job, monkeypatch, django_capture_on_commit_callbacks
):
    job = word_count_job
    run = job.run
    claim_finish = ScoringChunk.claim_finish

    def closed_meanwhile(self):
        # Another delivery of the chunk finished it and its job, and kept the statistics, before this
        # one's values were written: those forgot the kept rows (store_values).
        assert claim_finish(self)
        ScoringJob.objects.get(pk=job.pk).record_chunk(done=self.items, failed=0)
        comparison.keep_run_summaries(run)
        value_summaries.forget(run.pk, "word_count")
        return False

    monkeypatch.setattr(ScoringChunk, "claim_finish", closed_meanwhile)
    score_chunks(job.chunks.filter(kind="score"), django_capture_on_commit_callbacks)
    assert_kept_as_of(job)
    job.refresh_from_db()
    assert job.statistics_kept_at is not None, "forgotten, then noted again as kept"


def test_a_keeping_task_the_broker_refused_is_sent_again_by_the_sweeper(
    word_count_job, monkeypatch, memory_broker, django_capture_on_commit_callbacks
):
    job = word_count_job

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("the broker is down")

    with monkeypatch.context() as patched:
        patched.setattr(tasks.keep_run_summaries_task, "apply_async", refused)
        score_chunks(job.chunks.filter(kind="score"), django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert job.status == "done" and job.statistics_kept_at is None
    assert not RunValueSummary.objects.exists()
    assert sweeper.sweep().statistics_sent == [], "within the grace period its end may still be sending"
    later = timezone.now() + timedelta(minutes=5)
    with django_capture_on_commit_callbacks(execute=True):
        assert sweeper.sweep(now=later).statistics_sent == [job.run_id]
    sent = memory_broker.take("cpu")
    assert [name for name, _ in sent] == ["properties.keep_run_summaries"] and sent[0][1] == (job.run_id,)
    tasks.keep_run_summaries_task(job.run_id, warm=False)  # what a worker then runs
    assert_kept_as_of(job)
    job.refresh_from_db()
    assert job.statistics_kept_at is not None
    assert sweeper.sweep(now=later).statistics_sent == []


def test_the_sweeper_keeps_the_latest_ended_job_of_live_runs_only(runs):
    """Runs scored before statistics were kept are kept by the sweeper, a few a sweep: only where
    the run's latest scoring job has ended, and not for a run being deleted."""
    later = timezone.now() + timedelta(minutes=5)
    ended, scoring_again = runs
    old = ScoringJob.objects.create(run=ended, properties=["grounded_in_context"], status="done", total=3)
    ScoringJob.objects.create(run=scoring_again, properties=["grounded_in_context"], status="done", total=4)
    ScoringJob.objects.create(run=scoring_again, properties=["grounded_in_context"], status="running", total=4)
    gone = RunFactory(project=ended.project, deleting=True)
    ScoringJob.objects.create(run=gone, properties=["grounded_in_context"], status="done")
    assert sweeper.keep_missing_statistics(later) == [ended.pk]
    tasks.keep_run_summaries_task(ended.pk)
    assert RunValueSummary.objects.filter(run=ended, state=f"job {old.pk} done").count() == 1
    assert not RunValueSummary.objects.filter(run=scoring_again).exists()
    assert sweeper.keep_missing_statistics(later) == []


def test_a_job_whose_statistics_could_not_be_written_is_not_noted_as_kept(runs, monkeypatch):
    from django.db import OperationalError

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    job = ScoringJob.objects.create(run=runs[0], properties=["grounded_in_context"], status="done", total=3)
    monkeypatch.setattr(RunValueSummary.objects, "bulk_create", locked)
    tasks.keep_run_summaries_task(runs[0].pk)
    job.refresh_from_db()
    assert job.statistics_kept_at is None, "left to the sweeper"


@pytest.mark.parametrize(
    ("criterion", "ends", "expected"),
    [
        # No range: round steps of 0.05 that hold 0.013 to 0.987.
        (Criterion(), (0.013, 0.987), (0.0, 1.0, 0.05)),
        # A fixed low end (word counts): kept, the top rounded up.
        (Criterion(low=0.0), (3.0, 173.0), (0.0, 200.0, 10.0)),
        (Criterion(), (-7.5, 12.0), (-8.0, 12.0, 1.0)),
        (Criterion(high=0.0), (-3.3, -0.2), (-4.0, 0.0, 0.2)),
    ],
)
def test_edges_without_a_range_are_round_steps_that_hold_every_value(criterion, ends, expected):
    low, high, step = expected
    assert comparison._round_range(ends, criterion.low, criterion.high, 20) == pytest.approx((low, high))
    assert (high - low) / 20 == pytest.approx(step)


def test_equal_or_huge_values_keep_the_plain_edges():
    assert comparison._round_range((2.0, 2.0), None, None, 20) is None
    assert comparison._round_range((-1e308, 1e308), None, None, 20) is None


def test_a_comparison_whose_statistics_cannot_be_kept_still_shows_them(runs, monkeypatch, caplog):
    """Keeping is a saving: a write refused (SQLite's lock held too long by a worker) fails no page."""
    from django.db import OperationalError

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(RunValueSummary.objects, "bulk_create", locked)
    assert compared(runs).stats[runs[1].pk].count == 4
    assert not RunValueSummary.objects.exists() and "not kept (database is locked)" in caplog.text


def test_round_edges_leave_at_most_a_third_of_the_chart_empty():
    for most in [1.01, 1.3, 1.51, 2.6, 3.3, 4.1, 6.2, 7.3, 8.8, 14.6, 146.0, 999.0]:
        low, high = comparison._round_range((0.0, most), 0.0, None, 20)
        assert low == 0.0 and most <= high <= 1.5 * most, most
