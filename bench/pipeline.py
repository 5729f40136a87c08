"""End-to-end throughput of the scoring pipeline: upload, Celery workers, values stored (issues 17, 31).

    .venv/bin/python -m bench.pipeline [--rows 1000] [--broker sqlite|redis|both] [--concurrency 2] [--quick]
                                       [--template rag ...] [--no-raw] [--no-commands]

--quick is a smoke run of a few minutes (40 rows, 20 for `evalsite score`); the full run takes 15 to
60 minutes on 2 cores, depending on what else the machine runs.

Rows: half short RAG rows (HaluEval QA: question, passage, answer), half long summaries (SummEval
and Newsroom: "Summarize the article.", the article, a summary), from ../shared/data/eval/. Those
files hold 200 and 198 rows, so a row is used again with a short lead on each text ("Hello. ",
"Sure. ", "Source. "...): no text repeats, as the models' memos would otherwise skip the repeats.

For each broker (the embedded SQLite broker, Redis from a throwaway redis-server), in a process of
its own with a fresh embedded install (SQLite database, data folder):

1. the workers of `manage.py start` (a pool of `--concurrency` processes for the cpu and llm
   queues, one process for the models queue) and Celery beat start, supervised as `manage.py
   start` supervises them; the workers load `bench.pipeline_worker`, Evalsite's Celery app with
   timings written per task (seconds per property and per shared stage, see that module);
2. once the worker is ready, for each `--template` (default: the RAG template; `--template all`:
   every template), the short half is uploaded as a JSONL file into a project made from the
   template (`ingest.ingest_path` with scoring started, as the upload page does, in a process that
   has loaded the web server's application first, as a started server has) and the bench waits
   for its job to end; then the long half. With the models loaded as the pool starts (the
   default), the first upload waits until the models worker's pool process has loaded them: the
   raw limit leaves the loading out, so the jobs do too;
3. then, so that the workers hold every default model, a small run is scored with every default
   property and the RAG template's, in chunks of 5, so that each pool process very likely gets
   every one (the memory table says how many each scored);
4. the PSS of the worker's main process, its pool processes and beat is read from
   /proc/<pid>/smaps_rollup every 0.5 s; the peak of each, and of the worker's processes summed at
   one instant, is printed per phase.

"End to end" runs from the upload's start to the job's `finished_at`; each half's line "where the
end-to-end seconds went" splits it by its chunks' times (`timeline`). "First value" runs from the
worker's start to the run's first stored value. The raw-model limit (bench/pipeline_raw.py: the
model calls alone, on the same rows in the same chunk batches) is measured in the bench's process
right after each half, the workers idle, so that a shared machine's load is alike for the two; the
ratio is raw seconds / end-to-end seconds (1.0: the pipeline runs as fast as its model calls alone),
printed per template and half.
With --compare-loading each broker runs twice, in a fresh install each time: first with the models
loaded by the first chunk that needs them (EVALSITE_WORKER_LOAD_MODELS off), then loaded by each
pool process as it starts (on, the default), so that both are measured on one load of the machine.
Last, `evalsite score` is run on 100 short rows (the RAG template's properties, then the default
properties), and the time from process start to the first scored row with only cheap properties,
through the CLI and through `Evaluation`, with the heavy libraries each imported.

Targets (issues 17 and 31, 2 cores): end to end >= 15 interactions/s on the RAG template's short
rows; >= 0.9 of the raw model limit on both halves of each template that calls a model; first
value within 15 s of the worker's start; the embedded default's workers under 2.5 GB PSS together
with every default model loaded; `evalsite score` of 100 short rows under 25 s, loading included;
cheap properties scoring within 1 s of process start.
Figures on a shared machine are noisy: run it when the machine is otherwise idle.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.child import in_child

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "eval"
SHORT_FILES = ("hallucination_halueval_qa.jsonl",)
LONG_FILES = ("summary_summeval_relevance.jsonl", "summary_newsroom_informativeness.jsonl")
# A row used again gets one of these leads on each text, so that no text repeats.
INPUT_LEADS = ("", "Hello. ", "Please help. ", "A question. ")
OUTPUT_LEADS = ("", "Sure. ", "Here you are. ", "Well. ")
DOCUMENT_LEADS = ("", "Source. ", "Excerpt. ", "From the archive. ")
TEMPLATE = "rag"  # the default --template, and the properties of `evalsite score`'s timing
ALL_MODELS_ROWS, ALL_MODELS_CHUNK = 40, 5
# What a models worker's pool process logs once it has loaded the projects' models (model_loading).
MODELS_LOADED = re.compile(r"models of \d+ properties loaded in|loading the projects' models failed")
CLI_ROWS = 100
PSS_INTERVAL_S = 0.5
JOB_TIMEOUT_S = 3600.0
WORKER_READY_TIMEOUT_S = 180.0
HEAVY_MODULES = ("torch", "transformers", "sentence_transformers", "onnxruntime", "spacy", "litellm", "scipy")
CHEAP_ROW_FILE_ROWS = 1
# --compare-loading: EVALSITE_WORKER_LOAD_MODELS off, then on (properties/pipeline/model_loading.py).
LOADING = {False: "models loaded on first use", True: "models loaded as the pool starts"}
TARGETS = {
    "short_rate": 15.0,  # the RAG template's short rows (issue 31; issue 17 asked 8)
    "raw_ratio": 0.9,  # issue 31 (issue 17 asked 0.8)
    "first_value_s": 15.0,
    "workers_pss_mb": 2500.0,
    "score_100_s": 25.0,
    "cheap_start_s": 1.0,
}
Row = dict[str, Any]


# --- rows -----------------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def interleave(groups: list[list[Row]]) -> list[Row]:
    """The groups' rows taken in turn, so that any prefix holds rows of every file."""
    mixed = []
    for position in range(max(map(len, groups), default=0)):
        mixed.extend(group[position] for group in groups if position < len(group))
    return mixed


