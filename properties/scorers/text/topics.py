"""Topics and entities of a text with spaCy, for Coverage, Context Entity Recall and Summarization.

`parse` reads texts with the packaged spaCy pipeline (en_core_web_sm: tagger, parser, lemmatizer,
NER) and keeps plain data with character offsets: sentences, candidate topic mentions (named
entities, numbers, noun-phrase heads) and the normalised words that say whether a topic is present.
`main_topics` groups a source's mentions into topics and weighs them by salience.

Salience of a topic = kind weight x (1 + ln mentions) x lead bonus, where
- kind weight: a named entity (person, organisation, place, ...) 2.0; a number, date or amount 1.0;
  a noun-phrase head (a common noun) 1.0: names carry what a text is about, generic nouns less so;
- mentions: sublinear (1 + ln n) as in tf-idf, so a topic repeated ten times outweighs a detail
  mentioned once about 3 to 1, not 10 to 1;
- lead bonus: 1 + 1 / (1 + s / 3), s the index of the sentence of first mention in its text
  (2.0 in the first sentence, 1.5 in the fourth, 1.1 in the thirtieth): news and most reports put
  the main point first (the inverted pyramid).

Presence in another text is lexical: a topic is present when all the words of one of its forms are
among the text's words, compared lowercased, as written and as lemmas, numbers normalised ("1,000"
-> "1000", "five" -> "5"). A one-word name that ends a longer name of the same text ("Limbaugh",
"Rush Limbaugh") is one topic, so a summary that says "Limbaugh" keeps it.

Long texts: spaCy reads at most `PIECE_CHARS` characters at a time (memory grows with length);
longer texts are cut at paragraph or sentence ends into pieces that are all read, offsets shifted
back, so nothing is dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from properties.scorers.runtime import spacy_english

PIECE_CHARS = 100_000
# Documents per spaCy `pipe` batch with the parser and NER on; news articles of ~700 tokens read at
# ~6,000 tokens/s on 2 cores whatever the batch size from 8 up.
SPACY_BATCH_SIZE = 16
LEAD_SENTENCES = 3
KIND_WEIGHTS = {"entity": 2.0, "number": 1.0, "noun": 1.0}
NAMED_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)
NUMERIC_LABELS = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "CARDINAL"})
# Head nouns that say nothing about what a text is about: as topics they would only reward length.
_GENERIC_NOUNS = (
    "thing things way lot lots kind sort type part time times day days year years week month one ones "
    "something anything everything nothing someone anyone everyone people person man woman fact case "
    "number place point end side bit use example reason matter percent"
)
GENERIC_NOUNS = frozenset(_GENERIC_NOUNS.split())
_NUMBER_NAMES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBER_NAMES.split())}
_PARAGRAPH_OR_SENTENCE_END = re.compile(r"\n\s*\n|(?<=[.!?])\s+")


@dataclass(frozen=True)
class Mention:
    """One mention of a candidate topic: `words` are its normalised words, `key` groups mentions."""

    key: str
    kind: str
    start: int
    end: int
    words: tuple[str, ...]
    sentence: int


@dataclass
class Parsed:
    """What the scorers need of one text, offsets into that text."""

    text: str
    sentences: list[tuple[int, int]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    # Normalised word -> (start, end) of its first occurrence, lowercased forms and lemmas both.
    words: dict[str, tuple[int, int]] = field(default_factory=dict)
    tokens: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)

    def has(self, words: Sequence[str]) -> bool:
        return all(word in self.words for word in words)

    def locate(self, words: Sequence[str]) -> tuple[int, int] | None:
        """Where these words occur together in this text (their first run), else their last word."""
        n = len(words)
        for i in range(len(self.tokens) - n + 1):
            if all(words[j] in self.tokens[i + j][2] for j in range(n)):
                return self.tokens[i][0], self.tokens[i + n - 1][1]
        return self.words.get(words[-1]) if words else None


@dataclass
class Topic:
    """A source's topic: its mentions across the source texts, its forms, and its salience."""

    key: str
    kind: str
    label: str
    forms: set[tuple[str, ...]]
    mentions: list[tuple[int, Mention]]  # (source text index, mention)
    weight: float = 0.0

    @property
    def first(self) -> tuple[int, Mention]:
        return self.mentions[0]

    @property
    def labelled(self) -> tuple[int, Mention]:
        """The first mention written as the label (after a merge, the first mention may be the
        short name): evidence points there, so that the source text at the span is the label."""
        origin = self.key
        return next((pair for pair in self.mentions if pair[1].key == origin), self.first)


