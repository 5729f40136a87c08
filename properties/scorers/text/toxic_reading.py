"""How Toxicity reads a sentence before and beside its models.

- `undo_obfuscation(text)`: the spelling tricks people use to slip abuse past filters, undone
  ("1d10t", "f a g g o t", "stuuupid", typographic apostrophes), so that the packaged classifiers,
  which look words up in a fixed vocabulary, see the words meant.
- `without_quotations(text)`: quoted sentences set aside when the text says more than them: a
  moderator's "messages like 'you are an idiot' are hidden" mentions an insult, it does not make one.
- `speaks_to_reader(text)`: whether a sentence addresses someone in the second person, the case in
  which rude words are aimed at a person rather than at a router or a bug.
- `find_threat(text)`: a threat of harm to the person addressed ("I will make you regret it",
  "I know where you live"). No packaged model reads threats: the Jigsaw BiLSTM's `threat` label
  stays under 0.05 on them, and the training data has threats against groups only.
- `find_derogation(text)`: a protected group given a degrading attribute or called vermin ("those
  lazy Nigerians", "immigrants are vermin"). The embedding head reads a whole sentence, and one
  such clause at the end of a polite one ("Our team in Lagos will handle your ticket, if those
  lazy Nigerians ever bother to work.") moved it from 0.02 to 0.14 only.
- `target_features(text)`: who a sentence is about and how, as numbers the head weighs beside the
  embedding (`TARGET_FEATURES`): the reader, a group, a third person; a negation; the two patterns
  above; and a negation beside each of them. The patterns were once floors (a degraded group read
  0.8 whatever the head said), which read "There is no truth to the idea that migrants are
  criminals" as hate; as features the head learns from the training rows how much each counts.
- `degrading_clause(text)`: the clause of a longer sentence in which the derogation pattern finds a
  degraded group, for the head to read alone as well, so that a polite sentence does not dilute it.
"""

from __future__ import annotations

import re
import unicodedata

# Digits and symbols that stand for letters inside words ("1d10t", "sh1t", "@ss"); only words that
# mix them with letters are rewritten, so numbers, versions and prices stay as they are.
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*[a-zA-Z])(?=[\w@$]*[0-9@$])[\w@$]+")
# Letters spelt out one by one ("f a g g o t s"); one case throughout, so "the next w o m a n I see"
# keeps its "I".
_SPACED_LETTERS = re.compile(r"\b(?:(?:[a-z] ){2,}[a-z]|(?:[A-Z] ){2,}[A-Z])\b")
_STRETCHED = re.compile(r"([a-zA-Z])\1{2,}")
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'"})

# A quotation of three words or more: shorter ones are scare quotes ('such a "genius"'), which are meant.
_QUOTATION = re.compile(r'"[^"\n]{1,300}"|(?<![\w\'])\'[^\'\n]{1,300}\'(?![\w\'])|`[^`\n]{1,300}`')
QUOTATION_MIN_WORDS = 3

# A negation in the sentence: "not", "never", "no one", "isn't" (closed-class words, not a topic).
_NEGATION = re.compile(r"\b(?:not|never|no|none|nobody|nothing|neither|nor|without|cannot)\b|n't\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their)\b", re.IGNORECASE)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|yourselves|u|ur|ya|youre|y'all)\b", re.IGNORECASE)

