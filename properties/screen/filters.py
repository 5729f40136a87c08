"""The filter language of the Data Screen, the REST API, exports and annotation rules.

One expression, parsed by a grammar (lark, LALR) into a small tree of frozen dataclasses:

    toxicity.output > 0.5                 a property value: > >= < <= = != (a number)
    content_type = sql                    ... or its category (= and !=, a word or "quoted text")
    failing:grounded_in_context           the value fails its pass criterion; passing:, na: alike
    metadata.model = "gpt-4o"             a key of the interaction's metadata
    annotation = bad                      good, bad or unknown
    text ~ "refund"                       input or output contains (input ~, output ~ for one)
    NOT, AND, OR and parentheses          NOT binds tightest, then AND, then OR

`str()` of a tree is the canonical text of the same tree (parse(str(tree)) == tree). Every problem,
from the grammar or from a name, is a FilterError naming the column where it starts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Union

from lark import Lark, Token, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from properties.models import PropertyValue
from properties.scorers import registry

# The statuses a property value can be asked for, `<status>:<property>`; each is a StatusCondition
# that datascreen._status_matches turns into the values it selects.
STATUSES = ("failing", "passing", "na", "disagrees")
ANNOTATIONS = ("good", "bad", "unknown")
# `text ~` searches the input and the output; `input ~` and `output ~` one of them.
TEXT_FIELDS = ("text", "input", "output")
METADATA = "metadata"
ORDERING = (">", ">=", "<", "<=")
EQUALITY = ("=", "!=")
CONTAINS = "~"

# A filter is typed into one box or one URL parameter: far more than a person writes, far less
# than would make parsing or the query it builds costly.
MAX_CHARS = 2_000
# Each condition is a subquery, and SQLite refuses an expression tree past about a thousand
# ("Expression tree is too large"); no person writes more than a few.
MAX_CONDITIONS = 50
# Parentheses and NOTs nest the tree; printing and querying walk it recursively.
MAX_DEPTH = 20

GRAMMAR = rf"""
?start: or_expr
?or_expr: and_expr (_OR and_expr)+ -> any_of
        | and_expr
?and_expr: not_expr (_AND not_expr)+ -> all_of
         | not_expr
?not_expr: _NOT not_expr -> negation
         | "(" or_expr ")"
         | ADDRESS OP value -> comparison
         | STATUS ADDRESS -> status
?value: NUMBER | STRING | WORD

_AND.3: /and\b/i
_OR.3: /or\b/i
_NOT.3: /not\b/i
STATUS.3: /({"|".join(STATUSES)}):/
OP: ">=" | "<=" | "!=" | "==" | "=" | ">" | "<" | "~"
ADDRESS: /[^\W\d]\w*(\.[^\W\d][\w\-]*)?/
NUMBER: /[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?(?![\w.])/
STRING: /"(?:[^"\\]|\\[\s\S])*"/ | /'(?:[^'\\]|\\[\s\S])*'/
WORD: /[^\W\d][\w.\-]*/
%ignore /\s+/
"""

# What each terminal is, in the words of an error message.
EXPECTED_WORDS = {
    "CONDITION": "a condition (like toxicity.output > 0.5 or failing:relevance)",
    "ADDRESS": "a property (like toxicity.output)",
    "OP": "an operator (> >= < <= = != ~)",
    "NUMBER": "a number",
    "STRING": "a quoted text",
    "WORD": "a word",
    "_AND": "AND",
    "_OR": "OR",
    "_NOT": "NOT",
    "LPAR": "(",
    "RPAR": ")",
    "$END": "the end",
}
KEYWORDS = ("and", "or", "not")
BARE_WORD = re.compile(r"[^\W\d][\w.\-]*")
ESCAPE = re.compile(r"\\([\s\S])")


class FilterError(ValueError):
    """A filter that cannot be applied; `column` is the character (from 1) where the problem starts,
    0 when it is the filter as a whole."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(f"column {column}: {message}" if column else message)
        self.column = column


def _value_text(value: float | str) -> str:
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    if BARE_WORD.fullmatch(value) and value.lower() not in KEYWORDS:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Condition:
    """A property value compared with a number, or its category with a word."""

    prop: str
    field: str
    op: str
    value: float | str

    @property
    def address(self) -> str:
        return self.prop if self.field == "interaction" else f"{self.prop}.{self.field}"

    def __str__(self) -> str:
        return f"{self.address} {self.op} {_value_text(self.value)}"