def lead(leads: tuple[str, ...], repeat: int) -> str:
    return leads[repeat] if repeat < len(leads) else f"{leads[repeat % len(leads)]}Note {repeat}. "


def build_half(source: list[Row], count: int, prefix: str) -> list[Row]:
    """`count` interactions from `source` rows: {id, input, context (a list of one document), output}."""
    rows = []
    for index in range(count):
        repeat, original = divmod(index, len(source))
        row = source[original]
        document = row.get("context") or ""
        rows.append(
            {
                "id": f"{prefix}-{index}",
                "input": lead(INPUT_LEADS, repeat) + row["input"],
                "context": [lead(DOCUMENT_LEADS, repeat) + document] if document else [],
                "output": lead(OUTPUT_LEADS, repeat) + row["output"],
            }
        )
    return rows


def build_rows(folder: Path, count: int) -> dict[str, list[Row]]:
    """Half short RAG rows, half long summaries (the short half takes the odd one)."""
    short = interleave([read_jsonl(folder / name) for name in SHORT_FILES])
    long = interleave([read_jsonl(folder / name) for name in LONG_FILES])
    return {"short": build_half(short, count - count // 2, "short"), "long": build_half(long, count // 2, "long")}


def write_jsonl(rows: list[Row], path: Path) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return path


# --- memory ---------------------------------------------------------------------------------------


def pss_kb(pid: int) -> int | None:
    """The proportional set size of a process in kB (shared pages split among their users)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return None


def child_pids(pid: int) -> list[int]:
    pids: list[int] = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            pids.extend(int(child) for child in children.read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return pids


class PssSampler(threading.Thread):
    """Samples the PSS of the worker's main process, its pool and beat; keeps peaks per phase."""

    def __init__(self, fleet: Any) -> None:
        super().__init__(daemon=True)
        self.fleet = fleet
        self.phase = "idle"
        self.peaks: dict[str, dict[str, int]] = defaultdict(dict)  # phase -> process label -> kB
        self.together: dict[str, int] = defaultdict(int)  # phase -> worker processes summed, kB
        self.loads: dict[str, list[float]] = defaultdict(list)  # phase -> the machine's 1-minute load
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(PSS_INTERVAL_S):
            self.sample()

    def sample(self) -> None:
        processes: dict[str, int] = {}
        for worker in self.fleet.workers:
            if worker.process is None:
                continue
            main = worker.process
            kind = "model worker" if worker.name == "model worker" else "worker"
            processes[f"{kind} main {main.pid}"] = main.pid
            processes.update({f"{kind} pool {pid}": pid for pid in child_pids(main.pid)})
        sizes = {label: pss_kb(pid) for label, pid in processes.items()}
        sizes = {label: kb for label, kb in sizes.items() if kb is not None}
        peaks = self.peaks[self.phase]
        for label, kb in sizes.items():
            peaks[label] = max(peaks.get(label, 0), kb)
        self.together[self.phase] = max(self.together[self.phase], sum(sizes.values()))
        self.loads[self.phase].append(os.getloadavg()[0])
        if self.fleet.beat.process is not None and (beat := pss_kb(self.fleet.beat.process.pid)) is not None:
            peaks["beat"] = max(peaks.get("beat", 0), beat)

    def stop(self) -> None:
        self.stopping.set()
        self.join()


# --- one broker, in a process of its own ----------------------------------------------------------


def configure(data_dir: Path, broker_url: str | None, model_cache: str) -> None:
    """Point this process, and the workers it starts, at a fresh embedded install in `data_dir`."""
    os.environ.pop("DATABASE_URL", None)  # the embedded default: SQLite in the data folder
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "EVALSITE_DATA_DIR": str(data_dir),
            "CELERY_BROKER_URL": broker_url or f"sqla+sqlite:///{data_dir / 'broker.sqlite3'}",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-only-secret-key",
            "EVALSITE_MODEL_CACHE": model_cache,
        }
    )


