"""The Celery app. Workers start with `celery -A evalsite worker -Q cpu,models`, the sweeper's
schedule with `celery -A evalsite beat` (manage.py start runs both)."""

import os

from celery import Celery, signals
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

# The embedded broker polled as often as EVALSITE_BROKER_POLL_S says, before any connection is made.
# Only when it is the broker: its transport imports SQLAlchemy (0.16 to 0.22 s and 18 MB in each
# process that loads this app), which a Redis deployment does without.
if settings.CELERY_BROKER_URL.startswith(("sqla+", "sqlalchemy+")):
    from properties.pipeline import sqlite_broker

    sqlite_broker.install()
app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# Worker health (properties/pipeline/workers.py): imported when a worker starts, after Django is set up.
@signals.worker_init.connect
def _name_worker(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.identify(sender.hostname)


# Before the pool forks, so that pool processes inherit the imports (a models worker only).
@signals.worker_init.connect
def _import_model_libraries(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.share_model_threads(sender.app.amqp.queues.consume_from, getattr(sender, "concurrency", 1) or 1)
    workers.import_model_libraries(sender.app.amqp.queues.consume_from)


# Pool processes of a models worker load the projects' models as they start (properties/pipeline/model_loading.py).
@signals.worker_init.connect
def _plan_model_loading(sender, **kwargs) -> None:
    from properties.pipeline import model_loading

    model_loading.plan_loading(sender.app.amqp.queues.consume_from)


@signals.worker_process_init.connect
def _start_model_loading(**kwargs) -> None:
    from properties.pipeline import model_loading

    model_loading.start_loading()


@signals.task_prerun.connect
def _wait_for_models(**kwargs) -> None:
    from properties.pipeline import model_loading

    model_loading.wait_until_loaded()


@signals.worker_ready.connect
def _start_heartbeat(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.start_heartbeat(sender.controller)


@signals.worker_shutdown.connect
def _record_stop(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.stopped(reason="shutdown")


@signals.task_received.connect
def _count_received(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.count_received()


@signals.task_postrun.connect
def _return_freed_memory(sender, **kwargs) -> None:
    from properties.pipeline import workers

    workers.return_freed_memory()


# Celery sets up the worker's and beat's log handlers itself: they get the secrets filter too.
@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _scrub_log_secrets(logger, **kwargs) -> None:
    from properties.provider_keys import ScrubSecrets

    for handler in logger.handlers:
        if not any(isinstance(existing, ScrubSecrets) for existing in handler.filters):
            handler.addFilter(ScrubSecrets())
