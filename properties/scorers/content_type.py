"""Content Type: is the output JSON, SQL, or something else."""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from properties.scorers.base import OutputScorer, Score
from properties.scorers.registry import builtin

CATEGORIES = ["json", "sql", "other"]
SQL_KEYWORDS = frozenset(
    {"select", "with", "insert", "update", "delete", "create", "drop", "alter", "merge", "truncate", "grant", "revoke"}
)

if TYPE_CHECKING:
    # sqlglot is imported when a text first starts like SQL: its import (0.1-0.2 s) would otherwise
    # delay the first value of every cheap property run alongside this one.
    from sqlglot import exp

_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[ \t]*\r?\n(.*?)\r?\n?[ \t]*```", re.DOTALL)
_LEADING_COMMENTS = re.compile(r"^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/|\()*", re.DOTALL)
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_STRINGS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
# Operators that hardly occur in an imperative English sentence but do in nearly every statement.
_SQL_PUNCTUATION = re.compile(r"[*=;(<>]")


class _DropCommandFallbackWarnings(logging.Filter):
    """sqlglot warns for every text it can only parse as a Command; for us that is just 'not SQL'."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_DropCommandFallbackWarnings())


def unfence(text: str) -> tuple[str, str | None]:
    """The body of a text that is exactly one fenced code block, with its language tag."""
    match = _FENCE.fullmatch(text)
    if match is None or "```" in match.group(2):
        return text, None
    return match.group(2).strip(), match.group(1).lower()


def is_json_document(text: str) -> bool:
    if not text.startswith(("{", "[")):
        return False
    try:
        return isinstance(json.loads(text), dict | list)
    except (ValueError, RecursionError):
        return False


@functools.cache
def _sql_statements() -> tuple[type[exp.Expression], ...]:
    """What counts as a statement: sqlglot falls back to exp.Command (or a bare Column) for prose."""
    from sqlglot import exp

    return (
        exp.Query,
        exp.Insert,
        exp.Update,
        exp.Delete,
        exp.Create,
        exp.Drop,
        exp.Alter,
        exp.Merge,
        exp.TruncateTable,
        exp.Grant,
        exp.Revoke,
    )


def _complete(statement: exp.Expression) -> bool:
    """Rule out the half-statements sqlglot builds from English ('Update it', 'Select all that apply')."""
    from sqlglot import exp

    if isinstance(statement, exp.Select):
        if not statement.expressions:
            return False
        # Without FROM a column reference has nothing to refer to: 'Select best option'.
        # (recent sqlglot names the clause "from_", older releases "from".)
        has_from = statement.args.get("from_") or statement.args.get("from")
        return bool(has_from) or not any(projection.find(exp.Column) for projection in statement.expressions)
    if isinstance(statement, exp.Update):
        return bool(statement.expressions)
    if isinstance(statement, exp.Insert):
        return statement.expression is not None
    return True


def is_sql(text: str) -> bool:
    """One or more complete SQL statements, and nothing that reads as an English sentence."""
    body = _LEADING_COMMENTS.sub("", text, count=1)
    first = _FIRST_WORD.match(body)
    if first is None or first.group().lower() not in SQL_KEYWORDS:
        return False  # cheap exit for prose, before sqlglot's parser
    keyword = first.group()
    unquoted = _STRINGS.sub("''", body)
    # 'Select it from the menu' parses; a title-case keyword without any operator is a sentence.
    if keyword.istitle() and len(keyword) > 1 and not _SQL_PUNCTUATION.search(unquoted):
        return False
    import sqlglot
    from sqlglot.errors import ErrorLevel, SqlglotError

    try:
        statements = [s for s in sqlglot.parse(text, error_level=ErrorLevel.RAISE) if s is not None]
    except (SqlglotError, RecursionError, ValueError):
        return False
    return bool(statements) and all(isinstance(s, _sql_statements()) and _complete(s) for s in statements)


def classify(output: str) -> tuple[str, str | None]:
    """The category of an output and the language tag of its code fence, if it had one."""
    body, fence = unfence(output.strip())
    if is_json_document(body):
        return "json", fence
    if is_sql(body):
        return "sql", fence
    return "other", fence


@builtin
class ContentType(OutputScorer):
    display_name = "Content Type"
    description = (
        "What the output is: 'json' when the whole output (trimmed) is a JSON object or array; 'sql' "
        "when it is one or more complete SQL statements (SELECT, WITH, INSERT, UPDATE, DELETE, CREATE, "
        "DROP, ALTER, MERGE, ...) as sqlglot parses them, and not an English sentence that starts with "
        "such a word; 'other' otherwise. An output that is exactly one fenced code block (```json ... ```"
        " or ``` ... ```) is judged by the block's content. Anything around the JSON or SQL makes it 'other'."
    )

    @staticmethod
    def name() -> str:
        return "content_type"

    @staticmethod
    def is_categorical() -> bool:
        return True

    @staticmethod
    def categories() -> list[str] | None:
        return list(CATEGORIES)

    def check(self, text: str, field: str) -> Score:
        category, fence = classify(text)
        details: dict[str, Any] = {"code_fence": fence is not None}
        if fence:
            details["fence_language"] = fence
        return Score(value=None, label=category, details=details)
