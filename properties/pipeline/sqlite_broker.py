"""The embedded default's broker: kombu's SQLAlchemy transport over an SQLite file, polled every
EVALSITE_BROKER_POLL_S seconds.

The transport is polled: a worker with nothing to take looks again after its polling interval, so
each hop of a job (the upload to its planning task, the planning to the first chunks on another
worker) waited up to kombu's default second: 0.10 to 0.90 s in bench/pipeline.py's runs ("where the
end-to-end seconds went"), 0.00 to 0.17 s every 0.2 s, about 0.4 s saved a hop on average (on a
200-row job of about 20 s, within the machine's noise; small jobs feel it most). Polling costs
little on SQLite: an idle cpu worker's main process took 0.4% of a core polling every second, 1.4%
every 0.2 s (a one-off measurement over 30 s). kombu hands every transport option it
does not know to SQLAlchemy's `create_engine`, which refuses `polling_interval`, so the interval is
read from the settings here instead. `install` makes this the transport of `sqla+` broker URLs, in
kombu's table of transport names (Celery reads the URL from CELERY_BROKER_URL itself, so a setting
could not pick another transport for it). Redis pushes its messages and needs none of this.
"""

from __future__ import annotations

from kombu import transport
from kombu.transport import sqlalchemy

ALIASES = ("sqla", "sqlalchemy")


class Transport(sqlalchemy.Transport):
    def __init__(self, client, **kwargs) -> None:
        from django.conf import settings

        super().__init__(client, **kwargs)
        self.polling_interval = settings.EVALSITE_BROKER_POLL_S


def install() -> None:
    """Make `Transport` the one `sqla+` (and `sqlalchemy+`) broker URLs name, in this process."""
    for alias in ALIASES:
        transport.TRANSPORT_ALIASES[alias] = f"{__name__}:Transport"
        # A name already resolved in this process is cached; none is before the first connection.
        getattr(transport, "_transport_cache", {}).pop(alias, None)
