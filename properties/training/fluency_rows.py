"""Generated training rows for Fluency: fluent sentences of the kinds our users score, and the same
sentences broken by general operations, with their own seed.

CoLA teaches grammar on carefully typed textbook sentences; the tweets and Wikipedia rows teach
chat against edited prose; `data/fluency_everyday.jsonl` holds 249 hand-written everyday
sentences. A head trained on those learnt their forms more than fluency: a support reply with an
order code and a city (0.24-0.41), or a sentence whose names were written in lower case, read as
not fluent. These rows give it many more fluent forms, and broken forms made by operations that
apply to any sentence rather than by hand:

- label 1: support, RAG and product answers, e-mails, summaries, code explanations and reports,
  from many sentence frames filled with this module's own names, places, products, codes and
  figures; some with a greeting before them, another punctuation style, or written all in lower
  case, all in capitals or with a lower-case first letter (case is not fluency: the scorer reads
  such a sentence in sentence case, so its names end up in lower case);
- label 0: each fluent sentence broken once, by dropping a function word or article, swapping two
  adjacent words, writing a word twice, cutting it off mid-clause, breaking subject-verb agreement,
  scrambling a phrase, joining two sentences without punctuation or dropping the verb; the same
  share of them in another case as the fluent ones, so that case carries no label.

The frames, lexicons and operations are written apart from the behaviour suite
(bench/generated/fluency.py and its lexicon): they share no list and no template. One
`random.Random(SEED)` draws everything, so the rows are the same on every run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

SEED = 31
# Rows generated for training, half fluent and half broken (each broken row is a fluent one broken).
ROWS = 1600
# Shares of fluent rows given a greeting, another punctuation style, and another case; the broken
# rows get the same share of case changes.
GREETING_RATE = 0.15
PUNCTUATION_RATE = 0.2
CASE_RATE = 0.3

FIRST_NAMES = (
    "Amara", "Bogdan", "Chidi", "Dagny", "Emeka", "Farida", "Gunnar", "Hiroko", "Idris", "Joanna",
    "Kwame", "Lucia", "Matteo", "Nadia", "Oren", "Priya", "Quentin", "Rosalind", "Soren", "Tamsin",
    "Ulrike", "Vikram", "Wanjiru", "Xavier", "Yusuf", "Zofia", "Anneke", "Björn", "Célia", "Dmitri",
)  # fmt: skip
SURNAMES = (
    "Okafor", "Lindqvist", "Haddad", "Moreau", "Brennan", "Kowalczyk", "Nakamura", "Varga", "Osei",
    "Petrov", "Castellano", "de Wit", "Rahman", "Fitzgerald", "Holloway", "Achterberg", "Iyer", "Dufresne",
    "McAllister", "Sørensen", "Abernathy", "Ferreira", "Yilmaz", "Whitcombe", "Mbeki",
)  # fmt: skip
PLACES = (
    "Bergen", "Accra", "Sapporo", "Braga", "Nantes", "Bristol", "Tucson", "Bremen", "Malaga", "Bologna",
    "Groningen", "Nagpur", "Wroclaw", "Tartu", "Adelaide", "Cork", "Daegu", "Recife", "Kumasi", "Halifax",
    "Dundee", "Graz", "Aarhus", "Cluj", "Rotterdam",
)  # fmt: skip
ORGS = (
    "Fernhill Outfitters", "Brightwater Insurance", "Kellerman Freight", "Ostrava Mills", "Bluefin Media",
    "Redcliffe Dental", "Marlow & Finch", "Thornbury Council", "Larchwood Bank", "Pinecrest Clinic",
    "Solano Robotics", "Greywell Books", "Hartmann Bau", "Cedar Point Hotels", "Ironbridge Studios",
)  # fmt: skip
PRODUCTS = (
    "Kestrel", "Larkspur", "Ridgeline", "Pebble", "Driftwood", "Saffron", "Marlin", "Halcyon", "Copperleaf",
    "Wayfarer", "Tidewater", "Bramble",
)  # fmt: skip
THINGS = (
    "the wireless keyboard", "the travel adapter", "the espresso machine", "the backup drive", "the webcam",
    "the office chair", "the air purifier", "the monitor arm", "the label printer", "the kettle",
    "the hiking boots", "the tablet case",
)  # fmt: skip
TEAMS = ("the returns desk", "our finance team", "the platform group", "customer care", "the warehouse staff")
CODE_NAMES = (
    "parse_invoice()", "load_settings()", "OrderRepository", "retry_with_backoff", "user_id", "created_at",
    "sync_inventory()", "PaymentGateway", "max_connections", "to_csv()", "validate_email()", "SessionStore",
)  # fmt: skip
TABLES = ("invoices", "shipments", "customers", "line_items", "subscriptions", "audit_log")
CURRENCY_WORDS = ("dollars", "euros", "pounds")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
MONTHS = ("January", "March", "April", "June", "September", "November")


class Fill:
    """The slots of one sentence, drawn from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def person(self) -> str:
        return f"{self.pick(FIRST_NAMES)} {self.pick(SURNAMES)}"

    def code(self) -> str:
        """A reference in one of several shapes: an invoice, a case, a parcel, an account."""
        r = self.rng
        shapes = (
            f"INV-{r.randint(2019, 2026)}-{r.randint(1, 9999):04d}",
            f"#{r.randint(100000, 9999999)}",
            f"SR{r.randint(10000, 99999)}",
            f"{r.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{r.randint(100, 999)}-{r.randint(1000, 9999)}",
            f"{r.randint(1000, 9999)} {r.randint(1000, 9999)} {r.randint(100, 999)}",
        )
        return r.choice(shapes)

    def amount(self) -> str:
        r = self.rng
        value = r.choice((r.randint(3, 95), r.randint(100, 2400)))
        cents = r.choice(("", f".{r.randint(10, 99)}"))
        return r.choice((f"${value}{cents}", f"£{value}{cents}", f"{value}{cents} euros", f"CHF {value}"))

    def number(self, low: int = 2, high: int = 40) -> int:
        return self.rng.randint(low, high)

    def version(self) -> str:
        return f"v{self.rng.randint(2, 14)}.{self.rng.randint(0, 9)}"


