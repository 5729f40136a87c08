"""The filter language: its grammar, its errors, and every example the product shows or documents."""

import html
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from properties.scorers import registry
from properties.screen import filters
from properties.screen.filters import (
    And,
    AnnotationCondition,
    Condition,
    FilterError,
    MetadataCondition,
    Not,
    Or,
    StatusCondition,
    TextCondition,
)

ROOT = Path(__file__).resolve().parents[3]


def test_precedence_not_then_and_then_or():
    a, b, c = (Condition(name, "interaction", ">", 1.0) for name in ("a", "b", "c"))
    assert filters.parse("a > 1 OR b > 1 AND c > 1") == Or((a, And((b, c))))
    assert filters.parse("(a > 1 OR b > 1) AND c > 1") == And((Or((a, b)), c))
    assert filters.parse("NOT a > 1 AND b > 1") == And((Not(a), b))
    assert filters.parse("not (a > 1 and b > 1) or c > 1") == Or((Not(And((a, b))), c))


def test_every_kind_of_condition():
    assert filters.parse("toxicity.output>0.5") == Condition("toxicity", "output", ">", 0.5)
    # A property scored on one field needs no field name; a name no scorer has is interaction-wide.
    assert filters.parse("content_type = sql") == Condition("content_type", "output", "=", "sql")
    assert filters.parse("my_own_scorer <= 0.8") == Condition("my_own_scorer", "interaction", "<=", 0.8)
    assert filters.parse("content_type == 'a b'") == Condition("content_type", "output", "=", "a b")
    assert filters.parse("failing:grounded_in_context") == StatusCondition("grounded_in_context", "output", "failing")
    assert filters.parse("na: coverage") == StatusCondition("coverage", "output", "na")
    assert filters.parse('metadata.model = "gpt-4o"') == MetadataCondition("model", "=", "gpt-4o")
    assert filters.parse("metadata.tokens >= -1e3") == MetadataCondition("tokens", ">=", -1000.0)
    assert filters.parse("annotation != bad") == AnnotationCondition("!=", "bad")
    assert filters.parse('text ~ "refund \\"now\\""') == TextCondition("text", 'refund "now"')
    assert filters.parse("output ~ refund") == TextCondition("output", "refund")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("toxicity.output > high", "column 19: > needs a number, not high"),
        ("toxicity.output >", "column 18: the filter ends too early; expected a number, a quoted text or a word"),
        ("toxicity.output > 0.5 AND", "column 26: the filter ends too early"),
        ("(toxicity.output > 0.5", "column 23: the filter ends too early; expected )"),
        ("toxicity.output > 0.5 content_type = sql", "column 23: unexpected 'content_type'; expected ), AND or OR"),
        ("toxicity.output $ 1", "column 17: unexpected '$'"),
        ("toxicity.output>0.5, content_type=sql", "column 20: a comma does not join conditions: write AND or OR"),
        ("failing: > 3", "column 10: unexpected '>'; expected a property (like toxicity.output)"),
        ("NOT", "column 4: the filter ends too early; expected (, NOT or a condition (like toxicity.output > 0.5"),
        ("toxicity > 0.5", "column 1: 'toxicity' has a value per field: write toxicity.input or toxicity.output"),
        ("toxicity.reference > 0.5", "column 1: 'toxicity.reference': the field must be input, output or interaction"),
        ("annotation = great", "column 12: write annotation = good, bad or unknown"),
        ("text = refund", 'column 6: text is searched with ~ and a quoted text: text ~ "refund"'),
        ("toxicity.output ~ bad", "column 17: ~ searches text"),
        ("metadata > 3", "column 1: name the metadata key"),
        ("metadata.a__b = 3", "column 1: metadata.a__b: a metadata key with __ in it"),
        ("failing:metadata.model", "column 1: failing:metadata.model: failing: needs a property"),
        ("toxicity.output > 1e999", "column 19: 1e999 is too large a number"),
        ("", "the filter is empty"),
    ],
)
def test_errors_name_the_column(text, message):
    with pytest.raises(FilterError) as caught:
        filters.parse(text)
    assert str(caught.value).startswith(message)


def test_limits_on_length_conditions_and_depth():
    with pytest.raises(FilterError, match="characters long"):
        filters.parse("a > 1 AND " * 300 + "a > 1")
    with pytest.raises(FilterError, match=f"at most {filters.MAX_CONDITIONS}"):
        filters.parse(" OR ".join(["a > 1"] * (filters.MAX_CONDITIONS + 1)))
    with pytest.raises(FilterError, match="nested more than"):
        filters.parse("NOT " * (filters.MAX_DEPTH + 1) + "a > 1")
    # Parentheses alone do not nest the tree.
    assert filters.parse("(" * 100 + "a > 1" + ")" * 100) == Condition("a", "interaction", ">", 1.0)


def test_the_status_keywords_are_one_constant():
    """Another status is one word in STATUSES (and its meaning in datascreen._status_matches)."""
    for status in filters.STATUSES:
        assert filters.parse(f"{status}:relevance") == StatusCondition("relevance", "output", status)


