"""Interactions per second on one core, per property and per project template (issue 31).

    .venv/bin/python -m bench.per_core [--short 50] [--long 20] [--template rag ...] [--core 0]

Rows are bench.pipeline's: short RAG rows (HaluEval QA: a question, its passage, an answer) and
long summaries (SummEval and Newsroom: an article and a summary). Everything runs in a child
process pinned to one core (`os.sched_setaffinity` before any model library is imported, so ONNX
Runtime, torch and BLAS each run one thread), scoring as a models worker's pool process does: the
rows in chunks of EVALSITE_CHUNK_SIZE items (200 (interaction, property) items, so 200 divided by
the template's properties rows per chunk), each property's `run_batch` once per field per chunk.

- per property: the property alone, in chunks of 25 rows (the RAG template's), every model loaded
  and warmed up first and the models' memos cleared, so nothing another property computed is reused;
- per template: every property of the template on each chunk one after the other, memos cleared
  once, as one worker process scores a chunk: a text or pair two properties read is computed once.

Rates are interactions per CPU second of the pinned process (all its threads): what one core
scores when the process has it to itself, which a busy shared machine cannot give in wall time.
A worker's pool process on a core of its own scores about this many a second, so a deployment's
model queue needs (rows per hour / 3,600 / this) pool processes, one core each. The load average and
the share of its core the bench got are printed: a core shared with other work also shares its
caches, so figures from a busy machine are somewhat low.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from bench.child import in_child
from bench.pipeline import DATA, build_rows

CHUNK_ITEMS = 200  # EVALSITE_CHUNK_SIZE's default: a chunk holds this many (interaction, property) items
# A property alone is scored in the RAG template's chunks (200 items over its 8 properties).
PROPERTY_CHUNK_ROWS = 25
Row = dict[str, Any]


def template_properties() -> dict[str, list[str]]:
    """Each template's properties; the custom template scores the default properties."""
    from properties.projects import project_templates

    return {
        slug: list(template.properties or project_templates.DEFAULT_PROPERTIES)
        for slug, template in project_templates.TEMPLATES.items()
    }


def score(scorer: Any, rows: list[Row]) -> None:
    """What `scoring.compute_scores` asks of a scorer for one chunk, without the database."""
    from properties.scorers.base import full_context

    for field in type(scorer).fields:
        scorer.current_field = field
        scorer.run_batch(
            [row["input"] if field == "input" else row["output"] for row in rows],
            [""] * len(rows),  # the bench rows have no expected output: reference-based scorers skip them
            [row["input"] for row in rows],
            [full_context(row["context"]) if scorer.uses_full_context else row["context"] for row in rows],
        )


def seconds_per_property(scorers: dict[str, Any], rows: list[Row], chunk_rows: int) -> dict[str, float]:
    """Each property's CPU seconds over `rows` in chunks, the properties taking turns on each chunk.

    CPU seconds of the process (every thread), not wall seconds: pinned to one core, they are the
    time the core spent on the work, whatever else the machine ran meanwhile."""
    spent = dict.fromkeys(scorers, 0.0)
    for first in range(0, len(rows), chunk_rows):
        chunk = rows[first : first + chunk_rows]
        for name, scorer in scorers.items():
            started = time.process_time()
            score(scorer, chunk)
            spent[name] += time.process_time() - started
    return spent


def measure(core: int, halves: dict[str, list[Row]], templates: dict[str, list[str]]) -> dict[str, Any]:
    """In a process pinned to `core`: {"property": {(name, half): s}, "template": {(slug, half): s}}."""
    os.sched_setaffinity(0, {core})
    from properties.scorers import registry
    from properties.scorers.runtime import models

    names = list(dict.fromkeys(name for props in templates.values() for name in props))
    scorers = {name: registry.get(name)() for name in names}
    for scorer in scorers.values():  # load and warm up every model before any clock
        for rows in halves.values():
            score(scorer, rows[:2])
    result: dict[str, Any] = {"property": {}, "template": {}, "load": [], "cpu_share": []}
    for half, rows in halves.items():
        wall, cpu = time.perf_counter(), time.process_time()
        for name in names:
            models.clear_memos()
            spent = seconds_per_property({name: scorers[name]}, rows, PROPERTY_CHUNK_ROWS)
            result["property"][(name, half)] = spent[name]
        for slug, props in templates.items():
            models.clear_memos()
            spent = seconds_per_property({name: scorers[name] for name in props}, rows, CHUNK_ITEMS // len(props))
            result["template"][(slug, half)] = sum(spent.values())
        result["load"].append(os.getloadavg()[0])
        result["cpu_share"].append((time.process_time() - cpu) / (time.perf_counter() - wall))
    return result


def print_tables(result: dict[str, Any], halves: dict[str, list[Row]], templates: dict[str, list[str]]) -> None:
    counts = {half: len(rows) for half, rows in halves.items()}
    header = "".join(f" {half + ' /s':>10}" for half in halves)
    print(f"\n{'property, alone':<26}{header}   (interactions per CPU second of one core)")
    for name in dict.fromkeys(name for props in templates.values() for name in props):
        rates = "".join(f" {counts[half] / result['property'][(name, half)]:>10.1f}" for half in halves)
        print(f"{name:<26}{rates}")
    print(f"\n{'template, all its properties':<26}{header}")
    for slug, props in templates.items():
        rates = "".join(f" {counts[half] / result['template'][(slug, half)]:>10.2f}" for half in halves)
        print(f"{slug:<26}{rates}   ({len(props)} properties)")
    loads = ", ".join(f"{load:.1f}" for load in result["load"])
    shares = ", ".join(f"{share:.0%}" for share in result["cpu_share"])
    print(f"\nload average (1 minute) after each half: {loads} on {os.cpu_count()} cores")
    print(f"share of its core the bench got in each half (CPU over wall seconds): {shares}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=int, default=50, help="short RAG rows")
    parser.add_argument("--long", type=int, default=20, help="long summaries")
    parser.add_argument("--template", action="append", help="only these templates (repeatable)")
    parser.add_argument("--core", type=int, default=0, help="the core the child process is pinned to")
    args = parser.parse_args()
    rows = build_rows(DATA, 2 * max(args.short, args.long))
    # A half asked for with no rows (--long 0) is left out: there is no rate to print for it.
    halves = {half: rows[half][:count] for half, count in (("short", args.short), ("long", args.long)) if count}
    templates = {slug: props for slug, props in template_properties().items() if slug in (args.template or [slug])}
    print(f"rows: {args.short} short (HaluEval QA), {args.long} long (SummEval, Newsroom); core {args.core}")
    print_tables(in_child(measure, args.core, halves, templates), halves, templates)


if __name__ == "__main__":
    main()
