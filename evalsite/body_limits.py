"""Request bodies read within limits by the server's event loop, before Django sees them.

Under WSGI a request body is read inside a worker, so a client that sends `Content-Length: 1000000`
and then trickles bytes holds that worker for as long as it likes; a few such clients block the
site. The web server runs Django under ASGI instead (gunicorn with uvicorn workers): Django's ASGI
handler reads the whole body in the event loop, where a waiting client costs a coroutine, and only
then hands the request to a thread. This middleware, around Django's ASGI application:

- refuses a body whose declared Content-Length is over the limit with 413, before reading it;
- cuts off a body that grows past the limit while it streams (chunked, or longer than declared): 413;
- gives up on a body that sends nothing for EVALSITE_REQUEST_BODY_TIMEOUT seconds: 408.

The limit depends on the page: the upload page takes a file of EVALSITE_UPLOAD_MAX_BYTES, the API
EVALSITE_API_MAX_BODY_BYTES, and every other page Django's DATA_UPLOAD_MAX_MEMORY_SIZE. Those are
for people who are logged in or carry an API token: a request that is neither may send at most
ANONYMOUS_MAX_BODY_BYTES (the login form fits many times over), on every route, so that anonymous
clients cannot make the server spool large bodies to disk before Django answers 403. The session
or token is checked before the first byte of a larger body is read. A body cut off is never kept:
Django closes (and so deletes) its temporary file when it is told the client left.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.urls import Resolver404, resolve

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Room for the upload form's other fields and the multipart boundaries around the file.
UPLOAD_FORM_OVERHEAD = 64 * 1024
# The most a client that is neither logged in nor carries a token may send: a login form is < 1 KB.
ANONYMOUS_MAX_BODY_BYTES = 64 * 1024


def body_limit(path: str) -> int:
    if path.startswith("/api/"):
        return settings.EVALSITE_API_MAX_BODY_BYTES
    try:
        name = resolve(path).url_name
    except Resolver404:
        name = None
    if name == "upload-create":
        return settings.EVALSITE_UPLOAD_MAX_BYTES + UPLOAD_FORM_OVERHEAD
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _declared_length(scope: Scope) -> int | None:
    value = _header(scope, b"content-length")
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _header(scope: Scope, wanted: bytes) -> bytes | None:
    for name, value in scope.get("headers", []):
        if name == wanted:
            return value
    return None


def _cookie(scope: Scope, wanted: str) -> str | None:
    from http.cookies import CookieError, SimpleCookie

    raw = _header(scope, b"cookie")
    if raw is None:
        return None
    cookies = SimpleCookie()
    try:
        cookies.load(raw.decode("latin-1"))
    except CookieError:
        return None
    morsel = cookies.get(wanted)
    return morsel.value if morsel is not None else None


def identified(scope: Scope) -> bool:
    """Whether the request carries a live session of a user or an active API token (a database
    read: called from a thread)."""
    from importlib import import_module

    from django.contrib.auth import SESSION_KEY

    from properties.models import ApiToken

    authorization = _header(scope, b"authorization") or b""
    scheme, _, secret = authorization.decode("latin-1").partition(" ")
    if scheme.lower() == "bearer" and secret.strip() and ApiToken.authenticate(secret.strip()) is not None:
        return True
    session_key = _cookie(scope, settings.SESSION_COOKIE_NAME)
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return store.get(SESSION_KEY) is not None


async def _refuse(scope: Scope, send: Send, status: int, detail: str) -> None:
    if scope["path"].startswith("/api/"):
        body, content_type = json.dumps({"detail": detail}).encode(), b"application/json"
    else:
        body, content_type = f"{detail}\n".encode(), b"text/plain; charset=utf-8"
    # Connection: close, as the rest of the body is never read.
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimits:
    """ASGI middleware: see the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope["path"])
        declared = _declared_length(scope)
        # A body that may pass the anonymous limit (declared so, or chunked) needs a session or a token.
        may_be_large = (declared is None or declared > ANONYMOUS_MAX_BODY_BYTES) and _may_have_body(scope)
        if may_be_large and not await sync_to_async(identified)(scope):
            limit = min(limit, ANONYMOUS_MAX_BODY_BYTES)
        if declared is not None and declared > limit:
            note = " for a request that is not logged in" if limit == ANONYMOUS_MAX_BODY_BYTES else ""
            await _refuse(
                scope, send, 413, f"the request body is {declared} bytes, over the limit of {limit} bytes{note}"
            )
            return
        guard = _BodyGuard(receive, limit, settings.EVALSITE_REQUEST_BODY_TIMEOUT)
        started = False

        async def send_and_note(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, guard.receive, send_and_note)
        if guard.refusal is not None and not started:
            await _refuse(scope, send, *guard.refusal)


def _may_have_body(scope: Scope) -> bool:
    if scope.get("method") in ("GET", "HEAD", "OPTIONS"):
        return _declared_length(scope) not in (None, 0)
    return _declared_length(scope) != 0


class _BodyGuard:
    """Counts the body as Django receives it; past the limit or the timeout it tells Django the
    client left (Django then stops without a response) and records what to answer instead."""

    def __init__(self, receive: Receive, limit: int, timeout: float) -> None:
        self._receive = receive
        self.limit = limit
        self.timeout = timeout
        self.received = 0
        self.body_done = False
        self.refusal: tuple[int, str] | None = None

    async def receive(self) -> Message:
        if self.body_done:
            return await self._receive()  # Django waits for a disconnect while it answers
        try:
            message = await asyncio.wait_for(self._receive(), self.timeout)
        except TimeoutError:
            self.refusal = (408, f"the request body stalled for {self.timeout:g} seconds")
            return {"type": "http.disconnect"}
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refusal = (413, f"the request body is over the limit of {self.limit} bytes")
                return {"type": "http.disconnect"}
            self.body_done = not message.get("more_body", False)
        return message
