"""Generated training pairs for Relevance: complete-sentence answers about the subject asked about,
and equally fluent complete answers about a neighbouring subject of the same kind.

"Paris is the capital of France." reads well after "What is the capital of Germany?": a fluent
sentence of the asked-for form, about another country. The other generators' negatives are mostly
answers to another question about the same subject, so without these rows the head has no example
of a complete answer that is about the wrong subject, and none of a complete answer that restates
the right one. Each question's positive restates its subject ("Berlin is the capital of Germany.",
"The Orion tablet costs $299."); its negative is the same sentence for a neighbour of that subject
(another country, product, company or person). Some positives give only the answer ("Berlin."), so
that leaving the subject out is not itself read as a wrong subject.

The facts and templates are written here, apart from the behaviour suites' (bench/generated/);
Faker (through the suites' lexicon) fills names, prices and years, with a fixed seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

SEED = 11
# (subject, its answer) pairs of each fact kind: a neighbour is another pair of the same list.
CAPITALS = (
    ("Germany", "Berlin"),
    ("France", "Paris"),
    ("Spain", "Madrid"),
    ("Italy", "Rome"),
    ("Portugal", "Lisbon"),
    ("Poland", "Warsaw"),
    ("Austria", "Vienna"),
    ("Hungary", "Budapest"),
    ("Sweden", "Stockholm"),
    ("Norway", "Oslo"),
    ("Finland", "Helsinki"),
    ("Japan", "Tokyo"),
    ("Egypt", "Cairo"),
    ("Kenya", "Nairobi"),
    ("Peru", "Lima"),
    ("Chile", "Santiago"),
    ("Canada", "Ottawa"),
    ("Australia", "Canberra"),
    ("Greece", "Athens"),
    ("Ireland", "Dublin"),
)
CURRENCIES = (
    ("Japan", "the yen"),
    ("Switzerland", "the Swiss franc"),
    ("India", "the rupee"),
    ("Mexico", "the peso"),
    ("Sweden", "the krona"),
    ("Poland", "the zloty"),
    ("Brazil", "the real"),
    ("South Korea", "the won"),
    ("Thailand", "the baht"),
    ("Turkey", "the lira"),
)
RIVERS = (
    ("London", "the Thames"),
    ("Paris", "the Seine"),
    ("Cairo", "the Nile"),
    ("Rome", "the Tiber"),
    ("Prague", "the Vltava"),
    ("Cologne", "the Rhine"),
    ("Dresden", "the Elbe"),
    ("Warsaw", "the Vistula"),
    ("Florence", "the Arno"),
    ("Lisbon", "the Tagus"),
)
BOOKS = (
    ("Pride and Prejudice", "Jane Austen"),
    ("War and Peace", "Leo Tolstoy"),
    ("Moby-Dick", "Herman Melville"),
    ("Don Quixote", "Miguel de Cervantes"),
    ("The Trial", "Franz Kafka"),
    ("Great Expectations", "Charles Dickens"),
    ("One Hundred Years of Solitude", "Gabriel Garcia Marquez"),
    ("Frankenstein", "Mary Shelley"),
    ("The Odyssey", "Homer"),
    ("Beloved", "Toni Morrison"),
)
ROLES = ("chief executive", "CTO", "head of sales", "head of design", "finance director", "chair")
KINDS = ("tablet", "kettle", "scooter", "printer", "monitor", "drone", "speaker", "router", "blender")
# (ways to ask about a subject, complete answers about it, answers that give only what is asked)
Fact = tuple[list[str], list[str], list[str]]


def _facts(pairs, asks, says, bare) -> Callable:
    """A fact kind over a fixed list: (subject, answer) -> asks, complete answers, bare answers."""

    def make(lex, chosen) -> Fact:
        subject, answer = chosen
        fill = {"s": subject, "a": answer, "A": answer[0].upper() + answer[1:]}
        return ([t.format(**fill) for t in asks], [t.format(**fill) for t in says], [t.format(**fill) for t in bare])

    make.pairs = pairs  # type: ignore[attr-defined]
    return make


CAPITAL = _facts(
    CAPITALS,
    ["What is the capital of {s}?", "Which city is the capital of {s}?", "What's {s}'s capital?"],
    ["{a} is the capital of {s}.", "The capital of {s} is {a}.", "{s}'s capital is {a}, its largest city."],
    ["{a}.", "It's {a}."],
)
CURRENCY = _facts(
    CURRENCIES,
    ["What currency does {s} use?", "What is the currency of {s}?", "Which money do they use in {s}?"],
    ["{s} uses {a}.", "The currency of {s} is {a}.", "In {s} you pay with {a}."],
    ["{A}.", "They use {a}."],
)
RIVER = _facts(
    RIVERS,
    ["Which river flows through {s}?", "What river runs through {s}?", "Which river is {s} on?"],
    ["{A} flows through {s}.", "{s} lies on {a}.", "The river in {s} is {a}."],
    ["{A}.", "That's {a}."],
)
AUTHOR = _facts(
    BOOKS,
    ["Who wrote {s}?", "Who is the author of {s}?", "Which writer wrote {s}?"],
    ["{a} wrote {s}.", "{s} was written by {a}.", "The author of {s} is {a}."],
    ["{a}.", "It was {a}."],
)


def _price(lex) -> tuple[str, str]:
    return f"{lex.product_name()} {lex.pick(KINDS)}", lex.price()


PRICE = _facts(
    None,
    ["How much does the {s} cost?", "What is the price of the {s}?", "How much is the {s}?"],
    ["The {s} costs {a}.", "The price of the {s} is {a}.", "The {s} sells for {a}, tax included."],
    ["{a}.", "It's {a}."],
)
FOUNDED = _facts(
    None,
    ["When was {s} founded?", "What year did {s} start?", "In which year was {s} founded?"],
    ["{s} was founded in {a}.", "{s} started in {a}.", "{s} has existed since {a}."],
    ["In {a}.", "{a}."],
)


def _role_kind(role: str) -> Callable:
    return _facts(
        None,
        [f"Who is the {role} of {{s}}?", f"Who is {{s}}'s {role}?"],
        [f"{{a}} is the {role} of {{s}}.", f"{{s}}'s {role} is {{a}}.", f"The {role} of {{s}} is {{a}}."],
        ["{a}.", f"{{a}}, the {role}."],
    )


def _made_pairs(lex, kind: str, count: int) -> list[tuple[str, str]]:
    """`count` (subject, answer) pairs of a kind whose subjects Faker makes."""
    if kind == "price":
        return [_price(lex) for _ in range(count)]
    if kind == "founded":
        return [(lex.company(), str(lex.year())) for _ in range(count)]
    return [(lex.company(), lex.person()) for _ in range(count)]


def generate(count: int, seed: int = SEED) -> list[dict]:
    """About `count` rows {input, output, label, kind}: for each question, a complete answer about its
    subject (two thirds; else only what is asked) as label 1, and the complete answer about a
    neighbour of its subject as label 0."""
    from bench.generated.lexicon import Lexicon  # Faker: a development dependency, for training only

    rng = random.Random(seed)
    listed = {"capital": CAPITAL, "currency": CURRENCY, "river": RIVER, "author": AUTHOR}
    made = {"price": PRICE, "founded": FOUNDED}
    rows: list[dict] = []
    while len(rows) < count:
        lex = Lexicon(rng.getrandbits(48))
        kind = lex.pick(sorted([*listed, *made, "role"]))
        if kind in listed:
            make = listed[kind]
            chosen, neighbour = lex.sample(make.pairs, 2)
        else:
            make = made.get(kind) or _role_kind(lex.pick(ROLES))
            chosen, neighbour = _made_pairs(lex, kind, 2)
        asks, says, bare = make(lex, chosen)
        _, other_says, _ = make(lex, neighbour)
        question, form = lex.pick(asks), lex.pick(range(len(says)))
        right = says[form] if lex.chance(2 / 3) else lex.pick(bare)
        rows.append({"input": question, "output": right, "label": 1, "kind": f"subject/{kind}"})
        rows.append({"input": question, "output": other_says[form], "label": 0, "kind": f"subject/{kind}"})
    return rows[:count]
