"""Invalid Links: the share of the links in a text that do not answer 200 OK."""

from __future__ import annotations

import re
from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.net import policy
from properties.scorers.net.link_checker import NOT_CHECKED, CheckSettings, LinkStatus, check_urls
from properties.scorers.registry import builtin

# An http(s) URL runs to the first space, quote, angle bracket or CJK punctuation mark; square
# brackets only as an IPv6 host, so that markdown's `[text](url)` splits where it should.
_URL = re.compile(
    r"(?<![\w+.-])https?://(?:\[[0-9A-Fa-f:.]*\])?[^\s<>\"'`{}|\\^\[\]。、，；：！？「」『』（）【】《》〈〉…]*",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?*'\""  # sentence punctuation and markdown emphasis after a link
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _trim(url: str) -> str:
    """Drop trailing punctuation, and closing brackets the URL did not open (markdown `(url)`)."""
    while url:
        last = url[-1]
        if last in _TRAILING or (last in _PAIRS and url.count(last) > url.count(_PAIRS[last])):
            url = url[:-1]
        else:
            break
    return url


def extract_links(text: str) -> list[tuple[int, int, str]]:
    """(start, end, url) of each http(s) link in the text, in order, duplicates included."""
    links = []
    for match in _URL.finditer(text):
        url = _trim(match.group())
        links.append((match.start(), match.start() + len(url), url))
    return links


@builtin
class InvalidLinks(Scorer):
    display_name = "Invalid Links"
    description = (
        "Share of the links in the text that do not work: invalid links / checked links, from 0 to 1. "
        "0 means every link answered 200 OK, or the text has no links; 1 means none did. A link works "
        "when a HEAD request (GET when the server refuses HEAD) answers 200 OK within the timeout, "
        "following up to 5 redirects; malformed links count as invalid. Links to private, loopback, "
        "link-local or cloud metadata addresses are never contacted (unless the operator allows it: "
        "EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES): they are marked 'not checked' and left out of both "
        "counts, and when no link could be checked the value is 0. Each link is highlighted with its status."
    )
    fields = ("input", "output")
    queue = "cpu"
    version = "1"

    def __init__(
        self,
        enabled: bool = True,
        timeout: float = 5.0,
        max_redirects: int = 5,
        concurrency: int = 16,
        per_host_limit: int = 4,
        cache_ttl: float = 3600.0,
    ) -> None:
        self.enabled = enabled
        self.timeout = timeout
        self.max_redirects = max_redirects
        self.concurrency = concurrency
        self.per_host_limit = per_host_limit
        self.cache_ttl = cache_ttl

    @staticmethod
    def name() -> str:
        return "invalid_links"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def settings(self) -> CheckSettings:
        return CheckSettings(
            timeout=self.timeout,
            # The operator's choice, never a project's: a project could otherwise probe the
            # worker's own network.
            allow_private=policy.current().allow_private_links,
            max_redirects=self.max_redirects,
            concurrency=self.concurrency,
            per_host_limit=self.per_host_limit,
            cache_ttl=self.cache_ttl,
        )

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        found = [extract_links(text or "") for text in candidate_batch]
        if not self.enabled:
            off = LinkStatus(NOT_CHECKED, "link checking is switched off")
            return [self._switched_off(links, off) for links in found]
        statuses = check_urls((url for links in found for _, _, url in links), self.settings())
        return [self._score(links, statuses) for links in found]

    def _spans(self, links: list[tuple[int, int, str]], statuses: dict[str, LinkStatus]) -> list[Span]:
        field = getattr(self, "current_field", "output")
        spans = []
        for start, end, url in links:
            status = statuses[url]
            score = None if not status.checked else 0.0 if status.ok else 1.0
            spans.append(Span(field, start, end, status.label, score, status.note))
        return spans

    def _score(self, links: list[tuple[int, int, str]], statuses: dict[str, LinkStatus]) -> Score:
        spans = self._spans(links, statuses)
        checked = [span for span in spans if span.label != NOT_CHECKED]
        invalid = sum(1 for span in checked if span.label != "ok")
        details: dict[str, Any] = {
            "links": len(spans),
            "checked": len(checked),
            "invalid": invalid,
            "not_checked": len(spans) - len(checked),
        }
        if spans and not checked:
            details["note"] = "no link could be checked, so 0 says nothing about these links"
        value = invalid / len(checked) if checked else 0.0
        return Score(value=value, spans=spans, details=details)

    def _switched_off(self, links: list[tuple[int, int, str]], off: LinkStatus) -> Score:
        spans = self._spans(links, {url: off for _, _, url in links})
        reason = "link checking is switched off (enabled=False)"
        return Score(value=None, spans=spans, details={"links": len(spans), "reason": reason})
