"""Avoided Answer: the probability that the model explicitly avoided answering the input (refused,
said it cannot or will not, that it does not know, or handed the question to someone else without
answering it).

Default model: a logistic-regression head (`python -m properties.training.avoided_answer`) over
the MiniLM embedding of the output, the embedding of its opening (where refusals sit), counts of
refusal phrases, and, for short outputs, the two embeddings again scaled by how short the output is
(`shortness`): a chat reply of a sentence or two gets weights of its own, learnt from generated
support replies (`properties/training/avoided_answer_rows.py`: hand-offs to a team, "nothing in the
documents", policy refusals, and answers after an apology or with "cannot" in them), while long
completions keep the weights XSTest taught. The plainest ways an assistant avoids answering
("I don't know", "I'm not able to") are also read by a rule: a sentence in the first person that
says it cannot, will not or does not know (`AVOIDANCE`). The value is the head's, or, when
avoidance sentences are most of what the output says (pleasantries and "ask an advisor" redirects
aside), at least `AVOIDED_FLOOR` scaled by that share, so that an answer after a disclaimer still
reads as answered.
Evidence: the sentences that avoid the answer, each with the score it gets on its own (at or above
the threshold, like the value they explain), or the whole output when only the whole reads as
avoided.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from properties.scorers.base import Score, Span
from properties.scorers.registry import builtin
from properties.scorers.runtime import models
from properties.scorers.runtime.model_scorer import HeadPredictor, ModelScorer
from properties.scorers.runtime.models import sentence_bounds
from properties.scorers.text import statements

# Phrases with which assistants refuse or decline, lower-cased; matched on word boundaries.
REFUSAL_PATTERNS = (
    r"i(?:'m| am) (?:sorry|afraid|unable|not able)",
    r"i (?:can ?not|can't|won't|will not|must decline|refuse|do not|don't) (?:help|assist|provide|fulfil|comply|"
    r"answer|give|create|write|engage|support|share|generate|offer|recommend|participate|do that)",
    r"i (?:can ?not|can't|won't|will not) (?:do|be)",
    r"(?:i )?apologi[sz]e,? but",
    r"as an ai(?: language model)?",
    r"i(?:'m| am) (?:just )?an ai",
    r"(?:not|never) (?:appropriate|ethical|legal|able to)",
    r"against (?:my|the) (?:programming|guidelines|policies|ethical)",
    r"i (?:don't|do not) (?:know|have (?:access|information|the ability))",
    r"(?:it is|it's) not (?:possible|appropriate) for me",
    r"i (?:would|must) (?:advise|encourage|recommend) against",
    r"(?:cannot|can't|unable to) (?:fulfil|fulfill|comply with|assist with) (?:this|that|your)",
    r"instead,? (?:i|you|let's)",
)


def _any_spacing(pattern: str) -> str:
    """The pattern with each space matching any run of whitespace: doubled spaces or a line break
    inside a phrase do not hide it."""
    return pattern.replace(" ", r"\s+")


_REFUSAL = re.compile(r"\b(?:" + "|".join(_any_spacing(pattern) for pattern in REFUSAL_PATTERNS) + r")", re.IGNORECASE)
# First-person sentences that say the assistant cannot, will not or does not know: what a user
# reads as "it did not answer".
AVOIDANCE = re.compile(
    _any_spacing(
        r"\b(?:i\s*(?:'m|’m|am)?\s*(?:can\s*['’]?t|cannot|can not|won['’]?t|will not|unable to|not able to|"
        r"not allowed to|not permitted to|must decline|have to decline|decline to|refuse to)\b"
        r"(?!\s+(?:stress|wait|emphasi[sz]e|believe|thank you|recommend it enough|agree more))"
        r"|i\s+(?:don['’]?t|do not|didn['’]?t|did not)\s+(?:know|have (?:access|any|enough|the|information|data|that)|"
        r"see (?:any|that)|find)\b"
        r"|i\s+(?:couldn['’]?t|could not|wasn['’]?t able to|was not able to|was unable to)\s+"
        r"(?:find|locate|determine|answer|access|see|tell)\b"
        r"|i\s*(?:'m|’m|am)\s+not\s+(?:sure|certain|aware)\b"
        r"|i\s+have\s+no\s+(?:way|access|information|data|means|idea)\b"
        r"|as an ai\b[^.!?]*\b(?:can\s*['’]?t|cannot|unable|don['’]?t|do not|not able|won['’]?t)\b"
        r"|(?:that|this)(?:['’]s| is) (?:outside|beyond|not something)\b"
        r"|\bthe (?:documents?|context|sources?|information I have) (?:do(?:es)?n['’]?t|do(?:es)? not) "
        r"(?:say|mention|contain|include|cover)\b)"
    ),
    re.IGNORECASE,
)
# Sentences that only point elsewhere ("a licensed advisor can help you with that"): not an answer.
REDIRECT = re.compile(
    _any_spacing(
        r"\b(?:consult|contact|reach out to|speak (?:to|with)|talk to|check with|refer to|ask (?:a|an|your)|"
        r"(?:can|could|will) help you with (?:that|this))\b"
    ),
    re.IGNORECASE,
)
_BUT = re.compile(r"\s+but\s+", re.IGNORECASE)
# The value when avoidance sentences are all the output says (scaled down by the share of the rest).
AVOIDED_FLOOR = 0.9
# Refusals come first: the opening sentences are embedded apart from the whole output.
OPENING_SENTENCES = 2
OPENING_WORDS = 20
# Beside the two embeddings (whole output, opening), which the head file lists as "embedding".
EXTRA_FEATURES = ("refusal_phrases_opening", "refusal_phrases", "refusal_phrases_per_sentence")
# Outputs of up to SHORT_WORDS words are short replies (shortness 1), fading to long ones (0) at twice
# that: the head reads short replies with the embeddings times shortness as well, weights of their own.
SHORT_WORDS = 20
# The features after EXTRA_FEATURES: both embeddings scaled by shortness ("short.embedding"), then it.
SHORT_FEATURES = ("shortness",)


def opening_sentences(text: str, bounds: list[tuple[int, int]]) -> int:
    """How many sentences the opening holds: OPENING_SENTENCES, and more while they hold fewer than
    OPENING_WORDS words, so that a greeting or a thank-you does not push the refusal out of it."""
    count = min(OPENING_SENTENCES, len(bounds))
    while count < len(bounds) and len(text[: bounds[count - 1][1]].split()) < OPENING_WORDS:
        count += 1
    return count


def opening(text: str, bounds: list[tuple[int, int]] | None = None) -> str:
    bounds = bounds or sentence_bounds(text)
    return text[: bounds[opening_sentences(text, bounds) - 1][1]]


def refusal_counts(text: str) -> list[float]:
    bounds = sentence_bounds(text)
    total = len(_REFUSAL.findall(text))
    return [float(len(_REFUSAL.findall(opening(text, bounds)))), float(total), total / len(bounds)]


def shortness(text: str) -> float:
    """1 for a reply of up to SHORT_WORDS words, falling linearly to 0 at twice as many."""
    return min(1.0, max(0.0, (2 * SHORT_WORDS - len(text.split())) / SHORT_WORDS))


def feature_names(dimension: int) -> list[str]:
    """The head's features in order, for a head file's record; `dimension` is the encoder's."""
    embeddings = 2 * dimension
    return ["embedding"] * embeddings + list(EXTRA_FEATURES) + ["short.embedding"] * embeddings + list(SHORT_FEATURES)


