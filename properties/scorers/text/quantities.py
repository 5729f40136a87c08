"""Numbers that are quantities, not personal data: figures, measurements, prices, years, versions.

A PII model that reads characters, not meaning, takes "8,849" in "8,849 metres" for a building
number and "1644" for a postal code. `quantity_reading` says, in words a user understands, why a
number in its sentence is a quantity ("a measurement", "a year"), or None when it may be an
identifier. Only the number's own shape and its immediate neighbours are read: a regular
expression or two per candidate, cheap enough for every entity a model finds.
"""

from __future__ import annotations

import re

# A number as written in running text: 8,849 / 1.2 / 13 960 000 is not joined (two words).
_NUMBER = r"\d+(?:[,.]\d+)*"
_CURRENCY_SYMBOL = "$€£¥₹₩₽"
_CURRENCY_CODE = r"(?:USD|EUR|GBP|CHF|JPY|CNY|INR|CAD|AUD|SEK|NOK|DKK|PLN|BRL|MXN)"
_CURRENCY_WORD = r"(?:dollars?|euros?|pounds?|cents?|pence|yen|yuan|rupees?|francs?|kronor|krone|bucks)"
_UNITS = (
    r"(?:mm|cm|m|km|in|inch(?:es)?|ft|feet|foot|yards?|mi|miles?|nmi|metres?|meters?|kilomet(?:re|er)s?|"
    r"centimet(?:re|er)s?|millimet(?:re|er)s?|mg|g|kg|t|tons?|tonnes?|lbs?|pounds?|oz|ounces?|grams?|kilos?|"
    r"kilograms?|ml|l|litres?|liters?|gallons?|m2|m²|km2|km²|m3|m³|sq|square|cubic|hectares?|ha|acres?|"
    r"°[CF]?|degrees?|K|kelvin|celsius|fahrenheit|mph|km/h|kph|knots?|m/s|"
    r"ms|s|sec(?:ond)?s?|min(?:ute)?s?|h|hrs?|hours?|days?|weeks?|months?|years?|yrs?|decades?|centuries|"
    r"[kMGT]?Hz|[kMGTP]?B|bytes?|bits?|kbps|Mbps|Gbps|[kMG]?W|kWh|MWh|V|mAh|A|Wh|cal|kcal|calories|J|"
    r"px|pt|dpi|fps|rpm|psi|bar|Pa|kPa|dB|%|percent|per\s?cent|pc|x|times|"
    r"people|persons|residents|inhabitants|employees|users|customers|visitors|spectators|seats|votes|"
    r"copies|units|items|pages|words|rows|columns|records|lines|points|goals|runs|species|"
    r"(?:business|working|calendar)\s(?:days|hours|weeks)|"
    r"million|billion|trillion|thousand|hundred|bn|mn|k|crore|lakh)"
)
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_YEAR = r"(?:1\d{3}|20\d{2})"