# --- property-based: random trees print and parse back; random text raises only FilterError ---

RESERVED = {"and", "or", "not", "annotation", "metadata", *filters.TEXT_FIELDS}
KNOWN = set(registry.all_scorers())
names = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(lambda name: name not in RESERVED)


@st.composite
def addresses(draw) -> tuple[str, str]:
    name = draw(names)
    known = name in KNOWN
    field = draw(st.sampled_from(("input", "output") if known else ("input", "output", "interaction")))
    return name, field


numbers = st.floats(allow_nan=False, allow_infinity=False)
words = st.text(max_size=20)
ordering = st.sampled_from(filters.ORDERING)
equality = st.sampled_from(filters.EQUALITY)


def compared(build):
    return st.one_of(
        st.tuples(ordering, numbers).map(build),
        st.tuples(equality, st.one_of(numbers, words)).map(build),
    )


@st.composite
def conditions(draw):
    prop, field = draw(addresses())
    return draw(compared(lambda pair: Condition(prop, field, *pair)))


@st.composite
def metadata(draw):
    key = draw(st.from_regex(r"[a-z][a-z0-9_\-]{0,10}", fullmatch=True).filter(lambda key: "__" not in key))
    return draw(compared(lambda pair: MetadataCondition(key, *pair)))


leaves = st.one_of(
    conditions(),
    st.builds(
        lambda address, status: StatusCondition(*address, status), addresses(), st.sampled_from(filters.STATUSES)
    ),
    metadata(),
    st.builds(AnnotationCondition, equality, st.sampled_from(filters.ANNOTATIONS)),
    st.builds(TextCondition, st.sampled_from(filters.TEXT_FIELDS), words),
)
trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, min_size=2, max_size=4).map(lambda items: And(tuple(items))),
        st.lists(children, min_size=2, max_size=4).map(lambda items: Or(tuple(items))),
        children.map(Not),
    ),
    max_leaves=12,
)


def depth(node) -> int:
    if isinstance(node, And | Or):
        return 1 + max(depth(item) for item in node.items)
    return 1 + depth(node.item) if isinstance(node, Not) else 0


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_a_printed_tree_parses_back_to_the_same_tree(tree):
    assume(depth(tree) <= filters.MAX_DEPTH and len(str(tree)) <= filters.MAX_CHARS)
    assert filters.parse(str(tree)) == tree
    assert str(filters.parse(str(tree))) == str(tree)


GRAMMAR_BITS = st.sampled_from(
    [
        "toxicity.output",
        "content_type",
        "metadata.",
        "annotation",
        "text",
        "failing:",
        "na:",
        "AND",
        "or",
        "NOT ",
        "(",
        ")",
    ]
    + ["=", "!=", ">", "<=", "~", "==", " ", "0.5", "-1e3", '"', "'", "\\", "sql", "good", ".", ":", "__", "é", "\n"]
)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=80), st.lists(GRAMMAR_BITS, max_size=25).map("".join)))
def test_any_text_parses_or_raises_a_filter_error(text):
    try:
        tree = filters.parse(text)
    except FilterError as exc:
        assert 0 <= exc.column <= len(text) + 1
        return
    assert filters.parse(str(tree)) == tree


# --- every example shown to users parses ---------------------------------------------------

DOCS = ["docs/data-screen.md", "docs/rest-api.md", "docs/python-api.md", "README.md"]
# `where=...` and `filter=...` in code, the strings of `filters=[...]`, and the lines of ```filter blocks.
IN_CODE = re.compile(r"`(?:where|filter)=([^`]+)`")
PYTHON_FILTERS = re.compile(r"filters=\[([^\]]*)\]")
FILTER_BLOCK = re.compile(r"```filter\n(.*?)```", re.S)


def examples_in(text: str) -> list[str]:
    found = IN_CODE.findall(text)
    for strings in PYTHON_FILTERS.findall(text):
        found += re.findall(r'"((?:[^"\\]|\\.)*)"', strings)
    for block in FILTER_BLOCK.findall(text):
        found += [line for line in block.splitlines() if line.strip()]
    return found


@pytest.mark.parametrize("path", DOCS)
def test_every_filter_example_in_the_docs_parses(path):
    examples = examples_in((ROOT / path).read_text())
    assert examples, f"{path} shows no filter example"
    for example in examples:
        try:
            filters.parse(example)
        except FilterError as exc:
            pytest.fail(f"{path}: {example!r} does not parse: {exc}")


def test_the_filter_box_placeholder_parses(client, db):
    from tests.factories import ProjectFactory, RunFactory, UserFactory

    user = UserFactory()
    client.force_login(user)
    run = RunFactory(project=ProjectFactory(owner=user))
    page = client.get(f"/runs/{run.pk}/").content.decode()
    placeholder = re.search(r'name="where"[^>]*placeholder="([^"]*)"', page)
    assert placeholder, "the filter box has no placeholder"
    assert filters.parse(html.unescape(placeholder.group(1)))