@contextmanager
def supervised_workers(log_dir: Path, concurrency: int) -> Iterator[Any]:
    """The workers as `manage.py start` runs them (a pool of `concurrency` processes for the cpu and
    llm queues, one process for models), supervised, on bench.pipeline_worker's app."""
    from properties.management.commands import start
    from properties.supervisor import Child
    from tests import servers

    fleet = servers.WorkerFleet(log_dir / "workers.log", concurrency)
    fleet.worker.command = start.worker_command(concurrency, start.OTHER_QUEUES, "work")
    model_worker = Child("model worker", start.worker_command(1, start.MODEL_QUEUE, "models"), output=fleet.output)
    fleet.supervisor.children.append(model_worker)
    fleet.workers = [fleet.worker, model_worker]
    for worker in fleet.workers:
        worker.command[worker.command.index("evalsite")] = "bench.pipeline_worker"
    fleet.supervisor.start()
    fleet.thread.start()
    try:
        yield fleet
    finally:
        fleet.closing.set()
        fleet.thread.join()
        fleet.supervisor.stop()
        fleet.output.close()


def wait_finished(job: Any, fleet: Any) -> Any:
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            return job
        time.sleep(0.25)
    raise TimeoutError(f"job {job.pk} not finished: {job.done}+{job.failed}/{job.total}\n{fleet.log()[-4000:]}")


def value_counts(run: Any) -> dict[str, int]:
    from django.db.models import Count

    from properties.models import PropertyValue

    counts = PropertyValue.objects.filter(run=run).values("status").annotate(n=Count("id")).order_by()
    return {row["status"]: row["n"] for row in counts}


def fresh_model_worker(fleet: Any, load_models: bool) -> None:
    """Stop the models worker (a warm shutdown) and start it again, then wait until it is ready and,
    with `load_models`, has loaded the projects' models: every template scores the same rows, and a
    models worker remembers what its models made of each text, sentence and pair, so a template after
    the first would otherwise be served an earlier template's model work."""
    from properties.supervisor import STOP_TIMEOUT_S

    worker = fleet.workers[-1]
    started = models_worker_starts(fleet, load_models)
    fleet.hold()  # the supervisor would start it again at once, beside the one started below
    try:
        worker.signal_group(signal.SIGTERM)
        try:
            worker.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # no chunk of ours is running: nothing is lost
            worker.signal_group(signal.SIGKILL)
            worker.process.wait()
        worker.start(time.monotonic())
    finally:
        fleet.release()
    wait_for_models_worker(fleet, load_models, started)


def models_worker_starts(fleet: Any, load_models: bool) -> int:
    """How often the log says a models worker got ready: with `load_models`, had loaded the projects'
    models (what its pool process logs then), otherwise was ready for tasks."""
    log = fleet.log()
    return len(MODELS_LOADED.findall(log)) if load_models else log.count("ready.")


def wait_for_models_worker(fleet: Any, load_models: bool, seen: int) -> None:
    """Wait until the log says a models worker got ready (`models_worker_starts`) once more than `seen`."""
    from tests import servers

    worker = fleet.workers[-1]
    servers.wait_until(
        lambda: models_worker_starts(fleet, load_models) > seen, worker.process, fleet.log_path, WORKER_READY_TIMEOUT_S
    )


