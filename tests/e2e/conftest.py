"""Browser tests: Playwright driving Debian's Chromium (playwright cannot download browsers here)."""

import os
import shutil
from pathlib import Path

import pytest

from tests import servers

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still
# synchronous and never share a connection with it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


# Module scope: Playwright's event loop runs in this thread while it is open, and must be gone
# before other modules' tests call asyncio.run().
@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        servers.skip_or_fail(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
        )
        yield browser
        browser.close()


# Every browser test fails on a Content-Security-Policy violation: an inline script, style or
# handler that the policy refused is a page that no longer works as written.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile}:${event.lineNumber}`);
});
"""


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(20_000)
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text or "CSP violation" in message.text
            else None
        ),
    )
    yield page
    context.close()
    assert violations == [], "the Content-Security-Policy refused part of a page:\n" + "\n".join(violations)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
