"""Relevance: does the output address the input? Generated cases (see bench/generated/__init__.py).

An answer addresses a question when it gives what was asked, whether or not it restates the
question: a figure, a yes or no with detail, a list of steps, a code or SQL answer, a name. It does
not when it answers another question about the same product, or talks of something else.
"""

from __future__ import annotations

from bench.generated import Templates
from bench.generated import perturb as p
from bench.generated.lexicon import Lexicon

templates = Templates("relevance", evidence={"side": "below", "threshold": 0.5})
RELEVANT = {"min": 0.5}
NOT_RELEVANT = {"max": 0.5}

ACTIONS = (
    ("export my data", "Open Settings, choose Data, and click Export; a ZIP file arrives by e-mail within an hour."),
    ("add a team member", "Go to Team, click Invite, and enter their e-mail address; they join once they accept."),
    ("change my billing address", "Open Billing, edit the address under Invoices, and save; the next invoice uses it."),
    (
        "turn on two-factor authentication",
        "In Security, choose Two-factor, scan the QR code with an authenticator app, and enter the code.",
    ),
    (
        "cancel my subscription",
        "Open Billing, click Cancel plan, and confirm; you keep access until the end of the period.",
    ),
    ("reset my password", "Click Forgot password on the sign-in page, enter your e-mail, and follow the link we send."),
)
CODE_TASKS = (
    ("read a JSON file", "Python", "import json\n\nwith open('data.json') as f:\n    data = json.load(f)"),
    ("reverse a list", "Python", "items.reverse()  # in place\n# or: reversed_items = items[::-1]"),
    ("parse an integer from a string", "Go", 'n, err := strconv.Atoi("42")\nif err != nil {\n    log.Fatal(err)\n}'),
    ("remove duplicates from an array", "JavaScript", "const unique = [...new Set(values)];"),
    (
        "read a file line by line",
        "Rust",
        'let file = File::open("log.txt")?;\nfor line in BufReader::new(file).lines() {\n    println!("{}", line?);\n}',
    ),
    ("get the current date", "Java", "LocalDate today = LocalDate.now();"),
    ("sort a dictionary by value", "Python", "ordered = dict(sorted(scores.items(), key=lambda item: item[1]))"),
)


def _price(lex: Lexicon) -> tuple[str, str]:
    product = lex.product()
    return f"How much does the {product} cost?", f"It costs {lex.price()} {lex.period()}."


def _off_topic(lex: Lexicon) -> str:
    """An answer about something else of the same world: opening hours, an office, a shipment."""
    return lex.pick(
        (
            f"Our office in {lex.city()} opens at {lex.time_of_day()[1]} on weekdays.",
            f"Order {lex.order_number()} was shipped on {lex.date()}.",
            f"The {lex.product()} comes in {lex.pick(('red', 'blue', 'black', 'silver'))}.",
            f"{lex.person()} joined the {lex.pick(('sales', 'design', 'legal'))} team last year.",
        )
    )


@templates.add("price-figure", about="A price question answered with the price alone, without restating it.")
def price_figure(lex: Lexicon) -> dict:
    question, answer = _price(lex)
    return {"interaction": {"input": question, "output": answer}, "expect": RELEVANT}


@templates.add("yes-with-detail", about="A yes/no question answered with yes or no and a detail.")
def yes_with_detail(lex: Lexicon) -> dict:
    product, feature, plan = lex.product_name(), lex.feature(), lex.plan()
    answer = lex.pick(
        (
            f"Yes, it is included in the {plan} plan and above.",
            "Yes. You can turn it on from the admin settings.",
            f"No, that is only available on the {plan} plan.",
            "Not yet; it is planned for the next release.",
        )
    )
    return {"interaction": {"input": f"Does {product} support {feature}?", "output": answer}, "expect": RELEVANT}


@templates.add("step-list", about="A how-to question answered with numbered steps.")
def step_list(lex: Lexicon) -> dict:
    action, how = lex.pick(ACTIONS)
    steps = [step.strip().rstrip(".") for step in how.replace(", and ", ", ").replace("; ", ", ").split(", ")]
    answer = "\n".join(f"{index}. {step[:1].upper()}{step[1:]}." for index, step in enumerate(steps, 1))
    return {
        "interaction": {"input": f"How do I {action} in {lex.product_name()}?", "output": answer},
        "expect": RELEVANT,
    }


@templates.add("code-answer", about="A programming question answered with code and at most a line of prose.")
def code_answer(lex: Lexicon) -> dict:
    task, language, code = lex.pick(CODE_TASKS)
    lead = lex.pick(("", "Like this:\n", f"In {language}:\n"))
    return {
        "interaction": {"input": f"How do I {task} in {language}?", "output": f"{lead}```\n{code}\n```"},
        "expect": RELEVANT,
    }


@templates.add("sql-answer", about="A question about the data answered with a SQL query.")
def sql_answer(lex: Lexicon) -> dict:
    city, year = lex.city(), lex.year()
    question, query = lex.pick(
        (
            (
                f"Which query lists the customers in {city}?",
                f"SELECT name, email FROM customers WHERE city = '{city}';",
            ),
            (
                f"How do I count the orders placed in {year}?",
                f"SELECT COUNT(*) FROM orders WHERE EXTRACT(YEAR FROM placed_at) = {year};",
            ),
            (
                "How can I find the ten most expensive products?",
                "SELECT name, price FROM products ORDER BY price DESC LIMIT 10;",
            ),
        )
    )
    return {"interaction": {"input": question, "output": query}, "expect": RELEVANT}


