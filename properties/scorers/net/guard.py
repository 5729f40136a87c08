"""Which network addresses scorers may contact, enforced where connections are made.

Links in uploaded text and LLM base URLs are untrusted: a link to `http://169.254.169.254/` or `http://localhost:6379/`
must not turn the scoring worker into a proxy into its own network (SSRF). The check happens in a
network backend, at connect time, for every connection the HTTP client opens (first request,
redirects, reconnects): the host is resolved once, every address is checked, and the socket is opened
to a checked address, so a DNS answer that changes between check and connect (rebinding) cannot
slip through. The URL keeps its host name, so the Host header and TLS SNI/certificate checks are
those of the real host.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import httpcore
import httpx

from properties.scorers.net import policy

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata endpoints that some providers place outside the private ranges.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
    )
)
NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")

# getaddrinfo cannot be cancelled, so lookups run here and the caller stops waiting at its timeout.
_resolver = ThreadPoolExecutor(max_workers=16, thread_name_prefix="evalsite-dns")


class BlockedAddress(Exception):
    """The host resolves to an address the checker must not contact."""


def _embedded_ipv4(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, NAT64), else the address itself."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip in NAT64_PREFIX:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def blocked_reason(address: str | IPAddress) -> str | None:
    """Why an address must not be contacted, or None when it is a public unicast address."""
    ip = _embedded_ipv4(ipaddress.ip_address(address))
    checks = (
        (ip in METADATA_ADDRESSES, "a cloud metadata address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
        (not ip.is_global, "not a public address"),
    )
    return next((reason for hit, reason in checks if hit), None)


def resolve(host: str, port: int, timeout: float | None) -> list[str]:
    """The addresses of a host, in the resolver's order; literal IPs resolve to themselves."""
    future = _resolver.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=timeout)
    except FutureTimeout:
        raise httpcore.ConnectTimeout(f"resolving {host} took longer than {timeout} s") from None
    except (socket.gaierror, UnicodeError) as exc:
        raise httpcore.ConnectError(f"cannot resolve host {host}: {exc}") from exc
    # sockaddr[0] may carry an IPv6 zone ("fe80::1%eth0"), which ipaddress rejects.
    return list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in infos))


def checked_addresses(host: str, port: int, timeout: float | None, allow_private: bool) -> list[str]:
    """Resolve a host and return its addresses, refusing the host if any address is blocked (unless
    allow_private, which the operator's policy decides: never a project)."""
    host = host.strip("[]")
    try:
        addresses = [str(ipaddress.ip_address(host))]  # a literal address needs no lookup
    except ValueError:
        addresses = resolve(host, port, timeout)
    if not allow_private:
        for address in addresses:
            reason = blocked_reason(address)
            if reason is not None:
                where = host if address == host else f"{host} resolves to {address}, which"
                raise BlockedAddress(f"{where} is {reason}")
    return addresses


PrivateAllowed = Callable[[str, int], bool]


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's synchronous backend, connecting only to addresses that pass `blocked_reason`.

    `allow_private` is a flag, or a function of (host, port) for a per-destination decision (the
    base URLs an operator listed for LLM calls).
    """

    def __init__(self, allow_private: bool | PrivateAllowed = False) -> None:
        self.allow_private = allow_private
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        allow = self.allow_private(host, port) if callable(self.allow_private) else self.allow_private
        addresses = checked_addresses(host, port, timeout, allow)
        error: Exception = httpcore.ConnectError(f"no address for {host}")
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc  # try the host's next address, as browsers do
        raise error

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise BlockedAddress("scorers never open Unix sockets")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport over GuardedBackend: every connection of a client checked, redirects included."""

    def __init__(self, allow_private: bool | PrivateAllowed = False, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        # httpx builds its connection pool without a network-backend hook; ours is the same pool with one.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(allow_private),
        )


def llm_private_allowed(host: str, port: int) -> bool:
    """LLM calls may reach a private address only at the origin of a base URL the operator listed."""
    return policy.current().private_llm_endpoint(host, port)


def llm_http_client(timeout: float = 60.0) -> httpx.Client:
    """An httpx client for LLM endpoints: the operator's base URLs, else public addresses only."""
    return httpx.Client(transport=GuardedTransport(llm_private_allowed), timeout=timeout, follow_redirects=True)