_FIRST_PERSON_WILL = (
    r"\b(?:i|we)\s*(?:'ll|will|shall|'m going to|am going to|are going to|'re going to|'m gonna|am gonna|gonna)\s+"
)
_HARM = r"(?:kill|murder|hurt|punch|kick|slap|stab|shoot|strangle|choke|smash|destroy|end|bury|rape|torture|beat up)"
_BODY = r"(?:legs?|arms?|neck|face|nose|jaw|bones|teeth|skull|head|fingers|knees?|back|ribs)"
THREATS = (
    # "I will punch you", "we're going to hurt you" (two words may come between: "I will personally ...")
    _FIRST_PERSON_WILL
    + r"(?:(?!not\b|never\b)\w+\s+){0,2}?"
    + _HARM
    + r"\s+(?:you|u|ya)\b(?!\s+(?:an?|the|some|my|our|over)\b)",  # not "I'll shoot you an email"
    # A wish or plan to harm people: "I hate everyone and want to hurt them" (people, not "kill the process")
    r"\b(?:i|we|and)\s+(?:really\s+|just\s+)?(?:want|wanna|would love|'d love|'d like|plan|intend|am going|'m going|"
    r"'m gonna|am gonna)\s+(?:to\s+)?"
    + _HARM
    + r"\s+(?:them|him|her|you|u|everyone|everybody|people|somebody|someone|all of (?:you|them))\b"
    r"(?!\s+(?:an?|the|some|my|our|over)\b)",
    r"\b(?:hunt|track) (?:you|u) down\b",
    r"\b(?:break|smash|punch|kick|bash|cut) (?:your|ur) " + _BODY + r"\b",
    r"\bmake (?:you|u) (?:suffer|regret|bleed|pay for (?:this|that|it))\b",
    r"\b(?:i|we) know where (?:you|u) live\b",
    r"\b(?:you|u)(?:'ll| will|'re going to| are going to|'re gonna) (?:regret (?:this|that|it)|be sorry)\b",
    r"\b(?:you|u)(?:'ll| will) pay for (?:this|that)\b(?!\s+\w)",
    r"\b(?:hope|wish) (?:you|u) (?:die|choke|rot|burn|suffer|drop dead|get (?:hit|run over|cancer|killed|hurt))\b",
    r"\b(?:go )?(?:kill|hang|shoot) yourself\b",
    r"\bkys\b",
    r"\bwatch your back\b",
)
_THREAT = re.compile("|".join(f"(?:{pattern})" for pattern in THREATS), re.IGNORECASE)


# Protected groups (HateCheck's: women, trans people, gay people, black people, disabled people,
# Muslims, immigrants) and the other religions, origins and nationalities a sentence names a people
# by, in the plural: a degrading word about a people, not about a person or a profession.
_GROUPS = (
    r"women|girls|females|trans(?:gender)? (?:people|women|men|folks?)|trannies|gays?|gay (?:people|men|folks?)|"
    r"lesbians|homosexuals|queers|bisexuals|black (?:people|folks?|men|women)|blacks|people of colou?r|"
    r"disabled people|the disabled|cripples|retards|autistic people|muslims|jews|christians|hindus|sikhs|"
    r"buddhists|atheists|arabs|immigrants|migrants|refugees|foreigners|asylum seekers|gypsies|roma|"
    r"(?:african|asian|chinese|indian|mexican|nigerian|pakistani|somali|syrian|afghan|iraqi|iranian|turkish|"
    r"polish|romanian|albanian|jamaican|haitian|filipino|vietnamese|korean|japanese|russian|ukrainian|"
    r"palestinian|israeli|irish|italian|latino|hispanic|muslim|jewish|black|gay|trans) (?:people|folks?|men|women)|"
    r"africans|asians|indians|mexicans|nigerians|pakistanis|somalis|syrians|afghans|iraqis|iranians|turks|"
    r"romanians|albanians|jamaicans|haitians|filipinos|koreans|russians|ukrainians|palestinians|israelis|"
    r"latinos|hispanics|kenyans|ghanaians|ethiopians|bangladeshis|americans|germans|brits|frenchmen"
)
_GROUP = re.compile(rf"\b(?:{_GROUPS})\b", re.IGNORECASE)
_DEGRADING = (
    r"lazy|stupid|dumb|dirty|filthy|disgusting|worthless|useless|subhuman|inferior|primitive|savage|smelly|"
    r"vile|evil|violent|thieving|backward|idiotic|brainless|retarded|parasitic|diseased"
)
_VERMIN = (
    r"animals|vermin|parasites|rats|cockroaches|pigs|apes|monkeys|scum|trash|garbage|filth|savages|criminals|"
    r"terrorists|rapists|thieves|leeches|idiots|morons|subhumans|(?:a )?(?:plague|disease|cancer|burden|pest)"
)
_DEROGATION = re.compile(
    # "those lazy Nigerians", "filthy immigrants"
    rf"\b(?:{_DEGRADING})\s+(?:{_GROUPS})\b"
    # "immigrants are vermin", "women are too stupid to ...": nothing but intensifiers in between, so
    # "are not lazy" and "are rarely violent" are not read
    rf"|\b(?:{_GROUPS})\s+(?:are|r)\s+(?:(?:all|just|so|such|too|really|truly|only|simply|naturally|always|"
    rf"nothing but|basically|literally)\s+)*(?:an?\s+)?(?:{_DEGRADING}|{_VERMIN})\b",
    re.IGNORECASE,
)
# Speech about a degrading claim, not the claim: "saying that women are stupid is wrong".
_REPORTED = re.compile(
    r"\b(?:say|says|saying|said|claim|claims|claiming|claimed|think|thinks|thinking|believe|believes|call|calls|"
    r"calling|called|such as|statements?|words?)\s+(?:that\s+)?(?:all\s+|most\s+|the\s+)?$",
    re.IGNORECASE,
)


