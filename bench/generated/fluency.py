"""Fluency: does the text read as fluent, well-formed English? Generated cases (see bench/generated/__init__.py).

0 to 1, 0.5 and above reads as fluent; a text's value is the mean of its sentences'. A well-formed
sentence is fluent whatever it is about: a support reply, a news report, a line of documentation
with code identifiers, a product description full of figures and names. Word salad, a sentence
with its words shuffled, a sentence with its function words dropped, words repeated, a sentence cut
off in the middle are not. A greeting before a fluent text, or its case changed, leaves it fluent.
"""

from __future__ import annotations

from bench.generated import Templates
from bench.generated import perturb as p
from bench.generated.lexicon import COLOURS, DEPARTMENTS, WEEKDAYS, Lexicon

templates = Templates("fluency", evidence={"side": "below", "threshold": 0.5})
FLUENT = {"min": 0.5}
NOT_FLUENT = {"max": 0.5}

# Words that hold a sentence together; dropping them leaves a list of content words.
_FUNCTION_WORDS = (
    "a an the to of in on at for from by with within into about and or but if then before after is are was "
    "were be been will would should can could has have had do does did our your its their his her my we you "
    "it they he she i this that these those which who there as so"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
# Words at which a sentence cut off is plainly unfinished.
_CUT_AFTER = "a an the to of in on at for from by with within into and or our your its their that"
CUT_AFTER = frozenset(_CUT_AFTER.split())


def _support(lex: Lexicon) -> str:
    left, other = lex.sample(WEEKDAYS, 2)
    return lex.pick(
        (
            f"Your order {lex.order_number()} left our {lex.city()} warehouse on {left} and should arrive "
            f"within {lex.number(2, 6)} working days.",
            "To change your billing address, open the Billing page, edit the address under Invoices and save "
            "your changes.",
            f"We have refunded {lex.price()} to your card, and the money should appear on your statement within "
            "a week.",
            f"{lex.person()} from our {lex.pick(DEPARTMENTS)} team will call you on {other} to go through the "
            "invoice with you.",
            f"If your {lex.product_name()} router does not turn on, hold the power button for ten seconds and "
            "then plug it in again.",
            f"Your {lex.plan()} plan renews on {lex.number(1, 28)} {lex.month()}, and you can cancel it at any "
            "time before then.",
        )
    )


def _news(lex: Lexicon) -> str:
    company, city = lex.company(), lex.city()
    return lex.pick(
        (
            f"{company} opened a new office in {city} on {lex.weekday()}, creating {lex.number(20, 400)} jobs "
            "over the next two years.",
            f"The city council of {city} approved {lex.number(2, 90)} million euros for new cycle lanes at its "
            "meeting last week.",
            f"Shares of {company} rose {lex.number(2, 19)} percent after the firm reported higher sales in "
            f"{lex.month()}.",
            f"{lex.person()}, who became {lex.role()} of {company} in {lex.year()}, will step down at the end "
            "of the year.",
            f"Heavy rain closed several roads around {city} on {lex.weekday()}, and trains ran up to "
            f"{lex.number(10, 90)} minutes late.",
            f"{lex.person()} won the {city} marathon in {lex.number(2, 3)} hours and {lex.number(5, 59)} minutes, "
            "a new course record.",
        )
    )


def _documentation(lex: Lexicon) -> str:
    return lex.pick(
        (
            "Call `client.flush()` before you close the connection, or any pending events will be lost.",
            f"Set `max_retries` to {lex.number(2, 9)} in `config.yaml` to retry failed requests before the "
            "client raises an error.",
            "The `export` command writes every record to a CSV file in the current directory.",
            f"Version {lex.version()} of {lex.product_name()} deprecates the `/v1/sync` endpoint, so use "
            "`/v2/sync` instead.",
            f"Run `make test` to execute the unit tests, which take about {lex.number(10, 90)} seconds on a laptop.",
            f"The `timeout` parameter sets how many seconds the client waits for a response, and it defaults "
            f"to {lex.number(5, 60)}.",
            f"Pass `--dry-run` to `{lex.pick(('deploy', 'migrate', 'sync'))}` to see what would change "
            "without touching the database.",
        )
    )


def _product(lex: Lexicon) -> str:
    name = lex.product_name()
    colour, other = lex.sample(COLOURS, 2)
    return lex.pick(
        (
            f"The {name} e-bike weighs {lex.number(18, 28)} kilograms and has a range of {lex.number(40, 120)} "
            "kilometres on a single charge.",
            f"The {name} headset costs {lex.price()} and comes in {colour} and {other}.",
            f"With {lex.number(3, 8)} Ethernet ports and Wi-Fi 6, the {name} router covers a flat of about "
            f"{lex.number(60, 200)} square metres.",
            f"The {name} robot vacuum runs for {lex.number(60, 180)} minutes and empties itself into a dock "
            "that holds a month of dust.",
            f"The {lex.plan()} plan of {name} costs {lex.price()} {lex.period()} and includes {lex.feature()}.",
            f"The {name} standing desk rises from {lex.number(60, 70)} to {lex.number(110, 125)} centimetres "
            "and remembers four heights.",
        )
    )


def _email(lex: Lexicon) -> str:
    person = lex.person()
    return lex.pick(
        (
            f"I have attached the invoice for {lex.month()}, and the payment is due within thirty days.",
            f"Could we move our meeting with {person} to {lex.weekday()} afternoon?",
            f"Thank you for sending the contract; our legal team will review it by {lex.weekday()}.",
            f"Please find the signed agreement attached, and let me know if {person} needs anything else.",
            f"I am writing to confirm your booking at our {lex.city()} office for {lex.number(2, 12)} people.",
            f"As discussed, {person} will take over the {lex.company()} account from next month.",
        )
    )


def _fluent(lex: Lexicon) -> str:
    return lex.pick((_support, _news, _documentation, _product, _email))(lex)


def _words(sentence: str, keep_punctuation: bool = False) -> list[str]:
    """The words of a sentence without its final stop; unless `keep_punctuation`, without commas either,
    and the first one lower-cased when it is capitalised only for starting the sentence."""
    words = sentence.rstrip(".?!").split()
    if keep_punctuation:
        return words
    words = [word.rstrip(",;") for word in words]
    starters = FUNCTION_WORDS | {"call", "set", "run", "pass", "shares", "heavy", "please"}
    if words and words[0] != "I" and words[0].lower() in starters:
        words[0] = words[0].lower()
    return words


def _sentence(words: list[str]) -> str:
    text = " ".join(words)
    return f"{text[:1].upper()}{text[1:]}."


def _shuffled(lex: Lexicon, sentence: str) -> str:
    """The sentence's words in another order, with few of its word pairs kept."""
    words = _words(sentence)
    pairs = set(zip(words, words[1:], strict=False))
    best, kept = list(words), len(pairs)
    for _ in range(20):
        candidate = list(words)
        lex.random.shuffle(candidate)
        same = len(pairs & set(zip(candidate, candidate[1:], strict=False)))
        if same < kept:
            best, kept = candidate, same
        if kept <= len(words) // 6:
            break
    return _sentence(best)


def _dropped(sentence: str) -> str:
    return _sentence([word for word in _words(sentence) if word.lower() not in FUNCTION_WORDS])


def _repeated(lex: Lexicon, sentence: str) -> str:
    words = _words(sentence, keep_punctuation=True)
    doubled = set(lex.sample(range(len(words)), max(3, len(words) // 3)))
    out: list[str] = []
    for index, word in enumerate(words):
        # The first of a doubled pair loses its comma: "office, office," reads as a list.
        out += [word.rstrip(",;"), word] if index in doubled else [word]
    return f"{' '.join(out)}{sentence[-1] if sentence[-1] in '.?!' else ''}"


def _truncated(lex: Lexicon, sentence: str) -> str | None:
    """The sentence cut off after a function word past its first third, or None if it has none there."""
    words = _words(sentence, keep_punctuation=True)
    cuts = [index for index in range(len(words) // 3, len(words) - 1) if words[index].lower() in CUT_AFTER]
    if not cuts:
        return None
    end = lex.pick(cuts) + 1
    cut = " ".join(words[:end])
    return f"{cut}." if lex.chance(0.6) else cut


@templates.add(
    "fluent-support-reply", fills=25, about="A well-formed support reply, with an order number, a price or a name."
)
def fluent_support(lex: Lexicon) -> dict:
    return {"interaction": {"input": "Can you help me?", "output": _support(lex)}, "expect": FLUENT}


@templates.add("fluent-news-sentence", fills=25, about="A well-formed news sentence with names, places and figures.")
def fluent_news(lex: Lexicon) -> dict:
    return {"interaction": {"input": "What's in the news?", "output": _news(lex)}, "expect": FLUENT}


@templates.add("fluent-documentation", fills=25, about="A well-formed line of documentation with code identifiers.")
def fluent_documentation(lex: Lexicon) -> dict:
    return {"interaction": {"input": "How does this work?", "output": _documentation(lex)}, "expect": FLUENT}


@templates.add(
    "fluent-product-description", fills=25, about="A well-formed product description with figures and names."
)
def fluent_product(lex: Lexicon) -> dict:
    return {"interaction": {"input": "Tell me about it.", "output": _product(lex)}, "expect": FLUENT}


@templates.add("fluent-business-email", fills=25, about="A well-formed sentence of a business e-mail.")
def fluent_email(lex: Lexicon) -> dict:
    return {"interaction": {"input": "Draft a reply.", "output": _email(lex)}, "expect": FLUENT}


@templates.add(
    "fluent-two-sentences", fills=25, about="Two well-formed sentences of different kinds, one after the other."
)
def fluent_two(lex: Lexicon) -> dict:
    first, second = lex.sample((_support, _news, _documentation, _product, _email), 2)
    return {"interaction": {"output": f"{first(lex)} {second(lex)}"}, "expect": FLUENT}


@templates.add("word-salad", fills=25, about="Words drawn from several sentences and strung together with no syntax.")
def word_salad(lex: Lexicon) -> dict:
    pool = _words(_fluent(lex)) + _words(_fluent(lex)) + _words(_fluent(lex))
    return {
        "interaction": {"input": "Can you help me?", "output": _sentence(lex.sample(pool, lex.number(8, 14)))},
        "expect": NOT_FLUENT,
    }


@templates.add("shuffled-word-order", fills=25, about="A well-formed sentence with its words shuffled.")
def shuffled_order(lex: Lexicon) -> dict:
    return {"interaction": {"output": _shuffled(lex, _fluent(lex))}, "expect": NOT_FLUENT}


@templates.add(
    "dropped-function-words",
    fills=25,
    about="A sentence with its articles, prepositions, pronouns and auxiliaries dropped.",
)
def dropped_function_words(lex: Lexicon) -> dict:
    return {"interaction": {"output": _dropped(_fluent(lex))}, "expect": NOT_FLUENT}


@templates.add(
    "repeated-words", fills=25, about="A sentence with a third of its words, or at least three, written twice."
)
def repeated_words(lex: Lexicon) -> dict:
    return {"interaction": {"output": _repeated(lex, _fluent(lex))}, "expect": NOT_FLUENT}


@templates.add("truncated-sentence", fills=25, about="A sentence cut off after an article, preposition or conjunction.")
def truncated_sentence(lex: Lexicon) -> dict:
    cut = None
    while cut is None:
        cut = _truncated(lex, _fluent(lex))
    return {"interaction": {"output": cut}, "expect": NOT_FLUENT}


@templates.add("greeting-prefix-invariance", fills=25, about="A greeting before a fluent sentence.")
def greeting_prefix(lex: Lexicon) -> dict:
    text = _fluent(lex)
    return {
        "kind": "INV",
        "interaction": {"output": text},
        "variant": {"output": p.add_greeting(lex, text)},
        "expect": {"tolerance": 0.15},
    }


@templates.add(
    "case-change-invariance",
    fills=25,
    about="A fluent sentence in lower case, upper case or with its first letter lowered.",
)
def case_change(lex: Lexicon) -> dict:
    text = lex.pick((_support, _news, _product, _email))(lex)
    return {
        "kind": "INV",
        "interaction": {"output": text},
        "variant": {"output": p.change_case(lex, text)},
        "expect": {"tolerance": 0.15},
    }


@templates.add("shuffling-lowers-it", fills=25, about="A fluent sentence whose variant has its words shuffled.")
def shuffling_lowers_it(lex: Lexicon) -> dict:
    text = _fluent(lex)
    return {
        "kind": "DIR",
        "interaction": {"output": text},
        "variant": {"output": _shuffled(lex, text)},
        "expect": {"direction": "down", "by": 0.2},
    }
