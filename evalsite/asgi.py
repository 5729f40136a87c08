"""The web server's application: Django under ASGI, its request bodies read within limits by the
event loop first (evalsite.body_limits), so that slow clients cannot hold the workers."""

import os

from django.core.asgi import get_asgi_application

from evalsite.body_limits import BodyLimits

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
application = BodyLimits(get_asgi_application())