def undo_obfuscation(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC)
    text = _LEET_WORD.sub(lambda match: match.group(0).translate(_LEET), text)
    text = _SPACED_LETTERS.sub(lambda match: match.group(0).replace(" ", ""), text)
    return _STRETCHED.sub(r"\1", text)


def without_quotations(text: str) -> str:
    """The text with its quoted sentences blanked, if what is left says more than they do; else the
    text unchanged (a text that is mostly a quotation, a retweet for one, is judged on it)."""
    quotations = [match for match in _QUOTATION.finditer(text) if len(match.group(0).split()) >= QUOTATION_MIN_WORDS]
    if not quotations:
        return text
    rest = text
    for match in reversed(quotations):
        rest = rest[: match.start()] + " " + rest[match.end() :]
    quoted_words = sum(len(match.group(0).split()) for match in quotations)
    return rest if len(rest.split()) > max(quoted_words, 2) else text


def speaks_to_reader(text: str) -> bool:
    return _SECOND_PERSON.search(text) is not None


def find_threat(text: str) -> re.Match[str] | None:
    return _THREAT.search(text)


# Where a clause ends inside a sentence.
_CLAUSE_BREAK = re.compile(r"[,;:\u2013\u2014]|\s-\s")


def degrading_clause(text: str) -> str | None:
    """The clause around the derogation pattern's match, if it is shorter than the sentence."""
    match = find_derogation(text)
    if match is None:
        return None
    breaks = [(found.start(), found.end()) for found in _CLAUSE_BREAK.finditer(text)]
    start = max((end for begin, end in breaks if end <= match.start()), default=0)
    stop = min((begin for begin, end in breaks if begin >= match.end()), default=len(text))
    clause = text[start:stop].strip()
    return clause if clause != text.strip() else None


def find_derogation(text: str) -> re.Match[str] | None:
    """A protected group degraded or dehumanised in `text` (see the module docstring), unless the
    sentence reports the claim ("calling immigrants vermin is wrong")."""
    for match in _DEROGATION.finditer(text):
        if not _REPORTED.search(text[: match.start()]):
            return match
    return None


TARGET_FEATURES = (
    "to_reader",
    "derogation",
    "threat",
    "negation",
    "names_group",
    "third_person",
    "negated_derogation",
    "negated_group",
    "negated_threat",
    "negated_to_reader",
)


def target_features(text: str) -> list[float]:
    """`TARGET_FEATURES` of a prepared sentence, each 0 or 1."""
    to_reader, negation = speaks_to_reader(text), _NEGATION.search(text) is not None
    derogation, threat = find_derogation(text) is not None, find_threat(text) is not None
    group, third = _GROUP.search(text) is not None, _THIRD_PERSON.search(text) is not None
    flags = (to_reader, derogation, threat, negation, group, third)
    flags += (derogation and negation, group and negation, threat and negation, to_reader and negation)
    return [float(flag) for flag in flags]