Frame = Callable[[Fill], str]


def _support(f: Fill) -> tuple[str, ...]:
    return (
        f"I have issued a refund of {f.amount()} for invoice {f.code()}, which should appear on your statement "
        f"within {f.number(3, 10)} business days.",
        f"Your parcel {f.code()} is with the courier in {f.pick(PLACES)} and is due to reach you on {f.pick(DAYS)}.",
        f"{f.pick(TEAMS).capitalize()} has confirmed that {f.pick(THINGS)} you returned arrived in good condition.",
        "Could you send me a photo of the damaged box so that I can open a claim with the carrier?",
        f"We have extended your trial of {f.pick(PRODUCTS)} by {f.number(7, 30)} days while we look into the "
        "sync problem.",
        f"The replacement for {f.pick(THINGS)} left our depot in {f.pick(PLACES)} this morning.",
        f"Case {f.code()} is now closed, but you can reopen it by replying to this message.",
        f"If the light on {f.pick(THINGS)} keeps flashing, hold the reset button for ten seconds.",
        f"{f.person()} from {f.pick(TEAMS)} will call you back before {f.number(2, 6)} pm today.",
        f"Unfortunately, {f.pick(THINGS)} is out of stock until {f.pick(MONTHS)}, so I have kept your order on hold.",
        f"You were charged twice because the first payment timed out, and the duplicate of {f.amount()} has "
        "been reversed.",
        "I'm sorry it took us so long to get back to you about this.",
        f"Once {f.pick(TEAMS)} has checked the serial number, we will send you a prepaid label.",
        f"Your new card ending in {f.number(1000, 9999)} is active, and the old one no longer works.",
        "Have you tried signing out and back in since the update?",
        f"The {f.pick(PRODUCTS)} app shows this error when the clock on your phone is wrong.",
        f"Your account {f.code()} was locked after {f.number(3, 6)} failed sign-in attempts, so I have unlocked it.",
    )


def _rag(f: Fill) -> tuple[str, ...]:
    product = f.pick(PRODUCTS)
    return (
        f"According to the {product} handbook, annual leave requests must be approved by a line manager.",
        f"The {product} plan includes {f.number(2, 20)} user seats and costs {f.amount()} a month when billed yearly.",
        f"Based on the documents provided, the warranty covers parts and labour for {f.number(1, 5)} years.",
        f"The policy states that expenses over {f.amount()} need a receipt and a cost centre.",
        f"{product} stores its backups in {f.pick(PLACES)} and keeps each one for {f.number(14, 90)} days.",
        f"The release notes for {product} {f.version()} mention a fix for the export bug, but not for the login delay.",
        f"Section {f.number(2, 12)} of the contract allows either party to end it with {f.number(30, 90)} days' "
        "notice.",
        f"The retrieved passage says that {f.pick(ORGS)} opened its first office in {f.pick(PLACES)} in "
        f"{f.number(1950, 2015)}.",
        f"None of the sources I found say whether {product} runs on older tablets.",
        f"Staff in {f.pick(PLACES)} may work from home on up to {f.number(2, 3)} days a week.",
        f"The datasheet lists a battery life of {f.number(6, 40)} hours and a weight of {f.number(200, 900)} grams.",
        f"Refunds for {f.pick(THINGS)} are paid to the card that was used for the purchase.",
        f"Guests who cancel more than {f.number(24, 72)} hours before arrival get a full refund.",
    )


