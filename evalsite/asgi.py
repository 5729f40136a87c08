"""The web server's application: Django under ASGI, its request bodies read within limits by the
event loop first (evalsite.body_limits), so that slow clients cannot hold the workers."""

import importlib
import os

from django.core.asgi import get_asgi_application

from evalsite.body_limits import BodyLimits

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
application = BodyLimits(get_asgi_application())

# The tasks and the Celery app, imported as the server starts (Django is set up by now), not by the
# first request that sends a task: their import (Celery, kombu, and SQLAlchemy for the embedded
# broker) took 0.43 to 0.55 s, which the first job after each start waited for before its planning
# task reached a worker. `evalsite score` and the Python API do not load this module, and stay
# without Celery.
importlib.import_module("properties.tasks")
