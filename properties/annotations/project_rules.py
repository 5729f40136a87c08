"""A project's annotation rules: checked against the properties it scores and their ranges, and its
default rules derived from those properties' pass or fail.

The rules language itself (parsing, limits, evaluation) is rules.py; this module knows the project.
"""

from __future__ import annotations

import textwrap

from properties.annotations import rules
from properties.models import Project
from properties.quality import criteria
from properties.quality.criteria import Criterion
from properties.scorers import registry
from properties.screen import filters
from properties.screen.page import address_of

# Properties whose failure makes an answer bad whether or not the project counts them as key: an
# insult, leaked personal data, a refusal, a broken link.
HARMFUL_WHEN_FAILING = ("toxicity", "pii_risk", "avoided_answer", "invalid_links", "moderation", "openai_moderation")

HEADER = """\
# Auto-annotation rules. Blocks are tried in order: the first block whose conditions hold labels
# an interaction, and an interaction no block labels stays "unknown". A person's label always
# wins over these estimates.
#
# A condition compares a property value (`name.field`, or `name` for interaction-wide
# properties) with an operator: GT GE LT LE EQ NEQ (a number, or a category such as `sql`)
# or IN NIN (a list). A block combines its conditions with AND (all hold) or OR (any holds).
# A condition on a property with no value for the interaction does not hold.
#
# These defaults come from the project's properties and their pass or fail thresholds (each
# property's page), and follow them until you save rules of your own.
"""


def project_properties(project: Project) -> list[str]:
    """The properties the project scores: its enabled ones and its prompt properties."""
    prompts = project.prompt_properties.values_list("property_name", flat=True)
    return list(dict.fromkeys([*project.enabled_properties, *prompts]))


def check(blocks: list[rules.Block], project: Project) -> list[str]:
    """What in the rules cannot work in this project, with lines: an unknown property or field, a
    number outside the property's range, an order or a label a property of labels does not have."""
    known = project_properties(project)
    problems = []
    for number, block in enumerate(blocks, start=1):
        for condition in block.conditions:
            problem = _condition_problem(condition, project, known)
            if problem:
                problems.append(f"line {condition.line}: {problem}")
        # A `where:` filter's properties must be the project's too (its numbers the filter checks).
        named = {getattr(leaf, "prop", None) for leaf in filters.leaves(block.where)} if block.where else set()
        scored = ", ".join(known) or "none yet"
        for prop in sorted(name for name in named if name and name not in known):
            problems.append(f"block {number}, where: the project scores no property {prop!r}; it scores {scored}")
    return problems


def _condition_problem(condition: rules.Condition, project: Project, known: list[str]) -> str:
    prop = condition.prop
    if prop not in known:
        return (
            f"{condition.address}: the project scores no property {prop!r}; it scores {', '.join(known) or 'none yet'}"
        )
    try:
        scorer = registry.get(prop)
    except registry.RegistryError:
        return ""  # a prompt property: its output type (a score or a category) decides its values
    if condition.field not in scorer.fields:
        fields = " or ".join(prop if name == "interaction" else f"{prop}.{name}" for name in scorer.fields)
        return f"{condition.address}: {prop} has no {condition.field} value; write {fields}"
    if scorer.is_categorical():
        return _label_problem(condition, scorer.categories())
    return _range_problem(condition, criteria.criterion_for(project, prop))


def _label_problem(condition: rules.Condition, categories: list[str] | None) -> str:
    if condition.operator in rules.ORDERING:
        return f"{condition.address} is a label, not a number: use EQ, NEQ, IN or NIN"
    values = condition.value if isinstance(condition.value, list) else [condition.value]
    unknown = [str(value) for value in values if categories is not None and value not in categories]
    if unknown:
        return f"{condition.address} has no label {', '.join(unknown)}; its labels are {', '.join(categories or [])}"
    return ""


def _range_problem(condition: rules.Condition, criterion: Criterion) -> str:
    values = condition.value if isinstance(condition.value, list) else [condition.value]
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float):
            if condition.operator in ("EQ", "IN"):
                return f"{condition.address} is a number, never {value!r}"
            continue
        if criterion.clip(value) != value:
            return (
                f"{condition.address} {condition.operator} {value:g}: the value is outside the property's range "
                f"({criterion.describe_range()})"
            )
    return ""


def parse_for(project: Project, text: str) -> list[rules.Block]:
    """The rules as the project runs them; RulesError lists every problem, each with its line."""
    blocks = rules.parse_rules(text)
    problems = check(blocks, project)
    if problems:
        raise rules.RulesError(problems)
    return blocks


def rules_text(project: Project) -> str:
    """The project's own rules, or its defaults."""
    return project.annotation_rules or default_rules_text(project)


def default_rules_text(project: Project) -> str:
    """Rules from the project's properties and their pass or fail: bad when a key property, or one
    whose failure harms (HARMFUL_WHEN_FAILING), fails; good when every key property passes. A project
    without key properties (the Custom template) is judged on the harmful ones alone."""
    judged = {name: criteria.criterion_for(project, name) for name in project_properties(project)}
    judged = {name: criterion for name, criterion in judged.items() if criterion.judges}
    harmful = [name for name in judged if name in HARMFUL_WHEN_FAILING]
    keys = [name for name in project.key_properties if name in judged] or harmful
    bad = [*keys, *(name for name in harmful if name not in keys)]
    if not bad:
        return HEADER + "# No property of this project has a pass or fail yet: these rules label nothing.\n[]\n"
    lines = [HEADER, _comment("bad when any of these fails:", bad), _comment("good when all of these pass:", keys)]
    lines.append(_block("bad", "OR", [_condition(name, judged[name], passing=False) for name in bad]))
    lines.append(_block("good", "AND", [_condition(name, judged[name], passing=True) for name in keys]))
    return "".join(lines)


def _comment(what: str, names: list[str]) -> str:
    return (
        "\n".join(textwrap.wrap(f"{what} {', '.join(names)}", 96, initial_indent="# ", subsequent_indent="#   ")) + "\n"
    )


def _condition(name: str, criterion: Criterion, passing: bool) -> str:
    higher = criterion.direction == criteria.HIGHER
    # passes(): higher is better passes at the threshold and above, lower is better below it.
    operator = ("GE" if higher else "LT") if passing else ("LT" if higher else "GE")
    return f"    - {{property: {address_of(name)}, operator: {operator}, value: {criterion.threshold:g}}}\n"


def _block(annotation: str, combine: str, conditions: list[str]) -> str:
    return f"- annotation: {annotation}\n  operator: {combine}\n  conditions:\n" + "".join(conditions)