# Shapes read from the number alone (checked in this order).
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"[{_CURRENCY_SYMBOL}]\s?{_NUMBER}[kKmMbB]?|{_NUMBER}\s?[{_CURRENCY_SYMBOL}]"), "a price"),
    (re.compile(rf"{_NUMBER}\s?(?:%|‰)"), "a percentage"),
    (re.compile(r"[vV]\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?"), "a version number"),
    (re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?"), "a figure with thousands separators"),
    (re.compile(rf"{_YEAR}\s?[-–—/]\s?(?:{_YEAR}|\d{{2}})"), "a range of years"),
    (re.compile(rf"{_YEAR}s|\d{{2}}s|(?:AD|BC|BCE|CE)\s?\d{{1,4}}|\d{{1,4}}\s?(?:AD|BC|BCE|CE)"), "a year"),
    (re.compile(r"\d+(?:st|nd|rd|th|d)"), "an ordinal number"),  # 72d: the older form of 72nd
    (re.compile(r"(?:[01]?\d|2[0-3])[:h][0-5]\d(?::[0-5]\d)?(?:\s?[ap]\.?m\.?)?", re.IGNORECASE), "a time of day"),
    (re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.](?:\d{4}|\d{2})|\d{1,2}-\d{1,2}-\d{4}"), "a date"),
    (re.compile(rf"{_NUMBER}\s?{_UNITS}", re.IGNORECASE), "a measurement"),
)
# A bare number or range of numbers, read from its neighbours: "in 1998", "8,849 metres", "3-5 days".
_BARE_NUMBER = re.compile(rf"{_NUMBER}(?:\s?[-–]\s?{_NUMBER})?")
_UNIT_AFTER = re.compile(rf"\s?(?:-\s?)?{_UNITS}\b|\s?[x×]\s?\d", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(rf"(?:[{_CURRENCY_SYMBOL}]|\b{_CURRENCY_CODE})\s?$")
_CURRENCY_AFTER = re.compile(rf"\s?(?:{_CURRENCY_CODE}|{_CURRENCY_WORD})\b", re.IGNORECASE)
_VERSION_BEFORE = re.compile(
    r"\b(?:version|versions|release|releases|build|firmware|driver|patch|update|v|python|node|java|ios|android|"
    r"api|sdk|kernel|macos|windows)\.?\s?$",
    re.IGNORECASE,
)
_VERSION_SHAPE = re.compile(r"\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.]+)?")
# 3.12.4; a phone number written with dots (415.555.0132) ends in four digits.
_SHORT_VERSION = re.compile(r"\d{1,2}\.\d{1,3}\.\d{1,3}")
_YEAR_BEFORE = re.compile(
    rf"\b(?:in|since|from|until|till|to|by|between|and|of|or|before|after|during|circa|c\.|ca\.|around|year|"
    rf"the|a|his|her|its|their|"
    rf"years|early|mid|late|spring|summer|autumn|fall|winter|{_MONTHS}\.?(?:\s\d{{1,2}}(?:st|nd|rd|th)?,?)?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s{_MONTHS}\.?)\s$",
    re.IGNORECASE,
)
_ERA_AFTER = re.compile(r"\s?(?:AD|BC|BCE|CE|A\.D\.|B\.C\.)(?!\w)")
_RANGE_END_AFTER = re.compile(r"\s?[-–—]\s?(?:1\d{3}|20\d{2}|\d{2})\b")


def quantity_reading(text: str, start: int, end: int) -> str | None:
    """Why text[start:end] is a quantity and not an identifier, or None if it may be one."""
    candidate = text[start:end].strip()
    for shape, reading in _SHAPES:
        if shape.fullmatch(candidate):
            return reading
    if not _BARE_NUMBER.fullmatch(candidate):
        return None
    before, after = text[max(0, start - 40) : start], text[end : end + 40]
    if _ERA_AFTER.match(after):
        return "a year"
    if looks_like_a_year(candidate) and (_YEAR_BEFORE.search(before) or _RANGE_END_AFTER.match(after)):
        return "a year"
    if _CURRENCY_BEFORE.search(before) or _CURRENCY_AFTER.match(after):
        return "a price"
    if _VERSION_SHAPE.fullmatch(candidate) and (_VERSION_BEFORE.search(before) or _SHORT_VERSION.fullmatch(candidate)):
        return "a version number"
    if _UNIT_AFTER.match(after):
        return "a measurement"
    return None


def looks_like_a_year(candidate: str) -> bool:
    """A bare four-digit number from 1000 to 2099: a year, unless it stands inside an address."""
    return re.fullmatch(_YEAR, candidate.strip()) is not None


def follows_a_version_word(text: str, start: int) -> bool:
    """'version 10.4.0.2', 'firmware 2.1.0.7': a dotted number that names a release, not a host."""
    return _VERSION_BEFORE.search(text[max(0, start - 20) : start]) is not None