def normalise(token) -> set[str]:  # token: spacy.tokens.Token
    """The forms under which a word counts as present: lowercased, lemma, number normalised."""
    lower = token.lower_
    forms = {lower, token.lemma_.lower(), _strip_dots(lower)}
    number = normalise_number(lower)
    if number:
        forms.add(number)
    return forms


def normalise_number(word: str) -> str | None:
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    digits = word.replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    return str(int(value)) if value.is_integer() else str(value)


def cut_pieces(text: str, size: int = PIECE_CHARS) -> list[tuple[int, int]]:
    """Character ranges of at most `size` covering the whole text, cut at a paragraph or sentence end
    where one lies in the second half of the piece, else at the size."""
    pieces: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > size:
        limit = start + size
        cuts = [m.end() for m in _PARAGRAPH_OR_SENTENCE_END.finditer(text, start + size // 2, limit)]
        end = cuts[-1] if cuts else limit
        pieces.append((start, end))
        start = end
    pieces.append((start, len(text)))
    return pieces


def parse(texts: Sequence[str]) -> list[Parsed]:
    """Parse every text, long ones in pieces, in one spaCy pass."""
    pieces = [(index, start, end) for index, text in enumerate(texts) for start, end in cut_pieces(text)]
    parsed = [Parsed(text) for text in texts]
    docs = spacy_english.parse([texts[i][s:e] for i, s, e in pieces], "coverage", spacy_english.FULL, SPACY_BATCH_SIZE)
    for (index, offset, _), doc in zip(pieces, docs, strict=True):
        _add_doc(parsed[index], doc, offset)
    return parsed


def _add_doc(parsed: Parsed, doc, offset: int) -> None:
    first_sentence = len(parsed.sentences)
    sentence_of: dict[int, int] = {}
    for number, sent in enumerate(doc.sents):
        parsed.sentences.append((offset + sent.start_char, offset + sent.end_char))
        for token in sent:
            sentence_of[token.i] = first_sentence + number
    for token in doc:
        if token.is_punct or token.is_space:
            continue
        forms = frozenset(normalise(token))
        parsed.tokens.append((offset + token.idx, offset + token.idx + len(token), forms))
        for form in forms:
            parsed.words.setdefault(form, (offset + token.idx, offset + token.idx + len(token)))
    in_entity: set[int] = set()
    for ent in doc.ents:
        mention = _entity_mention(ent, offset, sentence_of)
        if mention is not None:
            parsed.mentions.append(mention)
            in_entity.update(range(ent.start, ent.end))
    for chunk in doc.noun_chunks:
        mention = _noun_mention(chunk.root, offset, sentence_of, in_entity)
        if mention is not None:
            parsed.mentions.append(mention)
    parsed.mentions.sort(key=lambda m: m.start)


def _entity_mention(ent, offset: int, sentence_of: dict[int, int]) -> Mention | None:
    if ent.label_ in NAMED_LABELS:
        kind = "entity"
    elif ent.label_ in NUMERIC_LABELS:
        kind = "number"
    else:
        return None
    # Leave out articles and the possessive ("the DCCC", "Fox News's") so that the form and the
    # evidence span are the name itself.
    content = [t for t in ent if not (t.is_punct or t.is_space or t.pos_ in ("DET", "PART") or t.tag_ == "POS")]
    if not content:
        return None
    words = tuple(_word(t) for t in content)
    if kind == "number" and not any(any(ch.isdigit() for ch in w) for w in words):
        return None  # "two", "last week": no figure a summary must keep
    start, end = offset + content[0].idx, offset + content[-1].idx + len(content[-1])
    return Mention(" ".join(words), kind, start, end, words, sentence_of[ent.start])


def _noun_mention(root, offset: int, sentence_of: dict[int, int], in_entity: set[int]) -> Mention | None:
    if root.i in in_entity or root.pos_ not in ("NOUN", "PROPN") or root.is_stop:
        return None
    lemma = root.lemma_.lower()
    if len(lemma) < 3 or not lemma.isalpha() or lemma in GENERIC_NOUNS or root.lower_ in GENERIC_NOUNS:
        return None
    # A proper noun that NER missed is still a name.
    # Keyed by the word itself, so that it joins a one-word NER entity of the same name.
    start = offset + root.idx
    if root.pos_ == "PROPN":
        word = _word(root)
        return Mention(word, "entity", start, start + len(root), (word,), sentence_of[root.i])
    return Mention(f"noun:{lemma}", "noun", start, start + len(root), (lemma,), sentence_of[root.i])


def _word(token) -> str:
    return normalise_number(token.lower_) or _strip_dots(token.lower_)


def _strip_dots(word: str) -> str:
    # "U.S." and "u.s" (a tokenizer may split the final dot off): one form, "u.s".
    return word.rstrip(".") or word


def main_topics(sources: Sequence[Parsed], kinds: frozenset[str] | None = None) -> list[Topic]:
    """The topics of the source texts, most salient first."""
    topics: dict[str, Topic] = {}
    for index, parsed in enumerate(sources):
        for mention in parsed.mentions:
            if kinds is not None and mention.kind not in kinds:
                continue
            topic = topics.get(mention.key)
            if topic is None:
                label = parsed.text[mention.start : mention.end]
                topic = topics[mention.key] = Topic(mention.key, mention.kind, label, set(), [])
            topic.forms.add(mention.words)
            topic.mentions.append((index, mention))
    merged = _merge_short_names(topics)
    for topic in merged:
        first_sentence = min(mention.sentence for _, mention in topic.mentions)
        lead = 1.0 + 1.0 / (1.0 + first_sentence / LEAD_SENTENCES)
        topic.weight = KIND_WEIGHTS[topic.kind] * (1.0 + math.log(len(topic.mentions))) * lead
    return sorted(merged, key=lambda t: (-t.weight, t.first[0], t.first[1].start))


def _merge_short_names(topics: dict[str, Topic]) -> list[Topic]:
    """Fold a one-word name into the longer name of the same source that it ends ("Limbaugh" into
    "Rush Limbaugh"): writers shorten names after the first mention, summaries do too."""
    long_names: dict[str, Topic] = {}
    for topic in sorted(topics.values(), key=lambda t: -len(t.mentions)):
        for form in topic.forms:
            if topic.kind == "entity" and len(form) > 1:
                long_names.setdefault(form[-1], topic)
    kept: list[Topic] = []
    for topic in topics.values():
        words = next(iter(topic.forms))
        target = long_names.get(words[0]) if topic.kind == "entity" and len(words) == 1 else None
        if target is None or target is topic:
            kept.append(topic)
            continue
        target.forms |= topic.forms
        target.mentions.extend(topic.mentions)
        target.mentions.sort(key=lambda pair: (pair[0], pair[1].start))
    return kept


def present(topic: Topic, text: Parsed) -> tuple[int, int] | None:
    """Where the topic is present in the text (lexically), or None."""
    for form in sorted(topic.forms, key=lambda form: (-len(form), form)):
        if text.has(form):
            return text.locate(form)
    return None
