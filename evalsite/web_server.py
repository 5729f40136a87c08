"""The web server's connections: gunicorn's worker running uvicorn, with a deadline for headers.

uvicorn closes a kept-alive connection that sits idle, but a client that opens a connection and
sends its request headers a byte at a time (or never) is kept for good: 5,000 such connections
stayed open past 180 s. Here a connection must complete its request headers within
EVALSITE_HEADER_TIMEOUT_S of opening, or of the end of its previous response; past that it is
closed. Bodies have their own deadline (evalsite.body_limits).

`gunicorn evalsite.asgi:application --worker-class evalsite.web_server.UvicornWorker`
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn_worker
from uvicorn.protocols.http.h11_impl import H11Protocol

DEFAULT_HEADER_TIMEOUT_S = 10.0


def header_timeout() -> float:
    from django.conf import settings

    return float(getattr(settings, "EVALSITE_HEADER_TIMEOUT_S", DEFAULT_HEADER_TIMEOUT_S))


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers do not arrive in time."""

    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._cancel_header_deadline()  # the request line and headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_header_deadline()  # the next request on this connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        self._header_deadline = self.loop.call_later(header_timeout(), self._headers_too_late)

    def _cancel_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_late(self) -> None:
        self._header_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


class UvicornWorker(uvicorn_worker.UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        **uvicorn_worker.UvicornWorker.CONFIG_KWARGS,
        "http": "evalsite.web_server:HeaderDeadlineProtocol",
    }
