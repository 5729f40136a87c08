"""Invalid Links against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
import time

import pytest

from properties.scorers.base import Score
from properties.scorers.invalid_links import InvalidLinks
from properties.scorers.net import guard as net_guard
from properties.scorers.net import link_checker, policy
from tests.unit.scorers.conftest import LinkServer, start_server


@pytest.fixture(autouse=True)
def private_links_allowed():
    """The test server is on 127.0.0.1: as an operator of an intranet deployment would, allow it."""
    with policy.temporarily(allow_private_links=True):
        yield


@pytest.fixture
def operator_default():
    """The policy every deployment starts with: internal addresses are never contacted."""
    with policy.temporarily(allow_private_links=False):
        yield


def local_scorer(**config: object) -> InvalidLinks:
    return InvalidLinks(timeout=0.5, **config)  # type: ignore[arg-type]


def score_one(scorer: InvalidLinks, text: str) -> Score:
    result = scorer.run_batch([text])[0]
    assert isinstance(result, Score)
    return result


def labels(score: Score) -> list[str]:
    return [span.label for span in score.spans]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("/ok", "ok"),
        ("/missing", "404"),
        ("/error", "500"),
        ("/head-405", "ok"),
        ("/head-501", "ok"),
        ("/redirect/5", "ok"),
        ("/redirect/6", "too many redirects"),
        ("/loop-a", "redirect loop"),
        ("/self", "redirect loop"),
    ],
)
def test_status_of_one_link(link_server: LinkServer, path: str, label: str) -> None:
    score = score_one(local_scorer(), f"See {link_server.url(path)} for details.")
    assert labels(score) == [label]
    assert score.value == (0.0 if label == "ok" else 1.0)


def test_head_refused_falls_back_to_get(link_server: LinkServer) -> None:
    score_one(local_scorer(), link_server.url("/head-405"))
    assert [method for method, _, _ in link_server.seen("/head-405")] == ["HEAD", "GET"]


def test_redirect_chain_is_followed_hop_by_hop(link_server: LinkServer) -> None:
    score = score_one(local_scorer(), link_server.url("/redirect/3"))
    assert score.spans[0].note == "200 OK after 3 redirects"
    assert [path for _, path, _ in link_server.seen()] == ["/redirect/3", "/redirect/2", "/redirect/1", "/ok"]


def test_slow_endpoint_times_out(link_server: LinkServer) -> None:
    started = time.monotonic()
    score = score_one(local_scorer(), link_server.url("/slow"))
    assert labels(score) == ["timeout"]
    assert time.monotonic() - started < 1.5


def test_refused_connection() -> None:
    link_checker.clear_cache()
    score = score_one(local_scorer(), f"http://127.0.0.1:{closed_port()}/")
    assert labels(score) == ["connection refused"]
    assert score.value == 1.0


@pytest.mark.parametrize("url", ["http://exa_mple..com/", "http://:80/", "http://example.com:99999/", "http://"])
def test_malformed_links_are_invalid(link_server: LinkServer, url: str) -> None:
    score = score_one(local_scorer(), f"{link_server.url('/ok')} and {url}")
    assert labels(score) == ["ok", "malformed"]
    assert score.value == 0.5


def test_ratio_counts_every_occurrence(link_server: LinkServer) -> None:
    ok, missing = link_server.url("/ok"), link_server.url("/missing")
    score = score_one(local_scorer(), f"{ok} {ok} {ok} {missing}")
    assert score.value == 0.25
    assert score.details == {"links": 4, "checked": 4, "invalid": 1, "not_checked": 0}


def test_text_without_links_scores_zero(link_server: LinkServer) -> None:
    for text in ["", "   ", "no links here, just www.example.com and ftp://x", "ünïcödé ✓ 日本語"]:
        score = score_one(local_scorer(), text)
        assert score.value == 0.0
        assert score.spans == []
    assert link_server.seen() == []


def test_spans_point_into_the_named_field(link_server: LinkServer) -> None:
    scorer = local_scorer()
    scorer.current_field = "input"
    url = link_server.url("/missing")
    text = f"日本語 [docs]({url}). More."
    span = score_one(scorer, text).spans[0]
    assert (span.field, text[span.start : span.end], span.label, span.score) == ("input", url, "404", 1.0)
    assert "current_field" not in scorer.to_dict()


def test_loopback_is_not_contacted_by_default(link_server: LinkServer, operator_default) -> None:
    score = score_one(InvalidLinks(), f"{link_server.url('/ok')} {link_server.url('/missing')}")
    assert labels(score) == ["not checked", "not checked"]
    assert "loopback" in score.spans[0].note
    assert score.value == 0.0
    assert score.details["checked"] == 0 and "no link could be checked" in score.details["note"]
    assert link_server.seen() == []


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:{port}/ok",
        "http://[::1]:{port}/ok",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0:{port}/ok",
    ],
)
def test_internal_addresses_are_not_checked(link_server: LinkServer, url: str, operator_default) -> None:
    score = score_one(InvalidLinks(timeout=0.5), url.format(port=link_server.port))
    assert labels(score) == ["not checked"]
    assert link_server.seen() == []


def test_not_checked_links_leave_the_ratio(
    link_server: LinkServer, monkeypatch: pytest.MonkeyPatch, operator_default
) -> None:
    """One checkable broken link next to an internal one: 1 invalid of 1 checked."""
    port = closed_port()
    monkeypatch.setattr(net_guard, "blocked_reason", lambda address: None if address == "127.0.0.2" else "private")
    score = score_one(InvalidLinks(timeout=0.5), f"http://127.0.0.2:{port}/ {link_server.url('/ok')}")
    assert labels(score) == ["connection refused", "not checked"]
    assert score.value == 1.0


def test_redirect_to_an_internal_address_is_checked_again(
    link_server: LinkServer, monkeypatch: pytest.MonkeyPatch, operator_default
) -> None:
    try:
        public, httpd = start_server("127.0.0.2")  # stands in for a public server
    except OSError:
        pytest.skip("cannot bind 127.0.0.2 here")
    original = net_guard.blocked_reason
    monkeypatch.setattr(net_guard, "blocked_reason", lambda a: None if a == "127.0.0.2" else original(a))
    try:
        target = f"127.0.0.1:{link_server.port}/ok"
        score = score_one(InvalidLinks(timeout=0.5), public.url(f"/goto/{target}"))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert labels(score) == ["not checked"]
    assert len(public.seen()) == 1
    assert link_server.seen() == []


def test_every_resolved_address_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 80)) for address in ("8.8.8.8", "10.1.2.3")]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: answers)
    with pytest.raises(net_guard.BlockedAddress, match="10.1.2.3"):
        net_guard.GuardedBackend().connect_tcp("mixed.example", 80, timeout=1)


def test_connects_to_the_checked_address_with_the_original_host(
    link_server: LinkServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name resolves once; the socket goes to that address and the Host header keeps the name."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def fake(host: str, *args: object, **kwargs: object) -> object:
        lookups.append(host)
        return real("127.0.0.1" if host == "rebind.test" else host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    score = score_one(local_scorer(), f"http://rebind.test:{link_server.port}/ok")
    assert labels(score) == ["ok"]
    assert [host for host in lookups if not host[0].isdigit()] == ["rebind.test"]  # then only IPs
    assert link_server.seen() == [("HEAD", "/ok", f"rebind.test:{link_server.port}")]


def test_a_url_repeated_100_times_is_requested_once(link_server: LinkServer) -> None:
    scorer = local_scorer()
    url = link_server.url("/ok")
    results = scorer.run_batch([f"item {i}: {url}" for i in range(100)])
    results += [scorer.run_batch([url])[0] for _ in range(100)]  # later batches hit the cache
    assert all(isinstance(r, Score) and r.value == 0.0 for r in results)
    assert len(link_server.seen()) == 1


def test_cache_expires(link_server: LinkServer) -> None:
    scorer = local_scorer(cache_ttl=0.2)
    scorer.run_batch([link_server.url("/ok")])
    time.sleep(0.3)
    scorer.run_batch([link_server.url("/ok")])
    assert len(link_server.seen()) == 2


def test_many_links_are_checked_concurrently(link_server: LinkServer) -> None:
    """Eight slow links with eight workers and a per-host limit of eight take one timeout, not eight."""
    scorer = local_scorer(concurrency=8, per_host_limit=8)
    started = time.monotonic()
    results = scorer.run_batch([link_server.url(f"/slow?n={i}") for i in range(8)])
    assert time.monotonic() - started < 2.0
    assert all(isinstance(r, Score) and r.spans[0].label == "timeout" for r in results)


def test_per_host_limit_queues_checks_of_one_host(link_server: LinkServer) -> None:
    """With one check at a time per host, three slow links take three timeouts."""
    scorer = local_scorer(concurrency=8, per_host_limit=1)
    started = time.monotonic()
    scorer.run_batch([link_server.url(f"/slow?n={i}") for i in range(3)])
    assert time.monotonic() - started >= 1.4


def test_switched_off_contacts_nothing(link_server: LinkServer) -> None:
    score = score_one(local_scorer(enabled=False), link_server.url("/ok"))
    assert score.value is None and score.error is None
    assert "switched off" in score.details["reason"]
    assert labels(score) == ["not checked"]
    assert link_server.seen() == []


def test_config_round_trips() -> None:
    scorer = InvalidLinks(timeout=2.0, enabled=False)
    again = InvalidLinks.from_dict(scorer.to_dict())
    assert again.to_dict() == scorer.to_dict()
    assert scorer.to_dict()["timeout"] == 2.0
