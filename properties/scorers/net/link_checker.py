"""Checks whether links answer 200 OK: concurrent, per-host limited, cached per process.

We drive httpcore (httpx's transport layer) directly because its `network_backend` hook is the one
place every connection passes through, redirects and reconnects included; that is where
`net_guard.GuardedBackend` refuses private addresses. Redirects are followed by hand so that loops
and hop counts can be reported.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from ipaddress import ip_address
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin, urlsplit

if TYPE_CHECKING:
    # httpcore, httpx and the guard are imported where a link is parsed or checked: 0.1 s that a
    # batch without links, and every cheap property run beside Invalid Links, need not pay.
    import httpcore

logger = logging.getLogger(__name__)

OK = "ok"
NOT_CHECKED = "not checked"
MALFORMED = "malformed"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = b"Evalsite-link-checker/1"
CACHE_MAX_ENTRIES = 100_000  # ~100 bytes of status per entry: a few MB at most
_HOST_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$")
_URL_SAFE = "/:@!$&'()*+,;=-._~%"  # keep reserved characters and existing %-escapes as written


@dataclass(frozen=True)
class CheckSettings:
    timeout: float = 5.0
    allow_private: bool = False
    max_redirects: int = 5
    concurrency: int = 16
    per_host_limit: int = 4
    cache_ttl: float = 3600.0

    def cache_key(self) -> tuple[bool, float, int]:
        """The settings that change a link's result (concurrency only changes speed)."""
        return (self.allow_private, self.timeout, self.max_redirects)


@dataclass(frozen=True)
class LinkStatus:
    label: str  # "ok", "404", "timeout", "not checked", ...
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.label == OK

    @property
    def checked(self) -> bool:
        return self.label != NOT_CHECKED


class MalformedURL(ValueError):
    pass


@dataclass(frozen=True)
class Target:
    """A URL in the ASCII form httpcore sends, with the Host header it needs."""

    url: httpcore.URL
    host: str
    host_header: bytes

    def key(self) -> tuple[bytes, bytes, int | None, bytes]:
        return (self.url.scheme, self.url.host, self.url.port, self.url.target)


def _ascii_host(host: str) -> str:
    try:
        return str(ip_address(host))
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise MalformedURL(f"invalid host name {host!r}") from exc
    labels = ascii_host.removesuffix(".").split(".")
    if not all(_HOST_LABEL.match(label) for label in labels):
        raise MalformedURL(f"invalid host name {host!r}")
    return ascii_host


def parse_target(url: str) -> Target:
    """Validate a URL and encode it for the wire; anything we cannot send is malformed."""
    import httpcore

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise MalformedURL(str(exc)) from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise MalformedURL(f"only http and https links can be checked, not {scheme or 'no scheme'!r}")
    if not parts.hostname:
        raise MalformedURL("the link has no host")
    host = _ascii_host(parts.hostname)
    target = quote(parts.path or "/", safe=_URL_SAFE)
    if parts.query:
        target += "?" + quote(parts.query, safe=_URL_SAFE + "?")
    wire_host = f"[{host}]" if ":" in host else host
    host_header = wire_host if port in (None, 80 if scheme == "http" else 443) else f"{wire_host}:{port}"
    return Target(
        url=httpcore.URL(scheme=scheme, host=host, port=port, target=target),
        host=host,
        host_header=host_header.encode("ascii"),
    )


def _connect_error_status(exc: Exception) -> LinkStatus:
    message = str(exc)
    lowered = message.lower()
    if "refused" in lowered:
        return LinkStatus("connection refused", message)
    if "cannot resolve" in lowered:
        return LinkStatus("unknown host", message)
    if "ssl" in lowered or "certificate" in lowered:
        return LinkStatus("tls error", message)
    return LinkStatus("connection error", message or type(exc).__name__)


def _status_of(pool: httpcore.ConnectionPool, target: Target, timeout: float) -> tuple[int, str | None]:
    """One hop: HEAD, or GET without reading the body where the server refuses HEAD."""
    headers = [(b"Host", target.host_header), (b"User-Agent", USER_AGENT), (b"Accept", b"*/*")]
    # No pool timeout: waiting for a free connection is our own queueing, not the link's fault.
    extensions = {"timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": None}}
    response = pool.request("HEAD", target.url, headers=headers, extensions=extensions)
    if response.status in (405, 501):
        with pool.stream("GET", target.url, headers=headers, extensions=extensions) as response:
            pass  # status and headers are in; leaving the block closes the connection unread
    location = next((value for name, value in response.headers if name.lower() == b"location"), None)
    return response.status, location.decode("latin-1") if location is not None else None