def score_half(project: Any, name: str, path: Path, expected: int, fleet: Any) -> dict[str, Any]:
    from django.db.models import Min

    from properties.models import PropertyValue, ScoringChunk
    from properties.uploads import ingest

    started = time.time()
    upload = ingest.ingest_path(project, name, path, start_scoring=True)
    uploaded = time.time()
    assert upload.accepted == expected, f"{upload.accepted} of {expected} rows accepted: {upload.row_errors[:3]}"
    job = wait_finished(upload.run.latest_job(), fleet)
    first = PropertyValue.objects.filter(run=upload.run).aggregate(first=Min("updated_at"))["first"]
    chunks = job.chunks.filter(kind=ScoringChunk.Kind.SCORE).values_list("interaction_ids", flat=True)
    return {
        "run": upload.run.pk,
        "rows": expected,
        "upload_s": uploaded - started,
        "end_to_end_s": job.finished_at.timestamp() - started,
        "first_value_at": first.timestamp(),
        "chunk_rows": max(len(ids) for ids in chunks),  # the raw limit's batches
        "job": {"status": job.status, "done": job.done, "failed": job.failed, "total": job.total},
        "values": value_counts(upload.run),
        "timeline": timeline(job, started),
    }


def timeline(job: Any, started: float) -> dict[str, float]:
    """Where a job's end-to-end seconds went, from its chunks' times: the upload until its planning
    task was sent (the task goes once the upload's rows are stored), that task's wait for a worker
    and its run, the wait until a worker began the first score chunk, the score chunks from the
    first begun to the last finished, and from there to the job's end. The waits are the broker's
    hops (a polled broker's interval) and the workers'."""
    from properties.models import ScoringChunk

    chunks = list(job.chunks.all())
    plan = next(chunk for chunk in chunks if chunk.kind == ScoringChunk.Kind.PLAN)
    scores = [chunk for chunk in chunks if chunk.kind == ScoringChunk.Kind.SCORE]
    first = min(chunk.started_at for chunk in scores)
    last = max(chunk.finished_at for chunk in scores)
    return {
        "upload": plan.sent_at.timestamp() - started,
        "planning wait": (plan.started_at - plan.sent_at).total_seconds(),
        "planning": (plan.finished_at - plan.started_at).total_seconds(),
        "first chunk wait": (first - plan.finished_at).total_seconds(),
        "score chunks": (last - first).total_seconds(),
        "end": (job.finished_at - last).total_seconds(),
    }


def score_every_model(project: Any, path: Path, properties: list[str], chunk: int, fleet: Any) -> dict[str, Any]:
    from django.test import override_settings

    from properties.pipeline import scoring
    from properties.uploads import ingest

    upload = ingest.ingest_path(project, "every default model", path)
    started = time.time()
    # Planned here, in small chunks, so that each pool process gets work of every property.
    with override_settings(EVALSITE_CHUNK_SIZE=chunk):
        job = scoring.plan_job(upload.run, properties)
    job = wait_finished(job, fleet)
    return {"run": upload.run.pk, "seconds": time.time() - started, "values": value_counts(upload.run)}


