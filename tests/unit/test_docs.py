"""The examples in docs/*.md run, and print what the docs say: the docs cannot rot."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from django.core.cache import cache

from evalsite.sdk.cli import main
from properties.models import ApiToken
from tests.factories import UserFactory

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = DOCS.parent / "README.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks(name: str) -> list[tuple[str, str]]:
    return FENCE.findall((DOCS / name).read_text())


def run_python_blocks(name: str, namespace: dict) -> None:
    """Run each python block; a text block right after one is the output it must print."""
    found = blocks(name)
    for index, (language, code) in enumerate(found):
        if language != "python":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"{name} block {index}", "exec"), namespace)
        following = found[index + 1] if index + 1 < len(found) else ("", "")
        if following[0] == "text":
            assert printed.getvalue() == following[1], f"{name} block {index}"


@pytest.mark.django_db(transaction=True)
def test_python_api_examples():
    UserFactory()
    run_python_blocks("python-api.md", {"__name__": "docs"})


@pytest.fixture
def eager_celery():
    """Scoring tasks run inline on commit: nothing is published to a broker a later test uses."""
    from evalsite.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.mark.django_db(transaction=True)
def test_rest_api_examples(live_server, eager_celery):
    cache.clear()
    _, token = ApiToken.issue(UserFactory(), "docs")
    run_python_blocks("rest-api.md", {"__name__": "docs", "BASE_URL": live_server.url, "TOKEN": token})


def run_console_blocks(path: Path) -> None:
    """Run each `$ evalsite ...` line; a trailing "# exits N" comment names its exit code."""
    for language, text in FENCE.findall(path.read_text()):
        if language != "console":
            continue
        for line in text.splitlines():
            command, _, comment = line.removeprefix("$ ").partition("  # ")
            expected = int(re.search(r"exits (\d)", comment).group(1)) if "exits" in comment else 0
            args = shlex.split(command)
            assert args[0] == "evalsite"
            assert main([*args[1:], "--quiet"]) == expected, line


def test_cli_examples(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run_python_blocks("cli.md", {"__name__": "docs"})
    run_console_blocks(DOCS / "cli.md")
    assert (tmp_path / "results.jsonl").read_text().count("\n") == 2


def test_readme_examples(tmp_path, monkeypatch):
    """The README's own snippets: the Python imports, and the CLI on a small file of answers."""
    monkeypatch.chdir(tmp_path)
    python = next(code for language, code in FENCE.findall(README.read_text()) if language == "python")
    exec(compile(python, "README python block", "exec"), {"__name__": "docs"})
    (tmp_path / "answers.csv").write_text(
        "question,answer\nWhat is the capital of France?,Paris is the capital.\nSay hi.,Hi there. How are you?\n"
    )
    run_console_blocks(README)
    assert (tmp_path / "results.jsonl").read_text().count("\n") == 2


def test_the_pass_or_fail_defaults_in_the_docs_are_the_codes():
    from properties.quality import criteria

    text = (DOCS / "data-screen.md").read_text()
    for name, criterion in criteria.DEFAULTS.items():
        direction = {"higher": "higher is better", "lower": "lower is better", "": "none"}[criterion.direction]
        threshold = "—" if criterion.threshold is None else f"{criterion.threshold:g}"
        row = f"| `{name}` | {direction} | {threshold} | {criterion.describe_range()} | {criterion.tolerance:g} |"
        assert row in text, name


@pytest.mark.django_db
def test_the_default_rules_in_the_docs_are_the_rag_templates():
    from properties.annotations import project_rules
    from properties.models import Project
    from properties.projects import project_templates

    project = Project(name="rag")
    project_templates.apply(project, "rag")
    project.save()
    [shown] = [code for language, code in FENCE.findall((DOCS / "data-screen.md").read_text()) if language == "yaml"]
    assert shown in project_rules.default_rules_text(project)
