"""Generated training rows for Formality: registers the public rows and our own sentences barely hold.

The Pavlick rows are news, blogs, answers and e-mails, and formality_everyday.jsonl holds support and
business replies (formal) beside chat with slang, texting spellings and emoji (informal). Between them
there is little casual speech written out in full words ("Honestly I dunno, I guess we could just grab
food after."), which the head read as formal (0.61), and few of the formal kinds that have no
courtesy in them (minutes, policies, findings of a report, notices). These rows fill both sides, each
kind built from slots so that the head learns the register rather than a sentence:

- informal (label 0): spoken replies with discourse markers and hedges, casual plans, casual opinions
  and small stories of one's day, in standard spelling and, for some, all in lower case;
- formal (label 1): minutes, policy statements, findings of a report, formal letters and notices.

Written apart from the behaviour suite's templates (bench/generated/formality.py): they share the
lexicon, never a sentence or a template. The lexicon (Faker, a development dependency) is seeded from
`random.Random(SEED)`, so the rows are the same on every run. Each row records its kind (`template`),
so that cross-validation can hold out whole kinds.
"""

from __future__ import annotations

from collections.abc import Callable

from properties.training.common import distinct_rows

SEED = 31
# Share of rows that are informal; the rest are formal.
INFORMAL_SHARE = 0.5
# Share of informal rows written all in lower case, as casual messages often are.
LOWER_SHARE = 0.25


def _one(lex, *parts: tuple[str, ...]) -> str:
    """One draw from each slot, joined with spaces (an empty option leaves its slot out)."""
    return " ".join(p for p in (lex.pick(options) for options in parts) if p)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- informal -------------------------------------------------------------------------------------
def _spoken_reply(lex) -> str:
    return _cap(
        _one(
            lex,
            ("yeah,", "honestly,", "oh,", "well,", "right, so", "okay so", "I mean,", "tbf", "look,", "so yeah,"),
            ("I dunno,", "I guess", "I reckon", "I think", "pretty sure", "not gonna lie,", ""),
            (
                "we could just sort it out later",
                "it's kind of a pain but whatever",
                "that's pretty much what happened",
                "they said it'd be fine",
                "I didn't really get what they meant",
                "we kinda ran out of time",
                "it wasn't that big a deal in the end",
                "I'd just leave it for now",
            ),
            ("", "to be honest", "you know", "or something", "I suppose", "anyway"),
        )
        + lex.pick((".", ".", "!", "...", ""))
    )


def _casual_plan(lex) -> str:
    return _cap(
        _one(
            lex,
            ("wanna", "fancy", "shall we", "how about we", "we could", "let's"),
            (
                "grab a coffee",
                "get some food",
                "head over to " + lex.city(),
                "catch up",
                "watch the game",
                "just chill at mine",
            ),
            ("after work", "later", "this weekend", f"on {lex.weekday()}", "tonight", "at some point"),
            ("", "if you're free", "or nah", "if you're up for it", "no pressure"),
        )
        + lex.pick(("?", "?", "!", "."))
    )


def _casual_opinion(lex) -> str:
    return _cap(
        _one(
            lex,
            ("nah,", "meh,", "tbh", "honestly", "oh man,", "ugh,", "wow,"),
            (
                f"the new {lex.product_name()} thing is",
                "that film was",
                "the food there is",
                "his last album was",
                "the update is",
                "this whole week has been",
            ),
            ("kinda", "so", "pretty", "super", "way too", "totally"),
            ("meh", "awesome", "boring", "overrated", "rubbish", "cool", "weird"),
            ("", "if you ask me", "not gonna lie", "lol", "haha", "to be fair"),
        )
        + lex.pick((".", "!", "", "!!"))
    )


def _small_story(lex) -> str:
    return _cap(
        _one(
            lex,
            ("so", "anyway", "guess what,", "okay so", "lol"),
            ("I", "we", f"me and {lex.first_name()}"),
            (
                "totally forgot about the thing",
                "missed the bus again",
                "ended up staying way too late",
                "got stuck in traffic for ages",
                "just bumped into my old boss",
                "spilled coffee all over my laptop",
            ),
            ("", "this morning", "last night", "yesterday", "earlier"),
            ("", "so that was fun", "typical", "what a day", "can't believe it"),
        )
        + lex.pick((".", "!", "", "..."))
    )