@dataclass(frozen=True)
class StatusCondition:
    """Interactions whose value of a property fails, passes, or does not apply (criteria.py)."""

    prop: str
    field: str
    status: str

    @property
    def address(self) -> str:
        return self.prop if self.field == "interaction" else f"{self.prop}.{self.field}"

    def __str__(self) -> str:
        return f"{self.status}:{self.address}"


@dataclass(frozen=True)
class MetadataCondition:
    key: str
    op: str
    value: float | str

    def __str__(self) -> str:
        return f"{METADATA}.{self.key} {self.op} {_value_text(self.value)}"


@dataclass(frozen=True)
class AnnotationCondition:
    op: str  # = or !=
    value: str

    def __str__(self) -> str:
        return f"annotation {self.op} {self.value}"


@dataclass(frozen=True)
class TextCondition:
    """The input, the output, or either (`text`) contains the words, ignoring case."""

    field: str
    words: str

    def __str__(self) -> str:
        return f"{self.field} ~ {_value_text(self.words)}"


def _wrapped(node: Node) -> str:
    """A child as its parent prints it: AND and OR in parentheses, where the grammar needs them or
    a reader is helped by them (`(a AND b) OR c`)."""
    return f"({node})" if isinstance(node, And | Or) else str(node)


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]
    depth: int = field(default=1, compare=False, repr=False)

    def __str__(self) -> str:
        return " AND ".join(_wrapped(item) for item in self.items)


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]
    depth: int = field(default=1, compare=False, repr=False)

    def __str__(self) -> str:
        return " OR ".join(_wrapped(item) for item in self.items)


@dataclass(frozen=True)
class Not:
    item: Node
    depth: int = field(default=1, compare=False, repr=False)

    def __str__(self) -> str:
        return f"NOT {_wrapped(self.item)}"


Leaf = Union[Condition, StatusCondition, MetadataCondition, AnnotationCondition, TextCondition]  # noqa: UP007
Node = Union[Leaf, And, Or, Not]  # noqa: UP007
PROPERTY_LEAVES = (Condition, StatusCondition)


def split_address(address: str, column: int = 0) -> tuple[str, str]:
    """`toxicity.output` -> ("toxicity", "output"); `grounded_in_context` -> (..., "output").

    A property scored on one field needs no field name (`content_type` is `content_type.output`);
    one scored on several must name it, and the error shows how. A name no scorer has (a prompt
    property) is interaction-wide.
    """
    prop, _, field_name = address.partition(".")
    if field_name and field_name not in PropertyValue.Field.values:
        raise FilterError(f"{address!r}: the field must be input, output or interaction", column)
    if field_name:
        return prop, field_name
    try:
        fields = registry.get(prop).fields
    except registry.RegistryError:
        return prop, "interaction"
    if len(fields) > 1:
        choices = " or ".join(f"{prop}.{name}" for name in fields)
        raise FilterError(f"{prop!r} has a value per field: write {choices}", column)
    return prop, fields[0]


def _depth(*items: Node) -> int:
    deepest = 1 + max(getattr(item, "depth", 0) for item in items)
    if deepest > MAX_DEPTH:
        raise FilterError(f"nested more than {MAX_DEPTH} levels deep (parentheses and NOT)")
    return deepest


def _at(token: Token) -> int:
    return token.start_pos + 1


def _value(token: Token) -> float | str:
    if token.type == "NUMBER":
        number = float(token)
        if not math.isfinite(number):
            raise FilterError(f"{token} is too large a number", _at(token))
        return number
    if token.type == "STRING":
        return ESCAPE.sub(r"\1", token[1:-1])
    return str(token)