def _email(f: Fill) -> tuple[str, ...]:
    return (
        f"Please find attached the signed agreement and the revised price list for {f.pick(MONTHS)}.",
        f"I am writing to let you know that {f.person()} will be your new point of contact from next week.",
        f"Would {f.pick(DAYS)} at {f.number(9, 11)} am suit you for a short call about the renewal?",
        f"Thank you for meeting us in {f.pick(PLACES)} last week; it was good to hear your plans for the new site.",
        f"As agreed, {f.pick(ORGS)} will invoice the remaining {f.amount()} once the installation is complete.",
        f"Could you confirm by {f.pick(DAYS)} whether {f.pick(ORGS)} still needs the extra desks?",
        f"I'll be out of the office until {f.pick(MONTHS)} {f.number(2, 28)}, and {f.person()} is covering for me.",
        "Let me know if anything in the draft needs changing before I send it to the board.",
        f"I have copied {f.person()}, who looks after onboarding, so that she can answer your questions.",
        f"The workshop has moved from the third floor to the main hall, and lunch will be served at "
        f"{f.number(12, 13)}:30.",
        "We would be glad to welcome you back, and I hope the new arrangement works well for your team.",
        f"Apologies for the late reply: I was away in {f.pick(PLACES)} until yesterday.",
    )


def _summary(f: Fill) -> tuple[str, ...]:
    org = f.pick(ORGS)
    return (
        "In short, the team agreed to postpone the launch until the security review is finished.",
        f"The meeting covered three topics: the budget for {f.pick(MONTHS)}, the hiring plan and the office move.",
        f"{org} reported revenue of {f.number(3, 90)} million {f.pick(CURRENCY_WORDS)} for the quarter, up "
        f"{f.number(2, 19)} percent on last year.",
        f"The article argues that smaller cities such as {f.pick(PLACES)} gain most from remote work.",
        f"Sales fell in {f.pick(PLACES)} but rose in every other region, so the total was flat.",
        "Most of the complaints were about delivery times, not about the products themselves.",
        "Overall, customers liked the new design but found the checkout slower than before.",
        f"{f.person()} summarised the findings and asked each department to reply by {f.pick(DAYS)}.",
        "The report concludes that the delays were caused by a shortage of drivers rather than by the new software.",
        f"According to the minutes, {org} will hire {f.number(3, 30)} engineers in {f.pick(PLACES)} next year.",
    )


def _code(f: Fill) -> tuple[str, ...]:
    name = f.pick(CODE_NAMES)
    table = f.pick(TABLES)
    return (
        f"The function {name} reads the file line by line and returns a list of dictionaries.",
        f"This query joins {table} to customers and keeps only the rows created in the last {f.number(7, 90)} days.",
        f"If the request fails, {name} waits a little longer before each of its {f.number(3, 8)} retries.",
        f"The index on {table}.{f.pick(('created_at', 'user_id', 'status'))} lets the database skip a full scan.",
        f"You can set {name} in the config file, or pass it as an environment variable.",
        "The loop stops at the first match, so the order of the list matters.",
        f"In {f.version()}, {name} was renamed, and the old name now raises a warning.",
        f"The GROUP BY clause counts the rows of {table} for each month, and ORDER BY sorts the result.",
        f"The script exits with an error when {f.pick(TABLES)} is empty, instead of writing an empty file.",
        f"Each worker takes a batch of {f.number(50, 500)} rows from the queue and commits them together.",
        "The regular expression matches a word boundary, so it will not match inside longer words.",
        f"A unit test checks that {name} rejects an empty string.",
        "The class caches the result, which is why the second call returns almost at once.",
    )


def _report(f: Fill) -> tuple[str, ...]:
    return (
        f"Heavy rain closed the coastal road near {f.pick(PLACES)} for most of {f.pick(DAYS)}.",
        f"{f.person()}, who led the project, said the bridge would reopen in {f.pick(MONTHS)}.",
        f"Police in {f.pick(PLACES)} are asking drivers to avoid the city centre this weekend.",
        f"The festival, now in its {f.number(5, 40)}th year, sold out within an hour.",
        f"The council in {f.pick(PLACES)} voted to extend the night bus service for another year.",
        f"More than {f.number(200, 900)} runners took part in the charity race, raising {f.amount()} for the hospital.",
        f"{f.pick(ORGS)} said it would move its head office to {f.pick(PLACES)} by the end of the year.",
        f"The museum, which reopened last spring, now welcomes about {f.number(2, 9)},000 visitors a week.",
    )


