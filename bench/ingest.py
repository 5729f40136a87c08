"""Upload ingestion: rows per second and peak memory, CSV and JSONL, into SQLite and PostgreSQL.

    .venv/bin/python bench/ingest.py                         # 100,000 rows of ~1 KB
    .venv/bin/python bench/ingest.py --postgres-url postgres://user:pw@host:5432/db
    .venv/bin/python bench/ingest.py --batch-size 250 1000 5000 --no-postgres

Each case runs in a fresh child process, so that its peak RSS (ru_maxrss) is its own and one case
does not inflate the next (Linux carries ru_maxrss over fork and exec, which is why this parent
stays small: it writes the files a row at a time). "base MB" is the child's peak after Django
setup and migrate, before the upload. Without --postgres-url the bench starts a throwaway PostgreSQL server
when initdb and pg_ctl are found (as the `postgres` user when run as root), and skips it otherwise.
The timing covers ingest.ingest_path: copying the file into media storage, parsing, validating
and inserting. Target: at least 5,000 rows/s into SQLite, peak RSS under 400 MB.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests import servers  # noqa: E402  (needs the repository on the path when run as a script)

TARGET_ROWS_PER_S = 5_000
TARGET_PEAK_RSS_MB = 400

VOCABULARY = (
    "the model answer question context document retrieved support account password reset billing "
    "invoice refund policy order shipping delivery capital city river mountain history science "
    "data evaluation prompt response grounded relevant summary customer product feature release "
    "version"
)
WORDS = VOCABULARY.split()


def sentence(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words).capitalize() + "."


def make_row(rng: random.Random, index: int) -> dict:
    """One interaction of about 1 KB, with two retrieved documents and two metadata columns."""
    return {
        "id": f"bench-{index:07d}",
        "question": sentence(rng, 120),
        "context": [sentence(rng, 280), sentence(rng, 280)],
        "answer": sentence(rng, 240),
        "reference": sentence(rng, 80),
        "label": rng.choice(["good", "bad", ""]),
        "model": rng.choice(["small-v1", "large-v2"]),
        "latency_ms": rng.randint(100, 3000),
    }


def generate_files(directory: Path, rows: int) -> dict[str, Path]:
    rng = random.Random(0)
    csv_path, jsonl_path = directory / "interactions.csv", directory / "interactions.jsonl"
    with csv_path.open("w", newline="", encoding="utf-8") as csv_file, jsonl_path.open("w", encoding="utf-8") as jl:
        writer = None
        for index in range(rows):
            row = make_row(rng, index)
            jl.write(json.dumps(row) + "\n")
            if writer is None:
                writer = csv.DictWriter(csv_file, fieldnames=list(row))
                writer.writeheader()
            writer.writerow({**row, "context": json.dumps(row["context"])})
    return {"csv": csv_path, "jsonl": jsonl_path}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def run_case(case: dict) -> dict:
    """In a child process: set up Django on the case's database, then time one ingest_path."""
    os.environ.update(
        DATABASE_URL=case["database_url"],
        SECRET_KEY="bench-only-secret-key",
        EVALSITE_DATA_DIR=case["data_dir"],
        DEBUG="0",
        DJANGO_SETTINGS_MODULE="evalsite.settings",
    )
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    from properties import ingest
    from properties.models import Project

    call_command("migrate", verbosity=0)
    if case["batch_size"]:
        ingest.BATCH_SIZE = case["batch_size"]
    project = Project.objects.create(name=f"bench {case['label']}")
    baseline = peak_rss_mb()
    started = time.perf_counter()
    upload = ingest.ingest_path(project, case["label"], case["path"])
    seconds = time.perf_counter() - started
    return {
        "label": case["label"],
        "accepted": upload.accepted,
        "rejected": upload.rejected,
        "status": str(upload.status),
        "seconds": seconds,
        "rows_per_s": upload.accepted / seconds,
        "baseline_rss_mb": baseline,
        "peak_rss_mb": peak_rss_mb(),
    }


def run_in_child(case: dict) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(run_case, case).result()


def report(result: dict) -> None:
    verdict = "ok" if result["peak_rss_mb"] < TARGET_PEAK_RSS_MB else "OVER MEMORY TARGET"
    if result["label"].startswith("sqlite") and result["rows_per_s"] < TARGET_ROWS_PER_S:
        verdict = "UNDER SPEED TARGET"
    print(
        f"{result['label']:<24} {result['accepted']:>8} {result['rejected']:>4} {result['seconds']:>8.1f}"
        f" {result['rows_per_s']:>10,.0f} {result['baseline_rss_mb']:>9.0f} {result['peak_rss_mb']:>9.0f}  {verdict}",
        flush=True,
    )


def run_cases(databases: dict[str, str], files: dict[str, Path], batch_sizes: list[int], work: Path) -> None:
    print(f"{'case':<24} {'accepted':>8} {'rej':>4} {'seconds':>8} {'rows/s':>10} {'base MB':>9} {'peak MB':>9}")
    for database, url in databases.items():
        for file_format, path in files.items():
            for batch_size in batch_sizes:
                label = f"{database}-{file_format}" + (f"-batch{batch_size}" if batch_size else "")
                data_dir = work / label
                data_dir.mkdir()
                database_url = url or f"sqlite:///{data_dir / 'bench.sqlite3'}"
                case = {"label": label, "path": str(path), "data_dir": str(data_dir), "batch_size": batch_size}
                report(run_in_child({**case, "database_url": database_url}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--postgres-url", help="an existing database; otherwise one is started if possible")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--batch-size", type=int, nargs="+", default=[0], help="override ingest.BATCH_SIZE")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        files = generate_files(work, args.rows)
        sizes = ", ".join(f"{path.name} {path.stat().st_size / 1e6:.0f} MB" for path in files.values())
        print(f"{args.rows} rows generated in {time.perf_counter() - started:.0f} s: {sizes}")
        with postgres_database(args) as pg:
            if pg is None and not args.no_postgres:
                print("PostgreSQL: no initdb/pg_ctl found and no --postgres-url: skipped")
            databases = {"sqlite": ""} | ({"postgres": pg} if pg else {})
            run_cases(databases, files, args.batch_size, work)


@contextmanager
def postgres_database(args: argparse.Namespace) -> Iterator[str | None]:
    if args.no_postgres:
        yield None
    elif args.postgres_url:
        yield args.postgres_url
    elif servers.binary_missing("initdb"):
        yield None
    else:
        # The same throwaway server the tests start (tests/servers.py).
        with servers.postgres_server() as url:
            yield url


if __name__ == "__main__":
    main()
