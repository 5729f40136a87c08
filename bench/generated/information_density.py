"""Information Density: how much information the output carries, sentence by sentence. Generated
cases (see bench/generated/__init__.py).

0 says nothing, 1 is an output every sentence of which carries information: a support answer with
its figures, dates and names, a summary of a report or a meeting, a release note, a command to run.
Courtesy ("Thank you for your patience!"), filler ("That's a great question"), a question restated
in other words, vague hedging and a request for more details carry none; an answer padded with
courtesy sentences carries less per sentence than the answer alone.
"""

from __future__ import annotations

from bench.generated import Templates
from bench.generated import perturb as p
from bench.generated.lexicon import DEPARTMENTS, WEEKDAYS, Lexicon

templates = Templates("information_density", evidence={"side": "below", "threshold": 0.5})
DENSE = {"min": 0.5}
EMPTY = {"max": 0.5}

COURTESY = (
    "Thank you for your patience!",
    "We appreciate you reaching out.",
    "We are always happy to help.",
    "Thanks so much for getting in touch with us.",
    "Your satisfaction is our top priority.",
    "Please don't hesitate to contact us again.",
    "Have a wonderful day!",
    "It's a pleasure to assist you.",
    "Thank you for being such a valued customer.",
    "We hope you have a great experience with us.",
    "Thank you for choosing {company}!",
    "We truly value your feedback.",
    "We're here for you whenever you need us.",
    "I hope this message finds you well.",
)
FILLER = (
    "That's a great question.",
    "There are a lot of things to consider here.",
    "It really depends on a number of factors.",
    "At the end of the day, it's all about what works best for you.",
    "This is something many people wonder about.",
    "There's no simple way to put it.",
    "It's definitely worth thinking about.",
    "Everyone's situation is a little different.",
    "Let's take a look at this together.",
    "That's an interesting point to raise.",
)
HEDGES = (
    "It might happen at some point, depending on various things.",
    "It could be sooner or it could be later, it's hard to say really.",
    "Possibly, in some cases, but maybe not in others.",
    "It may or may not be the case, depending on the circumstances.",
    "Things like this can vary quite a bit, so it's probably somewhere in between.",
    "Perhaps, though it depends on a few factors here and there.",
)
ASKS_BACK = (
    "Could you tell me a bit more about what you need?",
    "Can you share more details about the issue?",
    "What exactly are you trying to do?",
    "Could you clarify your question?",
    "Can you explain a little more about your situation?",
    "Which part of this would you like to know about?",
)


def _sentences(lex: Lexicon, pool: tuple[str, ...], low: int = 2, high: int = 4) -> str:
    company = lex.company()
    return " ".join(sentence.format(company=company) for sentence in lex.sample(pool, lex.number(low, high)))


def _question(lex: Lexicon) -> tuple[str, tuple[str, ...]]:
    """A support question and ways of restating it that add nothing to it."""
    product, feature, order = lex.product(), lex.feature(), lex.order_number()
    return lex.pick(
        (
            (
                f"How much does the {product} cost?",
                (
                    f"You'd like to know how much the {product} costs.",
                    f"So your question is about the price of the {product}.",
                    f"In other words, you're asking what the {product} costs.",
                    f"The cost of the {product} is what you want to find out.",
                ),
            ),
            (
                f"Does the {product} support {feature}?",
                (
                    f"You're asking whether the {product} supports {feature}.",
                    f"So the question is if {feature} works with the {product}.",
                    f"You want to know about {feature} on the {product}.",
                    f"Whether the {product} has {feature} is what you'd like to find out.",
                ),
            ),
            (
                f"When will order {order} arrive?",
                (
                    f"You'd like to know when order {order} will arrive.",
                    f"So your question is about the delivery of order {order}.",
                    f"In other words, you're asking when you'll receive order {order}.",
                    f"The arrival date of order {order} is what you want to know.",
                ),
            ),
            (
                "How do I reset my password?",
                (
                    "You're asking how to reset your password.",
                    "So you'd like to know the way to reset your password.",
                    "In other words, you want to change your password because you need a new one.",
                    "Resetting your password is what you're asking about.",
                ),
            ),
        )
    )


def _dense(lex: Lexicon) -> tuple[str, str]:
    """A question and a dense answer to it: figures, dates, names, steps."""
    return lex.pick((_spec_answer, _order_answer, _plan_answer, _report_answer, _release_answer))(lex)


