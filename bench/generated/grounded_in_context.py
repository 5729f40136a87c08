"""Grounded in context: is every factual statement of the output supported by the retrieved documents?
Generated cases (see bench/generated/__init__.py).

A statement is supported when a document says it, word for word or in other words: a copy, a
trimmed copy, a paraphrase with synonyms, an abbreviation, the same quantity in another unit or
the same time written another way. It is not supported when it changes one thing the document
says: a number, a time, a date, a name, a place, an attribute of another entity, or its polarity.
The user's question is never evidence; only `information_retrieval` is.

The texts are format strings filled from one dict of slots per case (`_slots`): a company, a
city, a person, a plan, a date, a number `n` in the range its fact gives, and so on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.generated import Templates
from bench.generated import perturb as p
from bench.generated.lexicon import CURRENCIES, FEATURES, PLANS, PRODUCT_NAMES, Lexicon

templates = Templates("grounded_in_context", evidence={"side": "below", "threshold": 0.5})
COPIED = {"min": 0.6}
SUPPORTED = {"min": 0.5}
UNSUPPORTED = {"max": 0.3}
INVARIANT = {"tolerance": 0.15}
DROPS = {"direction": "down", "by": 0.3, "variant_max": 0.3}

NUMBER_WORDS = (
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
)
LEADING_ROLES = (
    "chief executive",
    "head of engineering",
    "finance director",
    "chief technology officer",
    "head of sales",
    "support lead",
    "chief operating officer",
)
TEAMS = ("billing", "support", "security", "logistics", "research", "sales")
EVENTS = ("annual shareholder meeting", "spring sale", "developer conference", "charity run", "open day")
PHYSICAL = ("desk lamp", "router", "coffee grinder", "smart thermostat", "robot vacuum", "headset", "camera")
SDK_LANGUAGES = ("Python", "Go", "Rust", "Java", "TypeScript", "Ruby")
DIVISIONS = ("consumer", "cloud", "logistics", "payments")


@dataclass(frozen=True)
class Fact:
    """A question and the sentence of a document that answers it; `n`, if used, is drawn from low..high."""

    question: str
    sentence: str
    low: int = 2
    high: int = 99


# (question, sentence with {unit}, unit in full, unit symbol, low, high)
MEASURES = (
    ("How heavy is the {name} e-bike?", "The {name} e-bike weighs {n} {unit}.", "kilograms", "kg", 12, 30),
    (
        "How heavy is the {name} standing desk?",
        "The {name} standing desk weighs {n} {unit}.",
        "kilograms",
        "kg",
        15,
        40,
    ),
    (
        "How long is the {name} lamp's cable?",
        "The cable of the {name} desk lamp is {n} {unit} long.",
        "metres",
        "m",
        2,
        5,
    ),
    (
        "How much power does the {name} grinder draw?",
        "The {name} coffee grinder draws {n} {unit}.",
        "watts",
        "W",
        150,
        900,
    ),
    (
        "How long does the {name} headset's battery last?",
        "The {name} headset's battery lasts {n} {unit}.",
        "hours",
        "h",
        8,
        60,
    ),
    (
        "How much does the {name} dehumidifier hold?",
        "The tank of the {name} dehumidifier holds {n} {unit}.",
        "litres",
        "L",
        2,
        12,
    ),
    (
        "How much storage does the {name} camera have?",
        "The {name} camera comes with {n} {unit} of storage.",
        "gigabytes",
        "GB",
        32,
        512,
    ),
)
NUMBER_FACTS = (
    Fact("How many seats does the {plan} plan include?", "The {plan} plan includes {n} seats.", 3, 50),
    Fact(
        "How quickly are refunds issued?", "Refunds are issued within {n} business days of receiving the item.", 3, 30
    ),
    Fact(
        "How many people does {company} employ in {city}?",
        "{company} employs {n} people at its site in {city}.",
        20,
        900,
    ),
    Fact("How much storage comes with the {plan} plan?", "Every {plan} account comes with {n} GB of storage.", 5, 500),
    Fact(
        "How many passengers does the new ferry carry?",
        "The new ferry to {town} carries up to {n} passengers.",
        50,
        900,
    ),
    Fact("How long is the {name} free trial?", "New {name} customers get a free trial of {n} days.", 7, 60),
    Fact(
        "What is the API rate limit on the {plan} plan?", "The {plan} plan allows {n} API requests per minute.", 10, 999
    ),
    Fact("How much is the {plan} plan?", "The {plan} plan costs {symbol}{n}{suffix} per month.", 5, 299),
    Fact(
        "How many runners took part?",
        "Around {n} runners took part in the {city} half marathon on {weekday}.",
        300,
        9000,
    ),
    *(
        Fact(question, sentence.replace("{unit}", unit), low, high)
        for question, sentence, unit, _, low, high in MEASURES
    ),
)
PERSON_FACTS = (
    Fact("Who is the {role} of {company}?", "{person} has been the {role} of {company} since {year}."),
    Fact("Who leads the {team} team?", "The {team} team is led by {person}."),
    Fact("Who founded {company}?", "{company} was founded by {person} in {year}."),
    Fact("Who is giving the opening keynote?", "{person} will give the opening keynote at the {city} conference."),
    Fact("Who wrote the quarterly market report?", "The quarterly market report was written by {person}, an analyst."),
    Fact("Who is handling ticket {ticket}?", "Ticket {ticket} is assigned to {person} from the {team} team."),
)
PLACE_FACTS = (
    Fact("Where is {company} headquartered?", "{company} is headquartered in {city}."),
    Fact("Where does the {product} ship from?", "Orders of the {product} ship from our warehouse in {city}."),
    Fact("Where is this year's user conference?", "This year's user conference takes place in {city} on {date}."),
    Fact("Where will {company} open its new office?", "{company} will open its new office in {city} in {month}."),
    Fact("Where is data on the {plan} plan stored?", "Data on the {plan} plan is stored in our data centre in {city}."),
    Fact("Where was {company} founded?", "{company} was founded in {city} in {year}."),
)
DATE_FACTS = (
    Fact("When was version {version} of {name} released?", "Version {version} of {name} was released on {date}."),
    Fact("When is the {event}?", "The {event} takes place on {date}."),
    Fact("When does my subscription renew?", "Your {plan} subscription renews on {date}."),
    Fact("When was order {order} shipped?", "Order {order} was shipped on {date}."),
    Fact("When does support for version {version} end?", "Support for version {version} ends on {date}."),
)
TIME_FACTS = (
    Fact("What time does phone support open on {weekday}s?", "Phone support opens at {time} on {weekday}s."),
    Fact("When do the daily backups run?", "Daily backups of the {name} database run at {time}."),
    Fact("When does the {city} office close on Fridays?", "The {city} office closes at {time} on Fridays."),
    Fact("When does the maintenance on {weekday} start?", "Scheduled maintenance starts at {time} on {weekday}."),
    Fact("What time is the webinar on {feature}?", "The webinar on {feature} starts at {time}."),
)
ALL_FACTS = NUMBER_FACTS + PERSON_FACTS + PLACE_FACTS + DATE_FACTS + TIME_FACTS

# (question, document sentence, the sentence with a clause left out)
TRIMMED = (
    (
        "How long do refunds for the {product} take?",
        "Refunds for the {product} are issued within {days} business days, once the item reaches our warehouse.",
        "Refunds for the {product} are issued within {days} business days.",
    ),
    (
        "How many people work at {company}?",
        "{company}, which was founded in {year}, employs {staff} people in {city}.",
        "{company} employs {staff} people in {city}.",
    ),
    (
        "Where did {company} open its new office?",
        "On {date}, {company} opened a new office in {city} with room for {staff} staff.",
        "{company} opened a new office in {city}.",
    ),
    (
        "Does the {plan} plan include {feature}?",
        "The {plan} plan, which costs {price} per month, includes {feature}.",
        "The {plan} plan includes {feature}.",
    ),
    (
        "What does version {version} of {name} add?",
        "Version {version} of {name}, released on {date}, adds {feature}.",
        "Version {version} of {name} adds {feature}.",
    ),
)
# (question, document sentence, the same in other words)
SYNONYMS = (
    ("Who runs {company}?", "{person} is the chief executive of {company}.", "{company_s} CEO is {person}."),
    (
        "Who bought {other}?",
        "{company} purchased {other} in {month} {year}.",
        "{company} bought {other} in {month} {year}.",
    ),
    ("Where is {company} based?", "{company} has its headquarters in {city}.", "{company} is based in {city}."),
    ("When did the {product} come out?", "The {product} was launched on {date}.", "The {product} came out on {date}."),
    ("How big is {company}?", "{company} employs {staff} people.", "{company} has {staff} employees."),
    (
        "Can I return the {product}?",
        "Customers may return the {product} within {days} days of delivery.",
        "Yes, you can send the {product} back up to {days} days after it is delivered.",
    ),
    (
        "What does the {plan} plan cost?",
        "The {plan} plan costs {price} per month.",
        "The {plan} plan is priced at {price} a month.",
    ),
    (
        "When did {person} leave {company}?",
        "{person} resigned as {role} of {company} in {month} {year}.",
        "{person} stepped down as {company_s} {role} in {month} {year}.",
    ),
    ("When is the {event}?", "The {event} has been postponed to {date}.", "The {event} was pushed back to {date}."),
)
# (question, document sentence, the same with an abbreviation)
ABBREVIATIONS = (
    (
        "Is single sign-on in the {plan} plan?",
        "Single sign-on is included in the {plan} plan.",
        "SSO is included in the {plan} plan.",
    ),
    (
        "Does {name} support two-factor authentication?",
        "{name} supports two-factor authentication for all accounts.",
        "{name} supports 2FA for all accounts.",
    ),
    (
        "When did {person} join {company}?",
        "{person} joined {company} as chief technology officer in {year}.",
        "{person} joined {company} as CTO in {year}.",
    ),
    (
        "When did {company} open its first UK office?",
        "{company} opened its first office in the United Kingdom in {year}.",
        "{company} opened its first UK office in {year}.",
    ),
    (
        "Who handles payroll questions?",
        "Questions about payroll go to the human resources team in {city}.",
        "Payroll questions go to HR in {city}.",
    ),
    (
        "What is the {name} API rate limit?",
        "The {name} application programming interface allows {requests} requests per minute.",
        "The {name} API allows {requests} requests per minute.",
    ),
    (
        "What was {company_s} revenue in {year}?",
        "{company} reported revenue of {revenue} million US dollars in {year}.",
        "{company} reported revenue of USD {revenue}M in {year}.",
    ),
    (
        "How long does delivery to {country} take?",
        "Delivery to {country} takes approximately {small} business days.",
        "Delivery to {country} takes approx. {small} business days.",
    ),
    (
        "When is phone support available?",
        "Phone support is available Monday to Friday.",
        "Phone support is available Mon-Fri.",
    ),
)
# (question, document sentence, the same quantity in another unit)
CONVERSIONS = (
    (
        "How long does the {name} headset take to charge?",
        "A full charge of the {name} headset takes {hours_words} hours.",
        "Charging the {name} headset fully takes {minutes} minutes.",
    ),
    (
        "How long does the {name} headset take to charge?",
        "A full charge of the {name} headset takes an hour and a half.",
        "Charging the {name} headset fully takes 90 minutes.",
    ),
    (
        "How long is the onboarding call?",
        "The {name} onboarding call lasts half an hour.",
        "The {name} onboarding call lasts 30 minutes.",
    ),
    (
        "How heavy is the {name} coffee grinder?",
        "The {name} coffee grinder weighs {kilos} kilograms.",
        "The {name} coffee grinder weighs {grams} grams.",
    ),
    (
        "How long is the {name} lamp's cable?",
        "The cable of the {name} desk lamp is {metres} metres long.",
        "The cable of the {name} desk lamp is {centimetres} cm long.",
    ),
    (
        "How long do I have to return an item?",
        "Items can be returned within {week_days} days of delivery.",
        "You have {weeks_words} from delivery to return an item.",
    ),
    (
        "How long is the {name} warranty?",
        "The {name} robot vacuum comes with a {months}-month warranty.",
        "The {name} robot vacuum has a {years_words}-year warranty.",
    ),
    (
        "How much does the {name} kettle hold?",
        "The {name} kettle holds {litres} litres.",
        "The {name} kettle holds {millilitres} ml.",
    ),
)
# (article, a summary that adds nothing to it)
ARTICLES = (
    (
        "The city of {city} opened a new {small}-kilometre cycle lane on {weekday}. The lane links the central station "
        "with the university campus. Officials expect around {staff} cyclists a day to use it.",
        "{city} opened a {small}-kilometre cycle lane between the central station and the university on {weekday}. "
        "Officials expect about {staff} cyclists a day.",
    ),
    (
        "{company} reported revenue of {revenue} million euros for {year}, up {share} percent on the year before. "
        "The company plans to hire {requests} engineers in {city}.",
        "{company_s} revenue for {year} rose {share} percent to {revenue} million euros, and it plans to hire "
        "{requests} engineers in {city}.",
    ),
    (
        "{company} has agreed to buy {other} for {revenue} million dollars. The deal is expected to close in {month}. "
        "{other} will keep its office in {city}.",
        "{company} is buying {other} for {revenue} million dollars in a deal expected to close in {month}.",
    ),
    (
        "{person} was appointed chief executive of {company} on {date}. {person} previously ran the company's "
        "{division} division for {small} years.",
        "{company} named {person}, who ran its {division} division for {small} years, chief executive on {date}.",
    ),
)
# (question, document sentence, the answer giving one entity the other's attribute)
SWAPPED = (
    (
        "How much is the {plan} plan?",
        "The {plan} plan costs {symbol}{n}{suffix} per month and the {other_plan} plan "
        "costs {symbol}{other_n}{suffix} per month.",
        "The {plan} plan costs {symbol}{other_n}{suffix} per month.",
    ),
    (
        "What is {person}'s role at {company}?",
        "{person} is the {role} of {company} and {other_person} is its {other_role}.",
        "{person} is the {other_role} of {company}.",
    ),
    (
        "Where does {company_s} engineering team work?",
        "{company_s} engineering team works in {city}, while its sales team works in {town}.",
        "{company_s} engineering team works in {town}.",
    ),
    (
        "How heavy is the {name} e-bike?",
        "The {name} e-bike weighs {n} kilograms and the {other_name} e-bike weighs {other_n} kilograms.",
        "The {name} e-bike weighs {other_n} kilograms.",
    ),
    (
        "When was version {version} released?",
        "Version {version} was released on {date} and version {other_version} on {other_date}.",
        "Version {version} was released on {other_date}.",
    ),
    (
        "What does the {plan} plan include?",
        "The {plan} plan includes {feature}; the {other_plan} plan adds {other_feature}.",
        "The {plan} plan includes {other_feature}.",
    ),
)
# (question, document sentence, the answer saying the opposite)
NEGATED = (
    (
        "Does the {plan} plan include {feature}?",
        "The {plan} plan includes {feature}.",
        "The {plan} plan does not include {feature}.",
    ),
    (
        "Is shipping of the {product} free to {country}?",
        "The {product} ships free of charge to {country}.",
        "The {product} does not ship free of charge to {country}.",
    ),
    (
        "Is there a {language} SDK for {name}?",
        "The {name} SDK supports {language}.",
        "The {name} SDK does not support {language}.",
    ),
    (
        "Is the {product} under warranty?",
        "The {product} is covered by a {years}-year warranty.",
        "The {product} is not covered by a warranty.",
    ),
    (
        "Is data on the {plan} plan encrypted?",
        "Customer data on the {plan} plan is encrypted at rest.",
        "Customer data on the {plan} plan is not encrypted at rest.",
    ),
    (
        "Is {company} hiring in {city}?",
        "{company} is hiring in {city} this year.",
        "{company} is not hiring in {city} this year.",
    ),
    (
        "Is the {city} office open on Saturdays?",
        "The {city} office is open on Saturdays.",
        "The {city} office is not open on Saturdays.",
    ),
    (
        "Can I get {feature} on the {plan} plan?",
        "You can use {feature} on the {plan} plan at no extra cost.",
        "You cannot use {feature} on the {plan} plan.",
    ),
)


def _words(number: int) -> str:
    return NUMBER_WORDS[number] if number < len(NUMBER_WORDS) else str(number)


def _redraw(draw: Callable[[], Any], *avoid: Any) -> Any:
    """A draw unlike every value in `avoid`, and neither inside one of them nor holding one."""
    while True:
        value = draw()
        if all(str(value) not in str(old) and str(old) not in str(value) for old in avoid):
            return value


def _slots(lex: Lexicon) -> dict[str, Any]:
    """Every slot a text of this module may name, drawn once per case."""
    city, company, person, plan, date = lex.city(), lex.company(), lex.person(), lex.plan(), lex.date()
    symbol, suffix = lex.pick(CURRENCIES)
    return {
        "city": city,
        "town": _redraw(lex.city, city),
        "company": company,
        "company_s": f"{company}'" if company.endswith("s") else f"{company}'s",
        "other": _redraw(lex.company, company),
        "person": person,
        "other_person": _redraw(lex.person, person),
        "plan": plan,
        "other_plan": _redraw(lambda: lex.pick(PLANS), plan),
        "role": lex.pick(LEADING_ROLES),
        "team": lex.pick(TEAMS),
        "division": lex.pick(DIVISIONS),
        "year": lex.year(),
        "date": date,
        "month": lex.month(),
        "weekday": lex.weekday(),
        "version": lex.version(),
        "name": lex.product_name(),
        "product": f"{lex.product_name()} {lex.pick(PHYSICAL)}",
        "order": lex.order_number(),
        "ticket": lex.ticket(),
        "feature": lex.feature(),
        "time": lex.time_of_day()[1],
        "event": lex.pick(EVENTS),
        "symbol": symbol,
        "suffix": suffix,
        "price": lex.price(),
        "country": lex.country(),
        "language": lex.pick(SDK_LANGUAGES),
        "staff": lex.number(20, 900),
        "days": lex.number(14, 60),
        "small": lex.number(3, 12),
        "years": lex.number(2, 5),
        "share": lex.number(3, 40),
        "requests": lex.number(10, 999),
        "revenue": lex.number(5, 900),
    }


@dataclass(frozen=True)
class Drawn:
    """A fact with its slots filled."""

    fact: Fact
    slots: dict[str, Any]

    @property
    def question(self) -> str:
        return self.fact.question.format(**self.slots)

    def text(self, **changes: Any) -> str:
        return self.fact.sentence.format(**{**self.slots, **changes})


def _draw(lex: Lexicon, facts: Sequence[Fact]) -> Drawn:
    fact = lex.pick(facts)
    return Drawn(fact, {**_slots(lex), "n": lex.number(fact.low, fact.high)})


def _others(lex: Lexicon, fact: Fact | None, least: int, most: int) -> list[str]:
    """Sentences of other facts, of other entities: what else a retrieved document holds."""
    chosen = lex.sample([other for other in ALL_FACTS if other != fact], lex.random.randint(least, most))
    return [_draw(lex, [other]).text() for other in chosen]


def _document(lex: Lexicon, sentence: str, fact: Fact | None = None, most: int = 1) -> str:
    """One document of 1 to `most` + 1 sentences, `sentence` among them."""
    sentences = [*_others(lex, fact, 0, most), sentence]
    lex.random.shuffle(sentences)
    return " ".join(sentences)


def _interaction(lex: Lexicon, question: str, sentence: str, answer: str, fact: Fact | None = None) -> dict[str, Any]:
    return {"input": question, "information_retrieval": [_document(lex, sentence, fact)], "output": answer}


def _from_table(lex: Lexicon, table: Sequence[tuple[str, str, str]], expect: dict, slots: dict | None = None) -> dict:
    """An MFT case from a row of (question, document sentence, answer) filled from the slots."""
    slots = slots or _slots(lex)
    question, sentence, answer = (text.format(**slots) for text in lex.pick(table))
    return {"interaction": _interaction(lex, question, sentence, answer), "expect": expect}


def _other_value(lex: Lexicon, drawn: Drawn, slot: str, document: str) -> Any:
    """Another value for `slot`, one the document does not mention anywhere."""
    old = drawn.slots[slot]
    draw = {
        "n": lambda: lex.other_number(old, drawn.fact.low, drawn.fact.high),
        "person": lex.person,
        "city": lex.city,
        "date": lambda: _other_date(lex, old),
    }[slot]
    for _ in range(100):
        value = _redraw(draw, old)
        if not re.search(rf"(?<!\w){re.escape(str(value))}(?!\w)", document):
            return value
    return value  # every value of a narrow range is in the document: another one than the fact's


def _other_date(lex: Lexicon, date: str) -> str:
    """The date with its day, its month or its year changed, or another date altogether."""
    day, month, year = date.split()
    change = lex.pick(("day", "month", "year", "all"))
    if change == "day":
        return f"{_redraw(lambda: lex.random.randint(1, 28), int(day))} {month} {year}"
    if change == "month":
        return f"{day} {_redraw(lex.month, month)} {year}"
    if change == "year":
        return f"{day} {month} {_redraw(lambda: lex.random.randint(2015, 2026), int(year))}"
    return _redraw(lex.date, date)


def _changed(lex: Lexicon, facts: Sequence[Fact], slot: str) -> dict:
    """The document states a fact; the answer restates it with `slot` changed."""
    drawn = _draw(lex, facts)
    document = _document(lex, drawn.text(), drawn.fact)
    changed = drawn.text(**{slot: _other_value(lex, drawn, slot, document)})
    return {
        "interaction": {"input": drawn.question, "information_retrieval": [document], "output": changed},
        "expect": UNSUPPORTED,
    }


def _grounded(lex: Lexicon, facts: Sequence[Fact] = ALL_FACTS) -> tuple[Drawn, dict[str, Any]]:
    """A fact, and an interaction whose answer copies it from the document that states it."""
    drawn = _draw(lex, facts)
    return drawn, _interaction(lex, drawn.question, drawn.text(), drawn.text(), drawn.fact)


# --- supported -----------------------------------------------------------------------------------
@templates.add("copied-sentence", about="The answer copies the sentence of the document that answers the question.")
def copied_sentence(lex: Lexicon) -> dict:
    drawn = _draw(lex, ALL_FACTS)
    document = _document(lex, drawn.text(), drawn.fact, most=2)
    return {
        "interaction": {"input": drawn.question, "information_retrieval": [document], "output": drawn.text()},
        "expect": COPIED,
    }


@templates.add("trimmed-copy", about="The answer copies the document's sentence with a clause left out.")
def trimmed_copy(lex: Lexicon) -> dict:
    return _from_table(lex, TRIMMED, SUPPORTED)


@templates.add("answer-in-second-document", about="The answer copies a sentence of the second of several documents.")
def answer_in_second_document(lex: Lexicon) -> dict:
    drawn = _draw(lex, ALL_FACTS)
    first, *rest = _others(lex, drawn.fact, 1, 2)
    return {
        "interaction": {
            "input": drawn.question,
            "information_retrieval": [first, drawn.text(), *rest],
            "output": drawn.text(),
        },
        "expect": COPIED,
    }


@templates.add("synonym-paraphrase", about="The answer restates the document with synonyms (CEO, bought, based in).")
def synonym_paraphrase(lex: Lexicon) -> dict:
    return _from_table(lex, SYNONYMS, SUPPORTED)


@templates.add("abbreviation", about="The answer abbreviates what the document spells out (SSO, CTO, UK, HR, approx.).")
def abbreviation(lex: Lexicon) -> dict:
    return _from_table(lex, ABBREVIATIONS, SUPPORTED)


@templates.add("unit-symbol", about="The same quantity, its unit spelled out in one text and a symbol in the other.")
def unit_symbol(lex: Lexicon) -> dict:
    question, sentence, unit, symbol, low, high = lex.pick(MEASURES)
    name, n = lex.product_name(), lex.number(low, high)
    spelled = sentence.format(name=name, n=_words(n) if lex.chance(0.4) else n, unit=unit)
    short = sentence.format(name=name, n=n, unit=symbol)
    if lex.chance(0.3):
        short = short.replace(f"{n} {symbol}", f"{n}{symbol}")
    sentence, answer = (spelled, short) if lex.chance(0.7) else (short, spelled)
    return {"interaction": _interaction(lex, question.format(name=name), sentence, answer), "expect": SUPPORTED}


@templates.add(
    "converted-units", about="The same quantity in another unit (two hours and 120 minutes, 2 kg and 2,000 g)."
)
def converted_units(lex: Lexicon) -> dict:
    hours, kilos, metres = lex.number(2, 5), lex.number(2, 9), lex.number(2, 5)
    weeks, years, litres = lex.number(1, 4), lex.number(2, 5), lex.pick((0.5, 1.5, 2.5))
    extra = {
        "hours_words": _words(hours),
        "minutes": 60 * hours,
        "kilos": kilos,
        "grams": f"{kilos * 1000:,}",
        "metres": metres,
        "centimetres": 100 * metres,
        "week_days": 7 * weeks,
        "weeks_words": "one week" if weeks == 1 else f"{_words(weeks)} weeks",
        "months": 12 * years,
        "years_words": _words(years),
        "litres": litres,
        "millilitres": f"{int(litres * 1000):,}",
    }
    return _from_table(lex, CONVERSIONS, SUPPORTED, {**_slots(lex), **extra})


def _spelled_time(lex: Lexicon) -> tuple[str, str]:
    """(a time of day in words, the same time in digits): "half past nine in the morning", "9:30 am"."""
    hour, minute = lex.random.randint(7, 20), lex.pick((0, 15, 30, 45))
    named = hour + 1 if minute == 45 else hour  # "a quarter to ten" names the next hour
    word = NUMBER_WORDS[named if named <= 12 else named - 12]
    spoken = {0: f"{word} o'clock", 15: f"a quarter past {word}", 30: f"half past {word}", 45: f"a quarter to {word}"}
    part = "in the morning" if named < 12 else "in the afternoon" if named < 18 else "in the evening"
    words = "midday" if (named, minute) == (12, 0) else f"{spoken[minute]} {part}"
    if lex.chance(0.5):
        return words, f"{hour:02d}:{minute:02d}"
    return words, f"{hour if hour <= 12 else hour - 12}:{minute:02d} {'am' if hour < 12 else 'pm'}"


@templates.add("spelled-out-time", about="The same time of day in words in one text and in digits in the other.")
def spelled_out_time(lex: Lexicon) -> dict:
    drawn = _draw(lex, TIME_FACTS)
    words, digits = _spelled_time(lex)
    sentence, answer = drawn.text(time=words), drawn.text(time=digits)
    if lex.chance(0.3):
        sentence, answer = answer, sentence
    return {"interaction": _interaction(lex, drawn.question, sentence, answer, drawn.fact), "expect": SUPPORTED}


@templates.add("faithful-summary", about="A one- or two-sentence summary of a short news item that adds nothing.")
def faithful_summary(lex: Lexicon) -> dict:
    slots = _slots(lex)
    article, summary = (text.format(**slots) for text in lex.pick(ARTICLES))
    return {
        "interaction": {"input": "Summarise the article.", "information_retrieval": [article], "output": summary},
        "expect": SUPPORTED,
    }


# --- not supported: the document states the fact, the answer changes one thing ----------------------
@templates.add("changed-number", about="The answer restates the document's fact with another number.")
def changed_number(lex: Lexicon) -> dict:
    return _changed(lex, NUMBER_FACTS, "n")


@templates.add("changed-time-of-day", about="The answer restates the document's fact with another time of day.")
def changed_time_of_day(lex: Lexicon) -> dict:
    drawn = _draw(lex, TIME_FACTS)
    hour, shown = lex.time_of_day()
    other = lex.other_number(hour, 6, 21)
    if shown.endswith("m"):  # "9 am", "6 pm": the other hour in the same style
        changed = f"{other if other <= 12 else other - 12} {'am' if other < 12 else 'pm'}"
    else:
        changed = f"{other:02d}:{shown[3:]}"
    document = _document(lex, drawn.text(time=shown), drawn.fact)
    return {
        "interaction": {
            "input": drawn.question,
            "information_retrieval": [document],
            "output": drawn.text(time=changed),
        },
        "expect": UNSUPPORTED,
    }


@templates.add("changed-date", about="The answer restates the document's fact with another date.")
def changed_date(lex: Lexicon) -> dict:
    return _changed(lex, DATE_FACTS, "date")


@templates.add("changed-person", about="The answer restates the document's fact with another person's name.")
def changed_person(lex: Lexicon) -> dict:
    return _changed(lex, PERSON_FACTS, "person")


@templates.add("changed-place", about="The answer restates the document's fact with another place.")
def changed_place(lex: Lexicon) -> dict:
    return _changed(lex, PLACE_FACTS, "city")


@templates.add(
    "attribute-of-another-entity", about="The document gives two entities an attribute each; the answer swaps."
)
def attribute_of_another_entity(lex: Lexicon) -> dict:
    slots = _slots(lex)
    n = lex.number(12, 30)
    feature, other_feature = lex.sample(FEATURES, 2)
    name, other_name = lex.sample(PRODUCT_NAMES, 2)
    extra = {
        "n": n,
        "other_n": lex.other_number(n, 12, 30),
        "other_role": _redraw(lambda: lex.pick(LEADING_ROLES), slots["role"]),
        "other_version": _redraw(lex.version, slots["version"]),
        "other_date": _other_date(lex, slots["date"]),
        "feature": feature,
        "other_feature": other_feature,
        "name": name,
        "other_name": other_name,
    }
    return _from_table(lex, SWAPPED, UNSUPPORTED, {**slots, **extra})


@templates.add("negated", about="The answer says the opposite of the document: not included, not supported.")
def negated(lex: Lexicon) -> dict:
    return _from_table(lex, NEGATED, UNSUPPORTED)


# --- invariance ------------------------------------------------------------------------------------
@templates.add("polite-wrapper-invariance", fills=25, about="A greeting, apology, closing or filler around a copy.")
def polite_wrapper(lex: Lexicon) -> dict:
    _, interaction = _grounded(lex)
    return {
        "kind": "INV",
        "interaction": interaction,
        "variant": {"output": p.wrap_politely(lex, interaction["output"])},
        "expect": INVARIANT,
    }


@templates.add("document-order-invariance", fills=25, about="The same documents in another order.")
def document_order(lex: Lexicon) -> dict:
    drawn = _draw(lex, ALL_FACTS)
    documents = [drawn.text(), *_others(lex, drawn.fact, 1, 2)]
    lex.random.shuffle(documents)
    return {
        "kind": "INV",
        "interaction": {"input": drawn.question, "information_retrieval": documents, "output": drawn.text()},
        "variant": {"information_retrieval": p.reorder(lex, documents)},
        "expect": INVARIANT,
    }


@templates.add("case-and-spacing-invariance", fills=25, about="The same copied answer in other case or spacing.")
def case_and_spacing(lex: Lexicon) -> dict:
    _, interaction = _grounded(lex)
    variant = interaction["output"]
    while variant == interaction["output"]:  # a one-sentence answer has no ". " to break at
        variant = lex.pick((p.change_case, p.change_spacing))(lex, interaction["output"])
    return {
        "kind": "INV",
        "interaction": interaction,
        "variant": {"output": variant},
        "expect": INVARIANT,
    }


# --- directional -----------------------------------------------------------------------------------
@templates.add("number-changed-direction", fills=25, about="A copied answer, then the same answer with another number.")
def number_changed(lex: Lexicon) -> dict:
    drawn, interaction = _grounded(lex, NUMBER_FACTS)
    value = _other_value(lex, drawn, "n", interaction["information_retrieval"][0])
    return {"kind": "DIR", "interaction": interaction, "variant": {"output": drawn.text(n=value)}, "expect": DROPS}


@templates.add("name-changed-direction", fills=25, about="A copied answer, then the same with another person or place.")
def name_changed(lex: Lexicon) -> dict:
    slot = lex.pick(("person", "city"))
    drawn, interaction = _grounded(lex, PERSON_FACTS if slot == "person" else PLACE_FACTS)
    value = _other_value(lex, drawn, slot, interaction["information_retrieval"][0])
    variant = {"output": drawn.text(**{slot: value})}
    return {"kind": "DIR", "interaction": interaction, "variant": variant, "expect": DROPS}
