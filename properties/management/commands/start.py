"""Start the embedded app: migrate, seed the demo, then a Celery worker and the web server together."""

import os
import signal
import subprocess
import sys
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together (the embedded default)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2)
        parser.add_argument("--no-demo", action="store_true")

    def handle(self, *args, bind: str, concurrency: int, no_demo: bool, **options) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            call_command("seed_demo")
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "evalsite",
                "worker",
                "-Q",
                "cpu,models,llm",
                f"--concurrency={concurrency}",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            start_new_session=True,
        )
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                # ASGI: the event loop reads request bodies, so slow clients cannot hold the workers.
                "evalsite.asgi:application",
                "--worker-class",
                "uvicorn_worker.UvicornWorker",
                "--bind",
                bind,
                "--workers",
                "2",
                "--access-logfile",
                "-",
            ],
            start_new_session=True,
        )
        self.stdout.write(self.style.SUCCESS(f"Evalsite is running at http://{bind}/  (Ctrl-C stops it)"))
        # SIGTERM (a service manager, `timeout`) must stop the children too, not orphan them.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            while worker.poll() is None and web.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for process in (web, worker):
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
            for process in (web, worker):
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
