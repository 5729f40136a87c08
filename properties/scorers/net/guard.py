"""Which network addresses the link checker may contact, enforced where connections are made.

Links in uploaded text are untrusted: a link to `http://169.254.169.254/` or `http://localhost:6379/`
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
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import httpcore

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
    """Resolve a host and return its addresses, refusing the host if any address is blocked."""
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


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's synchronous backend, connecting only to addresses that pass `blocked_reason`."""

    def __init__(self, allow_private: bool = False) -> None:
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
        addresses = checked_addresses(host, port, timeout, self.allow_private)
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
        raise BlockedAddress("the link checker never opens Unix sockets")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
