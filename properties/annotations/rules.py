"""Auto-annotation rules: ordered YAML blocks of conditions on property values.

Parsing reports every problem with its line, so the YAML can be fixed before it is saved. The text
is a user's, so it is read within limits: a size, a nesting depth, no aliases (an alias bomb expands
a few hundred bytes into gigabytes) and only the plain tags the language uses (no `!!python/...`).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import yaml

from properties.screen import filters
from properties.screen.filters import FilterError, split_address

ANNOTATIONS = ("good", "bad")
COMBINERS = ("AND", "OR")

# Default rules are about 2 KB; a hundred blocks of ten conditions fit in well under this.
MAX_RULES_CHARS = 100_000
# The language nests five levels (blocks, a block, conditions, a condition, a list value); a few
# more leave room for a list of lists, and the composer recurses once per level.
MAX_DEPTH = 10
# More messages than this are not read, and a page listing them all could be large.
MAX_PROBLEMS = 50
# Conditions in all the blocks: default rules have about two per judged property (12 for RAG). Each
# is evaluated on every interaction, so this bounds the work per page of interactions (2,000 x 500
# conditions: about a second).
MAX_CONDITIONS = 500
# A condition's value as the reason of a label shows it: a long list is cut here.
MAX_SHOWN_VALUE = 120
YAML_TAGS = "tag:yaml.org,2002:"
ALLOWED_TAGS = {YAML_TAGS + name for name in ("str", "int", "float", "bool", "null", "seq", "map")}


def _is_in(value: Any, options: Any) -> bool:
    return value in options


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "GT": operator.gt,
    "GE": operator.ge,
    "LT": operator.lt,
    "LE": operator.le,
    "EQ": operator.eq,
    "NEQ": operator.ne,
    "IN": _is_in,
    "NIN": lambda value, options: not _is_in(value, options),
}
ORDERING = ("GT", "GE", "LT", "LE")


class RulesError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Condition:
    address: str
    prop: str
    field: str
    operator: str
    value: Any
    # Where the condition is written, for messages about it (not part of what it means).
    line: int = dataclasses.field(default=0, compare=False)

    def holds(self, value: float | str | None) -> bool:
        if value is None:
            return False
        if self.operator in ORDERING and isinstance(value, str):
            return False
        try:
            return OPERATORS[self.operator](value, self.value)
        except TypeError:
            return False

    def describe(self, value: Any) -> str:
        shown = f"{value:.3g}" if isinstance(value, float) else value
        return f"{self.address}={_shorten(shown)} {self.operator} {_shorten(self.value)}"


def _shorten(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_SHOWN_VALUE else text[: MAX_SHOWN_VALUE - 1] + "…"


@dataclass(frozen=True)
class Block:
    annotation: str
    combine: str
    conditions: tuple[Condition, ...]
    # `where:` instead of conditions: a filter of the Data Screen, which the database evaluates
    # (annotation.apply_rules), so it may also name statuses, metadata, annotations and text.
    where: filters.Node | None = None

    def decide(self, values: dict[str, Any], matched: bool = False) -> str | None:
        """The reason this block labels the interaction, or None when it does not; `matched`: whether
        the interaction matches the block's `where:` filter."""
        if self.where is not None:
            return _shorten(f"matches {self.where}") if matched else None
        held = [c for c in self.conditions if c.holds(values.get(c.address))]
        if self.combine == "AND" and len(held) == len(self.conditions):
            return " and ".join(c.describe(values[c.address]) for c in held)
        if self.combine == "OR" and held:
            return held[0].describe(values[held[0].address])
        return None


class RulesSyntaxError(yaml.MarkedYAMLError):
    """YAML that is valid but outside the rules language (an alias, a tag, too deep)."""


class RulesLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases, tags other than plain scalars, lists and mappings, and
    nesting deeper than MAX_DEPTH, before the node below is read (so in time linear in the text)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise RulesSyntaxError(
                problem="aliases (*name) are not allowed; write the value out", problem_mark=event.start_mark
            )
        if self.depth >= MAX_DEPTH:
            raise RulesSyntaxError(problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=event.start_mark)
        self.depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        if node.tag not in ALLOWED_TAGS:
            tag = node.tag.replace(YAML_TAGS, "!!")
            raise RulesSyntaxError(
                problem=f"the tag {tag} is not part of the rules language", problem_mark=node.start_mark
            )
        return node


def parse_rules(text: str) -> list[Block]:
    if len(text) > MAX_RULES_CHARS:
        raise RulesError([f"the rules are {len(text):,} characters long; the limit is {MAX_RULES_CHARS:,}"])
    try:
        root = yaml.compose(text, Loader=RulesLoader)
    except RulesSyntaxError as exc:
        raise RulesError([f"line {exc.problem_mark.line + 1}: {exc.problem}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise RulesError([f"{where}not valid YAML ({getattr(exc, 'problem', exc)})"]) from None
    if root is None:
        raise RulesError(["line 1: the rules are empty; write at least one block"])
    problems: list[str] = []
    if not isinstance(root, yaml.SequenceNode):
        raise RulesError([f"line {_line(root)}: the rules must be a list of blocks (each starting with '- ')"])
    blocks = [_block(node, problems) for node in root.value]
    conditions = sum(
        len(filters.leaves(block.where)) if block.where is not None else len(block.conditions)
        for block in blocks
        if block is not None
    )
    if conditions > MAX_CONDITIONS:
        problems.append(f"the rules have {conditions:,} conditions; the limit is {MAX_CONDITIONS:,}")
    if len(problems) > MAX_PROBLEMS:
        problems = problems[:MAX_PROBLEMS] + [f"... and {len(problems) - MAX_PROBLEMS:,} more problems"]
    if problems:
        raise RulesError(problems)
    return [block for block in blocks if block is not None]


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _mapping(node: yaml.Node, what: str, problems: list[str]) -> dict[str, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        problems.append(f"line {_line(node)}: {what} must be a mapping of keys to values")
        return None
    keys = {}
    for key, value in node.value:
        # `? [a, b]` or `? {a: b}` makes a key of a list or a mapping: not a name the language has.
        if not isinstance(key, yaml.ScalarNode):
            problems.append(f"line {_line(key)}: a key must be a plain name, not a list or a mapping")
            continue
        keys[key.value] = value
    return keys


def _block(node: yaml.Node, problems: list[str]) -> Block | None:
    keys = _mapping(node, "a block", problems)
    if keys is None:
        return None
    before = len(problems)
    unknown = set(keys) - {"annotation", "operator", "conditions", "where"}
    if unknown:
        problems.append(f"line {_line(node)}: unknown key(s) {', '.join(sorted(unknown))} in a block")
    annotation = _scalar(keys.get("annotation"), node, "annotation", problems)
    if annotation is not None and annotation not in ANNOTATIONS:
        problems.append(f"line {_line(keys['annotation'])}: annotation must be good or bad, not {annotation!r}")
    combine = str(_scalar(keys.get("operator"), node, "operator", problems, default="AND")).upper()
    if combine not in COMBINERS:
        problems.append(f"line {_line(keys['operator'])}: a block's operator must be AND or OR, not {combine!r}")
    if "where" in keys:
        return _where_block(node, keys, str(annotation), problems, before)
    conditions_node = keys.get("conditions")
    if not isinstance(conditions_node, yaml.SequenceNode) or not conditions_node.value:
        where = _line(conditions_node) if conditions_node is not None else _line(node)
        problems.append(f"line {where}: a block needs a non-empty list of conditions")
        return None
    conditions = [_condition(item, problems) for item in conditions_node.value]
    if len(problems) > before:
        return None
    return Block(str(annotation), combine, tuple(c for c in conditions if c is not None))


def _where_block(node: yaml.Node, keys: dict[str, yaml.Node], annotation: str, problems: list[str], before: int):
    """A block whose condition is one filter of the Data Screen's language (screen/filters.py)."""
    if "conditions" in keys or "operator" in keys:
        problems.append(f"line {_line(node)}: a block has either 'where' or 'conditions' (with 'operator'), not both")
        return None
    text = _scalar(keys["where"], node, "where", problems)
    if not isinstance(text, str):
        problems.append(
            f"line {_line(keys['where'])}: 'where' is a filter, like: toxicity.output > 0.5 OR failing:pii_risk"
        )
        return None
    try:
        where = filters.parse(text)
    except FilterError as exc:
        problems.append(f"line {_line(keys['where'])}: where: {exc}")
        return None
    if len(problems) > before:
        return None
    return Block(annotation, "AND", (), where)


def _scalar(node, parent, key: str, problems: list[str], default: Any = None) -> Any:
    if node is None:
        if default is None:
            problems.append(f"line {_line(parent)}: missing {key!r}")
        return default
    if not isinstance(node, yaml.ScalarNode):
        problems.append(f"line {_line(node)}: {key!r} must be a single value")
        return default
    return _construct(node, problems, default)


def _construct(node: yaml.Node, problems: list[str], default: Any = None) -> Any:
    """The Python value of a node the loader has checked (plain tags, no aliases)."""
    try:
        return yaml.constructor.SafeConstructor().construct_document(node)
    except (ValueError, OverflowError) as exc:  # e.g. an integer of more digits than Python converts
        problems.append(f"line {_line(node)}: not a value the rules can use ({_shorten(exc)})")
        return default


def _condition(node: yaml.Node, problems: list[str]) -> Condition | None:
    keys = _mapping(node, "a condition", problems)
    if keys is None:
        return None
    before = len(problems)
    address = _scalar(keys.get("property"), node, "property", problems)
    op = str(_scalar(keys.get("operator"), node, "operator", problems) or "").upper()
    value_node = keys.get("value")
    if value_node is None:
        problems.append(f"line {_line(node)}: missing 'value'")
        return None
    value = _construct(value_node, problems)
    if len(problems) > before:
        return None
    if op and op not in OPERATORS:
        problems.append(f"line {_line(keys['operator'])}: unknown operator {op!r}; use {', '.join(OPERATORS)}")
    elif op in ("IN", "NIN") and not isinstance(value, list):
        problems.append(f"line {_line(value_node)}: {op} needs a list value, like [json, sql]")
    elif op in ORDERING and (isinstance(value, bool) or not isinstance(value, int | float)):
        problems.append(f"line {_line(value_node)}: {op} needs a number, not {value!r}")
    try:
        prop, field_name = split_address(str(address)) if address else ("", "")
    except FilterError as exc:
        problems.append(f"line {_line(keys['property'])}: {exc}")
        return None
    if len(problems) > before:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            problems.append(f"line {_line(value_node)}: {_shorten(value)} is too large a number")
            return None
    # The address as values are keyed: `content_type` is stored as `content_type.output`.
    normalised = prop if field_name in ("interaction", "") else f"{prop}.{field_name}"
    return Condition(normalised, prop, field_name, op, value, line=_line(node))


def addresses(blocks: Iterable[Block]) -> set[tuple[str, str]]:
    return {(c.prop, c.field) for block in blocks for c in block.conditions}


def decide(blocks: list[Block], values: dict[str, Any], matched: frozenset[int] = frozenset()) -> tuple[str, str]:
    """(annotation, reason) from the first block that holds; ("unknown", "") when none does.
    `matched`: the positions of the `where:` blocks whose filter the interaction matches."""
    for number, block in enumerate(blocks):
        reason = block.decide(values, number in matched)
        if reason is not None:
            return block.annotation, reason
    return "unknown", ""
