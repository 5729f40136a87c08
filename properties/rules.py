"""Auto-annotation rules: ordered YAML blocks of conditions on property values.

Parsing reports every problem with its line, so the YAML can be fixed before it is saved.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from properties.datascreen import FilterError, split_address

DEFAULT_RULES_FILE = Path(__file__).resolve().parent / "default_rules.yaml"
ANNOTATIONS = ("good", "bad")
COMBINERS = ("AND", "OR")


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
        return f"{self.address}={shown} {self.operator} {self.value}"


@dataclass(frozen=True)
class Block:
    annotation: str
    combine: str
    conditions: tuple[Condition, ...]

    def decide(self, values: dict[str, Any]) -> str | None:
        """The reason this block labels the interaction, or None when it does not."""
        held = [c for c in self.conditions if c.holds(values.get(c.address))]
        if self.combine == "AND" and len(held) == len(self.conditions):
            return " and ".join(c.describe(values[c.address]) for c in held)
        if self.combine == "OR" and held:
            return held[0].describe(values[held[0].address])
        return None


def default_rules_text() -> str:
    return DEFAULT_RULES_FILE.read_text()


def parse_rules(text: str) -> list[Block]:
    try:
        root = yaml.compose(text)
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
    if problems:
        raise RulesError(problems)
    return [block for block in blocks if block is not None]


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _mapping(node: yaml.Node, what: str, problems: list[str]) -> dict[str, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        problems.append(f"line {_line(node)}: {what} must be a mapping of keys to values")
        return None
    return {key.value: value for key, value in node.value}


def _block(node: yaml.Node, problems: list[str]) -> Block | None:
    keys = _mapping(node, "a block", problems)
    if keys is None:
        return None
    before = len(problems)
    unknown = set(keys) - {"annotation", "operator", "conditions"}
    if unknown:
        problems.append(f"line {_line(node)}: unknown key(s) {', '.join(sorted(unknown))} in a block")
    annotation = _scalar(keys.get("annotation"), node, "annotation", problems)
    if annotation is not None and annotation not in ANNOTATIONS:
        problems.append(f"line {_line(keys['annotation'])}: annotation must be good or bad, not {annotation!r}")
    combine = str(_scalar(keys.get("operator"), node, "operator", problems, default="AND")).upper()
    if combine not in COMBINERS:
        problems.append(f"line {_line(keys['operator'])}: a block's operator must be AND or OR, not {combine!r}")
    conditions_node = keys.get("conditions")
    if not isinstance(conditions_node, yaml.SequenceNode) or not conditions_node.value:
        where = _line(conditions_node) if conditions_node is not None else _line(node)
        problems.append(f"line {where}: a block needs a non-empty list of conditions")
        return None
    conditions = [_condition(item, problems) for item in conditions_node.value]
    if len(problems) > before:
        return None
    return Block(str(annotation), combine, tuple(c for c in conditions if c is not None))


def _scalar(node, parent, key: str, problems: list[str], default: Any = None) -> Any:
    if node is None:
        if default is None:
            problems.append(f"line {_line(parent)}: missing {key!r}")
        return default
    if not isinstance(node, yaml.ScalarNode):
        problems.append(f"line {_line(node)}: {key!r} must be a single value")
        return default
    return yaml.safe_load(yaml.serialize(node))


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
    value = yaml.safe_load(yaml.serialize(value_node))
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
        value = float(value)
    # The address as values are keyed: `content_type` is stored as `content_type.output`.
    normalised = prop if field_name in ("interaction", "") else f"{prop}.{field_name}"
    return Condition(normalised, prop, field_name, op, value)


def addresses(blocks: Iterable[Block]) -> set[tuple[str, str]]:
    return {(c.prop, c.field) for block in blocks for c in block.conditions}


def decide(blocks: list[Block], values: dict[str, Any]) -> tuple[str, str]:
    """(annotation, reason) from the first block that holds; ("unknown", "") when none does."""
    for block in blocks:
        reason = block.decide(values)
        if reason is not None:
            return block.annotation, reason
    return "unknown", ""
