"""Generated pairs for Relevance that vary the form of the answer, not the subject.

`relevance_rows.py` and `relevance_chat_rows.py` give each question a few fixed answer strings.
A head trained on them learns those strings' forms. Here each kind of question (a figure, a yes or
no, a list of steps, code, a name, a date, a place, a reason, a choice) is answered by composing a
form at random: a bare fragment, a pronoun clause, a hedge, a yes/no with its detail, numbered or
bulleted or prose steps, a code block with or without a line of prose, a figure with its unit.

The hard negatives are answers to another question about the same subject, composed the same way,
so that neither the subject's words nor the answer's form tell the label; a third of the negatives
answer a question of another kind about another subject.

Written apart from the behaviour suites (bench/generated/): its own subjects and phrasings, no
import from them. Everything comes from one seeded `random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

SEED = 23

# Subjects: (name, what it is, what it does for the asker).
THINGS = (
    ("Harbor", "note-taking app", "notes"),
    ("Quill Pro", "invoicing service", "invoices"),
    ("Trailmate", "GPS watch", "runs"),
    ("Brightline", "electric bike", "commutes"),
    ("Oakridge Inn", "hotel", "stays"),
    ("Lumen 4K", "projector", "movie nights"),
    ("Pathwise", "online course", "lessons"),
    ("Kestrel", "password manager", "passwords"),
    ("Ferngrove", "co-working space", "desks"),
    ("Nimbus Sync", "backup tool", "backups"),
    ("Copperleaf", "coffee grinder", "coffee"),
    ("Tideway", "ferry line", "crossings"),
    ("Orbitly", "task tracker", "projects"),
    ("Maplestone", "dental clinic", "appointments"),
    ("Vantage", "road bike", "rides"),
    ("Pebble Cloud", "photo storage plan", "photos"),
)
NAMES = ("Amira Haddad", "Tomasz Wrona", "Keiko Sato", "Lucas Ferreira", "Grace Obi", "Henrik Dahl", "Priya Nair")
PLACES = ("Lisbon", "Tallinn", "Osaka", "Denver", "Leeds", "Porto Alegre", "Ghent", "Hobart")
MONTHS = ("January", "March", "May", "July", "September", "November")
UNITS = (("kg", "weighs"), ("litres", "holds"), ("hours", "lasts"), ("cm", "measures"), ("GB", "stores"))
LANGUAGES = ("Python", "JavaScript", "Go", "Ruby", "Bash", "TypeScript")
# (task, code by language; a language without its own line reuses Python's).
SNIPPETS = (
    ("load a JSON file", {"Python": "with open(path) as f:\n    data = json.load(f)", "Go": "json.Unmarshal(raw, &v)"}),
    ("sort a list of numbers", {"Python": "numbers.sort()", "JavaScript": "nums.sort((a, b) => a - b);"}),
    ("get today's date", {"Python": "date.today()", "JavaScript": "new Date()", "Ruby": "Date.today"}),
    ("count the lines of a file", {"Bash": "wc -l notes.txt", "Python": "sum(1 for _ in open(path))"}),
    ("remove duplicates from a list", {"Python": "unique = list(dict.fromkeys(items))"}),
    ("reverse a string", {"Python": "text[::-1]", "JavaScript": "s.split('').reverse().join('')"}),
    ("sleep for two seconds", {"Python": "time.sleep(2)", "Go": "time.Sleep(2 * time.Second)", "Bash": "sleep 2"}),
    ("parse an integer", {"Python": "n = int(text)", "TypeScript": "const n = parseInt(text, 10);"}),
    ("list files in a folder", {"Bash": "ls -la ./data", "Python": "os.listdir('data')"}),
)


# The share of answers that name their subject, positives and negatives alike.
NAMED_SHARE = 0.4


@dataclass(frozen=True)
class Question:
    kind: str
    asks: tuple[str, ...]
    answer: Callable[[random.Random], str]  # composes one answer, in a random form
    # Answers that name the subject as they answer ("Harbor costs $29 a month."): as negatives to
    # another question about it, they share its words and still do not address it.
    named: tuple[str, ...] = ()

    def compose(self, rng: random.Random) -> str:
        return _pick(rng, self.named) if self.named and rng.random() < NAMED_SHARE else self.answer(rng)


def _pick(rng: random.Random, options):
    return options[rng.randrange(len(options))]


def _hedge(rng: random.Random, text: str) -> str:
    """A fragment as people type it: bare, hedged, or with a pronoun clause around it."""
    form = rng.randrange(5)
    if form == 0:
        return f"{text}."
    if form == 1:
        return f"{_pick(rng, ('About', 'Roughly', 'Around', 'Just under'))} {text}."
    if form == 2:
        lead = _pick(rng, ("It is", "It's", "That would be", "Currently"))
        return f"{lead} {text}."
    if form == 3:
        return f"{text}, {_pick(rng, ('last time I checked', 'as of this year', 'give or take', 'more or less'))}."
    return f"{_pick(rng, ('I believe', 'I think', 'Pretty sure it is'))} {text}."


def _yes_no(rng: random.Random, yes: bool, detail: str) -> str:
    word = (
        _pick(rng, ("Yes", "Yep", "Sure", "Definitely", "Of course", "Absolutely", "It does", "We do"))
        if yes
        else _pick(rng, ("No", "Nope", "Not really", "Not yet", "Unfortunately not", "Sadly no", "It doesn't"))
    )
    form = rng.randrange(4)
    if form == 0:
        return f"{word}, {detail}."
    if form == 1:
        return f"{word}. {detail[0].upper()}{detail[1:]}."
    if form == 2:
        return f"{word} - {detail}."
    return f"{word}: {detail}."


def _steps(rng: random.Random, steps: list[str]) -> str:
    form = rng.randrange(5)
    if form == 0:
        return "\n".join(f"{k}. {step}" for k, step in enumerate(steps, 1))
    if form == 1:
        return "\n".join(f"- {step}" for step in steps)
    if form == 2:
        return ", then ".join(steps) + "."
    if form == 3:
        return f"{_pick(rng, ('Easy:', 'Here is how:', 'Do this:'))}\n" + "\n".join(
            f"{k}) {s}" for k, s in enumerate(steps, 1)
        )
    return " -> ".join(steps)


def _code(rng: random.Random, language: str, code: str) -> str:
    form = rng.randrange(4)
    if form == 0:
        return code
    if form == 1:
        return f"```{language.lower()}\n{code}\n```"
    if form == 2:
        return f"{_pick(rng, ('Try:', 'Like this:', 'Use', 'Simple:'))}\n\n```\n{code}\n```"
    return f"`{code.splitlines()[0]}`"


def _subject_questions(rng: random.Random) -> list[Question]:
    name, what, use = _pick(rng, THINGS)
    thing = f"the {name} {what}" if rng.random() < 0.5 else name
    price, per = rng.randint(4, 900), _pick(rng, ("a month", "a year", "", "per person"))
    unit, verb = _pick(rng, UNITS)
    amount, days = rng.randint(2, 60), rng.randint(1, 30)
    person, place = _pick(rng, NAMES), _pick(rng, PLACES)
    month, year = _pick(rng, MONTHS), rng.randint(1995, 2025)
    yes_price, yes_trial = rng.random() < 0.5, rng.random() < 0.5
    setup = [
        _pick(rng, ("Create an account", "Sign in", "Open the app")),
        _pick(rng, ("go to Settings", "open the menu", "tap your profile")),
        _pick(rng, (f"choose Import {use}", f"pick New {use[:-1]}", "press Add")),
        _pick(rng, ("confirm", "save", "you're done")),
    ]
    cost = f"${price} {per}".strip()
    title = thing[0].upper() + thing[1:]
    return [
        Question(
            "figure",
            (f"How much does {thing} cost?", f"What's the price of {name}?", f"{name} price?", f"Is {name} expensive?"),
            lambda r: _hedge(r, cost),
            (f"{title} costs {cost}.", f"{title} is priced at {cost}."),
        ),
        Question(
            "measure",
            (f"How many {unit} does {thing} take?", f"What does {name} {verb.removesuffix('s')} in {unit}?"),
            lambda r: _hedge(r, f"{amount} {unit}"),
            (f"{title} {verb} {amount} {unit}.", f"{title} {verb} about {amount} {unit}."),
        ),
        Question(
            "yes-no",
            (f"Is there a free trial of {name}?", f"Can I try {name} for free?", f"Does {name} offer a trial?"),
            lambda r: _yes_no(
                r,
                yes_trial,
                f"{days} days, no card needed" if yes_trial else "but there is a money-back guarantee",
            ),
            (f"{title} comes with a {days}-day free trial.",) if yes_trial else (f"{title} has no free trial.",),
        ),
        Question(
            "yes-no",
            (f"Is {name} available in {place}?", f"Can I get {name} in {place}?"),
            lambda r: _yes_no(r, yes_price, f"since {month}" if yes_price else f"{place} is planned for next year"),
            (f"{title} is sold in {place}.",) if yes_price else (f"{title} is not sold in {place} yet.",),
        ),
        Question(
            "steps",
            (
                f"How do I get started with {name}?",
                f"How do I set up {name}?",
                f"Setting up {name}, what are the steps?",
            ),
            lambda r: _steps(r, setup),
            (f"To set up {name}: " + ", then ".join(setup) + ".",),
        ),
        Question(
            "name",
            (f"Who is in charge of {name}?", f"Who do I contact about {name}?", f"Who designed {name}?"),
            lambda r: _pick(r, (f"{person}.", f"{person}, the product lead.", f"Ask {person}.", f"That's {person}.")),
            (f"{person} leads the {name} team.", f"{title} was designed by {person}."),
        ),
        Question(
            "date",
            (f"When did {name} launch?", f"Since when is {name} around?", f"What year did {name} come out?"),
            lambda r: _pick(r, (f"{year}.", f"In {month} {year}.", f"Back in {year}.", f"{month} {year}, I think.")),
            (f"{title} launched in {year}.", f"{title} came out in {month} {year}."),
        ),
        Question(
            "place",
            (f"Where is {name} made?", f"Where does {name} come from?", f"Where is {name} based?"),
            lambda r: _pick(r, (f"{place}.", f"In {place}.", f"Out of {place}.", f"They're in {place}.")),
            (f"{title} is made in {place}.", f"{title} comes from {place}."),
        ),
        Question(
            "reason",
            (f"Why is {name} so popular?", f"What makes {name} worth it?"),
            lambda r: _pick(
                r,
                (
                    f"Mostly because it makes {use} painless.",
                    f"People like how simple the {use} are.",
                    "It's reliable and the support is great.",
                ),
            ),
            (f"{title} is popular because it makes {use} painless.",),
        ),
    ]


def _code_questions(rng: random.Random) -> list[Question]:
    chosen = rng.sample(SNIPPETS, 4)
    questions = []
    for task, by_language in chosen:
        language = _pick(rng, tuple(by_language))
        code = by_language[language]
        asks = (
            f"How do I {task} in {language}?",
            f"{task.capitalize()} in {language}?",
            f"What's the {language} for '{task}'?",
        )
        questions.append(Question("code", asks, lambda r, language=language, code=code: _code(r, language, code)))
    return questions


def generate(count: int, seed: int = SEED) -> list[dict]:
    """About `count` rows {input, output, label, kind (the question's kind, for grouped checks)}: half
    a question with an answer to it, half with an
    answer to another question about the same subject (two thirds) or of another kind about another
    subject (one third)."""
    rng = random.Random(seed)
    rows: list[dict] = []
    previous: list[Question] = []
    while len(rows) < count:
        questions = _code_questions(rng) if rng.random() < 0.2 else _subject_questions(rng)
        for index, question in enumerate(questions):
            ask = _pick(rng, question.asks)
            kind = f"form/{question.kind}"
            rows.append({"input": ask, "output": question.compose(rng), "label": 1, "kind": kind})
            same = [other for k, other in enumerate(questions) if k != index and other.asks != question.asks]
            # Another subject's answer to a question of another kind: one of the same kind (a price for
            # a price) would answer this question as far as the text can tell.
            elsewhere = [other for other in previous if other.kind != question.kind]
            negative = _pick(rng, elsewhere) if elsewhere and rng.random() < 1 / 3 else _pick(rng, same)
            rows.append({"input": ask, "output": negative.compose(rng), "label": 0, "kind": kind})
        previous = questions
    return rows[:count]
