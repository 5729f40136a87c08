"""Server time of the Data Screen on a large run, and of the comparison page, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.data_screen [--interactions 100000] [--repeat 20] [--cases ...]
    .venv/bin/python -m bench.data_screen --compare [--runs 10] [--interactions 10000]
    nice -n 10 .venv/bin/python -m bench.data_screen --rows 1000000 --no-sqlite --postgres-url URL

Loads INTERACTIONS (or --rows) interactions with 15 property values each (13 numeric, 2 categorical,
written by INSERT ... SELECT) into a fresh database; four numeric properties are the project's key
properties, with a threshold, and the pages show them as columns. Then times, through Django's test
client (the time the server spends on the request, without a network): the first page, a filtered
page (two property ranges and an annotation filter), a page sorted by a property, both, a page of
the interactions failing a key property, the same sorted, a page with an interaction open in the
side panel, filters of the filter language (OR, AND within OR, NOT, a metadata key, `disagrees:`,
one that one interaction in 400 matches), a saved view opened by its link (`?view=<id>`, the
redirect and the page), and the pass-rate fragment (computed once, then read from the cache; its
first computation is printed apart). `--compare` loads RUNS runs of INTERACTIONS each and times the
comparison page of all of them (the key properties' charts) and the row-by-row fragment of two, each
cached and with the cache emptied before each request (what the first visitor after a scoring
waits); the page also with no run's statistics kept, then after keeping them as a scoring job's end
does (its time per run is printed), and with the key properties' thresholds changed before each
request (inside a histogram bin: the worst case), with the cache as a server has it and emptied;
and the row-by-row fragment after the later run's scoring job ended (the cache emptied, then what
that job's end does: `compare_page.warm_row_diff`, untimed). Each database runs in its own
process; p50 and p95 of REPEAT requests after two that warm the caches, and the load average
before and after, are printed.

With --postgres-url the database is yours and is kept: runs an earlier bench loaded there (named by
their size and number) are reused, so a million interactions load once (about 25 minutes on two
busy cores), not at every measurement.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench.child import in_child

ROOT = Path(__file__).resolve().parents[1]
NUMERIC = [f"metric_{i:02d}" for i in range(13)]
CATEGORIES = {"content_type": ["json", "sql", "other"], "language": ["en", "fr", "de", "es"]}
TARGET_MS = 300
COMPARE_TARGET_MS = 500
KEY = NUMERIC[:4]
MODELS = ("gpt-4o", "gpt-4o-mini", "llama-3")
LOAD_BATCH = 10_000
CASES = {
    "first page": "",
    "filtered page": "where=metric_00.output>0.5&where=metric_01.output<0.3&annotation=bad",
    "sorted page": "sort=-metric_02.output",
    "sorted + filtered": "where=content_type.output=sql&sort=metric_03.output",
    "failing filter": "where=failing:metric_00.output",
    "failing + sorted": "where=failing:metric_01.output&sort=-metric_02.output",
    "panel open": "where=failing:metric_00.output&i=first",
    "OR and NOT filter": "where=metric_00.output > 0.9 OR (failing:metric_01.output AND NOT annotation = good)",
    "a OR b": "where=metric_00.output > 0.5 or metric_01.output < 0.3",
    "(a AND b) OR c": "where=(metric_00.output > 0.5 and metric_01.output < 0.3) or content_type.output = sql",
    "metadata AND value": 'where=metadata.model = "gpt-4o" and metric_02.output < 0.2',
    "disagrees": "where=disagrees:metric_00.output",
    # One interaction in 400 (2,500 of a million): too few in the first window of the count
    # (properties.screen.rows.COUNT_WINDOW), which then counts in the whole run.
    "rare filter": "where=metric_00.output > 0.995 and metric_01.output < 0.5",
    "saved view": "view",
    "pass rates (cached)": "pass-rates",
}
# The saved view the bench opens with `?view=<id>`: a filter, a sort and columns of its own.
SAVED_VIEW = {
    "where": "failing:metric_00.output OR metric_01.output > 0.9",
    "sort": "-metric_02.output",
    "columns": [*KEY, "content_type.output"],
}


def load(interactions: int, runs: int = 1) -> list[int]:
    """Run ids: RUNS runs of INTERACTIONS each in the bench project, loaded unless a database given
    with --postgres-url holds them already (runs are named by their size and number)."""
    from properties.models import Run

    project = bench_project()
    run_ids = []
    for number in range(runs):
        name = f"{interactions}-{number}"
        run = Run.objects.filter(project=project, name=name).first()
        if run is None or run.interactions.count() != interactions:
            if run is not None:
                run.delete()
            run = load_run(project, name, interactions, number)
        run_ids.append(run.pk)
    return run_ids


def bench_project():
    """The benches' project: a user "bench" owns it, its key properties pass at 0.5 and above."""
    from django.contrib.auth import get_user_model

    from properties.models import Project

    found = Project.objects.filter(name="bench").first()
    if found is not None:
        return found
    user = get_user_model().objects.create_user("bench", password="bench-password-123")
    project = Project.objects.create(
        name="bench",
        enabled_properties=[*NUMERIC, *CATEGORIES],
        key_properties=KEY,
        pass_criteria={name: {"direction": "higher", "threshold": 0.5} for name in KEY},
    )
    project.add_member(user, "owner")
    return project


