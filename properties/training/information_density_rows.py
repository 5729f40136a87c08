"""Generated training sentences for Information Density: sentences that say nothing, and sentences
that carry information, one sentence a row.

No public set labels how much a sentence says. Pleasantries, appreciation, platitudes about service,
meta-talk about the question, vague hedges, the question said back in other words and requests for
more details are easy to write in many forms, and so are the facts, figures and steps of an answer:

- label 1 (says nothing): each kind below is built from slots (subject, verb, object, closing), so
  that the head sees the kind, not a handful of fixed sentences;
- label 0 (informative): direct answers, specifications and instructions from the Avoided Answer rows
  (`avoided_answer_rows`, answered side), and facts of our own with figures, dates, places and names.

Written apart from the behaviour suite's templates (bench/generated/information_density.py): they
share the lexicon, never a sentence or a template. The lexicon (Faker, a development dependency) is
seeded from `random.Random(SEED)`, so the rows are the same on every run. Each row records its kind
(`template`), so that a check can hold out whole kinds.
"""

from __future__ import annotations

from collections.abc import Callable

from properties.training import avoided_answer_rows as answered
from properties.training.common import distinct_rows

SEED = 25
# Share of rows that say nothing; the rest inform.
EMPTY_SHARE = 0.5


def _one(lex, *parts: tuple[str, ...]) -> str:
    """One draw from each slot, joined with spaces (an empty option leaves its slot out)."""
    return " ".join(p for p in (lex.pick(options) for options in parts) if p)


def _end(lex, text: str, marks: tuple[str, ...] = (".", ".", "!")) -> str:
    return text[:1].upper() + text[1:] + lex.pick(marks)


# --- says nothing ---------------------------------------------------------------------------------
def _gratitude(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            ("thanks", "thank you", "many thanks", "a big thank you", "we're grateful", "I really appreciate it"),
            ("", "so much", "very much", "again"),
            (
                "for writing to us",
                "for your message",
                "for bearing with us",
                "for your loyalty",
                "for the kind words",
                "for sticking with us",
                "for trusting us",
                f"for shopping with {lex.company()}",
                "for the question",
                "for your time today",
            ),
        ),
    )


def _appreciation(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            ("we", "our whole team", "everyone here", "I", "all of us at " + lex.company()),
            ("", "truly", "really", "genuinely", "always", "sincerely"),
            ("value", "appreciate", "care about", "treasure", "are grateful for"),
            ("your business", "your trust", "every customer", "your opinion", "customers like you", "your support"),
        ),
    )


def _platitude(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            (
                "customer happiness",
                "your experience",
                "great service",
                "your peace of mind",
                "making you happy",
                "quality",
                "your comfort",
            ),
            ("is", "has always been", "remains", "will always be"),
            (
                "at the heart of everything we do",
                "our number one goal",
                "what drives us every day",
                "very important to us",
                "our highest priority",
                "what we care about most",
            ),
        ),
        (".", "."),
    )


def _availability(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            ("we're", "I'm", "our team is", "our friendly staff are", "we are"),
            ("always", "here and", "more than", "ready and"),
            ("happy", "glad", "eager", "pleased"),
            ("to support you", "to lend a hand", "to be of service", "to answer anything", "to assist further"),
            ("", "any time", "whenever you like", "day or night"),
        ),
    )


def _good_wishes(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            ("wishing you", "have", "enjoy", "I hope you have"),
            ("a lovely", "a fantastic", "a relaxing", "a productive", "a brilliant", "a peaceful"),
            ("weekend", "evening", "week ahead", "rest of your day", "afternoon", "holiday"),
        ),
        ("!", "."),
    )


def _meta_talk(lex) -> str:
    return lex.pick(
        (
            _end(
                lex,
                _one(
                    lex,
                    ("this is", "that's", "what a"),
                    ("a really good", "an important", "a common", "a fair", "a thoughtful", "a popular"),
                    ("point", "thing to ask about", "topic", "concern", "subject"),
                ),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("let me", "allow me to", "I'll try to", "I want to"),
                    ("walk you through", "think about", "go over", "unpack", "look at"),
                    ("this", "that", "your question", "it"),
                    ("", "with you", "for a moment", "carefully", "step by step"),
                ),
                (".", ".", ":"),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("many", "lots of", "plenty of", "so many"),
                    ("people", "customers", "users", "folks"),
                    ("ask", "wonder", "are curious", "get confused", "want to know"),
                    ("about this", "about that", "about it", "the same thing"),
                ),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("there is", "there's"),
                    ("a lot", "plenty", "quite a bit", "so much"),
                    ("to say", "to unpack", "to think about", "to cover"),
                    ("here", "on this", "about it"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("it's", "it is"),
                    ("worth", "good", "always wise"),
                    ("keeping in mind", "remembering", "bearing in mind", "noting"),
                    ("that", ""),
                    ("every case is unique", "things can change", "no two situations are alike", "it varies"),
                ),
                (".",),
            ),
        )
    )


