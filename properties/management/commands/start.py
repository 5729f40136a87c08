"""Start the embedded app: migrate, seed the demo, then the web server, a Celery worker for cheap and
LLM-judged properties, one for model-backed properties, and Celery beat (the sweeper's schedule),
supervised: one that exits is restarted while the others go on."""

import signal
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand

from properties.pipeline.workers import MODEL_QUEUE
from properties.supervisor import Child, Supervisor


# --- the web server ------------------------------------------------------------------------------
# Kept on its own: the one place that says how the web server runs.
def web_command(bind: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        # ASGI: the event loop reads request bodies, so slow clients cannot hold the workers.
        "evalsite.asgi:application",
        "--worker-class",
        "evalsite.web_server.UvicornWorker",
        "--bind",
        bind,
        "--workers",
        "2",
        "--access-logfile",
        "-",
    ]


# --- the workers ---------------------------------------------------------------------------------
# Model-backed properties run in one process of their own: every model loaded once on the machine,
# its intra-op threads using the cores (torch), instead of a copy of every model per pool process.
# Cheap and LLM-judged properties get the pool of `--concurrency` processes.
OTHER_QUEUES = "cpu,llm"


def worker_command(concurrency: int, queues: str = "cpu,models,llm", name: str = "") -> list[str]:
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "evalsite",
        "worker",
        "-Q",
        queues,
        f"--concurrency={concurrency}",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
    ]
    if name:
        # Two workers on one host need their own node names (heartbeats are kept per node).
        command.append(f"--hostname={name}@%h")
    return command


def beat_command() -> list[str]:
    # Sends the sweep (properties.pipeline.sweeper) on schedule; its schedule file is in the data folder.
    return [sys.executable, "-m", "celery", "-A", "evalsite", "beat", "--loglevel=INFO"]


# --- stopping ------------------------------------------------------------------------------------
# Ctrl-C, a service manager or `timeout` (SIGTERM), a closed terminal (SIGHUP): each stops the
# children too instead of orphaning them. The signal often comes twice, or as two kinds: `make run`
# passes a SIGTERM to its child while the same signal reaches its whole process group. The first
# one starts the stop; later ones are ignored, so that none can end the stop half-way with
# children still running. The handler only records the request (the supervisor's loop acts on it):
# an exception raised at an arbitrary point could leave a child just forked untracked.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_on_signals(supervisor: Supervisor) -> None:
    def request_stop(signum: int, _frame) -> None:
        for other in STOP_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        supervisor.request_stop(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, request_stop)


class Command(BaseCommand):
    help = "Run the web server, the Celery workers and Celery beat together, restarting any that exits."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2)
        parser.add_argument("--no-demo", action="store_true")

    def handle(self, *args, bind: str, concurrency: int, no_demo: bool, **options) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            call_command("seed_demo")
        children = [
            Child("web server", web_command(bind)),
            Child("worker", worker_command(concurrency, OTHER_QUEUES, "work")),
            Child("model worker", worker_command(1, MODEL_QUEUE, "models")),
            Child("beat", beat_command()),
        ]
        supervisor = Supervisor(children, log=self.log)
        stop_on_signals(supervisor)
        try:
            supervisor.start()
            self.stdout.write(self.style.SUCCESS(f"Evalsite is running at http://{bind}/  (Ctrl-C stops it)"))
            supervisor.run_until_stopped()
        finally:
            supervisor.stop()

    def log(self, line: str) -> None:
        self.stdout.write(f"[start] {line}")
        self.stdout.flush()