@templates.add("who-leads", about="A who-question answered with a name and a role.")
def who_leads(lex: Lexicon) -> dict:
    department, person = lex.pick(("billing", "support", "security", "logistics")), lex.person()
    answer = lex.pick((f"{person} does.", f"{person}, since {lex.year()}.", f"That's {person}, our {lex.role()}."))
    return {"interaction": {"input": f"Who leads the {department} team?", "output": answer}, "expect": RELEVANT}


@templates.add("when-founded", about="A when-question answered with a date or year only.")
def when_founded(lex: Lexicon) -> dict:
    company = lex.company()
    answer = lex.pick((f"In {lex.year()}.", f"On {lex.date()}.", f"{lex.year()}, in {lex.city()}."))
    return {"interaction": {"input": f"When was {company} founded?", "output": answer}, "expect": RELEVANT}


@templates.add("measure-answer", about="A question about a quantity answered with the figure and its unit.")
def measure_answer(lex: Lexicon) -> dict:
    unit, plural, amount, verb = lex.quantity()
    question = {
        "weighs": "How heavy is",
        "is long": "How long is",
        "draws": "How much power does",
        "lasts": "How long does the battery of",
        "holds": "How much does",
        "stores": "How much can",
    }[verb]
    ending = {"draws": " draw", "lasts": " last", "holds": " hold", "stores": " store"}.get(verb, "")
    return {
        "interaction": {"input": f"{question} the {lex.product()}{ending}?", "output": f"About {amount} {plural}."},
        "expect": RELEVANT,
    }


@templates.add("opening-time", about="A when-question about opening hours answered with a time.")
def opening_time(lex: Lexicon) -> dict:
    day, (_, time) = lex.weekday(), lex.time_of_day()
    answer = lex.pick((f"At {time}.", f"{time}, and we close at 6 pm.", f"We open at {time} on {day}s."))
    return {"interaction": {"input": f"What time does support open on {day}?", "output": answer}, "expect": RELEVANT}


@templates.add("chat-recommendation", about="A conversational request answered with a suggestion.")
def chat_recommendation(lex: Lexicon) -> dict:
    city = lex.city()
    question, answer = lex.pick(
        (
            (
                f"Any tips for a rainy day in {city}?",
                "Try the old town's covered market in the morning, then a museum and a long lunch.",
            ),
            (
                "What should I name my golden retriever?",
                f"How about {lex.first_name()}? Sunny or Maple also suit a golden.",
            ),
            (
                "I can't sleep, what can I do?",
                "Keep the room cool and dark, put the phone away an hour before bed, and avoid coffee after noon.",
            ),
            (
                f"Can you suggest a gift for my {lex.pick(('sister', 'boss', 'dad'))}?",
                "A good notebook and pen, a cooking class, or tickets to a show they would not buy themselves.",
            ),
        )
    )
    return {"interaction": {"input": question, "output": answer}, "expect": RELEVANT}


@templates.add("other-question-same-product", about="An answer about the same product that answers another question.")
def other_question_same_product(lex: Lexicon) -> dict:
    product = lex.product()
    unit, plural, amount, verb = lex.quantity()
    question, answer = lex.pick(
        (
            (f"How much does the {product} cost?", f"The {product} {verb} {amount} {plural}."),
            (f"What colours does the {product} come in?", f"The {product} costs {lex.price()}."),
            (f"Is the {product} waterproof?", f"The {product} ships from {lex.city()} within {lex.number(2, 9)} days."),
        )
    )
    return {"interaction": {"input": question, "output": answer}, "expect": NOT_RELEVANT}


@templates.add("unrelated-answer", about="An answer about something unrelated to the question.")
def unrelated_answer(lex: Lexicon) -> dict:
    question, _ = _price(lex)
    question = lex.pick(
        (question, f"How do I {lex.pick(ACTIONS)[0]}?", f"Who leads the {lex.pick(('billing', 'support'))} team?")
    )
    return {"interaction": {"input": question, "output": _off_topic(lex)}, "expect": NOT_RELEVANT}


@templates.add(
    "polite-wrapper-invariance", fills=25, about="A greeting, apology, closing or filler around a relevant answer."
)
def polite_wrapper(lex: Lexicon) -> dict:
    question, answer = _price(lex)
    return {
        "kind": "INV",
        "interaction": {"input": question, "output": answer},
        "variant": {"output": p.wrap_politely(lex, answer)},
        "expect": {"tolerance": 0.15},
    }


@templates.add("case-and-spacing-invariance", fills=25, about="The same answer in other case or spacing.")
def case_and_spacing(lex: Lexicon) -> dict:
    product = lex.product_name()
    question, answer = f"Does {product} support {lex.feature()}?", f"Yes, it is included in the {lex.plan()} plan."
    change = lex.pick((p.change_case, p.change_spacing))
    return {
        "kind": "INV",
        "interaction": {"input": question, "output": answer},
        "variant": {"output": change(lex, answer)},
        "expect": {"tolerance": 0.15},
    }


@templates.add(
    "answer-replaced-by-off-topic", fills=25, about="A relevant answer replaced by one about something else."
)
def answer_replaced(lex: Lexicon) -> dict:
    question, answer = _price(lex)
    return {
        "kind": "DIR",
        "interaction": {"input": question, "output": answer},
        "variant": {"output": _off_topic(lex)},
        "expect": {"direction": "down", "by": 0.2, "variant_max": 0.5},
    }
