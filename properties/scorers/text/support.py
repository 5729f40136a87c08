"""Lexical rules for whether a passage supports a statement, for the cases users check first.

The trained signals of Grounded in Context weigh evidence; these rules settle what needs no
weighing, and say why in words:

- `copied(statement, passage)`: the statement's content words occur in one sentence of the passage,
  in the same order, with at most `MAX_GAP_WORDS` other content words between them, and with the
  same numbers and the same polarity: a copy or near copy, supported by construction.
- `reworded(statement, passage)`: the same, with one content word of the statement replaced (a
  synonym: "kept" for "retained"), unless the two words are opposites; the caller confirms the
  meaning with the sentence embeddings.
- `mismatch(statement, entities, passage)`: a number, a time of day, a named entity or a negation of
  the statement that the passage lacks or contradicts; the statement is then unsupported whatever
  else agrees ("the documents say 2009, the answer says 2015").

A number with a scale word is compared as its value ("40 billion" is not "40 million", `scaled_figures`),
and days of the week as days ("weekdays" is not "Saturdays", "every day" gives both, `weekdays`).

A quantity or a time of day is one figure however it is written: "30 minutes" is "half an hour"
(`measures`), "19:30" is "half past seven in the evening" (`times`), and a short form of the
passage's words is no new name ("SSO" for "single sign-on", `abbreviations`). Before the copy
rules compare word orders, each quantity and time of the statement that the passage gives in
another form is written the same way in both (`_aligned`), and the numbers keep their places
among the words: a statement that takes one entity's figure for another's ("version 2.1.4 was
released in 2024" where 2024 is version 6.1.9's year) is no copy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from properties.scorers.text import abbreviations, measures, statements, times

# Content words of the passage's sentence allowed between the statement's own (a dropped adjective,
# a clause the answer left out), in all.
MAX_GAP_WORDS = 3
# A passage sentence is compared for polarity only when it shares this share of the statement's
# content words: otherwise it is about something else.
POLARITY_OVERLAP = 0.5
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|can't|won't|n't|"
    r"doesn't|don't|isn't|aren't|wasn't|weren't|didn't|hasn't|haven't|hadn't|shouldn't|wouldn't|couldn't)\b|n't\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# Number words that are nearly always numbers ("one" and "zero" are often not).
_NUMBER_NAMES = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBER_NAMES.split(), start=2)}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def figures(text: str) -> set[str]:
    """The numbers a statement asserts: digits (thousands separators dropped, '3.0' = '3'), and 2-20 in words."""
    found = set()
    for match in _DIGITS.findall(text):
        number = match.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", match) else match.replace(",", ".")
        found.add(number[: -len(".0")] if number.endswith(".0") else number)
    found.update(_NUMBER_WORDS[w] for w in _WORD.findall(text.lower()) if w in _NUMBER_WORDS)
    return found


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


# Words a negation reaches past to the word it denies ("is not yet included", "cannot be used").
_NEGATION_REACH = 3


def negated_words(text: str) -> set[str]:
    """The content stems that a negation of the text denies: the first content word after each
    negation word ("cannot use" denies use, "at no extra cost" denies extra)."""
    tokens = _TERM.findall(text)
    denied = set()
    for position, token in enumerate(tokens):
        if not _NEGATION.fullmatch(token):
            continue
        for after in tokens[position + 1 : position + 1 + _NEGATION_REACH]:
            stems = statements.content_stem_sequence(after)
            if stems and not _NEGATION.fullmatch(after):
                denied.add(stems[0])
                break
    return denied


def same_polarity(statement: str, sentence: str) -> bool:
    """Whether no word that one text denies is said plainly by the other: "You cannot use SSO" and
    "You can use SSO at no extra cost" differ (use); "at no extra cost" alone, a phrase the statement
    does not repeat, changes nothing."""
    said, given = statements.content_stems(statement), statements.content_stems(sentence)
    denied_said, denied_given = negated_words(statement), negated_words(sentence)
    return not ((denied_said & given) - denied_given or (denied_given & said) - denied_said)


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in statements.sentences_and_lines(text)] or [text]


_TERM = re.compile(r"\d+(?:[.,:]\d+)*|[^\W_]+(?:['’][^\W_]+)*")


def _terms(text: str) -> list[str]:
    """The content stems and the numbers of the text, in its order: what a copy keeps in place."""
    found = []
    for token in _TERM.findall(text):
        if token[0].isdigit():
            found.append(token.replace(",", ""))
        elif token.lower() in _NUMBER_WORDS:
            found.append(_NUMBER_WORDS[token.lower()])
        else:
            found.extend(statements.content_stem_sequence(token))  # nothing for a function word
    return found


def _aligned(statement: str, sentence: str) -> tuple[str, str]:
    """Both texts with each time and quantity of the statement that the sentence gives in another
    form replaced by one shared word, so that the word-order rules see the same thing twice."""
    pairs: list[tuple[str, str]] = []
    given_times = times.times_of_day(sentence)
    for said in times.times_of_day(statement):
        same = next((time for time in given_times if said.same_as(time)), None)
        if same is not None and said.text != same.text:
            pairs.append((said.text, same.text))
    for said, same in _same_quantities(statement, sentence):
        if said.lower() != same.lower():
            pairs.append((said, same))
    # Short forms written out as the sentence writes them ("SSO" as "Single sign on").
    for token, words in abbreviations.short_forms(statement, sentence).items():
        statement = re.sub(rf"(?<![\w.]){re.escape(token)}\.?(?!\w)", words, statement, count=1)
    for number, (said, same) in enumerate(pairs):
        word = f"sameas{chr(ord('a') + number % 26)}"
        statement = statement.replace(said, word, 1)
        sentence = sentence.replace(same, word, 1)
    return statement, sentence


def _same_quantities(statement: str, sentence: str) -> list[tuple[str, str]]:
    """Each quantity of the statement that the sentence gives too, in any unit, as both write it."""
    pairs = []
    given = measures.quantities(sentence)
    for written, quantity in measures.quantities(statement):
        for other_written, other in given:
            if measures.same_quantity(quantity, other):
                pairs.append((_quantity_text(statement, written), _quantity_text(sentence, other_written)))
                break
    return pairs


def _quantity_text(text: str, written: str) -> str:
    """The quantity as written in the text, its unit with it ("300 cm", "half an hour")."""
    match = re.search(rf"(?<![\w.,]){re.escape(written)}(?:[\s-]?{measures.WRITTEN_UNIT})?\b", text, re.IGNORECASE)
    return match.group() if match else written


def _in_order(wanted: list[str], sentence: list[str]) -> bool:
    """Whether `wanted` is a subsequence of `sentence` with at most MAX_GAP_WORDS content words in
    between. Numbers left out between them do not count (a date the answer dropped), but a number
    of `wanted` found only past another number is another figure's place: no match."""
    if not wanted:
        return False
    for first in (i for i, word in enumerate(sentence) if word == wanted[0]):
        position, gaps = first, 0
        for count, word in enumerate(wanted[1:], start=1):
            try:
                found = sentence.index(word, position + 1)
            except ValueError:
                break
            skipped = sentence[position + 1 : found]
            # Past another figure, or past a word already matched said again, is a parallel clause
            # ("version 2.1.4 in 2016 and version 6.1.9 in 2024"): another entity's attribute.
            if (_is_number(word) and any(_is_number(term) for term in skipped)) or set(skipped) & set(wanted[:count]):
                break
            gaps += sum(not _is_number(term) for term in skipped)
            position = found
        else:
            if gaps <= MAX_GAP_WORDS:
                return True
    return False