# --- formal ---------------------------------------------------------------------------------------
def _minutes(lex) -> str:
    return _one(
        lex,
        ("The committee", "The board", "Members", "The steering group", "Those present"),
        (
            "approved the revised",
            "noted the report on the",
            "agreed to postpone the decision on the",
            "reviewed the draft",
            "resolved to adopt the",
        ),
        ("annual budget", "procurement procedure", "staffing plan", "audit findings", "risk register"),
        ("", f"at the meeting of {lex.date()}", "without amendment", f"pending advice from {lex.person()}"),
    ) + lex.pick((".", "."))


def _policy(lex) -> str:
    return _one(
        lex,
        ("All employees", "Contractors", "Members of staff", "Applicants", "Visitors", "Account holders"),
        ("are required to", "must", "shall", "are expected to", "may not"),
        (
            "complete the mandatory compliance training",
            "report any breach of confidentiality",
            "obtain prior written approval",
            "retain all records for a period of seven years",
            "disclose any conflict of interest",
        ),
        ("", "without delay", "in accordance with this policy", f"no later than {lex.date()}", "where applicable"),
    ) + lex.pick((".", "."))


def _report_finding(lex) -> str:
    return _one(
        lex,
        ("The review", "The analysis", "This report", "The evaluation", "The assessment"),
        ("found that", "concludes that", "indicates that", "established that", "demonstrates that"),
        (
            "the existing controls are insufficient",
            f"expenditure exceeded the allocation by {lex.number(2, 30)} per cent",
            "the current procedures do not meet regulatory requirements",
            "customer satisfaction improved substantially",
            f"demand in {lex.country()} is expected to increase",
        ),
        ("", "during the period under review", f"in {lex.year()}", "across all regions"),
    ) + lex.pick((".", "."))


def _letter(lex) -> str:
    return lex.pick(
        (
            f"Dear {lex.pick(('Mr', 'Ms', 'Dr'))} {lex.person().split()[-1]}, "
            + _one(
                lex,
                ("I am writing to", "We write to", "I wish to"),
                (
                    "inform you that your application has been approved",
                    "confirm the arrangements for your visit",
                    "request further information regarding your claim",
                    "acknowledge receipt of your letter",
                ),
            )
            + ".",
            _one(
                lex,
                ("Further to", "With reference to", "In response to", "Following"),
                ("our recent correspondence,", "your enquiry of " + lex.date() + ",", "the meeting last week,"),
                ("I enclose", "please find enclosed", "we attach", "I am pleased to provide"),
                ("the revised proposal", "the signed agreement", "the requested documents", "a copy of the minutes"),
                ("for your consideration", "for your records", "for your approval", ""),
            )
            + ".",
        )
    )


def _notice(lex) -> str:
    return _one(
        lex,
        (
            "Please note that",
            "Notice is hereby given that",
            "Customers are advised that",
            "Residents are informed that",
        ),
        (
            f"the office will be closed on {lex.date()}",
            "the service will be unavailable during scheduled maintenance",
            f"the annual general meeting will take place in {lex.city()}",
            "the terms and conditions have been amended",
            "access to the building is restricted to authorised personnel",
        ),
        ("", "until further notice", "with immediate effect", "as previously announced"),
    ) + lex.pick((".", "."))


INFORMAL: tuple[Callable, ...] = (_spoken_reply, _casual_plan, _casual_opinion, _small_story)
FORMAL: tuple[Callable, ...] = (_minutes, _policy, _report_finding, _letter, _notice)


def generate(count: int, seed: int = SEED) -> list[dict]:
    """`count` distinct rows {text, label, template}: label 1 formal, 0 informal."""
    return distinct_rows(count, seed, _draw)


def _draw(lex) -> dict:
    informal = lex.chance(INFORMAL_SHARE)
    kind = lex.pick(INFORMAL if informal else FORMAL)
    text = kind(lex)
    if informal and lex.chance(LOWER_SHARE):
        text = text.lower()
    return {"text": text, "label": int(not informal), "template": kind.__name__.lstrip("_")}
