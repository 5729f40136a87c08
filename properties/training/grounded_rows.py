"""Generated training rows for Grounded in Context: paraphrases that keep their support, and the
small changes that lose it.

The NLI rows (FEVER, MNLI, SummEdits...) rarely restate a passage's fact in other words about the
same named things: a statement that says "moved to 4 June" for "rescheduled for 4 June", "the CFO of
Ortiz Freight" for "Ortiz Freight's chief financial officer", "four hours" for "240 minutes" reads to
the NLI head as new words, hence unsupported. Each row here is a fact sentence of its own phrasing
in a passage with one or two unrelated sentences, and a statement about it:

- supported (label "supported"): the fact in other words (synonyms, a short form of a role or a
  unit, the quantity in another unit, clauses in another order);
- unsupported (label "not_supported"): the same restatement with one thing changed: a number, a
  date, a name or place the passage lacks, the attribute of the passage's other entity, or a
  negation.

Written apart from the behaviour suite (bench/generated/): its own word lists and phrasings, never
the suite's lexicon or templates; seeded, so the rows are the same on every run.

Tried and not kept: a seventh kind, two facts of the passage fused into one statement as a summary
writes them (a relative clause, an apposition), with statements in a larger unit than the
passage's. Retrained with it: the generated suite's development templates 409 -> 410 of 415, its
held-out ones 179 of 190 before and after, QAGS 0.708 -> 0.716, FaithBench 0.665 -> 0.658 (the
issue asks that both keep their figures), the combination's cross-validated ROC-AUC 0.863 -> 0.862.
A unit is already restated in the passage's terms before any signal reads it (`text.restatement`),
so rows in another unit teach the NLI head nothing new; what the failing paraphrases lack is an NLI
model that reads reworded clauses, which a logistic head over sentence embeddings does not give.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

SEED = 47

_FIRST = [
    "Ingrid",
    "Halvorsen",
    "Tomasz",
    "Wierzbicki",
    "Amara",
    "Okafor",
    "Lucien",
    "Marchetti",
    "Priya",
    "Raghavan",
    "Dmitri",
    "Volkov",
    "Saoirse",
    "Kavanagh",
    "Mateo",
    "Villanueva",
    "Keiko",
    "Tanabe",
    "Olusegun",
    "Adeyemi",
    "Freya",
    "Lindqvist",
    "Rashid",
    "Haddad",
    "Beatriz",
    "Quintero",
    "Henrik",
    "Aalto",
    "Yusuf",
    "Demir",
    "Clementine",
    "Roux",
    "Anouk",
    "Visser",
    "Kwame",
    "Mensah",
    "Elif",
    "Arslan",
    "Bruno",
    "Castellano",
]
PEOPLE = tuple(f"{a} {b}" for a, b in zip(_FIRST[::2], _FIRST[1::2], strict=True))
ORGS = (
    "Ortiz Freight",
    "Bellweather Analytics",
    "Kestrel Biotech",
    "Northgate Insurance",
    "Halden Robotics",
    "Silverline Media",
    "Corvid Software",
    "Pinecrest Foods",
    "Ashford Mining",
    "Lindqvist Textiles",
    "Redfern Aviation",
    "Marlowe Pharma",
    "Tessaract Systems",
    "Glenmore Utilities",
)
PLACES = (
    "Lisbon",
    "Gdansk",
    "Porto Alegre",
    "Aarhus",
    "Leeds",
    "Osaka",
    "Nairobi",
    "Tartu",
    "Graz",
    "Valparaiso",
    "Cork",
    "Bilbao",
    "Brno",
    "Adelaide",
)
EVENTS = (
    "shareholder meeting",
    "product launch",
    "board election",
    "science fair",
    "book festival",
    "staff retreat",
    "trade show",
    "hackathon",
    "open day",
    "annual audit",
)
GADGETS = (
    "Pelican drone",
    "Ferro kettle",
    "Lark e-reader",
    "Brisk scooter",
    "Osprey projector",
    "Hollow speaker",
    "Kite smartwatch",
    "Marble blender",
    "Rook tablet",
    "Drift air purifier",
)
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# A role written out, its short form, and a reworded form.
ROLES = (
    ("chief financial officer", "CFO", "head of finance"),
    ("chief operating officer", "COO", "head of operations"),
    ("chief marketing officer", "CMO", "head of marketing"),
    ("vice president of sales", "VP of sales", "sales vice president"),
    ("head of human resources", "HR head", "head of personnel"),
    ("general counsel", "GC", "chief lawyer"),
)
# Verb phrases with the same meaning, and one with the opposite (for the negated statement).
STARTED = ("joined", "started working at", "came to", "was hired by")
LEFT = ("left", "departed from", "quit", "stepped away from")
POSTPONED = ("was rescheduled for", "has been moved to", "was put off until", "will now take place on")
ACQUIRED = ("has agreed to acquire", "is purchasing", "will take over", "is set to buy")
# Units: (value written in the passage's unit, the statement's unit, factor statement / passage).
LENGTHS = (("km", "metres", 1000), ("kilometres", "m", 1000), ("metres", "cm", 100))
MASSES = (("kg", "grams", 1000), ("kilograms", "g", 1000), ("tonnes", "kg", 1000))
DURATIONS = (("hours", "minutes", 60), ("weeks", "days", 7), ("minutes", "seconds", 60), ("days", "hours", 24))
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]

FILLERS = (
    "The cafeteria on the ground floor closes at {h} pm on Fridays.",
    "{org} also runs a warehouse near {place}.",
    "Parking permits for visitors cost {n} euros a day.",
    "{person} wrote the foreword to the company history.",
    "The newsletter goes out every second Tuesday.",
    "Tickets for the {event} sold out within {n} hours.",
    "A new bike lane along the river opened last spring.",
    "The {gadget} comes in three colours.",
)


class _Draw:
    """The slots of one row, drawn from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: tuple[Any, ...] | list[Any]) -> Any:
        return self.rng.choice(options)

    def other(self, options: tuple[Any, ...] | list[Any], *but: Any) -> Any:
        return self.rng.choice([o for o in options if o not in but])

    def filler(self, *but: str) -> str:
        while True:
            slots = {
                "h": self.rng.randint(2, 9),
                "n": self.rng.randint(3, 40),
                "org": self.pick(ORGS),
                "place": self.pick(PLACES),
                "person": self.pick(PEOPLE),
                "event": self.pick(EVENTS),
                "gadget": self.pick(GADGETS),
            }
            text = self.pick(FILLERS).format(**slots)
            if not any(word in text for word in but):
                return text