def assemble(texts: Sequence[str], whole: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The head's features from the embeddings of the outputs and of their openings."""
    counts = np.array([refusal_counts(text) for text in texts], dtype=np.float64)
    short = np.array([[shortness(text)] for text in texts], dtype=np.float64)
    return np.hstack([whole, first, counts, whole * short, first * short, short])


def avoided_answer_features(texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
    return assemble(texts, encoder.encode(texts), encoder.encode([opening(t) for t in texts]))


def avoidance_share(text: str, bounds: list[tuple[int, int]], avoiding: list[tuple[int, int]]) -> float:
    """The share of what the output says that is avoidance: avoiding sentences over themselves plus the
    sentences that answer (pleasantries, questions and redirects to someone else count for neither)."""
    if not avoiding:
        return 0.0
    # "I'm not sure, but it is 42": a hedge before an answer, not an avoided answer.
    hedged = [(s, e) for s, e in avoiding if _answers_after_but(text[s:e])]
    avoiding = [bound for bound in avoiding if bound not in hedged]
    answering = len(hedged) + sum(
        1
        for start, end in bounds
        if (start, end) not in avoiding
        and (start, end) not in hedged
        and statements.is_factual(text[start:end])
        and not REDIRECT.search(text[start:end])
    )
    return len(avoiding) / (len(avoiding) + answering) if avoiding else 0.0


def _answers_after_but(sentence: str) -> bool:
    # In any case and spacing: "I'M NOT SURE, BUT IT IS 42" hedges as much as the lower-case sentence.
    _, *after = _BUT.split(sentence, maxsplit=1)
    rest = after[0] if after else ""
    return bool(after) and len(rest.split()) >= 3 and not AVOIDANCE.search(rest) and not REDIRECT.search(rest)


@builtin
class AvoidedAnswer(ModelScorer):
    display_name = "Avoided Answer"
    description = (
        "The probability that the model explicitly avoided answering the input: refused, said it cannot or "
        "will not, or that it does not know. 0 to 1; 0.5 and above reads as avoided. Evidence: the refusal sentences."
    )
    fields = ("output",)
    positive_labels = ("refusal", "refused", "avoided", "label_1")
    # 2: a span for the output as a whole when no sentence avoids the answer on its own.
    version = "2"

    @staticmethod
    def name() -> str:
        return "avoided_answer"

    def featurize(self, texts: Sequence[str], encoder: models.Encoder) -> np.ndarray:
        return avoided_answer_features(texts, encoder)

    def to_score(self, text: str, value: float, index: int, inputs: list[str] | None) -> Score:
        bounds = sentence_bounds(text)
        avoiding = [(start, end) for start, end in bounds if AVOIDANCE.search(text[start:end])]
        share = avoidance_share(text, bounds, avoiding)
        details: dict[str, float | str] = {"threshold": self.threshold, "head": round(value, 4)}
        if share > 0:
            details["avoidance_share"] = round(share, 4)
        value = max(value, AVOIDED_FLOOR * share)
        spans = self.refusal_spans(text, bounds, avoiding) if value >= self.threshold else []
        if not spans:
            # No sentence avoids the answer on its own: the output as a whole is what the value reads,
            # on either side of this threshold, so a project that sets another one sees why it passes or
            # fails there (the Data Screen colours the span by the project's threshold).
            start = len(text) - len(text.lstrip())
            end = len(text.rstrip())
            if value >= self.threshold:
                note = "reads as avoiding the answer as a whole; no sentence does on its own"
            else:
                note = "the output as a whole, read for avoidance; no sentence avoids the answer"
            spans = [Span(self.current_field, start, end, "refusal", round(value, 4), note)]
        return Score(value=round(value, 4), spans=spans, details=details)

    def refusal_spans(
        self, text: str, bounds: list[tuple[int, int]] | None = None, avoiding: list[tuple[int, int]] | None = None
    ) -> list[Span]:
        """The sentences that avoid the answer: those that score at or above the threshold on their
        own, as the property would score them alone (the head, and the rule's floor for a sentence
        that says it cannot or does not know)."""
        bounds = bounds or sentence_bounds(text)
        avoiding = avoiding or []
        # Candidates: the opening sentences, where refusals sit, and any sentence with a refusal
        # phrase. Scoring every sentence of a long answer would cost more than the answer itself.
        opened = opening_sentences(text, bounds)
        candidates = [
            (start, end)
            for position, (start, end) in enumerate(bounds)
            if position < opened or _REFUSAL.search(text[start:end]) or (start, end) in avoiding
        ]
        sentences = [text[start:end] for start, end in candidates]
        spans = []
        for (start, end), sentence, head in zip(candidates, sentences, self.sentence_scores(sentences), strict=True):
            said = AVOIDANCE.search(sentence)
            # Alone, a sentence the rule reads is all avoidance, unless it answers after a "but".
            floor = AVOIDED_FLOOR if said and not _answers_after_but(sentence) else 0.0
            score = max(float(head), floor)
            if score < self.threshold:
                continue
            phrase = _REFUSAL.search(sentence)
            if said:
                note = f"says it does not answer: \u201c{said.group(0)}\u201d"
            elif phrase:
                note = f"refusal phrase \u201c{phrase.group(0)}\u201d"
            else:
                note = "reads as avoiding the answer on its own"
            spans.append(Span(self.current_field, start, end, "refusal", round(score, 4), note))
        return spans

    def sentence_scores(self, sentences: list[str]) -> np.ndarray:
        """The head's probability for each sentence read as an output of its own."""
        predictor = self.predictor()
        if not isinstance(predictor, HeadPredictor):  # a user's classifier scores sentences as outputs
            return predictor.predict(sentences)
        # A sentence is its own opening: one encoding serves both embedding features.
        embedded = predictor.encoder.encode(sentences)
        return predictor.head.predict(assemble(sentences, embedded, embedded))