def _hedge(lex) -> str:
    return lex.pick(
        (
            _end(
                lex,
                _one(
                    lex,
                    ("it", "that", "this"),
                    ("may", "might", "could"),
                    ("or may not", "well", "possibly"),
                    ("be the case", "happen", "work out", "turn out that way", "change"),
                    ("", ", depending on the situation", ", it's hard to be sure", ", we'll have to see"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("hard", "difficult", "tricky", "not easy"),
                    ("to say", "to tell", "to know", "to predict"),
                    ("", "for sure", "exactly", "right now", "at this point"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("the answer", "it", "the outcome", "that"),
                    ("varies", "differs", "changes", "can go either way"),
                    ("from case to case", "from person to person", "over time", "depending on circumstances"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("maybe", "perhaps", "possibly"),
                    ("yes", "so", "sooner"),
                    ("and maybe not", "or perhaps not", "or maybe later", "but who knows"),
                ),
                (".",),
            ),
        )
    )


def _topic(lex) -> str:
    """What a question was about, as it would be said back to the asker."""
    return lex.pick(
        (
            f"whether the {lex.product()} comes in {lex.pick(('black', 'blue', 'a larger size', 'other colours'))}",
            f"how long delivery to {lex.city()} takes",
            f"what the {lex.plan()} plan includes",
            f"why your invoice for {lex.month()} looks different",
            f"if {lex.feature()} is available on your account",
            f"how to move your data out of {lex.product_name()}",
            f"when ticket {lex.ticket()} will be resolved",
            "how to change the e-mail address on your account",
        )
    )


def _said_back(lex) -> str:
    opener = lex.pick(
        (
            "you're wondering",
            "you want to find out",
            "your question is",
            "you asked",
            "if I understand correctly, you'd like to know",
            "so, put simply, you need to know",
            "you're curious about",
            "what you're after is",
        )
    )
    return _end(lex, f"{opener} {_topic(lex)}", (".",))


def _asks_back(lex) -> str:
    return _end(
        lex,
        _one(
            lex,
            ("could you", "would you", "can you", "would you mind if you could"),
            ("let me know", "tell me", "send me", "give me", "describe"),
            (
                "a little more about the problem",
                "which version you have",
                "what you mean by that",
                "a few more details",
                "what happened before the error",
                "what exactly you are looking for",
            ),
        ),
        ("?",),
    )


def _courtesy_answered(lex) -> str:
    """The pleasantries of the Avoided Answer rows: openers, closers and acknowledgements (one-word ones,
    "Hello!", "Ok.", left to the scorer's filler rules)."""
    pool = answered.OPENERS + answered.CLOSERS + answered.EMPATHY + answered.AVOIDED_CLOSERS
    return lex.pick([line for line in pool if " " in line]).format(first=lex.first_name())


def _cliche(lex) -> str:
    """General wisdom that fits any question and answers none, short or long."""
    return _end(
        lex,
        _one(
            lex,
            (
                "at the end of the day,",
                "when all is said and done,",
                "in the long run,",
                "ultimately,",
                "in the end,",
                "",
            ),
            (
                "what matters most is",
                "the key is",
                "it all comes down to",
                "the most important thing is",
                "success really depends on",
                "everything hinges on",
            ),
            (
                "finding what works for you",
                "doing what feels right",
                "striking the right balance",
                "staying true to your goals",
                "choosing the option that suits your needs",
                "keeping an open mind",
                "the choices you make along the way",
            ),
            ("", "and your circumstances", "in your own situation", "as you move forward", "every single day"),
        ),
        (".", ".", "!"),
    )


def _reassurance(lex) -> str:
    """Promises of attention with nothing attached: no date, no step, no finding."""
    return _end(
        lex,
        _one(
            lex,
            ("rest assured,", "please be assured that", "we want you to know that", "", "", "just so you know,"),
            (
                "we're looking into it",
                "your request has been noted",
                "the matter has our full attention",
                "we are doing everything we can",
                "your case is in good hands",
                "we've passed this on to the right people",
                "we take every report seriously",
                "we're working hard behind the scenes",
            ),
            ("", "and will get back to you", "as quickly as possible", "with the utmost care", "right now"),
        ),
        (".", ".", "!"),
    )


def _signpost(lex) -> str:
    """A sentence that announces content instead of giving it."""
    return _end(
        lex,
        _one(
            lex,
            (
                "here's what you need to know",
                "let's dive in",
                "read on for the details",
                "below you'll find everything",
                "the following should clear things up",
                "there are a few things to go through",
                "let's break it down",
                "this is how it works",
            ),
            ("", "in a nutshell", "in more detail", "one by one", "so you can decide"),
        ),
        (".", ":", "."),
    )


def _generic_advice(lex) -> str:
    """Advice so general it would suit any question: weigh things up, do research, ask around."""
    return _end(
        lex,
        _one(
            lex,
            ("it's always a good idea to", "it is wise to", "you may want to", "make sure to", "try to", "it helps to"),
            (
                "do your research",
                "weigh up the pros and cons",
                "think about what matters most to you",
                "consider all of your options",
                "take your time",
                "look at the bigger picture",
                "keep your needs in mind",
            ),
            ("", "before deciding", "before you commit", "and choose wisely", "so you can make an informed choice"),
        ),
        (".",),
    )


def _formal_courtesy(lex) -> str:
    """The courtesy lines of a letter or a formal e-mail."""
    return lex.pick(
        (
            _end(
                lex,
                _one(
                    lex,
                    ("we look forward to", "I look forward to", "we would be delighted to keep"),
                    ("hearing from you", "your reply", "serving you again", "welcoming you back", "you as a customer"),
                    ("", "soon", "in the near future", "at your convenience"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("should you have", "if you have", "in case you have"),
                    ("any further questions", "any other concerns", "any queries"),
                    ("please do not hesitate to contact us", "we remain at your disposal", "we are here for you"),
                ),
                (".",),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("kind regards", "best regards", "warm wishes", "yours sincerely", "with best wishes"),
                    ("", "from all of us", f"from the {lex.company()} team"),
                ),
                (".", ","),
            ),
            _end(
                lex,
                _one(
                    lex,
                    ("it was a pleasure", "it has been a pleasure", "it's always a pleasure"),
                    ("assisting you", "to hear from you", "to help", "to be of service"),
                    ("", "today", "once again"),
                ),
                (".", "!"),
            ),
        )
    )


# --- informative ----------------------------------------------------------------------------------
def _from(kind: Callable) -> Callable:
    def draw(lex) -> str:
        return lex.pick(kind(lex))

    draw.__name__ = kind.__name__
    return draw


def _answered_more(lex) -> str:
    return lex.pick(answered.ANSWERED_MORE)


def _fact(lex) -> str:
    person, company, city, year = lex.person(), lex.company(), lex.city(), lex.year()
    n, m = lex.number(2, 95), lex.number(100, 9000)
    return lex.pick(
        (
            f"{company} moved its headquarters to {city} in {year}.",
            f"Sales in {lex.month()} reached {m} units, {n}% more than a year earlier.",
            f"{person} joined as {lex.role()} after {n} years at {lex.company()}.",
            f"The bridge is {m} metres long and opened in {year}.",
            f"Flights from {city} to {lex.city()} take about {lex.number(1, 14)} hours.",
            f"The museum in {city} holds {m} paintings, most of them from the {lex.number(15, 19)}th century.",
            f"The survey of {m} customers found that {n}% renew after the first year.",
            f"Our {city} warehouse ships {m} parcels a day with {n} staff.",
            f"The {lex.product()} uses a {lex.number(2, 6)}-core chip and {lex.pick((4, 8, 16))} GB of memory.",
            f"Water boils at {lex.pick((100, 90, 95))} degrees at that altitude, so cooking times go up.",
            f"The meeting on {lex.weekday()} agreed to cut the budget by {n}% and hire {lex.number(2, 9)} people.",
            f"{person} signed the contract with {company} on {lex.date()}.",
            f"Tickets cost {lex.price()} for adults and half that for children under {lex.number(10, 16)}.",
            f"The study followed {m} patients for {lex.number(2, 10)} years.",
            f"{company} was fined {lex.price()} for late filings in {year}.",
            f"The library lends e-books for {lex.number(7, 28)} days, with up to {lex.number(3, 10)} at a time.",
        )
    )


def _technical(lex) -> str:
    version, n = lex.version(), lex.number(2, 600)
    key = lex.pick(("max_connections", "timeout_seconds", "cache_size", "log_level", "retry_limit", "pool_size"))
    return lex.pick(
        (
            f"The 502 errors came from the load balancer, which closed connections after {n} seconds.",
            f"Set `{key}` to {n} in the config file and reload the service.",
            f"{lex.product_name()} {version} needs PostgreSQL {lex.number(12, 17)} or later.",
            f"The job failed because the disk on the worker was {lex.number(90, 100)}% full.",
            f"The query ran slowly because the `{key}` column had no index.",
            f"Our API allows {n} requests a minute per key and returns 429 above that.",
            f"Build {lex.commit_hash()} passed all {n} tests on {lex.weekday()}.",
            f"The migration adds a `{key}` column and takes about {lex.number(2, 40)} minutes on large tables.",
            f"Logs are kept for {lex.number(7, 90)} days, then moved to cold storage.",
            f"Memory use dropped from {n} MB to {n // 2 + 1} MB after the upgrade to {version}.",
            f"Tokens expire after {lex.number(15, 120)} minutes; the client refreshes them itself.",
            f"We moved the database to {lex.city()} to cut latency to about {lex.number(5, 80)} ms.",
        )
    )


def _summary_line(lex) -> str:
    person, other, company = lex.person(), lex.person(), lex.company()
    n, m = lex.number(2, 40), lex.number(10, 900)
    return lex.pick(
        (
            f"{person} will own the migration and report back on {lex.weekday()}.",
            f"Revenue rose {n}% to {m} million, driven by sales in {lex.country()}.",
            f"The board approved a budget of {lex.price()} for the {lex.city()} office.",
            f"{person} and {other} agreed to delay the launch by {lex.number(1, 6)} weeks.",
            f"Churn fell from {n + 5}% to {n}% after the price change.",
            f"{company} hired {m} people and closed its site in {lex.city()}.",
            f"Our support team answered {m} tickets in {lex.month()}, {n}% within a day.",
            f"The audit found {lex.number(2, 12)} issues, none of them critical.",
            f"{person}, our {lex.role()}, presented the results for {lex.year()}.",
            f"Next steps: {other} drafts the contract and legal reviews it by {lex.date()}.",
        )
    )


def _document_answer(lex) -> str:
    """An answer that reports what a retrieved document says."""
    source = lex.pick(("the handbook", "the manual", "the contract", "the policy", "the release notes", "the FAQ"))
    n = lex.number(2, 60)
    said = lex.pick(
        (
            f"staff get {n} days of leave a year",
            f"the warranty lasts {lex.number(1, 5)} years and covers parts and labour",
            f"the {lex.product()} must be charged for {lex.number(2, 8)} hours before first use",
            f"either side can end the agreement with {n} days' notice",
            "refunds go back to the original card",
            f"the office in {lex.city()} opens at {lex.time_of_day()[1]}",
            f"{lex.feature()} is only on the {lex.plan()} plan",
        )
    )
    return _end(lex, f"{lex.pick(('according to', 'as stated in', 'per'))} {source}, {said}", (".",))


EMPTY: tuple[Callable, ...] = (
    _gratitude,
    _appreciation,
    _platitude,
    _availability,
    _good_wishes,
    _meta_talk,
    _hedge,
    _said_back,
    _asks_back,
    _courtesy_answered,
    _cliche,
    _reassurance,
    _signpost,
    _generic_advice,
    _formal_courtesy,
)
INFORMATIVE: tuple[Callable, ...] = (
    _from(answered._direct),
    _from(answered._spec),
    _from(answered._instruction),
    _from(answered._where_to_find),
    _from(answered._rule_stated),
    _from(answered._negative_fact),
    _answered_more,
    _fact,
    _technical,
    _summary_line,
    _document_answer,
)


def generate(count: int, seed: int = SEED) -> list[dict]:
    """`count` distinct rows {text, label, template}: label 1 says nothing, 0 informs."""
    return distinct_rows(count, seed, _draw)


def _draw(lex) -> dict:
    empty = lex.chance(EMPTY_SHARE)
    kind = lex.pick(EMPTY if empty else INFORMATIVE)
    return {"text": kind(lex), "label": int(empty), "template": kind.__name__.lstrip("_")}