KINDS: dict[str, Callable[[Fill], tuple[str, ...]]] = {
    "support": _support,
    "rag": _rag,
    "email": _email,
    "summary": _summary,
    "code": _code,
    "report": _report,
}
GREETINGS = (
    "Hi {first},",
    "Hello {first},",
    "Dear {first},",
    "Good morning,",
    "Hi there!",
    "Thanks for reaching out.",
    "Thank you for your patience.",
    "Hey {first}, thanks for the message.",
)

# Opening words written in lower case after "Hi Amara," (a name or "I" keeps its capital).
LOWER_AFTER_GREETING = frozenset(
    (
        "we", "you", "please", "could", "would", "unfortunately", "according", "if", "as", "in", "overall",
        "apologies", "let", "thank", "based", "none"
    )
)  # fmt: skip

# --- the operations that break a sentence --------------------------------------------------------
FUNCTION_WORDS = frozenset(
    (
        "the", "a", "an", "to", "of", "for", "with", "on", "in", "at", "by", "from", "that", "is", "are", "was",
        "were", "has", "have", "will", "be", "been", "can", "should", "would", "it", "this", "your", "our"
    )
)  # fmt: skip
# Words whose loss breaks a sentence nearly always (dropping "from" or "in" often leaves it fluent).
DROPPABLE = frozenset(
    (
        "a", "an", "the", "to", "of", "is", "are", "was", "were", "has", "have", "will", "be", "been", "can",
        "should", "would"
    )
)  # fmt: skip
AGREEMENT = {
    "is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has", "does": "do",
    "do": "does", "it": "they",
}  # fmt: skip
VERBS = frozenset(
    (
        "is", "are", "was", "were", "has", "have", "will", "can", "should", "would", "reads", "returns", "joins",
        "keeps", "stores", "waits", "lets", "counts", "checks", "caches", "covers", "costs", "includes", "says",
        "states", "said", "voted", "led", "raising", "moved", "agreed", "argues", "concludes", "summarised",
        "reported", "opened", "allows", "mention", "rejects", "sorts", "stops", "suit", "appear", "reach",
        "arrived", "confirmed", "extended", "issued", "unlocked", "kept", "send"
    )
)  # fmt: skip


def _words(text: str) -> list[str]:
    return text.split()


def _bare(word: str) -> str:
    return re.sub(r"\W", "", word).lower()


def _join(words: list[str], like: str) -> str:
    """Words back into a sentence with the original's first-letter case and final stop."""
    text = " ".join(words)
    text = text[:1].upper() + text[1:] if like[:1].isupper() else text
    if like.rstrip()[-1:] in ".?!" and text[-1:] not in ".?!":
        text = text.rstrip(",;:") + like.rstrip()[-1]
    return text


def _inner(words: list[str]) -> list[str]:
    """Words moved from the middle of a sentence: no final stop, no capital that only the start had."""
    out = [word.rstrip(".?!") if index == len(words) - 1 else word for index, word in enumerate(words)]
    if out and out[0][:1].isupper() and out[0][1:].islower() and _bare(out[0]) in FUNCTION_WORDS | {"you", "i"}:
        out[0] = out[0].lower() if _bare(out[0]) != "i" else out[0]
    return out


def drop_function_word(rng: random.Random, text: str) -> str | None:
    words = _words(text)
    spots = [i for i, word in enumerate(words) if _bare(word) in DROPPABLE and word.isalpha()]
    if len(words) < 5 or not spots:
        return None
    drops = set(rng.sample(spots, min(len(spots), rng.choice((1, 1, 2)))))
    return _join([word for i, word in enumerate(_inner(words)) if i not in drops], text)


