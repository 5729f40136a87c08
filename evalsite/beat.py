"""Celery beat's scheduler for Evalsite: Celery's own, reconnecting after the broker refused a send.

Celery's scheduler keeps the producer of its first connection. After a send the broker refused
(the SQLite broker's file locked for a moment), that producer's channel stays disconnected and every
later send fails with "channel disconnected": the sweeps stopped for good, and lost chunks were
never sent again (tests/integration/test_faults.py, the broker locked for 15 s).
"""

from contextlib import suppress

from celery.beat import PersistentScheduler, SchedulingError


class ReconnectingScheduler(PersistentScheduler):
    def apply_async(self, entry, producer=None, advance=True, **kwargs):
        try:
            return super().apply_async(entry, producer, advance, **kwargs)
        except SchedulingError:
            self.reconnect()  # the next tick sends on a fresh connection
            raise

    def reconnect(self) -> None:
        connection = self.__dict__.get("connection")
        del self.producer  # both are cached properties, made again on first use
        del self.connection
        if connection is not None:
            with suppress(*connection.connection_errors, *connection.channel_errors, OSError):
                connection.close()