def run_broker(broker: str, broker_url: str | None, rows: dict[str, list[Row]], options: dict[str, Any]) -> dict:
    data = Path(tempfile.mkdtemp(prefix=f"evalsite-bench-pipeline-{broker}-"))
    try:
        return measure_broker(data, broker_url, rows, options)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def measure_broker(data: Path, broker_url: str | None, rows: dict[str, list[Row]], options: dict[str, Any]) -> dict:
    configure(data, broker_url, options["model_cache"])
    os.environ["EVALSITE_WORKER_LOAD_MODELS"] = "1" if options["load_models"] else "0"
    timings = data / "timings"
    timings.mkdir()
    os.environ["BENCH_TIMINGS_DIR"] = str(timings)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    # The uploads stand in for the web server's: the bench's process loads the server's application
    # first, as a started server has (it imports the tasks and the Celery app as it starts).
    importlib.import_module("evalsite.asgi")
    from django.core.management import call_command

    from bench import pipeline_raw
    from properties.models import Project
    from properties.projects import project_templates

    call_command("migrate", verbosity=0)
    projects = {}
    for slug in options["templates"]:
        projects[slug] = Project(name=f"pipeline bench, {slug}")
        project_templates.apply(projects[slug], slug)
        projects[slug].save()
    enabled = [name for project in projects.values() for name in project.enabled_properties]
    every_model = list(dict.fromkeys([*project_templates.default_properties(), *enabled]))
    all_models_file = write_jsonl(rows["short"][: options["all_models_rows"]], data / "every-model.jsonl")
    result: dict[str, Any] = {"every_model": every_model, "templates": {}}
    worker_started = time.time()
    with supervised_workers(data, options["concurrency"]) as fleet:
        from tests import servers

        servers.wait_until(
            lambda: fleet.log().count("ready.") >= len(fleet.workers),
            fleet.worker.process,
            fleet.log_path,
            WORKER_READY_TIMEOUT_S,
        )
        result["ready_s"] = time.time() - worker_started
        sampler = PssSampler(fleet)
        sampler.start()
        if options["load_models"]:
            # The models worker's pool process loads the projects' models as it starts; the rows are
            # uploaded once it has, so that no template's job is charged the loading, which the raw
            # limit does not count either (the first value still counts from the worker's start).
            sampler.phase = "loading the models"
            wait_for_models_worker(fleet, load_models=True, seen=0)
            result["models_loaded_s"] = time.time() - worker_started
        for index, (slug, project) in enumerate(projects.items()):
            if index:
                sampler.phase = f"{slug}, a fresh models worker"
                fresh_model_worker(fleet, options["load_models"])
            halves: dict[str, Any] = {}
            result["templates"][slug] = {"properties": project.enabled_properties, "halves": halves}
            for name, half_rows in rows.items():
                path = write_jsonl(half_rows, data / f"{slug}-{name}.jsonl")
                sampler.phase = f"{slug}, {name}"
                halves[name] = score_half(project, f"{slug}, {name}", path, len(half_rows), fleet)
                if options["raw"]:
                    sampler.phase = f"{slug}, {name}, raw limit"
                    chunk_rows = halves[name]["chunk_rows"]
                    halves[name]["raw"] = pipeline_raw.limit_seconds(half_rows, project.enabled_properties, chunk_rows)
        sampler.phase = "every default model"
        result["every_model_run"] = score_every_model(
            next(iter(projects.values())), all_models_file, every_model, options["all_models_chunk"], fleet
        )
        sampler.sample()
        sampler.stop()
        result["restarts"] = [event for event in fleet.events if "exited" in event]
    first = min(half["first_value_at"] for t in result["templates"].values() for half in t["halves"].values())
    result["first_value_s"] = first - worker_started
    result["pss"] = {"peaks": dict(sampler.peaks), "together": dict(sampler.together)}
    result["load"] = {phase: sum(loads) / len(loads) for phase, loads in sampler.loads.items() if loads}
    result["records"] = [json.loads(line) for path in timings.glob("*.jsonl") for line in path.read_text().splitlines()]
    return result


# --- the command line and the cheap start ---------------------------------------------------------

CHEAP_START = """
import sys, time
mode, path, properties = sys.argv[1:4]
if mode == "cli":
    from evalsite.sdk.cli import main
    main(["score", path, "--properties", properties, "--quiet"])
else:
    import asyncio, json
    from evalsite import Evaluation
    rows = [json.loads(line) for line in open(path)]
    asyncio.run(Evaluation(dataset=rows, scorers=properties.split(",")).evaluate(lambda output: output))
scored = time.time()
print("BENCH", scored, ",".join(name for name in sys.argv[4].split(",") if name in sys.modules))
"""


def cli_environment(data: Path, model_cache: str) -> dict[str, str]:
    env = {**os.environ, "EVALSITE_DATA_DIR": str(data), "EVALSITE_MODEL_CACHE": model_cache}
    env.pop("DATABASE_URL", None)
    return env


