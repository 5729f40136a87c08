"""Upload ingestion: rows per second and peak memory, CSV and JSONL, into SQLite and PostgreSQL.

    .venv/bin/python bench/ingest.py                         # 100,000 rows of ~1 KB
    .venv/bin/python bench/ingest.py --postgres-url postgres://user:pw@host:5432/db
    .venv/bin/python bench/ingest.py --batch-size 250 1000 5000 --no-postgres
    .venv/bin/python bench/ingest.py --hostile               # hostile files: memory above idle

--hostile uploads the files of docs/security.md's "Hostile input" (deep nesting, wide headers, huge
strings, cells and numbers, truncated and unclosed files) into SQLite, each in a fresh process as the
web worker handles them (the mapping page's preview, then the import), and prints the peak memory
above the process's idle size. Target: under 300 MB above idle for every file.

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
TARGET_HOSTILE_ABOVE_IDLE_MB = 300

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

    from properties.models import Project
    from properties.uploads import ingest

    call_command("migrate", verbosity=0)
    if case["batch_size"]:
        ingest.BATCH_SIZE = case["batch_size"]
    project = Project.objects.create(name=f"bench {case['label']}")
    baseline = peak_rss_mb()
    started = time.perf_counter()
    if case.get("preview"):
        with open(case["path"], "rb") as fileobj:
            ingest.preview_file(fileobj, Path(case["path"]).name)
    upload = ingest.ingest_path(project, case["label"], case["path"])
    seconds = time.perf_counter() - started
    first_problem = upload.row_errors[0] if upload.row_errors else {}
    return {
        "label": case["label"],
        "accepted": upload.accepted,
        "rejected": upload.rejected,
        "problem": f"{first_problem.get('line')}: {first_problem.get('reason', '')}"[:70] if first_problem else "",
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
    parser.add_argument("--hostile", action="store_true", help="hostile files instead: memory above idle")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        work = Path(tmp)
        if args.hostile:
            run_hostile(work)
            return
        started = time.perf_counter()
        files = generate_files(work, args.rows)
        sizes = ", ".join(f"{path.name} {path.stat().st_size / 1e6:.0f} MB" for path in files.values())
        print(f"{args.rows} rows generated in {time.perf_counter() - started:.0f} s: {sizes}")
        with postgres_database(args) as pg:
            if pg is None and not args.no_postgres:
                print("PostgreSQL: no initdb/pg_ctl found and no --postgres-url: skipped")
            databases = {"sqlite": ""} | ({"postgres": pg} if pg else {})
            run_cases(databases, files, args.batch_size, work)


def generate_hostile_files(directory: Path) -> dict[str, Path]:
    """The hostile files of issue 14, each beside a few good rows, written a piece at a time so that
    this parent stays small (its peak memory would carry over to the children that measure)."""
    good = "".join(json.dumps({"question": "q", "answer": f"fine {i}"}) + "\n" for i in range(3))
    megabyte = "x" * 1_000_000
    fifty_mb = [megabyte] * 50
    deep = ["[" * 100_000, "]" * 100_000]
    files: dict[str, list[str]] = {
        "deep-100k.json": ['[{"answer": "fine"}, {"answer": "deep", "m": ', *deep, "}]"],
        "deep-metadata-600.jsonl": [good, '{"answer": "deep", "metadata": {"a": ', "[" * 600, "]" * 600, "}}\n"],
        "wide-40k.csv": [",".join(f"c{i}" for i in range(40_000)), ",answer\n", "x," * 40_000, "y\n"],
        "wide-100k.csv": [",".join(f"c{i}" for i in range(100_000)), ",answer\n", "x," * 100_000, "y\n"],
        "string-50mb.json": ['[{"answer": "fine"}, {"answer": "', *fifty_mb, '"}, {"answer": "fine too"}]'],
        "cell-50mb.csv": ["question,answer\nq,fine\nq,", *fifty_mb, "\nq,fine too\n"],
        "line-50mb.jsonl": [good, '{"answer": "', *fifty_mb, '"}\n', good],
        "numbers.jsonl": [good, '{"answer": "a", "n": 1e999999}\n{"answer": "b", "n": ', "9" * 5000, "}\n"],
        "unclosed-quote.csv": ['question,answer\nq,fine\nq,"unclosed\n', *(f"q{i},row {i}\n" for i in range(100_000))],
    }
    paths = {}
    for name, pieces in files.items():
        paths[name] = directory / name
        with paths[name].open("w", encoding="utf-8") as out:
            out.writelines(pieces)
    # Written in a child of its own: its 200 MB strings would raise this parent's peak, which the
    # measuring children inherit (ru_maxrss survives exec).
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        huge = directory / "strings-5x200mb.parquet"
        paths[huge.name] = pool.submit(write_huge_strings_parquet, huge).result()
    paths["truncated-100k.json"] = directory / "truncated-100k.json"
    rng = random.Random(0)
    with paths["truncated-100k.json"].open("w", encoding="utf-8") as out:
        out.write("[")
        for index in range(100_000):
            out.write(("," if index else "") + json.dumps(make_row(rng, index)))
        out.write(', {"answer": "cut off in the mid')
    return paths


def write_huge_strings_parquet(path: Path) -> Path:
    """5 rows of 200 MB strings, zstd: a few hundred KB on disk (issue 30's file was 31 KB). Written a
    row at a time, so this parent holds one string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("question", pa.string()), ("answer", pa.string())])
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for _ in range(5):
            writer.write_table(pa.table({"question": ["q"], "answer": ["x" * 200_000_000]}, schema=schema))
        writer.write_table(pa.table({"question": ["q"], "answer": ["fine"]}, schema=schema))
    return path


def run_hostile(work: Path) -> None:
    files = generate_hostile_files(work)
    columns = f"{'MB':>6} {'ok':>3} {'rej':>4} {'seconds':>7} {'idle MB':>8} {'peak MB':>8} {'above':>6}"
    print(f"{'file':<26} {columns}  first problem")
    for name, path in files.items():
        data_dir = work / f"data-{name}"
        data_dir.mkdir()
        case = {"label": name, "path": str(path), "data_dir": str(data_dir), "batch_size": 0, "preview": True}
        result = run_in_child({**case, "database_url": f"sqlite:///{data_dir / 'bench.sqlite3'}"})
        above = result["peak_rss_mb"] - result["baseline_rss_mb"]
        verdict = "ok" if above < TARGET_HOSTILE_ABOVE_IDLE_MB else "OVER MEMORY TARGET"
        print(
            f"{name:<26} {path.stat().st_size / 1e6:>6.1f} {result['accepted']:>3} {result['rejected']:>4}"
            f" {result['seconds']:>7.1f} {result['baseline_rss_mb']:>8.0f} {result['peak_rss_mb']:>8.0f}"
            f" {above:>6.0f}  {result['problem']}  {verdict}",
            flush=True,
        )


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
