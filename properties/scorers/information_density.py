"""Information Density: how much information the output conveys, 0 to 1, sentence by sentence.

The output is cut into sentences with character offsets (lines, then Punkt sentences within a
line; a fenced code block is one unit). Each sentence gets

    score = content * (1 - penalty_1) * (1 - penalty_2) * ...

- *content* (0-1) rises with the share of content words (nouns, verbs, adjectives, adverbs and
  numbers that are neither stop words nor vague words like "things"), with specifics (named
  entities, numbers, inline code, paths, identifiers) and with an imperative opening ("Run
  `pip install x`, then restart the server.");
- each *penalty* is a measured degree (0-1) of one uninformative trait times its weight: a request
  for more information, another question, filler or pleasantries, a refusal (the Avoided Answer
  head on the sentence, and its refusal phrases), hedging, a sentence that says nothing in words the
  rules do not list (a head on its MiniLM embedding, trained on generated sentences:
  `properties.training.information_density`; a sentence that mostly says the input back is read
  again with the input's words masked, so the head judges what it adds), and incomprehensible text (words that are in no
  vocabulary and whose letter pairs are implausible for English, or stray symbols).

The interaction value is the mean over sentences: every sentence costs the reader the same
attention, so an answer padded with two filler sentences is diluted by them. Evidence: the
lowest-scoring sentences below `threshold`, each with the trait that pulled it down.

There is no labelled density data: the weights are a documented default, checked on a small
hand-labelled sanity set in the tests (not tuned on it); the says-nothing head learns from generated
sentences that share none with the behaviour suite.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from properties.scorers.avoided_answer import REFUSAL_PATTERNS, AvoidedAnswer
from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models, spacy_english
from properties.scorers.runtime.heads import default_head_path, load_head
from properties.scorers.text.linguistic import SPACY_BATCH_SIZE
from properties.scorers.text.statements import content_stems, numbers, stem

# --- content -------------------------------------------------------------------------------------
# Half of the words carrying content is already dense prose (encyclopaedic sentences run at
# 50-60%); above that the share adds nothing.
DENSE_SHARE = 0.5
# content = min(1, SHARE_WEIGHT * min(1, share / DENSE_SHARE) + SPECIFICS_WEIGHT * min(specifics, 2) / 2
#                  + IMPERATIVE_WEIGHT * imperative)
# The content-word share carries most of it (0.8): a plain factual sentence without names or
# numbers ("Cats sleep most of the day.") is informative. Specifics (up to two) add the last 0.2
# that separate a concrete statement from a general one; an imperative opening adds 0.2 too,
# because an instruction tells the reader what to do even when its words are common ones.
SHARE_WEIGHT = 0.8
SPECIFICS_WEIGHT = 0.2
IMPERATIVE_WEIGHT = 0.2
# A fenced code block is content through and through (what to type or run).
CODE_CONTENT = 1.0

# --- penalties (weight times a degree in 0-1; the factor applied is 1 - weight * degree) ---------
# A request for more information hands the work back to the user: nearly nothing conveyed.
REQUEST_WEIGHT = 0.9
# Any other question conveys less than a statement (it asks rather than tells), but a rhetorical
# question can frame the content that follows, so it is not zeroed.
QUESTION_WEIGHT = 0.6
# Filler ("Great question!", "I hope this helps"): degree = the share of the sentence's words
# inside filler phrases (1 when nothing with content is left), so filler around a fact costs
# only its share.
FILLER_WEIGHT = 0.9
# A refusal or evasion conveys nothing about the question; degree = the Avoided Answer head's
# probability on the sentence, at least REFUSAL_PHRASE_DEGREE when a refusal phrase is there
# (the head was trained on whole answers and is less sure of single sentences).
REFUSAL_WEIGHT = 0.9
REFUSAL_PHRASE_DEGREE = 0.7
# Hedging without specifics ("It depends on many factors."): half, since hedges often introduce
# content; vague words already lower the content share.
HEDGE_WEIGHT = 0.5
# A sentence that says nothing (thanks, appreciation, platitudes about service, good wishes, talk about
# the question, vague hedges, the question said back): degree = the "says nothing" head's probability
# on the sentence's MiniLM embedding (`properties.training.information_density`). The rules above
# catch the phrases they list; the head catches the kind in words no list has.
EMPTY_WEIGHT = 0.8
# The head reads sentences of at most this many words (and every sentence the refusal head reads,
# whose embeddings are there already). Sentences that say nothing are short: of the generated
# training rows that do (information_density_rows.py), 90% have at most 12 words, the longest 17.
# Embedding every sentence of the XSTest training answers would add 85% to the encoder's work, those
# of at most 16 words 35% (the property 25% slower than without it, on 64 XSTest answers), of at
# most 14 words 24% (18-23% slower), of at most 12 words 16% (8% slower; one filler case of the
# development templates missed): 12 keeps the property within 20% of its speed without the head.
MAX_EMPTY_WORDS = 12
# Longer sentences are read too when nothing in them is specific (no digit, code, path or identifier,
# no capitalised word after the first: no name, place or product), up to this many words: a long
# platitude ("At the end of the day, it's all about what works best for you.") says nothing in more
# words, while the long sentences of an answer nearly always carry a figure or a name. On 200 XSTest
# answers (1,377 sentences) 213 more sentences of 13-30 words would reach the head, 20% more CPU time
# for the property (load ~7, back to back); those of at most 20 words, 4% more (with the said-back
# reading below as well, 15.5 -> 17.6 s, +14%, load ~10).
MAX_PLAIN_WORDS = 20
# The question said back ("So you'd like to know whether the Nova speaker works with Alexa."): a
# sentence most of whose content words (at least this share, and at least two) come from the input,
# with no number the input lacks. The head reads such a sentence once more with each run of the
# input's words (and the function words between them) replaced by "it" ("So you'd like to know
# whether it."): what the sentence says beyond the input. Its "says nothing" degree is the higher of
# the two readings. An answer in the question's words keeps what it adds ("It costs $29 per month.",
# "To it, you can use the kill command with its process ID.").
RESTATED_SHARE = 0.5
# Incomprehensible text: degree = 2 * the share of non-words (half the words being gibberish
# makes a sentence unreadable); weight 1, it can zero a sentence.
GIBBERISH_WEIGHT = 1.0
# A word outside the encoder vocabulary is a non-word when its mean letter-pair log-probability
# is below that of 99% of the vocabulary's own words: technical words and names ("kubernetes",
# "osnabrück") pass, keyboard mash ("asdkjh", "qwpoeiru") does not.
NONWORD_PERCENTILE = 1.0

MAX_SPANS = 5
MAX_DETAIL_SENTENCES = 50

_FILLER = (
    r"(?:that's|that is|what) an? (?:great|good|excellent|interesting|fantastic) question",
    r"(?:great|good|excellent|interesting|fantastic) question",
    r"i hope (?:this|that|it|my answer|the above)[^.!?]*",
    r"hope (?:this|that) helps",
    r"(?:please )?let me know if[^.!?]*",
    r"(?:please )?(?:feel free|don't hesitate|do not hesitate) to[^.!?]*",
    r"(?:(?:i'd|i would|i'm|i am|i'll|i will) )?(?:be )?(?:happy|glad|delighted) to (?:help|assist)[^.!?]*",
    r"thanks? (?:you )?(?:so much )?for (?:asking|your question|reaching out|the question|your patience)",
    r"(?:have|enjoy) a (?:great|nice|good|wonderful) (?:day|time|one)",
    r"happy (?:coding|learning|cooking|writing)",
    r"good luck[^.!?]*",
    r"^(?:sure|certainly|of course|absolutely|okay|ok|great|alright|well|hi|hello|hey)(?: there)?\b[!,.]?",
    r"i hope you find[^.!?]*",
    r"(?:here is|here's|here are) (?:what|some|the|a few|my)[^.!?:]*:?$",
)
_REQUEST = (
    r"(?:more|additional|further|some|any) (?:details|detail|information|info|context|specifics)",
    r"tell me (?:more|what|which|how|about|a bit)",
    r"\bclarify\b",
    r"what (?:exactly )?(?:do|did) you mean",
    r"what (?:you|you're|you are) (?:need|mean|want|looking for|referring to|trying to)",
    r"(?:can|could|would) you (?:please )?(?:share|provide|specify|describe|explain what|give me)",
    r"which [^.!?]* (?:are|do|did) you (?:using|use|mean|referring)",
)
_HEDGE = (
    r"it (?:really |all )?depends",
    r"(?:there are|there is) (?:many|several|various|a (?:number|variety|lot) of)",
    r"it(?:'s| is) (?:hard|difficult|impossible|not easy) to (?:say|tell|know|predict)",
    r"(?:may|might|can|could|will) vary",
    r"every(?:one|body|case|situation) is different",
    r"one-size-fits-all",
    r"(?:a |this is a |that is a )?(?:complex|complicated|nuanced) (?:topic|question|issue|matter)",
    r"generally speaking",
    r"in (?:some|many|certain) cases",
)
# The Avoided Answer phrases, without the one that opens a redirect ("Instead, you can...") which,
# in a single sentence, usually carries the useful alternative rather than a refusal.
_REFUSAL = re.compile(
    r"\b(?:" + "|".join(p for p in REFUSAL_PATTERNS if not p.startswith("instead")) + r")", re.IGNORECASE
)


def _compile(patterns: Sequence[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")", re.IGNORECASE)


_FILLER_RE = re.compile("|".join(f"(?:{p})" for p in _FILLER), re.IGNORECASE)
_REQUEST_RE = _compile(_REQUEST)
_HEDGE_RE = _compile(_HEDGE)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that sound like content but point at nothing in particular.
_VAGUE = _words(
    "thing things stuff factor factors aspect aspects situation situations circumstance circumstances way ways "
    "option options case cases kind kinds type types lot lots various several many different specific particular "
    "certain question questions need needs information details help issue issues matter something anything "
    "everything really very quite basically actually just also"
)
# Openers skipped when looking for an imperative verb ("First, run...", "Then open...").
_OPENERS = _words("please first then next finally now also and just simply")
# Instruction verbs that spaCy's small model often tags as nouns at the start of a sentence.
_INSTRUCTION_VERBS = _words(
    "install run open click add remove set use create restart check type enter select go make copy paste save "
    "delete update download configure edit replace call import write press navigate turn change mix preheat bake "
    "stir heat pour cut apply avoid ensure keep start stop upgrade enable disable build deploy test try"
)
# Sentences the refusal head is run on (see InformationDensity._refusal_probabilities): those in
# the first person, negated or apologetic (refusals), or advising and moralising (evasive lectures:
# "It is never appropriate to...", "Remember, violence is..."). Chosen on the XSTest training
# file (first 300 answers, 2,087 sentences): 47% of the sentences reach the head, and of the 585
# it scores above 0.5, 40 are left out, half of them informative sentences it scores wrongly.
_MAY_REFUSE = re.compile(
    r"\b(?:i|i'm|i'd|i'll|i've|me|my|we|our|us|not|no|never|cannot|unable|sorry|apologi[sz]e|unfortunately|ai|"
    r"assistant|beyond|refuse|decline|important|appropriate|inappropriate|remember|illegal|unethical|ethical|"
    r"harm\w*|respect\w*|instead|should|must|encourage|recommend|advis\w+|seek|professional|safety|acceptable|"
    r"dangerous|violence|offensive|legal)\b|n't\b",
    re.IGNORECASE,
)
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# Paths, URLs, dotted names, flags, snake_case and key=value: technical specifics, never non-words.
_TECHNICAL = re.compile(r"(?:https?://\S+|(?<!\w)--?[A-Za-z][\w-]*|\b\w+(?:[./\\_:=]\w+)+\b)")
# Markdown rules and table separators ("---", "|---|:--:|") are layout, not sentences.
_MARKUP_ONLY = re.compile(r"[\s|:=*_#+-]*")
_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)]|#{1,6})\s+")
_ODD_CHAR = re.compile(r"[^\w\s.,;:!?'\"()\[\]{}\-/%$&@#+*=<>`~^|\\\u2018\u2019\u201c\u201d\u2013\u2014\u2026]")
_REPEATED_LETTER = re.compile(r"(.)\1\1")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# Something specific in a sentence, found without a parse: a digit, code, or a capitalised word after
# the first word (a name, place or product; "I" and its contractions excepted).
_SPECIFIC = re.compile(r"\d|`|(?<=\s)(?!I\b|I'[a-z]+\b)[A-Z]")
EMPTY_HEAD = default_head_path("information_density")


@dataclass
class Unit:
    """One sentence (or code block) of an output, with what was measured on it."""

    start: int
    end: int
    code: bool = False
    content: float = 0.0
    degrees: dict[str, float] = field(default_factory=dict)
    matched: dict[str, str] = field(default_factory=dict)

    @property
    def penalties(self) -> dict[str, float]:
        weights = {
            "request for more information": REQUEST_WEIGHT,
            "question": QUESTION_WEIGHT,
            "filler": FILLER_WEIGHT,
            "refusal": REFUSAL_WEIGHT,
            "hedging": HEDGE_WEIGHT,
            "says nothing": EMPTY_WEIGHT,
            "incomprehensible": GIBBERISH_WEIGHT,
        }
        return {name: weights[name] * degree for name, degree in self.degrees.items() if degree > 0}

    @property
    def score(self) -> float:
        return self.content * math.prod(1.0 - penalty for penalty in self.penalties.values())

    def reason(self) -> str:
        penalties = self.penalties
        if penalties:
            name = max(penalties, key=lambda key: penalties[key])
            if penalties[name] >= 0.2:
                phrase = self.matched.get(name)
                return f"{name} ({phrase!r})" if phrase else name
        return "little content" if self.content < 0.5 else "informative"


def split_units(text: str) -> list[Unit]:
    """Sentences with offsets: fenced code blocks whole, then each line cut into Punkt sentences
    (Punkt alone would run a list's items together), list markers left out of the span."""
    units: list[Unit] = []
    position = 0
    for fence in [*_CODE_FENCE.finditer(text), None]:
        end = fence.start() if fence else len(text)
        units.extend(_prose_units(text, position, end))
        if fence:
            units.append(Unit(fence.start(), fence.end(), code=True))
            position = fence.end()
    return units


def _prose_units(text: str, start: int, end: int) -> list[Unit]:
    units = []
    for line in re.finditer(r"[^\n]+", text[start:end]):
        first = start + line.start()
        marker = _LIST_MARKER.match(line.group(0))
        if marker:
            first += marker.end()
        chunk = text[first : start + line.end()]
        if not chunk.strip() or _MARKUP_ONLY.fullmatch(chunk):
            continue
        for s, e in models.sentence_bounds(chunk):
            s, e = _trim(chunk, s, e)
            if s < e:
                units.append(Unit(first + s, first + e))
    return units


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


class WordModel:
    """Is a word English-like? The encoder's WordPiece vocabulary (~22k whole words) is the
    dictionary; outside it, a letter-pair (bigram) model fitted on that vocabulary judges
    whether the word is pronounceable, so names and technical terms pass and keyboard mash does not."""

    def __init__(self) -> None:
        tokenizer = models.packaged_encoder("information_density").tokenizer
        self.normalizer = tokenizer.normalizer
        self.vocabulary = {w for w in tokenizer.get_vocab() if w.isalpha() and w.isascii() and len(w) >= 2}
        pairs: Counter[str] = Counter()
        firsts: Counter[str] = Counter()
        for word in self.vocabulary:
            padded = f"^{word}$"
            for a, b in zip(padded, padded[1:], strict=False):
                pairs[a + b] += 1
                firsts[a] += 1
        self.pairs, self.firsts = pairs, firsts
        self.floor = float(np.percentile([self.plausibility(w) for w in self.vocabulary], NONWORD_PERCENTILE))

    def plausibility(self, word: str) -> float:
        """Mean log-probability of the word's letter pairs (add-0.1 smoothing over 28 symbols)."""
        padded = f"^{word}$"
        pairs = zip(padded, padded[1:], strict=False)
        logs = [math.log((self.pairs[a + b] + 0.1) / (self.firsts[a] + 2.8)) for a, b in pairs]
        return sum(logs) / len(logs)

    def is_nonword(self, word: str) -> bool:
        normal = self.normalizer.normalize_str(word) if self.normalizer else word.lower()
        if len(normal) < 3 or normal in self.vocabulary:
            return False
        if _REPEATED_LETTER.search(normal):
            return True  # "aaaa", "ffffff", "soooo"
        return self.plausibility(normal) < self.floor


def word_model() -> WordModel:
    return models.cached(("density-word-model",), WordModel)


RETRAIN_EMPTY_HEAD = "Train it again with `python -m properties.training.information_density`."


class EmptyHead:
    """The "says nothing" head on the packaged MiniLM encoder: one sentence's embedding in, the
    probability that the sentence says nothing out."""

    def __init__(self) -> None:
        self.encoder = models.packaged_encoder("information_density")
        self.head = load_head(EMPTY_HEAD)
        if self.head.encoder != self.encoder.model_id:
            raise models.unavailable(
                "information_density",
                self.encoder.model_id,
                f"the says-nothing head was trained on the encoder {self.head.encoder!r}",
                RETRAIN_EMPTY_HEAD,
            )
        self.model_id = empty_head_id()

    def predict(self, embeddings: np.ndarray) -> np.ndarray:
        return self.head.predict(embeddings.astype(np.float64))


def empty_head() -> EmptyHead:
    return models.cached(("density-empty-head",), EmptyHead)


def empty_head_id() -> str:
    """The says-nothing head's id, read from its file. The property's id names it without loading
    it: the planner asks every property's id, and loading the head loads the encoder it reads,
    which cost a cpu worker's pool process 0.37 s and the encoder's session at its first plan."""
    try:
        return f"density-head@{models.weights_digest(EMPTY_HEAD)}"
    except OSError as exc:
        raise models.unavailable(
            "information_density",
            str(EMPTY_HEAD),
            f"the says-nothing head cannot be read ({exc})",
            RETRAIN_EMPTY_HEAD,
        ) from exc


def measure(units: list[Unit], sentences: list[str], refusals: np.ndarray, empties: np.ndarray) -> None:
    """Fill in content and penalty degrees of prose units (code units are content by definition);
    `refusals` and `empties` are the heads' probabilities for the prose sentences, in order."""
    words = word_model()
    prose = [(u, s) for u, s in zip(units, sentences, strict=True) if not u.code]
    for unit in units:
        if unit.code:
            unit.content = CODE_CONTENT
    cleaned = [_INLINE_CODE.sub(" code ", s) for _, s in prose]
    docs = spacy_english.parse(cleaned, "information_density", spacy_english.TAGGER_AND_ENTITIES, SPACY_BATCH_SIZE)
    for (unit, sentence), doc, refusal, empty in zip(prose, docs, refusals, empties, strict=True):
        _measure_one(unit, sentence, doc, float(refusal), words)
        unit.degrees["says nothing"] = float(empty)


def _measure_one(unit: Unit, sentence: str, doc: Any, refusal: float, words: WordModel) -> None:
    tokens = [t for t in doc if not (t.is_punct or t.is_space)]
    n = max(len(tokens), 1)
    informative = [t for t in tokens if _informative(t)]
    technical = len(_TECHNICAL.findall(sentence)) + len(_INLINE_CODE.findall(sentence))
    numbers = sum(t.like_num and not t.ent_type_ for t in tokens)
    specifics = len(doc.ents) + numbers + technical
    imperative = _imperative(tokens)
    share = len(informative) / n
    unit.content = min(
        1.0,
        SHARE_WEIGHT * min(1.0, share / DENSE_SHARE)
        + SPECIFICS_WEIGHT * min(specifics, 2) / 2
        + IMPERATIVE_WEIGHT * imperative,
    )
    request = _REQUEST_RE.search(sentence)
    if request:
        unit.degrees["request for more information"] = 1.0
        unit.matched["request for more information"] = request.group(0)
    elif sentence.rstrip("\"')]* ").endswith("?"):
        unit.degrees["question"] = 1.0
    filler = list(_FILLER_RE.finditer(sentence.strip()))
    if filler:
        unit.degrees["filler"] = _filler_degree(sentence.strip(), filler)
        unit.matched["filler"] = filler[0].group(0)
    refusal_phrase = _REFUSAL.search(sentence)
    unit.degrees["refusal"] = max(refusal, REFUSAL_PHRASE_DEGREE if refusal_phrase else 0.0)
    if refusal_phrase:
        unit.matched["refusal"] = refusal_phrase.group(0)
    hedge = _HEDGE_RE.search(sentence)
    if hedge and specifics == 0:
        unit.degrees["hedging"] = 1.0
        unit.matched["hedging"] = hedge.group(0)
    unit.degrees["incomprehensible"] = _gibberish_degree(sentence, tokens, words)


def _may_say_nothing(sentence: str) -> bool:
    """Whether the says-nothing head reads the sentence (see `MAX_EMPTY_WORDS`, `MAX_PLAIN_WORDS`)."""
    words = len(sentence.split())
    if words <= MAX_EMPTY_WORDS or _MAY_REFUSE.search(sentence):
        return True
    return words <= MAX_PLAIN_WORDS and not _SPECIFIC.search(sentence) and not _TECHNICAL.search(sentence)


def said_back(sentence: str, input_stems: set[str], input_numbers: set[str]) -> str | None:
    """The sentence with the input's content words replaced by "it", when it mostly says the input
    back (see `RESTATED_SHARE`); None otherwise."""
    if not input_stems or numbers(sentence) - input_numbers:
        return None
    # Content words, contractions of function words ("you'd", "I've") left out with them.
    words = [m for m in _WORD.finditer(sentence) if content_stems(re.split(r"['\u2019]", m.group(0))[0])]
    shared = [m for m in words if stem(m.group(0)) in input_stems]
    if len(shared) < 2 or len(shared) < RESTATED_SHARE * len(words):
        return None
    # Runs of the input's words, with the function words between them, become one "it".
    runs: list[list[int]] = []
    content = {m.start() for m in words} - {m.start() for m in shared}
    for m in shared:
        gap = (runs[-1][1], m.start()) if runs else (0, 0)
        inside = any(gap[0] <= start < gap[1] for start in content)
        if runs and not inside and not re.search(r"[,;:]", sentence[gap[0] : gap[1]]):
            runs[-1][1] = m.end()
        else:
            runs.append([m.start(), m.end()])
    masked = sentence
    for start, end in reversed(runs):
        masked = masked[:start] + "it" + masked[end:]
    return re.sub(r"\b(?:the|a|an|your|my|our)\s+it\b", "it", masked, flags=re.IGNORECASE)


def _informative(token: Any) -> bool:
    if token.like_num or token.like_url or _TECHNICAL.fullmatch(token.text):
        return True
    if token.pos_ not in {"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"}:
        return False
    return not token.is_stop and token.lower_ not in _VAGUE


def _imperative(tokens: list[Any]) -> bool:
    """Verb-initial after openers like "First," or "Please": an instruction."""
    for token in tokens:
        if token.lower_ in _OPENERS:
            continue
        return token.tag_ == "VB" or token.lower_ in _INSTRUCTION_VERBS
    return False


def _filler_degree(sentence: str, matches: list[re.Match[str]]) -> float:
    covered = sum(len(m.group(0).split()) for m in matches)
    rest = _FILLER_RE.sub(" ", sentence)
    if not re.search(r"[A-Za-z]{3,}", rest):
        return 1.0
    return min(1.0, covered / max(len(sentence.split()), 1))


def _gibberish_degree(sentence: str, tokens: list[Any], words: WordModel) -> float:
    alpha = [t.text for t in tokens if t.is_alpha]
    nonwords = sum(words.is_nonword(word) for word in alpha)
    word_share = nonwords / max(len(alpha), 1) if alpha else 1.0
    visible = [c for c in sentence if not c.isspace()]
    odd_share = len(_ODD_CHAR.findall(sentence)) / max(len(visible), 1)
    return min(1.0, 2.0 * max(word_share, odd_share))


@builtin
class InformationDensity(Scorer):
    display_name = "Information Density"
    description = (
        "How much information the output conveys, 0 to 1: the mean over its sentences of a content score (content "
        "words, names, numbers, instructions) lowered by questions, requests for more information, filler, refusals, "
        "hedging and incomprehensible text. Evidence: the least informative sentences and why."
    )
    fields = ("output",)
    queue = "models"
    # 2: the least informative sentence is a span whatever its side of the threshold.
    # 3: the says-nothing head's penalty.
    # 4: the head retrained on more kinds, and reading long plain sentences and what a sentence adds to the input.
    version = "4"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return True  # the packaged ONNX models (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "information_density"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        return (
            f"{AvoidedAnswer().model_id()}+{spacy_english.SPACY_MODEL}+{empty_head_id()}+density-rules@{self.version}"
        )

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        if not scored:
            return results
        per_item = {i: split_units(texts[i]) for i in scored}
        units = [unit for i in scored for unit in per_item[i]]
        sentences = [texts[i][u.start : u.end] for i in scored for u in per_item[i]]
        prose = [s for u, s in zip(units, sentences, strict=True) if not u.code]
        refusals = self._refusal_probabilities(prose)
        empties = self._empty_probabilities(prose)
        inputs = [(input_text_batch or [None] * len(texts))[i] for i in scored for u in per_item[i] if not u.code]
        empties = np.maximum(empties, self._said_back_probabilities(prose, inputs))
        measure(units, sentences, refusals, empties)
        for i in scored:
            results[i] = self._score(texts[i], per_item[i])
        return results

    def _empty_probabilities(self, sentences: list[str]) -> np.ndarray:
        """The says-nothing head's probability per sentence, 0 for long sentences the refusal head
        did not read (`MAX_EMPTY_WORDS`). The sentences the refusal head read are embedded already
        (the encoder's memo), so they cost the head nothing, whatever their length."""
        probabilities = np.zeros(len(sentences))
        candidates = [k for k, s in enumerate(sentences) if _may_say_nothing(s)]
        if candidates:
            head = empty_head()
            probabilities[candidates] = head.predict(head.encoder.encode([sentences[k] for k in candidates]))
        return probabilities

    def _said_back_probabilities(self, sentences: list[str], inputs: list[Any]) -> np.ndarray:
        """The says-nothing head on what each sentence adds to the input (`said_back`), 0 for
        sentences that do not mostly say the input back."""
        probabilities = np.zeros(len(sentences))
        read: dict[str, tuple[set[str], set[str]]] = {}
        masked: dict[int, str] = {}
        for k, (sentence, source) in enumerate(zip(sentences, inputs, strict=True)):
            if not isinstance(source, str) or not source.strip():
                continue
            if source not in read:
                read[source] = (content_stems(source), numbers(source))
            rest = said_back(sentence, *read[source])
            if rest is not None:
                masked[k] = rest
        if masked:
            head = empty_head()
            probabilities[list(masked)] = head.predict(head.encoder.encode(list(masked.values())))
        return probabilities

    def _refusal_probabilities(self, sentences: list[str]) -> np.ndarray:
        """The Avoided Answer head's probability per sentence, 0 for sentences that cannot refuse.

        The head is three quarters of this property's cost (XSTest answers on 2 shared cores: 50
        sentences/s for the head, 200/s for spaCy tagging and NER), and refusals and evasions carry
        telling words (see `_MAY_REFUSE`), so only such sentences are scored.
        """
        probabilities = np.zeros(len(sentences))
        candidates = [k for k, sentence in enumerate(sentences) if _MAY_REFUSE.search(sentence)]
        if candidates:
            scorer = AvoidedAnswer()
            scorer.current_field = self.current_field
            found = scorer.sentence_scores([sentences[k] for k in candidates])
            probabilities[candidates] = np.asarray(found, dtype=np.float64)
        return probabilities

    def _score(self, text: str, units: list[Unit]) -> Score:
        if not units:
            return Score.not_applicable(f"the {self.current_field} has no sentences")
        scores = [unit.score for unit in units]
        low = sorted((s, k) for k, s in enumerate(scores) if s < self.threshold)[:MAX_SPANS]
        # With none under this threshold, the least informative sentence: it is at or under the value
        # (their mean), so a project that sets a higher threshold sees why the text fails it.
        low = low or [min((s, k) for k, s in enumerate(scores))]
        spans = [
            Span(
                self.current_field,
                units[k].start,
                units[k].end,
                "low information" if s < self.threshold else "least informative",
                round(s, 4),
                units[k].reason(),
            )
            for s, k in low
        ]
        details = {
            "sentences": [
                {"start": u.start, "end": u.end, "score": round(s, 4), "reason": u.reason()}
                for u, s in zip(units[:MAX_DETAIL_SENTENCES], scores, strict=False)
            ],
            "sentence_count": len(units),
            "low_sentences": sum(s < self.threshold for s in scores),
            "threshold": self.threshold,
            "formula": "mean over sentences of content * product of (1 - weight * degree) over the penalties",
        }
        return Score(value=round(float(np.mean(scores)), 4), spans=spans, details=details)