def evalsite_score(path: Path, properties: list[str], env: dict[str, str]) -> float:
    """Wall seconds of `evalsite score` on a file, loading included."""
    script = Path(sys.executable).with_name("evalsite")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "evalsite.sdk.cli"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "score", str(path), "--properties", ",".join(properties), "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        cwd=path.parent,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"evalsite score failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def cheap_start(mode: str, path: Path, properties: list[str], env: dict[str, str]) -> tuple[float, list[str]]:
    """Seconds from process start to its one row scored, and the heavy libraries it imported."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHEAP_START, mode, str(path), ",".join(properties), ",".join(HEAVY_MODULES)],
        capture_output=True,
        text=True,
        env=env,
        cwd=path.parent,
        check=False,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith("BENCH ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{mode} start failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    _, scored, heavy = (line.split(" ") + [""])[:3]
    return float(scored) - started, [name for name in heavy.split(",") if name]


def measure_commands(short: list[Row], cli_rows: int, model_cache: str) -> dict[str, Any]:
    """`evalsite score` wall times and the cheap-property start, each in a fresh process."""
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-cli-") as folder:
        data = Path(folder)
        configure(data, None, model_cache)
        from evalsite.sdk.bootstrap import setup

        setup()
        from properties.projects import project_templates
        from properties.scorers import registry

        env = cli_environment(data, model_cache)
        rag = list(project_templates.get(TEMPLATE).properties)
        default = project_templates.default_properties()
        cheap = [name for name in default if registry.get(name).queue == "cpu"]
        rows_file = write_jsonl(short[:cli_rows], data / "short.jsonl")
        one_row = write_jsonl(short[:CHEAP_ROW_FILE_ROWS], data / "one.jsonl")
        result: dict[str, Any] = {"rows": min(cli_rows, len(short)), "cheap": cheap}
        result["score_s"] = {
            "RAG template": evalsite_score(rows_file, rag, env),
            f"default ({len(default)})": evalsite_score(rows_file, default, env),
        }
        result["cheap_start"] = {
            "evalsite score": cheap_start("cli", one_row, cheap, env),
            "Evaluation": cheap_start("evaluation", one_row, cheap, env),
        }
        return result


# --- the report -----------------------------------------------------------------------------------


def check(what: str, ok: bool) -> None:
    print(f"  {'met    ' if ok else 'NOT MET'}  {what}")


def by_property(records: list[Row], run: int) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for record in records:
        if record.get("run") != run:
            continue
        row = table[record["property"]]
        row["chunks"] += 1
        row["items"] += record["items"]
        row["task_s"] += record["task_s"]
        row["scoring_s"] += record["scoring_s"]
        for stage, seconds in record["stages"].items():
            row[stage] += seconds
    return table


def print_property_table(records: list[Row], run: int, properties: list[str], raw: dict[str, float]) -> None:
    from bench.pipeline_worker import STAGES

    table = by_property(records, run)
    header = f"  {'property':<22} {'chunks':>6} {'task s':>7} {'scoring':>7} {'raw s':>7}"
    print(header + "".join(f" {stage[:8]:>8}" for stage in STAGES) + f" {'rest':>7}")
    totals: dict[str, float] = defaultdict(float)
    for prop in [*properties, *sorted(set(table) - set(properties))]:
        row = table.get(prop)
        if row is None:
            continue
        rest = row["scoring_s"] - sum(row[stage] for stage in STAGES)
        for key in ("task_s", "scoring_s", *STAGES):
            totals[key] += row[key]
        raw_s = f"{raw[prop]:>7.1f}" if prop in raw else f"{'-':>7}"
        print(
            f"  {prop:<22} {row['chunks']:>6.0f} {row['task_s']:>7.1f} {row['scoring_s']:>7.1f} {raw_s}"
            + "".join(f" {row[stage]:>8.1f}" for stage in STAGES)
            + f" {rest:>7.1f}"
        )
    rest = totals["scoring_s"] - sum(totals[stage] for stage in STAGES)
    raw_total = f"{sum(raw.values()):>7.1f}" if raw else f"{'-':>7}"
    print(
        f"  {'all properties':<22} {'':>6} {totals['task_s']:>7.1f} {totals['scoring_s']:>7.1f} {raw_total}"
        + "".join(f" {totals[stage]:>8.1f}" for stage in STAGES)
        + f" {rest:>7.1f}"
    )


def properties_per_pool(records: list[Row]) -> dict[int, set[str]]:
    scored: dict[int, set[str]] = defaultdict(set)
    for record in records:
        if record.get("property"):
            scored[record["pid"]].add(record["property"])
    return scored


def print_memory(result: dict[str, Any]) -> float:
    """The PSS table; returns the workers' PSS in MB with every default model loaded: as measured, or,
    where a pool process did not get every property, as if each held what the fullest one held."""
    peaks, together = result["pss"]["peaks"], result["pss"]["together"]
    phases = [phase for phase in ("short", "long", "every default model") if phase in peaks]
    labels = list(dict.fromkeys(label for phase in phases for label in peaks[phase]))
    scored = properties_per_pool(result["records"])
    every = len(result["every_model"])
    print("  peak PSS, MB        " + "".join(f" {phase[:20]:>20}" for phase in phases) + "  properties scored")
    for label in labels:
        pid = int(label.split()[-1]) if label[-1].isdigit() else 0
        note = f"  {len(scored[pid])}/{every}" if " pool " in label else ""
        sizes = "".join(f" {peaks[phase].get(label, 0) / 1024:>20.0f}" for phase in phases)
        print(f"  {label:<19}{sizes}{note}")
    print(f"  {'workers together':<19}" + "".join(f" {together[phase] / 1024:>20.0f}" for phase in phases))
    last = peaks.get("every default model", {})
    measured = together.get("every default model", 0) / 1024
    # Each model lives in the model worker's one process; the cheap properties' libraries in the
    # cpu pool process that scored them. Where one cpu pool process did not get every cheap
    # property, count each as holding what the fullest one held.
    pools = {label: kb for label, kb in last.items() if label.startswith("worker pool")}
    if not pools:
        return measured
    fullest = max(pools, key=lambda label: (len(scored[int(label.split()[-1])]), pools[label]))
    estimate = measured + (result["concurrency"] * pools[fullest] - sum(pools.values())) / 1024
    print(f"  if every cpu pool process held what {fullest} holds: {estimate:.0f} MB")
    return max(measured, estimate)


def report_broker(broker: str, result: dict[str, Any]) -> dict[str, Any]:
    """Print one broker's figures; return what the targets section needs."""
    print(f"\n=== {broker} broker, concurrency {result['concurrency']}")
    loaded = f"models loaded {result['models_loaded_s']:.1f} s; " if "models_loaded_s" in result else ""
    first = f"first value stored {result['first_value_s']:.1f} s"
    print(f"worker ready {result['ready_s']:.1f} s after its start; {loaded}{first}")
    if result["restarts"]:
        print(f"supervisor: {'; '.join(result['restarts'])}")
    loads = ", ".join(f"{phase} {load:.1f}" for phase, load in result["load"].items())
    print(f"machine load (1-minute average, mean over each phase, {os.cpu_count()} cores): {loads}")
    figures: dict[str, Any] = {"rates": {}, "ratios": {}}
    for slug, template in result["templates"].items():
        print(f"\n  {slug} template: {', '.join(template['properties'])}")
        print(f"  {'half':<6} {'rows':>5} {'upload s':>8} {'end-to-end s':>12} {'interactions/s':>14}", end="")
        print(f" {'raw-model s':>11} {'raw ratio':>9}  values ok / n/a / error")
        for name, half in template["halves"].items():
            seconds = half["end_to_end_s"]
            # A template whose properties call no model has no limit to compare with.
            raw_s = sum(half["raw"].values()) if half.get("raw") else None
            figures["rates"][(slug, name)] = half["rows"] / seconds
            figures["ratios"][(slug, name)] = raw_s / seconds if raw_s is not None else None
            values = half["values"]
            counts = f"{values.get('ok', 0)} / {values.get('not_applicable', 0)} / {values.get('error', 0)}"
            raw_shown = f"{raw_s:>11.1f} {raw_s / seconds:>9.2f}" if raw_s is not None else f"{'-':>11} {'-':>9}"
            print(
                f"  {name:<6} {half['rows']:>5} {half['upload_s']:>8.1f} {seconds:>12.1f} "
                f"{half['rows'] / seconds:>14.2f} {raw_shown}  {counts}"
            )
        total_rows = sum(half["rows"] for half in template["halves"].values())
        total_s = sum(half["end_to_end_s"] for half in template["halves"].values())
        print(f"  {'both':<6} {total_rows:>5} {'':>8} {total_s:>12.1f} {total_rows / total_s:>14.2f}")
        print("  where the end-to-end seconds went (from the chunks' times):")
        for name, half in template["halves"].items():
            parts = ", ".join(f"{part} {seconds:.2f}" for part, seconds in half["timeline"].items())
            print(f"    {name}: {parts}")
        for name, half in template["halves"].items():
            print(f"\n  seconds per property and per shared stage, {slug} template, {name} half (summed over")
            print("  chunks, pool processes and streams; raw s: the property's raw model calls, memos shared")
            print("  with those above it):")
            print_property_table(result["records"], half["run"], template["properties"], half.get("raw", {}))
    planning = [r["task_s"] for r in result["records"] if r.get("task") == "properties.plan_job"]
    print(f"\n  planning tasks: {len(planning)}, {sum(planning):.1f} s in all")
    every = result["every_model_run"]
    print(f"  every default model run: {every['seconds']:.1f} s, values {every['values']}\n")
    figures["pss_mb"] = print_memory(result)
    figures["first_value_s"] = result["first_value_s"]
    return figures