def _spec_answer(lex: Lexicon) -> tuple[str, str]:
    name = lex.product_name()
    kind, answer = lex.pick(
        (
            (
                "e-bike",
                f"It weighs {lex.number(18, 28)} kg, has a range of {lex.number(40, 120)} km and charges fully in "
                f"{lex.number(3, 7)} hours.",
            ),
            (
                "robot vacuum",
                f"It runs for {lex.number(60, 180)} minutes per charge, holds {lex.number(3, 8)}00 ml of dust and "
                f"maps up to {lex.number(3, 9)} rooms.",
            ),
            (
                "router",
                f"It supports Wi-Fi 6, has {lex.number(3, 8)} Ethernet ports and covers about {lex.number(80, 250)} "
                "square metres.",
            ),
            (
                "headset",
                f"It weighs {lex.number(180, 320)} g, lasts {lex.number(20, 60)} hours per charge and pairs with two "
                "devices over Bluetooth 5.3.",
            ),
        )
    )
    return f"What are the specs of the {name} {kind}?", f"The {name} {kind} costs {lex.price()}. {answer}"


def _order_answer(lex: Lexicon) -> tuple[str, str]:
    order, city = lex.order_number(), lex.city()
    left, arrives = lex.sample(WEEKDAYS, 2)
    carrier = lex.pick(("DHL", "UPS", "FedEx", "Royal Mail", "DPD"))
    return (
        f"Where is my order {order}?",
        f"Order {order} left our {city} warehouse on {left} with {carrier}, tracking number "
        f"{lex.number(10000000, 99999999)}. It is due on {arrives} before {lex.number(1, 6)} pm.",
    )


def _plan_answer(lex: Lexicon) -> tuple[str, str]:
    name, plan, feature = lex.product_name(), lex.plan(), lex.feature()
    return (
        f"What does the {plan} plan of {name} include?",
        f"The {plan} plan costs {lex.price()} {lex.period()}, covers {lex.number(3, 50)} seats and includes "
        f"{feature}, {lex.number(10, 500)} GB of storage and e-mail support within {lex.number(4, 48)} hours.",
    )


def _report_answer(lex: Lexicon) -> tuple[str, str]:
    company, year, person = lex.company(), lex.year(), lex.person()
    return (
        f"Summarise {company}'s {year} annual report.",
        f"{company} earned {lex.number(12, 900)} million dollars in {year}, up {lex.number(2, 30)}% on the year "
        f"before. It employed {lex.number(80, 4000)} people in {lex.number(2, 15)} countries and opened an office "
        f"in {lex.city()}. {person} became {lex.role()} in {lex.month()}.",
    )


def _release_answer(lex: Lexicon) -> tuple[str, str]:
    name, version, feature = lex.product_name(), lex.version(), lex.feature()
    return (
        f"What changed in {name} {version}?",
        f"{name} {version} adds {feature} to the {lex.plan()} plan and fixes the CSV export timeout "
        f"(commit {lex.commit_hash()}). It drops support for "
        f"{lex.pick(('Python 3.8', 'Node 16', 'iOS 15', 'Windows 8'))}.",
    )


@templates.add(
    "product-specs", fills=25, about="A product question answered with its price and specifications in figures."
)
def product_specs(lex: Lexicon) -> dict:
    question, answer = _spec_answer(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "order-status", fills=25, about="An order question answered with the warehouse, carrier, tracking number and day."
)
def order_status(lex: Lexicon) -> dict:
    question, answer = _order_answer(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "plan-details", fills=25, about="A question about a plan answered with its price, seats, features and limits."
)
def plan_details(lex: Lexicon) -> dict:
    question, answer = _plan_answer(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "report-summary", fills=25, about="A summary of an annual report: revenue, growth, staff, offices, people."
)
def report_summary(lex: Lexicon) -> dict:
    question, answer = _report_answer(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "rag-answer-from-documents", fills=25, about="An answer drawn from retrieved documents, with the facts it found."
)
def rag_answer(lex: Lexicon) -> dict:
    person, company, city, year = lex.person(), lex.company(), lex.city(), lex.year()
    staff, sites = lex.number(40, 900), lex.number(2, 9)
    document = (
        f"{company} was founded in {city} in {year} by {person}. It runs {sites} plants and employs {staff} people."
    )
    question, answer = lex.pick(
        (
            (f"Who founded {company}, and when?", f"{person} founded {company} in {city} in {year}."),
            (
                f"How big is {company}?",
                f"{company} employs {staff} people across {sites} plants; it was founded in {city} in {year}.",
            ),
            (
                f"Where did {company} start?",
                f"In {city}: {person} founded it there in {year}, and it now runs {sites} plants.",
            ),
        )
    )
    return {
        "interaction": {"input": question, "information_retrieval": [document], "output": answer},
        "expect": DENSE,
    }


