"""What the Relevance head reads about a (question, answer) pair: several readings of the packaged
cross-encoder, the packaged sentence encoder's similarity, and the answer's form.

One reading alone fits one form of answer. The cross-encoder's logit of (question, answer) is high
for an answer that restates its question (QNLI's sentences) and low for a chat answer that does not
("$29 a month."); the logit of (question, question + answer), against that of (question, question)
alone, says how much a short answer adds to its question; the best sentence finds the answering
part of a padded reply; the encoder's cosine and the words shared with the question say whether the
answer is about the question's subject at all; the form (length, a list, code, yes or no, a figure,
a question back) says which of these readings to trust. A logistic head weighs them
(`properties/training/relevance.py`), so the same code computes them for training and scoring.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from properties.scorers.runtime import cross_encoder, models, spacy_english

FEATURES = (
    "answer_logit",
    "with_question_logit",
    "question_alone_logit",
    "added_logit",
    "best_sentence_logit",
    "cosine",
    "shared_words",
    "log_words",
    "is_list",
    "has_code",
    "yes_no",
    "asks_back",
    "has_number",
    "complete",
    "names_kept",
    "same_kind_new",
    "nouns_kept",
)
LIST_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step \d+)\s", re.IGNORECASE | re.MULTILINE)
CODE_SIGN = re.compile(r"```|`[^`]+`|[;{}]\s*$|\w+\([^)]*\)|^\s*(?:def|for|if|SELECT|import|const|let)\b", re.MULTILINE)
YES_NO = re.compile(r"^\W*(?:yes|yep|yeah|no|nope|sure|definitely|not really|absolutely|of course)\b", re.IGNORECASE)
WORD = re.compile(r"[a-z0-9]+")
# Named entities grouped by the kind of subject they name, so that an answer about another subject of
# the kind asked about ("Paris is the capital of France." after "What is the capital of Germany?")
# clashes with the question, and one that names what is asked for ("Nico Ferrabosco is the chief
# executive." after "Who runs Livingston Analytics?": a person for a company) does not. Figures,
# dates and amounts are what an answer gives, not its subject: left out.
NAME_KINDS = {
    "PERSON": "person",
    "GPE": "place",
    "LOC": "place",
    "NORP": "place",
    "FAC": "place",
    "ORG": "thing",
    "PRODUCT": "thing",
    "WORK_OF_ART": "thing",
    "EVENT": "thing",
    "LAW": "thing",
    "LANGUAGE": "thing",
}
# Pronouns do not make a short answer complete: "It costs $29." leans on the question.
PRONOUN_TAGS = frozenset({"PRP", "PRP$", "WP", "WDT", "EX", "DT"})
# Nor does a verb whose predicate is left to the question ("Jan Novak does.", "Maria can."): a
# complete clause states it, with an object, an attribute, a complement or a prepositional phrase.
PREDICATE_DEPS = frozenset({"dobj", "attr", "acomp", "xcomp", "ccomp", "oprd", "dative", "agent", "prep"})
# The words that name what a question is about.
SUBJECT_TAGS = frozenset({"NOUN", "PROPN"})
# Short texts parsed per spaCy batch.
PARSE_BATCH_SIZE = 64
# Words that say nothing about what a question is about.
STOPWORDS = frozenset(
    WORD.findall(
        "a an the is are was were be been do does did i you we it my your our of in on at to for with and or how what "
        "when where who which why can could should would will there this that these those me much many any some"
    )
)


@dataclass
class Readings:
    """The model readings of each pair, kept for the evidence as well as the head."""

    answer_logit: np.ndarray  # best window of (question, answer)
    window: list[tuple[int, int]]  # that window's character range in the answer
    windows: list[int]  # how many windows the answer has
    with_question_logit: np.ndarray  # best window of (question, question + answer)
    question_alone_logit: np.ndarray  # (question, question)
    sentences: list[list[tuple[int, int]]]  # each answer's sentence bounds
    sentence_logits: list[np.ndarray]  # (question, sentence) for each sentence of an answer of several
    cosine: np.ndarray


def answer_after_question(question: str, answer: str) -> str:
    """The answer in the context of its question, as the user read it."""
    return f"{question.strip()} {answer.strip()}"


def read(
    model: cross_encoder.OnnxCrossEncoder, encoder: models.Encoder, questions: Sequence[str], answers: Sequence[str]
) -> Readings:
    whole, where, counts = model.best_windows(questions, answers)
    read_after, _, _ = model.best_windows(
        questions, [answer_after_question(q, a) for q, a in zip(questions, answers, strict=True)]
    )
    alone, _, _ = model.best_windows(questions, questions)
    bounds = [models.sentence_bounds(answer) for answer in answers]
    pieces = [
        (q, a[s:e]) for q, a, spans in zip(questions, answers, bounds, strict=True) if len(spans) > 1 for s, e in spans
    ]
    logits = iter(model.logits(pieces).tolist())
    sentence_logits = [
        np.array([next(logits) for _ in spans]) if len(spans) > 1 else np.array([whole[k]])
        for k, spans in enumerate(bounds)
    ]
    vectors = encoder.encode(list(questions) + list(answers))
    cosine = np.sum(vectors[: len(questions)] * vectors[len(questions) :], axis=1).astype(np.float64)
    return Readings(whole, where, counts, read_after, alone, bounds, sentence_logits, cosine)


def _words(text: str) -> set[str]:
    return {word for word in WORD.findall(text.lower()) if word not in STOPWORDS}


def answer_form(question: str, answer: str) -> list[float]:
    asked = _words(question)
    words = answer.split()
    return [
        len(asked & _words(answer)) / len(asked) if asked else 0.0,
        float(np.log1p(len(words))),
        float(len(LIST_LINE.findall(answer)) >= 2 or answer.count(" -> ") >= 2 or answer.count(", then ") >= 1),
        float(bool(CODE_SIGN.search(answer))),
        float(bool(YES_NO.match(answer))),
        float(answer.rstrip().endswith("?")),
        float(any(ch.isdigit() for ch in answer)),
    ]


def parse_pairs(questions: Sequence[str], answers: Sequence[str], prop: str = "relevance") -> tuple[list, list]:
    """The questions' and answers' spaCy docs (entities, lemmas), parsed in one call."""
    # Runs of spaces collapsed: spaCy's small model finds other entities in "Yes,  it  is  included".
    texts = [" ".join(text.split()) for text in [*questions, *answers]]
    docs = spacy_english.parse(texts, prop, spacy_english.FULL, batch_size=PARSE_BATCH_SIZE)
    return docs[: len(questions)], docs[len(questions) :]


def is_complete(doc) -> bool:
    """Whether a parsed answer names its own subject and states its predicate: a clause whose subject
    is a noun or a name ("Paris is the capital of France.", "Jan Novak leads the billing team."), not a
    pronoun ("It costs $29."), a fragment ("$29 a month."), code, or a clause that leaves its predicate
    to the question ("Jan Novak does.")."""
    return any(
        token.dep_ in ("nsubj", "nsubjpass")
        and token.tag_ not in PRONOUN_TAGS
        and token.head.dep_ == "ROOT"
        and any(child.dep_ in PREDICATE_DEPS for child in token.head.children)
        for token in doc
    )


def _names(doc) -> list[tuple[str, set[str]]]:
    """The doc's named subjects: each entity of a `NAME_KINDS` label as (kind, its lower-case lemmas)."""
    names = []
    for entity in doc.ents:
        kind = NAME_KINDS.get(entity.label_)
        words = {token.lemma_.lower() for token in entity if not token.is_stop and not token.is_punct}
        if kind and words:
            names.append((kind, words))
    return names