def report_targets(figures: dict[str, dict[str, Any]], commands: dict[str, Any] | None, quick: bool) -> None:
    print("\n=== targets" + (" (a --quick run: indicative only)" if quick else ""))
    for broker, got in figures.items():
        if (TEMPLATE, "short") in got["rates"]:
            short = got["rates"][(TEMPLATE, "short")]
            goal = TARGETS["short_rate"]
            check(f"{broker}: {TEMPLATE} template's short rows end to end {short:.2f}/s >= {goal:g}/s", short >= goal)
        for (slug, half), ratio in got["ratios"].items():
            if ratio is not None:
                goal = TARGETS["raw_ratio"]
                check(
                    f"{broker}: {slug} template, {half} half at {ratio:.2f} of the raw-model limit >= {goal}",
                    ratio >= goal,
                )
        first = got["first_value_s"]
        check(
            f"{broker}: first value {first:.1f} s after the worker's start <= 15 s", first <= TARGETS["first_value_s"]
        )
        pss = got["pss_mb"]
        check(
            f"{broker}: workers' PSS with every default model {pss:.0f} MB < 2500 MB", pss < TARGETS["workers_pss_mb"]
        )
    if commands:
        print(f"  (cheap properties: {', '.join(commands['cheap'])})")
        for label, seconds in commands["score_s"].items():
            what = f"evalsite score, {commands['rows']} short rows, {label} properties: {seconds:.1f} s < 25 s"
            check(what, seconds < TARGETS["score_100_s"])
        for label, (seconds, heavy) in commands["cheap_start"].items():
            loaded = ", ".join(heavy) or "none"
            what = f"{label}, cheap properties only: first row {seconds:.2f} s <= 1 s (heavy imports: {loaded})"
            check(what, seconds <= TARGETS["cheap_start_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000, help="interactions, half short, half long")
    parser.add_argument(
        "--broker", choices=("sqlite", "redis", "both"), default=None, help="default: both if redis-server exists"
    )
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=DATA)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 40 rows, small checks")
    parser.add_argument(
        "--template",
        action="append",
        help=f"score with this project template (repeatable; 'all' for every one; default: {TEMPLATE})",
    )
    parser.add_argument("--no-raw", action="store_true", help="skip the raw-model limit")
    parser.add_argument("--no-commands", action="store_true", help="skip evalsite score and the cheap start")
    parser.add_argument(
        "--compare-loading",
        action="store_true",
        help="each broker twice: models loaded by the first chunk, then by the pool processes as they start",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from properties.projects import project_templates
    from properties.scorers.runtime import models
    from tests import servers

    templates = args.template or [TEMPLATE]
    templates = list(project_templates.TEMPLATES) if "all" in templates else templates
    unknown = sorted(set(templates) - set(project_templates.TEMPLATES))
    if unknown:
        parser.error(f"no template {', '.join(unknown)}: choose from {', '.join(project_templates.TEMPLATES)}")
    rows = build_rows(args.folder, 40 if args.quick else args.rows)
    brokers = ["sqlite", "redis"] if args.broker in (None, "both") else [args.broker]
    if args.broker is None and servers.binary_missing("redis-server"):
        brokers = ["sqlite"]
    options = {
        "concurrency": args.concurrency,
        "model_cache": os.environ.get("EVALSITE_MODEL_CACHE") or str(models.conversion_cache()),
        "all_models_rows": 12 if args.quick else ALL_MODELS_ROWS,
        "all_models_chunk": 2 if args.quick else ALL_MODELS_CHUNK,
        "raw": not args.no_raw,
        "templates": templates,
    }
    print(f"rows: {len(rows['short'])} short (HaluEval QA), {len(rows['long'])} long (SummEval, Newsroom)")
    results, figures = {}, {}
    loadings = [False, True] if args.compare_loading else [True]
    for broker, load_models in [(broker, load) for broker in brokers for load in loadings]:
        name = broker + (f", {LOADING[load_models]}" if args.compare_loading else "")
        options["load_models"] = load_models
        if broker == "redis":
            with servers.redis_server() as url:
                results[name] = in_child(run_broker, broker, url, rows, options)
        else:
            results[name] = in_child(run_broker, broker, None, rows, options)
        results[name]["concurrency"] = args.concurrency
        figures[name] = report_broker(name, results[name])
        sys.stdout.flush()
    commands = None
    if not args.no_commands:
        commands = in_child(measure_commands, rows["short"], 20 if args.quick else CLI_ROWS, options["model_cache"])
    report_targets(figures, commands, args.quick)
    print("\nThe machine is shared: figures are noisy. Seconds per property add up over the pool processes.")


if __name__ == "__main__":
    main()
