"""Times of day, however they are written: "09:45", "9:45 am", "7 pm", "19:30", "seven o'clock in the
evening", "a quarter to ten in the morning", "half past seven", "noon", "midnight".

Grounded in Context compares the numbers of an answer with those of the documents; a time is a
number written many ways ("a quarter to ten in the morning" is 09:45, and has no 9 nor 45 in it).
Each time found is read as minutes after midnight. A time that does not say the part of the day
("half past seven", "7:30") has two readings, morning and evening; a 24-hour time ("19:30", "09:45")
has one. Two times are the same when their readings meet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from properties.scorers.text.statements import NUMBER_NAMES

_HOUR_WORDS = {word: value for value, word in enumerate(NUMBER_NAMES.split()) if 1 <= value <= 12}
_HOUR_WORD = "|".join(sorted(_HOUR_WORDS, key=len, reverse=True))
_HOUR = rf"(?:\d{{1,2}}|{_HOUR_WORD})"
_PART = (
    r"(?:\s*(?P<meridiem>a\.?m\.?|p\.?m\.?)(?![\w])"
    r"|\s+(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night)))?"
)
_TIME = re.compile(
    r"(?<![\w:.])(?:"
    rf"(?P<digits>(?P<h>\d{{1,2}}):(?P<m>\d{{2}}))(?![\d:])"
    rf"|(?P<quarter>(?:a\s+)?quarter)\s+(?P<qdir>past|to)\s+(?P<qh>{_HOUR})"
    rf"|half\s+past\s+(?P<hh>{_HOUR})"
    rf"|(?P<oh>{_HOUR})\s+o['’]clock"
    rf"|(?P<bare>\d{{1,2}})(?=\s*(?:a\.?m\.?|p\.?m\.?)(?![\w]))"
    r"|(?P<noon>noon|midday)|(?P<midnight>midnight)"
    rf"){_PART}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeOfDay:
    start: int
    end: int
    text: str
    readings: frozenset[int]  # minutes after midnight

    def same_as(self, other: TimeOfDay) -> bool:
        return bool(self.readings & other.readings)


def times_of_day(text: str) -> list[TimeOfDay]:
    """The times of day in the text, in order, each with its readings."""
    found = []
    for match in _TIME.finditer(text):
        readings = _readings(match)
        if readings:
            found.append(TimeOfDay(match.start(), match.end(), match.group(), readings))
    return found


def _hour(text: str) -> int:
    return int(text) if text.isdigit() else _HOUR_WORDS[text.lower()]


def _readings(match: re.Match) -> frozenset[int]:
    if match["noon"]:
        return frozenset({12 * 60})
    if match["midnight"]:
        return frozenset({0})
    twenty_four = False
    if match["digits"]:
        hour, minute = int(match["h"]), int(match["m"])
        # "09:45" and "19:30" are 24-hour times; "9:45" may be either half of the day.
        twenty_four = match["h"].startswith("0") or hour >= 13 or hour == 0
    elif match["quarter"]:
        hour, minute = _hour(match["qh"]), 15
        if match["qdir"].lower() == "to":
            hour, minute = hour - 1, 45
    elif match["hh"]:
        hour, minute = _hour(match["hh"]), 30
    elif match["oh"]:
        hour, minute = _hour(match["oh"]), 0
    else:
        hour, minute = int(match["bare"]), 0
    if hour > 23 or minute > 59:
        return frozenset()
    meridiem = (match["meridiem"] or "").lower().replace(".", "")
    part = (match["part"] or "").lower()
    if meridiem == "am" or part == "morning":
        hours = {hour % 12}
    elif meridiem == "pm" or part in ("afternoon", "evening") or match["night"]:
        hours = {hour % 12 + 12}
    elif twenty_four or hour > 12:
        hours = {hour}
    else:
        hours = {hour % 12, hour % 12 + 12}
    return frozenset(h * 60 + minute for h in hours)