def _is_number(term: str) -> bool:
    return term[:1].isdigit()


def copied(statement: str, passage: str) -> bool:
    """A copy or near copy of one sentence of the passage (see the module docstring)."""
    for sentence in _sentences(passage):
        said, given = _aligned(statement, sentence)
        if (
            _in_order(_terms(said), _terms(given))
            and figures(said) <= figures(given)
            and same_polarity(statement, sentence)
        ):
            return True
    return False


# Pairs of words (stems) whose swap turns a statement into its opposite: never a rewording.
_OPPOSITES = [
    ("includ", "exclud"),
    ("increas", "decreas"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("above", "below"),
    ("over", "under"),
    ("befor", "after"),
    ("earlier", "later"),
    ("first", "last"),
    ("allow", "deny"),
    ("allow", "block"),
    ("allow", "prevent"),
    ("accept", "reject"),
    ("add", "remov"),
    ("enabl", "disabl"),
    ("open", "clos"),
    ("start", "stop"),
    ("start", "end"),
    ("win", "los"),
    ("rise", "fall"),
    ("gain", "loss"),
    ("maximu", "minimu"),
    ("buy", "sell"),
    ("import", "export"),
    ("permit", "forbid"),
    ("approv", "deny"),
    ("approv", "reject"),
    ("succes", "failur"),
    ("pass", "fail"),
    ("requir", "option"),
    ("public", "privat"),
    ("free", "paid"),
    ("onlin", "offlin"),
    ("internal", "externa"),
    ("inbound", "outbou"),
    ("upload", "downlo"),
    ("encryp", "decryp"),
    ("lock", "unlock"),
    ("old", "new"),
]
OPPOSITES = frozenset({*_OPPOSITES, *((b, a) for a, b in _OPPOSITES)})


def reworded(statement: str, passage: str) -> tuple[str, str] | None:
    """(the statement's word, the passage's) when the statement is one sentence of the passage with
    one content word replaced by a word that is not its opposite; None otherwise."""
    if len(statements.content_stem_sequence(statement)) < 3:
        return None
    for sentence in _sentences(passage):
        said, given = _aligned(statement, sentence)
        wanted, words = _terms(said), _terms(given)
        new = [w for w in wanted if w not in words]
        if len(new) != 1 or not figures(said) <= figures(given) or not same_polarity(statement, sentence):
            continue
        if _is_number(new[0]) or not _in_order([w for w in wanted if w != new[0]], words):
            continue
        others = [w for w in words if w not in wanted]
        if others and not any((new[0], other) in OPPOSITES for other in others):
            return _word_of(statement, new[0]), _word_of(sentence, others[0])
    return None


def _word_of(text: str, stem: str) -> str:
    """The word of the text that a stem came from, for notes a user reads."""
    return next((word for word in _WORD.findall(text) if statements.stem(word) == stem), stem)


_CAPITALISED = re.compile(r"(?<=[\w,;] )[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*")


def names(statement: str, entities: Sequence[str]) -> list[str]:
    """The statement's named entities, and capitalised words inside a sentence (names a small NER
    model misses: products, companies)."""
    found = list(dict.fromkeys(entities))
    lower = " ".join(found).lower()
    for match in _CAPITALISED.finditer(statement):
        if match.group().lower() not in lower and match.group() != "I":
            found.append(match.group())
    return found


def mismatch(statement: str, entities: Sequence[str], passage: str) -> str | None:
    """Why the passage cannot support the statement, in words, or None."""
    # A time of day is compared as a time, however either text writes it (`times`).
    said_times, given_times = times.times_of_day(statement), times.times_of_day(passage)
    other_times = [said for said in said_times if not any(said.same_as(given) for given in given_times)]
    if other_times:
        documents = (
            f"the documents say {', '.join(time.text for time in given_times)}"
            if given_times
            else "the documents give no such time"
        )
        return f"{documents}, the answer says {', '.join(time.text for time in other_times)}"
    untimed = _without(statement, said_times)
    # A unit symbol is no name ("147 GB" for "147 gigabytes"): quantities the passage gives are compared above.
    unnamed, quantities = untimed, [said for said, _ in _same_quantities(untimed, passage)]
    for said in quantities:
        unnamed = unnamed.replace(said, " " * len(said), 1)
    # "W." of "238 W." is the unit "W": a name's closing punctuation is the sentence's.
    entities = [entity.rstrip(".,;:!?") for entity in entities if entity.rstrip(".,;:!?")]
    entities = [
        entity
        for entity in entities
        if not _inside_a_time(entity, said_times) and not any(entity in said for said in quantities)
    ]
    # A figure in another unit is no difference when the passage gives the same quantity (`measures`).
    missing = sorted(
        f for f in figures(untimed) - figures(passage) if not measures.same_quantity_in(f, untimed, passage)
    )
    if missing:
        # Only the passage's figures that the statement lacks: one both give is no difference.
        said = sorted(figures(passage) - figures(statement))
        documents = f"the documents say {', '.join(said)}" if said else "the documents give no such figure"
        return f"{documents}, the answer says {', '.join(missing)}"
    other_scale = scaled_figures(untimed) - scaled_figures(passage)
    if other_scale and scaled_figures(passage):
        given = ", ".join(sorted(_scaled_text(passage)))
        return f"the documents say {given}, the answer says {', '.join(sorted(_scaled_text(untimed)))}"
    other_months = months(untimed) - months(passage)
    if other_months:
        given = sorted(months(passage))
        documents = f"the documents say {', '.join(given)}" if given else "the documents give no such month"
        return f"{documents}, the answer says {', '.join(sorted(other_months))}"
    other_days = weekdays(untimed) - weekdays(passage)
    if other_days and weekdays(passage):
        return f"the documents say {_days_text(passage)}, the answer says {_days_text(untimed)}"
    short = abbreviations.short_forms(untimed, passage)
    # A day of the week is compared above, as a day: "Saturdays" is given by "every day".
    absent = [
        entity
        for entity in names(unnamed, entities)
        if not given_in(entity, passage, short) and not (_DAY.fullmatch(entity) and weekdays(passage))
    ]
    if absent:
        return f"the documents do not mention {', '.join(absent)}"
    mixed = _mixed_clauses(statement, passage)
    if mixed is not None:
        return f"the documents say that of another: \u201c{_preview(mixed)}\u201d"
    closest = _closest_sentence(statement, passage)
    if closest is not None and not same_polarity(statement, closest):
        side = "denies" if negated_words(statement) - negated_words(closest) else "affirms"
        return f"the answer {side} what the documents say: \u201c{_preview(closest)}\u201d"
    return None


def scaled_figures(text: str) -> set[float]:
    """The values of numbers written with a scale word ("747 million", "1.5 billion", "2,300 thousand"),
    as numbers: the digits alone are one figure for `figures`, so "747 billion" for "747 million" would
    pass; compared as values, "1,500 million" is "1.5 billion". Covers thousand to trillion in words
    only (not "bn", "m" or "k", which also stand for units)."""
    return {_scaled_value(number, scale) for number, scale in _SCALED.findall(text)}


def _scaled_value(number: str, scale: str) -> float:
    digits = number.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", number) else number.replace(",", ".")
    return round(float(digits) * _SCALES[scale.lower()], 3)


def _scaled_text(text: str) -> set[str]:
    return {f"{number} {scale.lower()}" for number, scale in _SCALED.findall(text)}


_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SCALED = re.compile(r"\b(\d+(?:[.,]\d+)*)\s+(thousand|million|billion|trillion)\b", re.IGNORECASE)


def given_in(name: str, passage: str, short: dict[str, str] | None = None) -> bool:
    """Whether the passage mentions a name of the answer: as written, by its content words, as a
    quantity it gives in any unit ("three weeks" for "21 days"), or by short forms of its words
    ("UK" for "United Kingdom"; `short`: `abbreviations.short_forms` of the statement, if known)."""
    stems = statements.content_stems(passage)
    return (
        " ".join(name.lower().split()) in " ".join(passage.lower().split())
        or statements.content_stems(name) <= stems
        or measures.is_a_quantity_given_in(name, passage)
        or _short_form_of_words_in(
            name, abbreviations.short_forms(name, passage) if short is None else short, passage, stems
        )
    )


_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
# A month by its name or its usual short form, capitalised as in a date ("14 May 2026", "Oct 3");
# "May" only where a date puts it, next to a figure (elsewhere it is mostly the verb).
_MONTH = re.compile(
    r"\b(?:(?P<name>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?"
    r"|(?<=\d )(?P<may>May)\b|(?P<may_first>May)(?= \d))"
)


def months(text: str) -> set[str]:
    """The months a text names, as full names ("October" for "Oct")."""
    found = set()
    for match in _MONTH.finditer(text):
        written = (match["name"] or "may").lower()
        found.add(next(month for month in _MONTHS if month.startswith(written[:3])).capitalize())
    return found


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Days of the week by name (singular or plural, "Mon" to "Sun" with a dot or not), and the words for
# sets of them: a statement's "weekdays" is not the passage's "Saturdays"; "every day" gives them all.
# "the Sun" is the star, not a day.
_DAY = re.compile(
    r"\b(?:(?<!\bthe )(?<!\bThe )(?P<name>Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun)(?:\.|\b)"
    r"|(?P<full>(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?)\b"
    r"|(?P<set>weekdays?|weekends?|every day|daily)\b)",
)
_DAY_SETS = {"weekday": set(_DAYS[:5]), "weekend": set(_DAYS[5:]), "every day": set(_DAYS), "daily": set(_DAYS)}


def weekdays(text: str) -> set[str]:
    """The days of the week a text names, "weekdays", "weekends" and "every day" as the days they are."""
    found: set[str] = set()
    for match in _DAY.finditer(text):
        if match["set"]:
            found |= _DAY_SETS[match["set"].lower().rstrip("s")]
        else:
            written = (match["name"] or match["full"]).lower()
            found.add(next(day for day in _DAYS if day.startswith(written[:3])))
    return found


def _days_text(text: str) -> str:
    return ", ".join(dict.fromkeys(match.group() for match in _DAY.finditer(text)))


def _without(text: str, found: Sequence[times.TimeOfDay]) -> str:
    """The text with these times of day blanked out (their numbers are compared as times)."""
    for time in reversed(found):
        text = text[: time.start] + " " * (time.end - time.start) + text[time.end :]
    return text


def _inside_a_time(entity: str, found: Sequence[times.TimeOfDay]) -> bool:
    return any(entity in time.text or time.text in entity for time in found)


_POSSESSIVE = re.compile(r"['’]s?$")


def _short_form_of_words_in(entity: str, short: dict[str, str], passage: str, stems: set[str]) -> bool:
    """Whether each word of the name is in the passage or a short form of its words ("Titan API",
    "Mon-Fri", "USD 585M"), one at least a short form (`abbreviations.short_forms`)."""
    lower = {word.lower() for word in _WORD.findall(passage)}
    # A possessive ending is no part of the name ("Labs' CEO", "Energy's CEO").
    tokens = [_POSSESSIVE.sub("", token).strip(".") for token in re.split(r"[\s\-–/]+", entity)]
    tokens = [token for token in tokens if token]
    unknown = [token for token in tokens if token.lower() not in lower and statements.stem(token) not in stems]
    return bool(unknown) and all(token in short for token in unknown)


_CLAUSE = re.compile(r"[;:,]\s+|\s+(?:but|whereas|while|although)\s+", re.IGNORECASE)


# Where a sentence may join two clauses of the same shape ("X weighs 21 kg and Y weighs 23 kg").
_PARALLEL = re.compile(r";\s+|,?\s+(?:and|while|whereas|but)\s+", re.I)


def _mixed_clauses(statement: str, passage: str) -> str | None:
    """The clause whose attribute the statement gives to the subject of another clause of the same
    sentence, or None. Two clauses A and B are parallel when they share a word (the same predicate:
    "weighs", "team works in"); each one's own subject is its first term the other lacks. The
    statement mixes them when it names A's own subject, not B's, takes a term only B has, and leaves
    out a term only A has (A's own attribute, replaced): "the Summit e-bike weighs 23 kg" from "the
    Summit e-bike weighs 21 kg and the Harbor e-bike weighs 23 kg". A clause without a subject of
    its own ("..., and it costs $500") is the same subject's, and mixes nothing; a list ("musician,
    singer and songwriter") shares no predicate."""
    wanted = set(_terms(statement))
    if not wanted:
        return None
    for sentence in _sentences(passage):
        clauses = [clause for clause in _PARALLEL.split(sentence) if clause and clause.strip()]
        terms = [set(_terms(clause)) for clause in clauses]
        if len(clauses) < 2 or not wanted <= set().union(*terms):
            continue
        for a, b in ((a, b) for a in range(len(clauses)) for b in range(len(clauses)) if a != b):
            shared = {term for term in terms[a] & terms[b] if not _is_number(term)} | (
                _linking(clauses[a]) & _linking(clauses[b])
            )
            own_a = _own_subject(clauses[a], terms[b])
            own_b = _own_subject(clauses[b], terms[a])
            if (
                shared
                and own_a in wanted
                and own_b is not None
                and own_b not in wanted
                and wanted & (terms[b] - terms[a])
                and (terms[a] - terms[b]) - wanted
            ):
                return clauses[b].strip()
    return None


# Verbs that join a subject to its attribute: two clauses with the same one are parallel as surely as
# two with the same content verb ("X is the finance director of A and Y is its head of sales").
_LINKING = frozenset({"is", "are", "was", "were", "has", "have", "had"})


def _linking(clause: str) -> set[str]:
    return {word for word in _WORD.findall(clause.lower()) if word in _LINKING}


def _own_subject(clause: str, other: set[str]) -> str | None:
    return next((term for term in _terms(clause) if term not in other), None)


def _closest_sentence(statement: str, passage: str) -> str | None:
    """The clause of the passage that shares most of the statement's content words, if it shares enough."""
    words = statements.content_stems(statement)
    if not words:
        return None
    best, overlap = None, 0.0
    clauses = [clause for sentence in _sentences(passage) for clause in _CLAUSE.split(sentence) if clause.strip()]
    for sentence in clauses:
        shared = len(words & statements.content_stems(sentence)) / len(words)
        if shared > overlap:
            best, overlap = sentence, shared
    return best if overlap >= POLARITY_OVERLAP else None


def _preview(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