@templates.add("meeting-summary", fills=25, about="Meeting notes: who reported what, with figures, owners and dates.")
def meeting_summary(lex: Lexicon) -> dict:
    first, second = lex.person(), lex.person()
    day = lex.weekday()
    answer = (
        f"{first} reported that {lex.pick(DEPARTMENTS)} costs fell {lex.number(2, 25)}% in {lex.month()}. "
        f"{second} will move the {lex.product_name()} launch to {day} {lex.number(1, 28)} {lex.month()} "
        f"and hire {lex.number(2, 9)} engineers in {lex.city()}."
    )
    return {"interaction": {"input": "Summarise the meeting.", "output": answer}, "expect": DENSE}


@templates.add(
    "release-note", fills=25, about="A release note: the version, what it adds and fixes, the commit, what it drops."
)
def release_note(lex: Lexicon) -> dict:
    question, answer = _release_answer(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "command-answer", fills=25, about="A how-to answered with the commands and settings to use, and their values."
)
def command_answer(lex: Lexicon) -> dict:
    version, port, retries = lex.version(), lex.number(3000, 9000), lex.number(2, 9)
    question, answer = lex.pick(
        (
            (
                "How do I install the client?",
                f"Run `pip install evalsite-client=={version}`, then set `EVALSITE_URL` to `http://localhost:{port}`.",
            ),
            (
                "How do I make the client retry?",
                f"Set `max_retries: {retries}` and `backoff_seconds: {lex.number(1, 30)}` in `config.yaml`; the "
                "client then retries on HTTP 429 and 503.",
            ),
            (
                "How do I start the server on another port?",
                f"Start it with `evalsite serve --port {port}`; version {version} and later also read `PORT` from "
                "the environment.",
            ),
        )
    )
    return {"interaction": {"input": question, "output": answer}, "expect": DENSE}


@templates.add(
    "courtesy-only", fills=30, about="An answer of courtesy sentences only: thanks, appreciation, good wishes."
)
def courtesy_only(lex: Lexicon) -> dict:
    question, _ = _dense(lex)
    return {"interaction": {"input": question, "output": _sentences(lex, COURTESY)}, "expect": EMPTY}


@templates.add("filler-only", fills=30, about="An answer of filler sentences that say nothing about the question.")
def filler_only(lex: Lexicon) -> dict:
    question, _ = _dense(lex)
    return {"interaction": {"input": question, "output": _sentences(lex, FILLER)}, "expect": EMPTY}


@templates.add(
    "restated-question", fills=30, about="An answer that restates the question in other words, again and again."
)
def restated_question(lex: Lexicon) -> dict:
    question, restatements = _question(lex)
    output = " ".join(lex.sample(restatements, lex.number(2, 4)))
    return {"interaction": {"input": question, "output": output}, "expect": EMPTY}


@templates.add("vague-hedging", fills=25, about="An answer of vague hedges with no fact in them.")
def vague_hedging(lex: Lexicon) -> dict:
    question = lex.pick(
        (
            f"When will order {lex.order_number()} arrive?",
            f"Will {lex.product_name()} {lex.version()} fix the sync bug?",
            f"Is the {lex.product()} back in stock?",
            f"Will the {lex.plan()} plan get {lex.feature()}?",
        )
    )
    return {"interaction": {"input": question, "output": _sentences(lex, HEDGES, 1, 3)}, "expect": EMPTY}


@templates.add("asks-back-only", fills=20, about="An answer that only asks for more details.")
def asks_back(lex: Lexicon) -> dict:
    question, _ = _dense(lex)
    output = _sentences(lex, ASKS_BACK, 1, 2)
    if lex.chance(0.5):
        output = f"{lex.pick(p.GREETINGS)} {output}"
    return {"interaction": {"input": question, "output": output}, "expect": EMPTY}


@templates.add("case-and-spacing-invariance", fills=25, about="A dense answer in other case or spacing.")
def case_and_spacing(lex: Lexicon) -> dict:
    question, answer = _dense(lex)
    change = lex.pick((p.change_case, p.change_spacing))
    return {
        "kind": "INV",
        "interaction": {"input": question, "output": answer},
        "variant": {"output": change(lex, answer)},
        "expect": {"tolerance": 0.15},
    }


@templates.add(
    "padded-with-courtesy", fills=25, about="A dense answer padded with courtesy sentences before and after."
)
def padded_with_courtesy(lex: Lexicon) -> dict:
    question, answer = _dense(lex)
    company = lex.company()
    before, *after = (sentence.format(company=company) for sentence in lex.sample(COURTESY, lex.number(2, 3)))
    padded = " ".join([before, answer, *after])
    return {
        "kind": "DIR",
        "interaction": {"input": question, "output": answer},
        "variant": {"output": padded},
        "expect": {"direction": "down", "by": 0.1},
    }
