"""Runs matched, and their changed pairs, by the database: against a plain-Python statement of what
matching means, over every small shape of ids, inputs and values (hypothesis). Runs on SQLite and,
in the PostgreSQL pass, on PostgreSQL."""

from __future__ import annotations

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from properties.compare import matching
from tests.factories import InteractionFactory, RunFactory
from tests.unit.screen.test_datascreen import add_value

pytestmark = pytest.mark.django_db

EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# One interaction: its id (few, so runs share them), its input (few, so hashes repeat) and its value of
# the property: a number (few, so some are equal or within the tolerance), a label, or none of either.
VALUE = st.one_of(
    st.sampled_from([0.0, 0.25, 0.255, 0.5, 1.0]).map(lambda v: ("ok", v, "")),
    st.sampled_from(["sql", "json"]).map(lambda label: ("ok", None, label)),
    st.sampled_from([("error", None, ""), ("not_applicable", None, ""), ("ok", None, ""), None]),
)
ROW = st.tuples(st.sampled_from(["u1", "u2", "u3", "u4", "u5", "u6"]), st.sampled_from(["", "p", "q", "r"]), VALUE)
RUN = st.lists(ROW, max_size=6, unique_by=lambda row: row[0])


def expected_pairs(a_rows, b_rows):
    """What matching means: on the id first; then the rest on the input, each matched at most once;
    in that order, each part in the first run's order."""
    by_id = {uid: pk for pk, uid, _ in b_rows}
    used, pairs, rest = set(), [], []
    for pk, uid, digest in a_rows:
        other = by_id.get(uid)
        if other is not None:
            pairs.append((pk, other))
            used.add(other)
        else:
            rest.append((pk, digest))
    for pk, digest in rest:
        candidates = [other for other, _, d in b_rows if d == digest and other not in used]
        if candidates:
            pairs.append((pk, candidates[0]))
            used.add(candidates[0])
    return pairs


def expected_changes(pairs, values, tolerance):
    changed, unchanged, empty = [], 0, 0
    for a, b in pairs:
        va, vb = values.get(a), values.get(b)
        if va is None and vb is None:
            empty += 1
        elif (
            va is not None
            and vb is not None
            and (va == vb if isinstance(va, str) or isinstance(vb, str) else abs(vb - va) < tolerance)
        ):
            unchanged += 1
        else:
            changed.append((a, b, va, vb))

    def delta(row):
        return row[3] - row[2] if all(isinstance(v, float) for v in row[2:]) else None

    changed.sort(key=lambda row: (delta(row) is None, -abs(delta(row) or 0.0), row[0]))
    return changed, unchanged, empty


def store(rows):
    run = RunFactory()
    stored, values = [], {}
    for uid, text, value in rows:
        interaction = InteractionFactory(run=run, user_interaction_id=uid, input=text)
        stored.append((interaction.pk, uid, interaction.input_hash))
        if value is not None:
            status, number, label = value
            add_value(interaction, "toxicity", value=number, label=label, status=status)
            if status == "ok" and (number is not None or label):
                values[interaction.pk] = number if number is not None else label
    return run, stored, values


@EXAMPLES
@given(a_rows=RUN, b_rows=RUN, tolerance=st.sampled_from([0.0, 0.01, 0.3]), first=st.sampled_from([0, 1, 2, 1000]))
def test_matching_and_changes_mean_what_they_say(a_rows, b_rows, tolerance, first):
    with transaction.atomic():
        run_a, stored_a, values_a = store(a_rows)
        run_b, stored_b, values_b = store(b_rows)
        pairs = expected_pairs(stored_a, stored_b)
        assert matching.match_interactions(run_a, run_b) == pairs
        changed, unchanged, empty = expected_changes(pairs, values_a | values_b, tolerance)
        # `first`: how many pairs are read with the counts; pages past them are read when asked for.
        found = matching.changed_pairs(run_a, run_b, "toxicity.output", tolerance, first=first)
        assert (found.matched, found.within_tolerance, found.without_values) == (len(pairs), unchanged, empty)
        assert len(found.pairs) == len(changed) and list(found.pairs) == changed
        assert found.pairs[1:3] == changed[1:3], "a page is the same slice of the same order"
        transaction.set_rollback(True)


def test_rows_match_on_id_then_on_the_input():
    run_a, run_b = RunFactory(), RunFactory()
    a = [
        InteractionFactory(run=run_a, user_interaction_id=uid, input=text)
        for uid, text in [("x", "1"), ("y", "2"), ("only-a", "3"), ("z", "4")]
    ]
    b = [
        InteractionFactory(run=run_b, user_interaction_id=uid, input=text)
        for uid, text in [("x", "other"), ("renamed", "2"), ("other", "9"), ("z", "4")]
    ]
    assert matching.match_interactions(run_a, run_b) == [(a[0].pk, b[0].pk), (a[3].pk, b[3].pk), (a[1].pk, b[1].pk)]


def test_an_interaction_is_matched_at_most_once():
    run_a, run_b = RunFactory(), RunFactory()
    first, _ = (InteractionFactory(run=run_a, user_interaction_id=uid, input="same") for uid in "pq")
    only = InteractionFactory(run=run_b, user_interaction_id="r", input="same")
    assert matching.match_interactions(run_a, run_b) == [(first.pk, only.pk)]


def test_without_a_property_every_pair_is_counted_as_without_values():
    run_a, run_b = RunFactory(), RunFactory()
    for run in (run_a, run_b):
        InteractionFactory(run=run, user_interaction_id="same")
    found = matching.changed_pairs(run_a, run_b, None)
    assert (list(found.pairs), found.matched, found.without_values) == ([], 1, 1)


def test_matching_runs_without_parallel_workers_or_jit_and_the_settings_end_with_it(monkeypatch):
    """On PostgreSQL the matching statement runs with parallel workers off (they read the whole
    interaction table for one run's unmatched rows) and JIT off, for its own transaction only."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("these are PostgreSQL's planner settings")

    def settings_now() -> tuple[str, str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('max_parallel_workers_per_gather'), current_setting('jit')")
            return cursor.fetchone()

    seen: list[tuple[str, str]] = []
    execute = connection.cursor().__class__.execute

    def noted(cursor, sql, params=None):
        if "by_uid" in sql:
            seen.append(settings_now())
        return execute(cursor, sql, params)

    before = settings_now()
    monkeypatch.setattr(connection.cursor().__class__, "execute", noted)
    run_a, run_b = RunFactory(), RunFactory()
    pair = [InteractionFactory(run=run, user_interaction_id="same") for run in (run_a, run_b)]
    assert matching.match_interactions(run_a, run_b) == [(pair[0].pk, pair[1].pk)]
    monkeypatch.undo()
    assert seen == [("0", "off")]
    assert settings_now() == before != ("0", "off")
