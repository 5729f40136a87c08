"""Generated training pairs for Relevance: questions about one subject, each with answers in many
forms, and the answers to the other questions about the same subject as its negatives.

QNLI, the public training set, pairs Wikipedia questions with encyclopedic sentences: its positives
restate the question, and nothing in it is a chat answer ("$29 a month.", "Yes, on the Pro plan.",
a list of steps, a code block). These rows teach what an answer that does not restate the question
looks like, and that an answer about the same product to another question does not address it.

The templates here are written apart from the behaviour suites' (bench/generated/): they share the
lexicon, never a template. Faker (a development dependency) fills them, with a fixed seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

SEED = 7
Item = tuple[list[str], list[str]]  # (ways to ask, ways to answer)

CODE = (
    ("split a string on commas", "Python", "parts = line.split(',')"),
    ("check if a key is in a dict", "Python", "if 'name' in person:\n    print(person['name'])"),
    (
        "make an HTTP GET request",
        "JavaScript",
        "const response = await fetch(url);\nconst body = await response.json();",
    ),
    ("write to a file", "Go", 'err := os.WriteFile("out.txt", data, 0644)'),
    ("loop over a map", "Go", "for key, value := range counts {\n    fmt.Println(key, value)\n}"),
    ("convert a string to uppercase", "Java", "String loud = text.toUpperCase();"),
    ("create a virtual environment", "Python", "python -m venv .venv\nsource .venv/bin/activate"),
    ("join a list of strings", "Python", "', '.join(names)"),
    ("round a number to two decimals", "JavaScript", "const rounded = Math.round(x * 100) / 100;"),
    ("define a struct", "Rust", "struct Point {\n    x: f64,\n    y: f64,\n}"),
)
ADVICE = (
    (
        ["How can I focus better when working from home?", "Any tips to stay focused at home?"],
        [
            "Set fixed hours, keep a separate desk, and turn off notifications while you work.",
            "A routine helps: same start time, a tidy desk, short breaks every hour.",
        ],
    ),
    (
        ["What's a good first programming language?", "Which language should a beginner learn?"],
        ["Python: its syntax is simple and it is used everywhere.", "I'd start with Python, then JavaScript."],
    ),
    (
        ["How do I keep basil alive indoors?", "My basil plant keeps dying, what do I do?"],
        [
            "Give it six hours of sun, water when the top soil is dry, and pinch off the flowers.",
            "More light and less water: a sunny window and a pot that drains.",
        ],
    ),
    (
        ["What can I cook with eggs and spinach?", "Quick dinner idea with eggs and spinach?"],
        [
            "A frittata: wilt the spinach, pour beaten eggs over it, and bake for 15 minutes.",
            "Try shakshuka with spinach, or a simple omelette.",
        ],
    ),
    (
        ["How do I prepare for a job interview?", "Tips for my interview tomorrow?"],
        [
            "Research the company, prepare three stories about your work, and have questions ready for them.",
            "Practise answers out loud and get a good night's sleep.",
        ],
    ),
)


def _product_items(lex) -> list[Item]:
    name, kind = lex.product_name(), lex.pick(("tablet", "kettle", "scooter", "printer", "monitor", "drone", "speaker"))
    product = f"{name} {kind}"
    price, plan = lex.price(), lex.plan()
    unit, plural, amount, verb = lex.quantity()
    colours = lex.sample(("red", "navy", "white", "graphite", "green", "sand"), 2)
    years, country = lex.number(1, 5), lex.country()
    maker = lex.company()
    return [
        (
            [f"What's the price of the {product}?", f"How expensive is the {product}?", f"How much is the {product}?"],
            [f"{price}.", f"It's {price}.", f"The {product} sells for {price}.", f"{price}, tax included."],
        ),
        (
            [f"What colours does the {product} come in?", f"Which colours can I get the {product} in?"],
            [f"{colours[0].capitalize()} and {colours[1]}.", f"It comes in {colours[0]} or {colours[1]}."],
        ),
        (
            [f"How long is the warranty on the {product}?", f"Is there a warranty for the {product}?"],
            [f"{years} years.", f"Yes, {years} years from the date of purchase.", f"You get a {years}-year warranty."],
        ),
        (
            [f"Can I buy the {product} in {country}?", f"Do you ship the {product} to {country}?"],
            [
                f"Yes, we deliver to {country} in about a week.",
                f"Not at the moment, sorry: {country} is not on our list yet.",
                "Yes.",
            ],
        ),
        (
            [f"Who makes the {product}?", f"Which company manufactures the {product}?"],
            [f"{maker}.", f"It's made by {maker}.", f"{maker} builds it in {lex.city()}."],
        ),
        (
            [f"How much does the {product} weigh?" if verb == "weighs" else f"What is the capacity of the {product}?"],
            [f"{amount} {plural}.", f"About {amount} {plural}.", f"Roughly {amount} {plural}."],
        ),
        (
            [f"Is the {plan} plan enough to use the {product} with my team?", f"Does the {plan} plan cover teams?"],
            [f"Yes, {plan} includes up to {lex.number(3, 50)} users.", "No; teams need the Business plan."],
        ),
    ]


def _company_items(lex) -> list[Item]:
    company, person, year, city = lex.company(), lex.person(), lex.year(), lex.city()
    staff = lex.number(12, 4000)
    return [
        (
            [f"Who started {company}?", f"Who is the founder of {company}?"],
            [f"{person}.", f"{person} founded it.", f"It was founded by {person} and two friends."],
        ),
        (
            [f"What year did {company} open?", f"Since when has {company} existed?"],
            [f"{year}.", f"Since {year}.", f"It opened its doors in {year}."],
        ),
        (
            [f"Where is {company} based?", f"Where are {company}'s headquarters?"],
            [f"In {city}.", f"{city}.", f"Our head office is in {city}."],
        ),
        (
            [f"How many people work at {company}?", f"How big is {company}?"],
            [f"About {staff}.", f"Around {staff} employees.", f"{staff} people across three offices."],
        ),
        (
            [f"Who runs {company} today?", f"Who is {company}'s CEO?"],
            [f"{lex.person()}, since {lex.year()}.", f"{lex.person()} is the chief executive."],
        ),
    ]


def _support_items(lex) -> list[Item]:
    product, day, (_, time) = lex.product_name(), lex.weekday(), lex.time_of_day()
    days = lex.number(2, 14)
    return [
        (
            ["When do I get my money back after a return?", "How long do refunds take?"],
            [f"Within {days} business days.", f"{days} days after we receive the parcel.", f"Usually {days} days."],
        ),
        (
            [f"How do I delete my {product} account?", f"Steps to close my {product} account?"],
            [
                "1. Open Settings.\n2. Go to Account.\n3. Click Delete account and confirm.",
                "Go to Settings > Account > Delete account, then confirm by e-mail.",
            ],
        ),
        (
            [f"Is the helpdesk open on {day}?", f"Can I call support on {day}?"],
            [f"Yes, from {time}.", f"No, we're closed on {day}s.", f"Yes: {time} to 5 pm."],
        ),
        (
            [f"Can I change my username in {product}?", f"Is it possible to rename my {product} account?"],
            ["Yes, under Profile > Edit.", "No, usernames are permanent, but you can change the display name."],
        ),
        (
            [f"Why was my card declined on {product}?", "My payment failed, why?"],
            [
                "Usually the bank blocks the first online payment; approve it in your banking app and retry.",
                "The card may have expired or the billing address may not match.",
            ],
        ),
    ]


def _code_items(lex) -> list[Item]:
    items = []
    for task, language, code in lex.sample(CODE, 3):
        lead = lex.pick(("", "Use this:\n", "Here you go:\n", f"In {language} it's:\n"))
        asks = [
            f"How can I {task} in {language}?",
            f"{language}: how to {task}?",
            f"Show me how to {task} in {language}.",
        ]
        items.append((asks, [f"{lead}```\n{code}\n```", code]))
    return items


def _problem_items(lex) -> list[Item]:
    """A user who reports a problem rather than asking: answered with a fix, or with the question
    that must be answered before one can be given."""
    product, version = lex.product_name(), lex.version()
    return [
        (
            [f"My {product} app keeps crashing.", f"{product} crashes every time I open it."],
            [
                "Which version are you on, and which phone?",
                f"Update to {version}; it fixes a crash on start-up.",
                "Could you send me the crash report from Settings > Help?",
            ],
        ),
        (
            ["I was charged twice this month.", "There are two charges on my card for one order."],
            [
                "Sorry about that! Can you tell me the date and amount of both charges?",
                "The second charge is a hold and disappears within 3 days.",
                "I've refunded the duplicate; you'll see it in 5 business days.",
            ],
        ),
        (
            [f"I can't log in to {product}.", "The sign-in page says my password is wrong."],
            [
                "Do you use single sign-on or a password?",
                "Reset it with Forgot password; the link is valid for an hour.",
                "Is Caps Lock on? Passwords are case-sensitive.",
            ],
        ),
        (
            ["The export never finishes.", f"Exporting my {product} data is stuck at 90%."],
            [
                "How many records are you exporting?",
                "Large exports run in the background; you get an e-mail when the file is ready.",
            ],
        ),
    ]


def _data_items(lex) -> list[Item]:
    city, year, n = lex.city(), lex.year(), lex.number(3, 20)
    return [
        (
            [f"Show me the users who signed up in {year}.", f"Query for users registered in {year}?"],
            [
                f"SELECT * FROM users WHERE signup_year = {year};",
                f"SELECT id, email FROM users WHERE EXTRACT(YEAR FROM created_at) = {year};",
            ],
        ),
        (
            [f"Which stores are in {city}?", f"List the shops located in {city}."],
            [f"SELECT name FROM stores WHERE city = '{city}';"],
        ),
        (
            [f"Get the {n} latest orders.", f"How do I fetch the newest {n} orders?"],
            [f"SELECT * FROM orders ORDER BY created_at DESC LIMIT {n};"],
        ),
        (
            ["Write a query for the total revenue per region.", "SQL for revenue by region, please."],
            ["SELECT region, SUM(amount) AS revenue FROM sales GROUP BY region;"],
        ),
        (
            ["Give me SQL that finds the average rating of each product.", "Average rating per product?"],
            ["SELECT product_id, AVG(rating) FROM reviews GROUP BY product_id;"],
        ),
    ]


def _advice_items(lex) -> list[Item]:
    return [(list(asks), list(answers)) for asks, answers in lex.sample(ADVICE, 3)]


SUBJECTS: tuple[Callable, ...] = (
    _problem_items,
    _product_items,
    _company_items,
    _support_items,
    _code_items,
    _data_items,
    _advice_items,
)


def generate(count: int, seed: int = SEED) -> list[dict]:
    """About `count` rows {input, output, label, kind (the subject, for grouped checks)}: half answers
    to their question, half answers to
    another question about the same subject (two thirds) or about another subject (one third)."""
    from bench.generated.lexicon import Lexicon  # Faker: a development dependency, for training only

    rng = random.Random(seed)
    rows: list[dict] = []
    previous: list[Item] = []
    while len(rows) < count:
        lex = Lexicon(rng.getrandbits(48))
        subject = lex.pick(SUBJECTS)
        kind = "rows/" + subject.__name__.strip("_").removesuffix("_items")
        items = subject(lex)
        for index, (asks, answers) in enumerate(items):
            question = lex.pick(asks)
            others = [answer for k, (_, other) in enumerate(items) if k != index for answer in other]
            elsewhere = [answer for _, other in previous for answer in other]
            rows.append({"input": question, "output": lex.pick(answers), "label": 1, "kind": kind})
            negatives = elsewhere if previous and (not others or lex.chance(1 / 3)) else others
            if negatives:
                rows.append({"input": question, "output": lex.pick(negatives), "label": 0, "kind": kind})
        previous = items
    return rows[:count]