def check_url(url: str, settings: CheckSettings, pool: httpcore.ConnectionPool) -> LinkStatus:
    """Follow one link to its final answer; each hop is checked again by the guarded backend."""
    import httpcore

    from properties.scorers.net.guard import BlockedAddress

    current, seen = url, set()
    for hop in range(settings.max_redirects + 1):
        try:
            target = parse_target(current)
        except MalformedURL as exc:
            note = str(exc) if hop == 0 else f"redirected to {current!r}: {exc}"
            return LinkStatus(MALFORMED, note)
        if target.key() in seen:
            return LinkStatus("redirect loop", f"{current} was already visited after {hop} redirects")
        seen.add(target.key())
        try:
            status, location = _status_of(pool, target, settings.timeout)
        except BlockedAddress as exc:
            return LinkStatus(NOT_CHECKED, f"not contacted: {exc}")
        except httpcore.TimeoutException:
            return LinkStatus("timeout", f"no answer from {target.host} within {settings.timeout} s")
        except httpcore.ConnectError as exc:
            return _connect_error_status(exc)
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
            return LinkStatus("connection error", str(exc) or type(exc).__name__)
        if status == 200:
            return LinkStatus(OK, f"200 OK after {hop} redirect{'s' if hop > 1 else ''}" if hop else "200 OK")
        if status not in REDIRECT_STATUSES or not location:
            return LinkStatus(str(status), f"{current} answered {status}")
        current = urljoin(current, location)
    return LinkStatus("too many redirects", f"still redirecting after {settings.max_redirects} redirects")


class LinkCache:
    """URL results with a time to live, bounded, shared by every scorer instance in the process."""

    def __init__(self, max_entries: int = CACHE_MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[object, ...], tuple[float, LinkStatus]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> LinkStatus | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] < time.monotonic():
                del self._entries[key]
                return None
            return entry[1]

    def put(self, key: tuple[object, ...], status: LinkStatus, ttl: float) -> None:
        if ttl <= 0:
            return
        with self._lock:
            self._entries[key] = (time.monotonic() + ttl, status)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_cache = LinkCache()
_pools: dict[tuple[bool, int], httpcore.ConnectionPool] = {}
# Weak values: a host's semaphore lives while a check holds it, so the map does not grow with every
# host ever seen in a long-running worker.
_host_limits: weakref.WeakValueDictionary[tuple[str, int], threading.BoundedSemaphore] = weakref.WeakValueDictionary()
_shared_lock = threading.Lock()


def clear_cache() -> None:
    _cache.clear()


def _pool(settings: CheckSettings) -> httpcore.ConnectionPool:
    """One connection pool per process and setting, so keep-alive connections are reused."""
    import httpcore
    import httpx

    from properties.scorers.net.guard import GuardedBackend

    key = (settings.allow_private, settings.concurrency)
    with _shared_lock:
        if key not in _pools:
            _pools[key] = httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(),
                # Every worker thread holds at most one connection, so threads never wait on the pool.
                max_connections=max(settings.concurrency, 1) * 2,
                keepalive_expiry=5.0,
                network_backend=GuardedBackend(allow_private=settings.allow_private),
            )
        return _pools[key]


def _host_limit(url: str, limit: int) -> threading.BoundedSemaphore:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    with _shared_lock:
        semaphore = _host_limits.get((host, limit))
        if semaphore is None:
            semaphore = _host_limits[(host, limit)] = threading.BoundedSemaphore(max(limit, 1))
        return semaphore


def _check_limited(url: str, settings: CheckSettings) -> LinkStatus:
    with _host_limit(url, settings.per_host_limit):
        try:
            return check_url(url, settings, _pool(settings))
        except Exception as exc:
            # One unforeseen failure must not lose the batch's other links; it is logged, not cached.
            logger.exception("link check of %s failed", url)
            return LinkStatus("error", f"the check failed: {exc}")


def check_urls(urls: Iterable[str], settings: CheckSettings) -> dict[str, LinkStatus]:
    """Statuses of the distinct URLs, from the cache where fresh, otherwise checked concurrently."""
    results: dict[str, LinkStatus] = {}
    todo: list[str] = []
    for url in dict.fromkeys(urls):
        cached = _cache.get((url, *settings.cache_key()))
        if cached is None:
            todo.append(url)
        else:
            results[url] = cached
    if not todo:
        return results
    with ThreadPoolExecutor(max_workers=max(1, min(settings.concurrency, len(todo)))) as executor:
        for url, status in zip(todo, executor.map(lambda u: _check_limited(u, settings), todo), strict=True):
            results[url] = status
            if status.label != "error":
                _cache.put((url, *settings.cache_key()), status, settings.cache_ttl)
    return results