def load_run(project, name: str, interactions: int, seed: int = 0, spans: list[dict] | None = None):
    """A run of INTERACTIONS interactions with 15 values each, at the database's speed: the
    interactions through the upload's insert (properties.uploads.inserts), the values with one
    INSERT ... SELECT per property. `spans`: evidence on metric_00's values (the export bench)."""
    from properties.models import Run

    run = Run.objects.create(project=project, name=name)
    load_interactions(run, interactions)
    load_values(run, drift=0.02 * seed, spans=spans or [])
    return run


def load_interactions(run, count: int) -> None:
    """A third of the interactions labelled good, a third bad (by a person), a third unknown; a
    `model` and a `latency_ms` in their metadata."""
    from django.db import transaction

    from properties.models import Interaction, input_hash
    from properties.uploads import inserts

    for start in range(0, count, LOAD_BATCH):
        rows = []
        for i in range(start, min(count, start + LOAD_BATCH)):
            text = f"Question {i} about the refund policy of order {i * 7919 % 10**6}?"
            annotation = ("good", "bad", "unknown")[i % 3]
            rows.append(
                Interaction(
                    run_id=run.pk,
                    user_interaction_id=f"row-{i}",
                    input=text,
                    input_hash=input_hash(text),
                    output=f"Answer {i}: " + "lorem ipsum dolor sit amet " * (2 + i % 28),
                    annotation=annotation,
                    annotation_source="person" if annotation != "unknown" else "",
                    metadata={"model": MODELS[i // 3 % len(MODELS)], "latency_ms": 100 + i * 37 % 900},
                )
            )
        with transaction.atomic():
            inserts.insert_interactions(rows)


def load_values(run, drift: float = 0.0, spans: list[dict] | None = None) -> None:
    """15 values per interaction in one INSERT ... SELECT per property. Numbers spread over [0, 1)
    by a hash of the interaction id with a multiplier of each property's own, so that two properties'
    values are independent (a filter on two of them matches the share it would on real scores);
    later runs drift upwards by `drift`, as a better version would. Labels are picked the same way."""
    import json

    from django.db import connection, transaction

    columns = (
        "interaction_id, run_id, property_name, field, value, label, spans, details, scorer_version, model,"
        " status, error, updated_at"
    )
    # `%%` is SQL's modulo: the query is formatted with its parameters.
    insert = f"INSERT INTO properties_propertyvalue ({columns}) SELECT id, run_id, %s, 'output', {{value}}, {{label}},"
    insert += " %s, '{{}}', '1:bench', '', 'ok', '', CURRENT_TIMESTAMP FROM properties_interaction WHERE run_id = %s"
    with transaction.atomic(), connection.cursor() as cursor:
        for number, name in enumerate(NUMERIC):
            value = f"((id * {2654435761 + number * 97711} + {number * 40503}) %% 1000003) / 1000003.0"
            if drift:
                value = f"CASE WHEN {value} + {drift} < 1.0 THEN {value} + {drift} ELSE 1.0 END"
            evidence = json.dumps(spans) if spans and name == "metric_00" else "[]"
            cursor.execute(insert.format(value=value, label="''"), [name, evidence, run.pk])
        for name, labels in CATEGORIES.items():
            choice = " ".join(f"WHEN {index} THEN '{label}'" for index, label in enumerate(labels))
            label = f"CASE (id * 48271 %% 1000003 %% {len(labels)}) {choice} END"
            cursor.execute(insert.format(value="NULL", label=label), [name, "[]", run.pk])


def timed(
    client,
    url: str,
    repeat: int,
    cold: bool = False,
    forget: tuple[int, ...] = (),
    prepare: Callable[[int], None] | None = None,
    **headers,
) -> tuple[list[float], object]:
    """Milliseconds of `repeat` requests after two that warm the caches, and the last response;
    `cold`: each request with the cache emptied first (what the first visitor waits); `forget`:
    and these runs' kept statistics deleted (properties.quality.value_summaries); `prepare`: called
    with the request's number before it, untimed."""
    from django.core.cache import cache

    from properties.models import RunValueSummary

    timings = []
    for attempt in range(repeat + 2):
        if cold:
            cache.clear()
        if forget:
            RunValueSummary.objects.filter(run__in=forget).delete()
        if prepare is not None:
            prepare(attempt)
        started = time.perf_counter()
        response = client.get(url, **headers)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.status_code
        if attempt >= 2:
            timings.append(elapsed)
    return sorted(timings), response


def figures(timings: list[float], matches: str | None) -> dict:
    return {
        "p50": statistics.median(timings),
        "p95": timings[max(0, int(round(0.95 * len(timings))) - 1)],
        "matches": matches,
    }


def register_bench_properties() -> None:
    """The bench's properties as a team's own scorers of the output, so that the pages know their
    fields and show them as columns and comparisons (as they do a real run's). The bench writes
    their values itself (load_values); scoring a text gives its length's share of a hundred.
    Content Type is the built-in property."""
    from properties.scorers import registry
    from properties.scorers.base import OutputScorer, Score

    for name in [*NUMERIC, *CATEGORIES]:
        if name in registry.builtins.MODULES:
            continue
        labels = CATEGORIES.get(name)

        def check(self, text: str, field: str, labels=labels) -> Score:
            share = len(text) % 100 / 100
            return Score(None, label=labels[len(text) % len(labels)]) if labels else Score(share)

        methods = {"name": staticmethod(lambda name=name: name), "check": check}
        if labels:
            methods |= {
                "is_categorical": staticmethod(lambda: True),
                "categories": staticmethod(lambda choices=labels: choices),
            }
        registry.register(type(f"Bench{name.title().replace('_', '')}", (OutputScorer,), methods))


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("EVALSITE_DATA_DIR", tempfile.mkdtemp(prefix="evalsite-bench-"))
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    register_bench_properties()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)


def loaded(interactions: int, runs: int = 1) -> tuple[list[int], float, object]:
    """Run ids, load seconds (0 when a database given with --postgres-url held them) and a
    logged-in client."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from properties.models import Interaction

    before = Interaction.objects.count()
    started = time.perf_counter()
    run_ids = load(interactions, runs)
    load_seconds = time.perf_counter() - started
    if Interaction.objects.count() != before:
        with connection.cursor() as cursor:
            # What a live PostgreSQL's autovacuum does by itself after a bulk load (VACUUM sets the
            # visibility map that index-only scans need; ANALYZE the planner's statistics); SQLite
            # gets its statistics from PRAGMA optimize.
            cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "PRAGMA optimize")
        load_seconds = time.perf_counter() - started
    else:
        load_seconds = 0.0
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    return run_ids, load_seconds, client


def saved_view_id(project_id: int) -> int:
    from django.contrib.auth import get_user_model

    from properties.models import SavedView

    author = get_user_model().objects.get(username="bench")
    view, _ = SavedView.objects.get_or_create(
        project_id=project_id, name="bench view", defaults={**SAVED_VIEW, "created_by": author}
    )
    return view.pk


def measure(database_url: str, interactions: int, repeat: int, cases: list[str]) -> dict:
    setup_django(database_url)
    from django.db import connection

    from properties.models import Run

    (run_id,), load_seconds, client = loaded(interactions)
    results = {"database": connection.vendor, "load_s": load_seconds, "cases": {}, "load_average": os.getloadavg()}
    url = f"/runs/{run_id}/"
    started = time.perf_counter()
    client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates")
    results["pass_rates_first_ms"] = (time.perf_counter() - started) * 1000
    for case in cases:
        query = CASES[case]
        if query == "pass-rates":
            timings, _ = timed(client, url, repeat, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pass-rates")
            results["cases"][case] = figures(timings, None)
            continue
        if query == "view":
            # Opening a saved view is two requests: its link answers with the address of the view's
            # parameters, which the browser then loads.
            query = f"view={saved_view_id(Run.objects.get(pk=run_id).project_id)}"
        timings, response = timed(client, f"{url}?{query}", repeat, follow=True)
        rows = response.context["page"].paginator.object_list
        # A count past the screen's cap is "more than" the cap.
        results["cases"][case] = figures(timings, f">{rows.cap:,}" if rows.capped else f"{rows.count():,}")
    results["load_average"] += os.getloadavg()
    return results


def measure_compare(database_url: str, interactions: int, runs: int, repeat: int) -> dict:
    setup_django(database_url)
    from django.db import connection

    from properties.compare import compare_page, comparison
    from properties.models import Run, RunValueSummary

    run_ids, load_seconds, client = loaded(interactions, runs)
    RunValueSummary.objects.filter(run__in=run_ids).delete()
    project_id = client.get(f"/runs/{run_ids[0]}/").context["run"].project_id
    chosen = "&".join(f"runs={pk}" for pk in run_ids)
    results = {"database": connection.vendor, "load_s": load_seconds, "cases": {}, "load_average": os.getloadavg()}
    compare_url = f"/projects/{project_id}/compare/?{chosen}"
    # What the first visitor waits when no run's statistics are kept (runs whose scoring no job's
    # end kept, values a late chunk changed): the cache emptied and the kept rows deleted before
    # each request.
    timings, _ = timed(client, compare_url, repeat, cold=True, forget=tuple(run_ids))
    results["cases"][f"compare {runs} runs, nothing kept"] = figures(timings, None)
    # What a scoring job's end does for each run (the keep_run_summaries task), timed per run.
    started = time.perf_counter()
    for run in Run.objects.filter(pk__in=run_ids).select_related("project"):
        comparison.keep_run_summaries(run)
    results["keep_s_per_run"] = (time.perf_counter() - started) / len(run_ids)
    timings, _ = timed(client, compare_url, repeat)
    results["cases"][f"compare {runs} runs"] = figures(timings, None)
    timings, _ = timed(client, compare_url, repeat, cold=True)
    results["cases"][f"compare {runs} runs, uncached"] = figures(timings, None)
    # A threshold changed: the comparison's cache misses by itself (its key holds the criteria),
    # each run's score and state stay cached, as on a server; then with the cache emptied too.
    timings, _ = timed(client, compare_url, repeat, prepare=partial(new_thresholds, project_id))
    results["cases"][f"compare {runs} runs, threshold changed"] = figures(timings, None)

    # Thresholds not used by the case before (whose statistics a version keeping them would reuse).
    def others(request: int) -> None:
        new_thresholds(project_id, request + repeat + 2)

    timings, _ = timed(client, compare_url, repeat, cold=True, prepare=others)
    results["cases"][f"compare {runs} runs, threshold changed, uncached"] = figures(timings, None)
    new_thresholds(project_id, None)
    pair = f"runs={run_ids[0]}&runs={run_ids[1]}"
    timings, _ = timed(client, f"/projects/{project_id}/compare/?{pair}", repeat)
    results["cases"]["compare 2 runs"] = figures(timings, None)
    diff = f"/projects/{project_id}/compare/?{pair}&property=metric_00.output"
    timings, _ = timed(client, diff, repeat, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff")
    results["cases"]["row-by-row fragment"] = figures(timings, None)
    timings, _ = timed(client, diff, repeat, cold=True, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff")
    results["cases"]["row-by-row fragment, uncached"] = figures(timings, None)
    # The first visitor after the second run's scoring job ended: the cache emptied, then what that
    # job's end does (compare_page.warm_row_diff, untimed: a worker does it), then the fragment as
    # the page loads it, on the property it opens on.
    later = Run.objects.select_related("project").get(pk=run_ids[1])
    opened = f"/projects/{project_id}/compare/?{pair}"

    def scored(request: int) -> None:
        compare_page.warm_row_diff(later)

    timings, _ = timed(
        client, opened, repeat, cold=True, prepare=scored, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="row-diff"
    )
    results["cases"]["row-by-row fragment, after scoring"] = figures(timings, None)
    results["load_average"] += os.getloadavg()
    return results


def new_thresholds(project_id: int, request: int | None) -> None:
    """The key properties' thresholds moved before a request, to one inside a histogram bin and
    another at each request (0.301 + 0.002 x its number, up to 100: never one of the 0.05 edges),
    as a person editing the project's criteria does; None puts back the bench's 0.5."""
    from properties.models import Project

    threshold = 0.5 if request is None else round(0.301 + 0.002 * (request % 100), 3)
    Project.objects.filter(pk=project_id).update(
        pass_criteria={name: {"direction": "higher", "threshold": threshold} for name in KEY}
    )


def report(result: dict, what: str, target_ms: int) -> None:
    loaded = f"loaded in {result['load_s']:.0f} s" if result["load_s"] else "already loaded"
    print(f"\n{result['database']}: {what} x 15 values {loaded}")
    before, after = result["load_average"][:3], result["load_average"][3:]
    print(
        f"  load average (1, 5, 15 min) before: {before[0]:.1f} {before[1]:.1f} {before[2]:.1f}, "
        f"after: {after[0]:.1f} {after[1]:.1f} {after[2]:.1f}"
    )
    if "pass_rates_first_ms" in result:
        print(f"  pass rates, first computation (then cached): {result['pass_rates_first_ms']:.0f} ms")
    if "keep_s_per_run" in result:
        print(f"  statistics kept at a scoring job's end: {result['keep_s_per_run']:.2f} s per run")
    print(f"  {'case':<46} {'p50 ms':>8} {'p95 ms':>8} {'matches':>9}  target p95 < {target_ms} ms")
    for case, numbers in result["cases"].items():
        verdict = "ok" if numbers["p95"] < target_ms else "MISS"
        matches = numbers["matches"] or ""
        print(f"  {case:<46} {numbers['p50']:>8.1f} {numbers['p95']:>8.1f} {matches:>9}  {verdict}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interactions", "--rows", type=int, help="per run (default 100,000; 10,000 with --compare)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES), help="Data Screen cases")
    parser.add_argument("--compare", action="store_true", help="time the comparison page instead")
    parser.add_argument("--runs", type=int, default=10, help="runs compared (with --compare)")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--postgres-url", help="a database of your own, kept: runs it holds from an earlier bench are reused"
    )
    args = parser.parse_args()
    interactions = args.interactions or (10_000 if args.compare else 100_000)

    def run_on(url: str) -> None:
        if args.compare:
            result = in_child(measure_compare, url, interactions, args.runs, args.repeat)
            report(result, f"{args.runs} runs of {interactions:,} interactions", COMPARE_TARGET_MS)
        else:
            result = in_child(measure, url, interactions, args.repeat, args.cases)
            report(result, f"{interactions:,} interactions", TARGET_MS)

    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as folder:
            run_on(f"sqlite:///{folder}/bench.sqlite3")
    if args.no_postgres:
        return
    if args.postgres_url:
        run_on(args.postgres_url)
        return
    sys.path.insert(0, str(ROOT))
    from tests import servers

    if servers.binary_missing("initdb"):
        print("\nPostgreSQL: initdb not found, skipped")
        return
    with servers.postgres_server() as url:
        run_on(url)


if __name__ == "__main__":
    main()
