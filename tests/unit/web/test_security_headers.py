"""The Content-Security-Policy and the other security headers, and templates that need nothing
inline (tests/e2e checks in Chromium that no page breaks the policy)."""

import base64
import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parents[3]
PLOTLY = ROOT / "static" / "vendor" / "plotly" / "plotly.min.js"


@pytest.mark.django_db
@pytest.mark.parametrize("logged_in", [False, True])
def test_pages_send_the_policy_and_the_security_headers(client, logged_in):
    if logged_in:
        client.force_login(UserFactory())
    response = client.get(reverse("login") if not logged_in else reverse("properties:project-list"))
    policy = dict(directive.strip().split(" ", 1) for directive in response["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == policy["script-src"] == "'self'"
    assert policy["style-src"] == " ".join(["'self'", *settings.PLOTLY_STYLE_HASHES])
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def _style_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_style_hashes_are_those_of_the_vendored_plotly():
    """Updating plotly.js changes its map stylesheet: this names the hash the policy then needs."""
    source = PLOTLY.read_text(encoding="utf-8")
    quoted = r"""createElement\("style"\);\w\.id="[0-9a-f]+",\w\.textContent=(?:`([^`\\]*)`|'([^'\\]*)')"""
    inline_sheets = ["".join(parts) for parts in re.findall(quoted, source)]
    assert len(inline_sheets) == 1
    assert re.search(r'\w\.appendChild\(document\.createTextNode\(""\)\)', source), "plotly's empty style elements"
    assert sorted(settings.PLOTLY_STYLE_HASHES) == sorted([_style_hash(""), _style_hash(inline_sheets[0])])


def test_the_vendored_plotly_is_the_one_the_plotly_package_ships():
    """The figures are built with the plotly package: the page draws them with its own plotly.js."""
    import plotly

    shipped = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert PLOTLY.read_bytes() == shipped.read_bytes(), "copy the package's plotly.min.js to static/vendor/plotly/"


INLINE = {
    "an inline script": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE),
    "a style element": re.compile(r"<style\b", re.IGNORECASE),
    "a style attribute": re.compile(r"\sstyle=", re.IGNORECASE),
    "an event handler attribute": re.compile(r"\son[a-z]+=", re.IGNORECASE),
    "a javascript: URL": re.compile(r"javascript:", re.IGNORECASE),
}


@pytest.mark.parametrize("template", sorted((ROOT / "templates").rglob("*.html")), ids=lambda path: path.name)
def test_templates_need_nothing_inline(template):
    text = template.read_text()
    for what, pattern in INLINE.items():
        assert not pattern.search(text), f"{template.name} has {what}: move it to static/app.js or app.css"