class _Tree:
    """The grammar's callbacks: each rule, as the parser reduces it, becomes a node (no parse tree,
    no recursion, so deep nesting costs nothing until MAX_DEPTH stops it)."""

    def any_of(self, items: list[Node]) -> Or:
        return Or(tuple(items), _depth(*items))

    def all_of(self, items: list[Node]) -> And:
        return And(tuple(items), _depth(*items))

    def negation(self, items: list[Node]) -> Not:
        return Not(items[0], _depth(items[0]))

    def status(self, items: list[Token]) -> StatusCondition:
        status, address = items
        if address.split(".")[0] in (METADATA, "annotation", *TEXT_FIELDS):
            raise FilterError(
                f"{status}{address}: {status} needs a property, like {status}toxicity.output", _at(status)
            )
        return StatusCondition(*split_address(str(address), _at(address)), status[:-1].lower())

    def comparison(self, items: list[Token]) -> Leaf:
        address, op, token = items
        name, _, key = address.partition(".")
        operator = "=" if op == "==" else str(op)
        value = _value(token)
        where = f"{address} {op}"
        if name == METADATA:
            return self._metadata(address, key, operator, value, token)
        if not key and name == "annotation":
            if operator not in EQUALITY or value not in ANNOTATIONS:
                raise FilterError(f"write annotation = good, bad or unknown (or !=), not {where} {token}", _at(op))
            return AnnotationCondition(operator, str(value))
        if not key and name in TEXT_FIELDS:
            if operator != CONTAINS or isinstance(value, float):
                raise FilterError(f'{name} is searched with ~ and a quoted text: {name} ~ "refund"', _at(op))
            return TextCondition(str(name), value)
        if operator == CONTAINS:
            raise FilterError(f'~ searches text (text ~ "refund"); compare {address} with > < = or !=', _at(op))
        if operator in ORDERING and isinstance(value, str):
            raise FilterError(f"{op} needs a number, not {token}", _at(token))
        return Condition(*split_address(str(address), _at(address)), operator, value)

    def _metadata(self, address: Token, key: str, operator: str, value: float | str, token: Token) -> Leaf:
        if not key:
            raise FilterError("name the metadata key: metadata.<key>, like metadata.model = gpt-4o", _at(address))
        if "__" in key:  # the database's path separator: `a__b` would read key b inside key a
            raise FilterError(f"{address}: a metadata key with __ in it cannot be filtered on", _at(address))
        if operator == CONTAINS:
            raise FilterError(f"~ searches text; compare {address} with = != > < >= <=", _at(address))
        if operator in ORDERING and isinstance(value, str):
            raise FilterError(f"{operator} needs a number, not {token}", _at(token))
        return MetadataCondition(key, operator, value)


PARSER = Lark(GRAMMAR, parser="lalr", lexer="contextual", transformer=_Tree(), maybe_placeholders=False)


def _expected(names: set[str]) -> str:
    if "STATUS" in names:  # the start of a condition: one example says more than a list
        names = (names - {"ADDRESS", "STATUS"}) | {"CONDITION"}
    words = sorted({EXPECTED_WORDS.get(name, name) for name in names})
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1] if words else "something else"


def _syntax_error(exc: UnexpectedInput, text: str) -> FilterError:
    # Counted in characters from the start, not per line: a filter is one line of a text box.
    column = (exc.pos_in_stream or 0) + 1
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        return FilterError(f"the filter ends too early; expected {_expected(exc.expected)}", len(text) + 1)
    if isinstance(exc, UnexpectedToken):
        shown = str(exc.token)[:40]
        return FilterError(f"unexpected {shown!r}; expected {_expected(exc.expected)}", column)
    if isinstance(exc, UnexpectedCharacters) and exc.char == ",":
        return FilterError("a comma does not join conditions: write AND or OR between them", column)
    if isinstance(exc, UnexpectedCharacters):
        return FilterError(f"unexpected {exc.char!r}; expected {_expected(exc.allowed or set())}", column)
    return FilterError("not a filter", column)


def parse(text: str) -> Node:
    """The tree of one filter; FilterError (with the column) when it is not one."""
    if len(text) > MAX_CHARS:
        raise FilterError(f"the filter is {len(text):,} characters long; the limit is {MAX_CHARS:,}")
    if not text.strip():
        raise FilterError("the filter is empty")
    try:
        tree = PARSER.parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    conditions = len(leaves(tree))
    if conditions > MAX_CONDITIONS:
        raise FilterError(f"{conditions} conditions: at most {MAX_CONDITIONS} are allowed")
    return tree


def leaves(node: Node) -> list[Leaf]:
    if isinstance(node, And | Or):
        return [leaf for item in node.items for leaf in leaves(item)]
    if isinstance(node, Not):
        return leaves(node.item)
    return [node]


def conjuncts(node: Node | None) -> list[Node]:
    """The parts of a filter that must all hold: the items of a top-level AND, else the filter."""
    if node is None:
        return []
    return list(node.items) if isinstance(node, And) else [node]