def _changed(rng: random.Random, value: int) -> int:
    return value + rng.choice([-3, -2, -1, 1, 2, 3, 5, 10]) if value > 10 else value + rng.choice([1, 2, 3])


def _role(d: _Draw) -> dict[str, Any]:
    person, org, (full, short, worded) = d.pick(PEOPLE), d.pick(ORGS), d.pick(ROLES)
    fact = d.pick(
        (
            f"{person} was appointed {full} of {org}.",
            f"{org} named {person} as its new {full}.",
            f"{person} serves as {full} at {org}.",
        )
    )
    title = d.pick((short, worded, full))
    claim = d.pick(
        (f"{org}'s {title} is {{p}}.", f"{{p}} is the {title} of {org}.", f"{{p}} holds the {title} role at {org}.")
    )
    other_role = d.other(ROLES, (full, short, worded))
    wrong = d.pick(
        (
            claim.format(p=d.other(PEOPLE, person)),
            claim.replace(title, d.pick(other_role)).format(p=person),
            claim.replace(org, d.other(ORGS, org)).format(p=person),
        )
    )
    return {"fact": fact, "supported": claim.format(p=person), "unsupported": wrong, "names": (person, org)}


def _career(d: _Draw) -> dict[str, Any]:
    person, org, year, month = d.pick(PEOPLE), d.pick(ORGS), d.rng.randint(1990, 2023), d.pick(MONTHS)
    started = d.rng.random() < 0.5
    verbs = STARTED if started else LEFT
    fact_verb = d.pick(("joined", "was hired by") if started else ("resigned from", "left"))
    fact = f"{person} {fact_verb} {org} in {month} {year}."
    verb = d.pick(verbs)
    claim = d.pick((f"{person} {verb} {org} in {month} {year}.", f"In {month} {year}, {person} {verb} {org}."))
    wrong = d.pick(
        (
            claim.replace(str(year), str(year + d.pick((-2, -1, 1, 3)))),
            claim.replace(month, d.other(MONTHS, month)),
            claim.replace(org, d.other(ORGS, org)),
            f"{person} did not {'join' if started else 'leave'} {org} in {month} {year}.",
        )
    )
    return {"fact": fact, "supported": claim, "unsupported": wrong, "names": (person, org)}