def subject_match(question_doc, answer_doc) -> list[float]:
    """Whether the answer is about the question's subject, from both parses, as readings the head
    weighs with the others (a rule cannot tell "Berlin." from "Paris is the capital of France." after
    "What is the capital of Germany?": each leaves Germany out and names a new place; a complete
    sentence that does so is about another country):
    `complete`, whether the answer is a clause with its own subject (`is_complete`); `names_kept`, the
    share of the question's named words the answer repeats (1 where it names none); `same_kind_new`,
    how many subjects the answer names, not named in the question, of the kind of a name the question
    has and the answer leaves out (at most 3); `nouns_kept`, the share of the question's nouns and
    names, lemmatised, that the answer repeats (1 where it has none)."""
    asked, named = _names(question_doc), _names(answer_doc)
    answer_words = {token.lemma_.lower() for token in answer_doc}
    asked_words = set().union(*(words for _, words in asked))
    missing_kinds = {kind for kind, words in asked if not words & answer_words}
    new = [kind for kind, words in named if not words & asked_words]
    nouns = {token.lemma_.lower() for token in question_doc if token.pos_ in SUBJECT_TAGS and not token.is_stop}
    return [
        float(is_complete(answer_doc)),
        len(asked_words & answer_words) / len(asked_words) if asked_words else 1.0,
        float(min(sum(kind in missing_kinds for kind in new), 3)),
        len(nouns & answer_words) / len(nouns) if nouns else 1.0,
    ]


# The model readings the head's features are made from, one column each (`model_columns`): what a
# training run keeps in its cache (`properties/training/reading_cache.py`).
MODEL_COLUMNS = ("answer_logit", "with_question_logit", "question_alone_logit", "best_sentence_logit", "cosine")


def model_columns(readings: Readings) -> np.ndarray:
    """The readings the features need, one row of `MODEL_COLUMNS` per pair."""
    best_sentence = [float(np.max(logits)) for logits in readings.sentence_logits]
    columns = [readings.answer_logit, readings.with_question_logit, readings.question_alone_logit, best_sentence]
    return np.column_stack([*columns, readings.cosine]).astype(np.float64)


def features(
    readings: Readings, questions: Sequence[str], answers: Sequence[str], prop: str = "relevance"
) -> np.ndarray:
    """One row of `FEATURES` per pair."""
    return features_of(model_columns(readings), questions, answers, prop)


def features_of(
    columns: np.ndarray, questions: Sequence[str], answers: Sequence[str], prop: str = "relevance"
) -> np.ndarray:
    """One row of `FEATURES` per pair, from its `MODEL_COLUMNS` and its text."""
    question_docs, answer_docs = parse_pairs(questions, answers, prop)
    rows = []
    for (answer_logit, with_question, alone, best_sentence, cosine), question, answer, asked, given in zip(
        columns, questions, answers, question_docs, answer_docs, strict=True
    ):
        logits = [answer_logit, with_question, alone, with_question - alone]
        form = answer_form(question, answer)
        rows.append([*logits, best_sentence, cosine, *form, *subject_match(asked, given)])
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
