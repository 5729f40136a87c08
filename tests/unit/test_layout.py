"""The layout a newcomer reads: packages by concern, each saying what it owns and may import, and
docs/architecture.md naming only code that exists. The layers themselves are checked by
import-linter (`make lint`)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "properties"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def test_at_most_twelve_modules_stay_at_the_top_of_the_app():
    modules = sorted(path.name for path in APP.glob("*.py"))
    assert len(modules) <= 12, modules


PACKAGES = sorted(
    path.parent.relative_to(ROOT).as_posix().replace("/", ".")
    for path in [*APP.glob("*/__init__.py"), ROOT.joinpath("evalsite", "sdk", "__init__.py")]
    if path.parent.name not in ("migrations", "management", "templatetags", "training", "scorers")
)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_says_what_it_owns_and_may_import(package):
    doc = importlib.import_module(package).__doc__ or ""
    assert len(doc.split()) > 20 and "May import" in doc, package


def test_the_architecture_page_names_only_code_that_exists():
    names = set(re.findall(r"`((?:properties|evalsite)(?:\.\w+)+)`", ARCHITECTURE.read_text()))
    assert len(names) > 30
    for name in sorted(names):
        module, attribute = name, None
        while True:
            try:
                found = importlib.import_module(module)
                break
            except ModuleNotFoundError:
                module, _, attribute = module.rpartition(".")
                assert module, name
        if attribute:
            assert hasattr(found, attribute), name
