"""Perturbations that any template can apply to a text it generated.

Changes of content (another number, time, date, name or place; an attribute moved to another entity;
a negation) are made by the templates themselves, which know their slots and render the text again
with one slot changed. What is here changes the form only: greetings, apologies, filler, case,
spacing and the order of documents.
"""

from __future__ import annotations

from bench.generated.lexicon import Lexicon

GREETINGS = ("Hi there!", "Hello!", "Thanks for reaching out.", "Good question.", "Sure.", "Happy to help.")
APOLOGIES = ("Sorry for the wait.", "Apologies for the trouble.", "Sorry about the confusion earlier.")
CLOSINGS = ("Let me know if you need anything else.", "Hope this helps!", "Have a great day.")
FILLERS = ("Basically,", "As it happens,", "To be clear,", "In short,", "Just so you know,")


def add_greeting(lex: Lexicon, text: str) -> str:
    return f"{lex.pick(GREETINGS)} {text}"


def add_apology(lex: Lexicon, text: str) -> str:
    return f"{lex.pick(APOLOGIES)} {text}"


def add_closing(lex: Lexicon, text: str) -> str:
    return f"{text} {lex.pick(CLOSINGS)}"


def add_filler(lex: Lexicon, text: str) -> str:
    filler = lex.pick(FILLERS)
    return (
        f"{filler} {text[:1].lower()}{text[1:]}" if text[:1].isupper() and text[1:2].islower() else f"{filler} {text}"
    )


def wrap_politely(lex: Lexicon, text: str) -> str:
    """One of: a greeting, an apology, a closing line, or filler; the statement itself unchanged."""
    return lex.pick((add_greeting, add_apology, add_closing, add_filler))(lex, text)


def change_case(lex: Lexicon, text: str) -> str:
    """The text in lower case, upper case, or with its first letter lowered: one that changes it."""
    return _first_change(lex, text, (str.lower, str.upper, lambda t: t[:1].lower() + t[1:]))


def change_spacing(lex: Lexicon, text: str) -> str:
    """Doubled spaces, spaces and a newline around the text, or a newline after each sentence."""
    return _first_change(
        lex, text, (lambda t: t.replace(" ", "  "), lambda t: f"  {t}\n", lambda t: t.replace(". ", ".\n"))
    )


def _first_change(lex: Lexicon, text: str, changes) -> str:
    """The first of the changes, in a drawn order, that gives another text."""
    for change in lex.sample(changes, len(changes)):
        changed = change(text)
        if changed != text:
            return changed
    return f"  {text}\n"


def reorder(lex: Lexicon, documents: list[str]) -> list[str]:
    """The same documents in another order (reversed when a shuffle happens to keep the order)."""
    shuffled = list(documents)
    lex.random.shuffle(shuffled)
    return shuffled if shuffled != documents or len(documents) < 2 else list(reversed(documents))