def _postponed(d: _Draw) -> dict[str, Any]:
    event, place, day, month = d.pick(EVENTS), d.pick(PLACES), d.rng.randint(1, 28), d.pick(MONTHS)
    fact = d.pick(
        (
            f"The {event} in {place} has been postponed to {day} {month}.",
            f"Organisers delayed the {event} in {place} until {month} {day}.",
        )
    )
    date = d.pick((f"{day} {month}", f"{month} {day}"))
    claim = d.pick(
        (
            f"The {event} in {place} {d.pick(POSTPONED)} {date}.",
            f"The new date of the {event} in {place} is {date}.",
            f"On {date} the delayed {event} in {place} will be held.",
        )
    )
    wrong = d.pick(
        (
            claim.replace(str(day), str(day % 28 + d.rng.randint(1, 5))),
            claim.replace(month, d.other(MONTHS, month)),
            claim.replace(place, d.other(PLACES, place)),
        )
    )
    return {"fact": fact, "supported": claim, "unsupported": wrong, "names": (event, place)}


def _deal(d: _Draw) -> dict[str, Any]:
    buyer = d.pick(ORGS)
    target = d.other(ORGS, buyer)
    amount, place = d.rng.randint(20, 900), d.pick(PLACES)
    fact = f"{buyer} signed a deal to acquire {target} for {amount} million euros. {target} is based in {place}."
    claim = d.pick(
        (
            f"{buyer} {d.pick(ACQUIRED)} {target} for {amount} million euros.",
            f"For {amount} million euros, {buyer} {d.pick(ACQUIRED)} {target}.",
            f"{target}, which is based in {place}, is being bought by {buyer} for {amount} million euros.",
        )
    )
    wrong = d.pick(
        (
            claim.replace(str(amount), str(_changed(d.rng, amount))),
            claim.replace(buyer, "@").replace(target, buyer).replace("@", target),
            claim.replace(place, d.other(PLACES, place))
            if place in claim
            else claim.replace(buyer, d.other(ORGS, buyer, target)),
            claim.replace("million", "billion"),
        )
    )
    return {"fact": fact, "supported": claim, "unsupported": wrong, "names": (buyer, target)}


