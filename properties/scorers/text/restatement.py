"""A statement restated in its passage's terms: what a rule can tell is the same, written the same.

"Charging takes 90 minutes" against "a full charge takes an hour and a half" and "Moran Labs' CEO"
against "the chief executive of Moran Labs" say what their passages say, in other units and short
forms. The learnt signals of Grounded in Context (NLI head, cross-encoder, cosine, novel words) read
words, and read these as different: they are computed on the statement restated, in which

- a quantity the passage gives in another unit is written as the passage writes it (the same
  quantity after conversion, `measures.same_quantity`: "three weeks" becomes "21 days");
- a short form of words of the passage is written out as those words (`abbreviations.short_forms`:
  "USD 58M" becomes "US dollars 58 million").

Nothing else changes: a figure the passage does not give (in any unit) stays as written, so a
changed number remains a difference for every signal and for the rules.
"""

from __future__ import annotations

import re

from properties.scorers.text import abbreviations, measures
from properties.scorers.text.statements import _STOP

# Words an initialism may take a letter from but that end no expansion: "CEO" is the chief executive
# "of" a company in "the chief executive of Moran Labs"; written out, it is the chief executive.
_TRAILING_STOP = re.compile(r"(?:\s+(?:" + "|".join(sorted(_STOP, key=len, reverse=True)) + r"))+$", re.IGNORECASE)


def restated(statement: str, passage: str) -> str:
    """The statement with quantities and short forms written as the passage writes them."""
    return _short_forms_written_out(_quantities_as_given(statement, passage), passage)


def _quantities_as_given(statement: str, passage: str) -> str:
    given = measures.quantity_spans(passage)
    out, last = [], 0
    for _, quantity, (start, end) in sorted(measures.quantity_spans(statement), key=lambda found: found[2]):
        if start < last:  # two readings of one phrase ("an hour" inside "an hour and a half")
            continue
        same = [passage[s:e] for _, other, (s, e) in given if measures.same_quantity(quantity, other)]
        if same and same[0].lower() != statement[start:end].lower():
            out += [statement[last:start], same[0]]
            last = end
    return "".join(out) + statement[last:]


def _short_forms_written_out(statement: str, passage: str) -> str:
    for token, words in abbreviations.short_forms(statement, passage).items():
        words = _TRAILING_STOP.sub("", words) or words
        statement = re.sub(rf"(?<![\w.]){re.escape(token)}(?!\w)", words, statement)
    return statement