def swap_adjacent(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    spots = [i for i in range(len(words) - 1) if words[i].isalpha() and words[i + 1].isalpha()]
    if len(spots) < 2:
        return None
    for i in rng.sample(spots, min(len(spots), rng.choice((1, 2)))):
        words[i], words[i + 1] = words[i + 1], words[i]
    return _join(words, text)


def duplicate_word(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    if len(words) < 4:
        return None
    i = rng.randrange(len(words) - 1)
    span = rng.choice((1, 1, 2))
    return _join(words[: i + span] + words[i : i + span] + words[i + span :], text)


def truncate(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    if len(words) < 7:
        return None
    # Cut after a word that leaves the clause open: an article, a preposition, an auxiliary.
    spots = [i for i in range(2, len(words) - 2) if _bare(words[i]) in FUNCTION_WORDS]
    cut = rng.choice(spots) if spots else rng.randrange(len(words) // 2, len(words) - 2)
    return _join(words[: cut + 1], text)


def break_agreement(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    spots = [i for i, word in enumerate(words) if word.lower() in AGREEMENT]
    verbs = [i for i, word in enumerate(words) if re.fullmatch(r"[a-z]{3,}s", word) and _bare(word) in VERBS]
    if spots:
        i = rng.choice(spots)
        words[i] = AGREEMENT[words[i].lower()] if words[i].islower() else AGREEMENT[words[i].lower()].capitalize()
    elif verbs:
        i = rng.choice(verbs)
        words[i] = words[i][:-1]
    else:
        return None
    return _join(words, text)


def scramble_phrase(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    if len(words) < 5:
        return None
    size = min(len(words), rng.choice((3, 4, 5, len(words))))
    start = rng.randrange(len(words) - size + 1)
    phrase = words[start : start + size]
    for _ in range(5):
        rng.shuffle(phrase)
        if phrase != words[start : start + size]:
            break
    return _join(words[:start] + phrase + words[start + size :], text)


def drop_verb(rng: random.Random, text: str) -> str | None:
    words = _inner(_words(text))
    spots = [i for i, word in enumerate(words) if _bare(word) in VERBS and word.isalpha()]
    if not spots:
        return None
    i = rng.choice(spots)
    return _join(words[:i] + words[i + 1 :], text)


BREAKS: tuple[Callable[[random.Random, str], str | None], ...] = (
    drop_function_word,
    swap_adjacent,
    duplicate_word,
    truncate,
    break_agreement,
    scramble_phrase,
    drop_verb,
)


def run_on(first: str, second: str) -> str:
    """Two sentences joined with no punctuation between them."""
    return first.rstrip(".?!") + " " + second[:1].lower() + second[1:]


# --- what leaves a sentence fluent ---------------------------------------------------------------
def change_case(rng: random.Random, text: str) -> str:
    return rng.choice((text.lower(), text.upper(), text[:1].lower() + text[1:]))


def change_punctuation(rng: random.Random, text: str) -> str:
    options = [text.rstrip("."), text.replace(", ", " - ", 1), text.replace("; ", ". ", 1)]
    if text.endswith("."):
        options.append(text[:-1] + "!")
    return rng.choice([option for option in options if option != text] or [text])


def add_greeting(rng: random.Random, fill: Fill, text: str) -> str:
    greeting = rng.choice(GREETINGS).format(first=fill.pick(FIRST_NAMES))
    if greeting.endswith(","):
        opener = _bare(text.split()[0]) in FUNCTION_WORDS | LOWER_AFTER_GREETING
        return f"{greeting} {text[:1].lower() + text[1:] if opener else text}"
    return f"{greeting} {text}"


def _fluent(rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(sorted(KINDS))
    return rng.choice(KINDS[kind](Fill(rng))), kind


def generate(count: int = ROWS, seed: int = SEED) -> list[tuple[str, int, str]]:
    """`count` rows (text, label, kind): each fluent sentence, then it broken once."""
    rng = random.Random(seed)
    rows: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    while len(rows) < count:
        sentence, kind = _fluent(rng)
        if sentence in seen:
            continue
        seen.add(sentence)
        broken, how = _broken(rng, sentence)
        if broken is None:
            continue
        fluent = sentence
        if rng.random() < GREETING_RATE:
            fluent = add_greeting(rng, Fill(rng), fluent)
        if rng.random() < PUNCTUATION_RATE:
            fluent = change_punctuation(rng, fluent)
        if rng.random() < CASE_RATE:
            fluent = change_case(rng, fluent)
        if rng.random() < CASE_RATE:
            broken = change_case(rng, broken)
        rows.append((fluent, 1, kind))
        rows.append((broken, 0, f"{kind}/{how}"))
    return rows[:count]


def _broken(rng: random.Random, sentence: str) -> tuple[str | None, str]:
    if rng.random() < 1 / (len(BREAKS) + 1):
        other, _ = _fluent(rng)
        return run_on(sentence, other), "run_on"
    for make in rng.sample(BREAKS, len(BREAKS)):
        broken = make(rng, sentence)
        if broken is not None and broken != sentence:
            return broken, make.__name__
    return None, ""