def _measured(d: _Draw) -> dict[str, Any]:
    """A quantity in another unit (length, mass, duration, numbers in words), or the same unit."""
    gadget, other = d.pick(GADGETS), d.other(GADGETS, d.pick(GADGETS))
    kind = d.pick(("length", "mass", "duration"))
    value = d.rng.randint(2, 12)
    given, said, factor = d.pick({"length": LENGTHS, "mass": MASSES, "duration": DURATIONS}[kind])
    written = NUMBER_WORDS[value] if d.rng.random() < 0.3 else str(value)
    fact = {
        "length": f"The cable of the {gadget} is {written} {given} long, and the {other}'s is {value + 3} {given}.",
        "mass": f"The {gadget} weighs {written} {given}, while the {other} weighs {value + 4} {given}.",
        "duration": f"The battery of the {gadget} lasts {written} {given}; the {other}'s lasts {value + 2} {given}.",
    }[kind]
    converted = f"{value * factor:,}" if d.rng.random() < 0.8 else str(value * factor)
    same = d.rng.random() < 0.25
    amount = f"{value} {given}" if same else f"{converted} {said}"
    claim = {
        "length": d.pick((f"The {gadget} has a {amount} cable.", f"The {gadget}'s cable measures {amount}.")),
        "mass": d.pick((f"The {gadget} has a weight of {amount}.", f"At {amount}, the {gadget} is the lighter one.")),
        "duration": d.pick(
            (f"The {gadget} runs for {amount} on one charge.", f"One charge keeps the {gadget} going for {amount}.")
        ),
    }[kind]
    wrong = d.pick(
        (
            claim.replace(
                amount, f"{_changed(d.rng, value * factor):,} {said}" if not same else f"{value + 1} {given}"
            ),
            claim.replace(gadget, other),
        )
    )
    if "lighter one" in claim and wrong == claim.replace(gadget, other):
        wrong = claim.replace(amount, f"{value * factor * 2:,} {said}")
    return {"fact": fact, "supported": claim, "unsupported": wrong, "names": (gadget, other)}


def _opening(d: _Draw) -> dict[str, Any]:
    place, hour, days = d.pick(PLACES), d.rng.randint(6, 10), d.pick(("weekdays", "Saturdays", "Sundays"))
    venue = d.pick(("public library", "swimming pool", "museum", "town hall", "market hall"))
    fact = f"The {venue} in {place} opens at {hour} am on {days}."
    claim = d.pick(
        (
            f"On {days}, the {place} {venue} opens its doors at {hour} in the morning.",
            f"The {venue} in {place} welcomes visitors from {hour} am on {days}.",
            f"Visitors can enter the {place} {venue} at {hour} am on {days}.",
        )
    )
    wrong = d.pick(
        (
            claim.replace(f"{hour} ", f"{hour + d.pick((1, 2, 3))} "),
            claim.replace(place, d.other(PLACES, place)),
            claim.replace(days, d.other(("weekdays", "Saturdays", "Sundays"), days)),
        )
    )
    return {"fact": fact, "supported": claim, "unsupported": wrong, "names": (place, venue)}


KINDS: dict[str, Callable[[_Draw], dict[str, Any]]] = {
    "role": _role,
    "career": _career,
    "postponed": _postponed,
    "deal": _deal,
    "measured": _measured,
    "opening": _opening,
}


def grounded_rows(count: int, seed: int = SEED) -> list[dict[str, Any]]:
    """`count` rows in the NLI file's format (premise, hypothesis, label, source), half supported and
    half not, the kinds in turn; the fact sits among one or two unrelated sentences."""
    rng = random.Random(seed)
    draw = _Draw(rng)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    kinds = list(KINDS.items())
    attempts = 0
    while len(rows) < count and attempts < count * 10:
        name, make = kinds[attempts % len(kinds)]
        attempts += 1
        made = make(draw)
        fillers = [draw.filler(*made["names"]) for _ in range(rng.randint(0, 2))]
        sentences = [made["fact"], *fillers]
        rng.shuffle(sentences)
        premise = " ".join(sentences)
        supported = len(rows) % 2 == 0
        hypothesis = made["supported"] if supported else made["unsupported"]
        if (premise, hypothesis) in seen or (not supported and hypothesis == made["supported"]):
            continue
        seen.add((premise, hypothesis))
        label = "supported" if supported else "not_supported"
        rows.append({"premise": premise, "hypothesis": hypothesis, "label": label, "source": f"generated_{name}"})
    return rows
