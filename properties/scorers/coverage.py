"""Coverage: how much of the source's main content the output keeps, 0 to 1 (for summaries).

The source is what was summarised: the retrieved documents (`information_retrieval`) and the input.
With documents, an input under `MIN_INPUT_SOURCE_WORDS` words is taken for the instruction
("Summarize the article.") and left out: its words are not topics of the source.

1. Main topics (`topics.main_topics`): named entities, figures and noun-phrase heads of the source,
   weighted by salience (kind, mentions, lead position); the `max_topics` (20) most salient count.
2. Each main topic is present in the output lexically (its words among the output's words or
   lemmas, case-insensitive, numbers normalised) or, for common nouns only, semantically: the
   packaged MiniLM embedding of the topic's lemma is within cosine `NOUN_SIMILARITY` (0.70) of a
   noun of the output. 0.70 separates synonyms (plane/aircraft 0.84, lawyer/attorney 0.89,
   police/officer 0.70) from related words (lawyer/doctor 0.61, team/club 0.51). Names are only
   matched lexically: embeddings put France and Germany at 0.74.
3. Key sentences: the `key_sentences` (3) source sentences that carry the most topic weight (lead
   bonus as for topics) are kept when an output sentence is within cosine `SENTENCE_SIMILARITY`
   (0.60) of them: a compressed paraphrase of a sentence scores 0.6-0.7 with MiniLM, another
   sentence of the same article 0.4-0.5. An output sentence that joins clauses is also compared
   clause by clause, so one sentence can keep two key sentences.
4. value = (1 - `KEY_SENTENCE_SHARE`) x salience-weighted share of the main topics present
   + `KEY_SENTENCE_SHARE` (0.25) x share of the key sentences kept. Without the semantic step
   (`semantic=False`) key sentences are not judged and the value is the topic share alone.

Evidence: each missed main topic and key sentence on the source (`input` or
`information_retrieval[i]`, its first mention), each covered one on the output, labelled with the
topic. Defaults are chosen from first principles and checked on training data (summedits
documents), never tuned on the evaluation files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.registry import builtin
from properties.scorers.retrieval_relevance import documents_of
from properties.scorers.runtime import models, spacy_english
from properties.scorers.text import topics

MAX_TOPICS = 20
KEY_SENTENCES = 3
KEY_SENTENCE_SHARE = 0.25
NOUN_SIMILARITY = 0.70
SENTENCE_SIMILARITY = 0.60
MIN_INPUT_SOURCE_WORDS = 40
MIN_KEY_SENTENCE_WORDS = 5
NO_SOURCE = "no source to cover: the input and the retrieved documents (information_retrieval) are empty"


def source_texts(input_text: Any, context: Any) -> list[tuple[str, str]]:
    """(field, text) of each part of the source that has text."""
    documents = [(f"information_retrieval[{i}]", text) for i, text in enumerate(documents_of(context)) if text.strip()]
    text = input_text if isinstance(input_text, str) else ""
    if text.strip() and (not documents or len(text.split()) >= MIN_INPUT_SOURCE_WORDS):
        return [("input", text), *documents]
    return documents


@dataclass
class KeySentence:
    source: int
    start: int
    end: int
    weight: float
    similarity: float = 0.0
    match: tuple[int, int] | None = None  # the output sentence that keeps it


@dataclass
class Assessment:
    """One output against its source: which main topics and key sentences it keeps, and where."""

    fields: list[str]
    sources: list[topics.Parsed]
    output: topics.Parsed
    all_topics: list[topics.Topic]
    main: list[topics.Topic]
    found: list[tuple[int, int] | None]
    how: list[str]
    key_sentences: list[KeySentence] = field(default_factory=list)
    judged_sentences: bool = False

    def topic_recall(self) -> float:
        total = sum(t.weight for t in self.main)
        kept = sum(t.weight for t, where in zip(self.main, self.found, strict=True) if where is not None)
        return kept / total if total else 0.0

    def sentence_recall(self) -> float:
        if not self.key_sentences:
            return 0.0
        return sum(s.match is not None for s in self.key_sentences) / len(self.key_sentences)

    def value(self) -> float:
        if not self.judged_sentences or not self.key_sentences:
            return self.topic_recall()
        return (1 - KEY_SENTENCE_SHARE) * self.topic_recall() + KEY_SENTENCE_SHARE * self.sentence_recall()

    def source_words(self) -> int:
        return sum(len(parsed.text.split()) for parsed in self.sources)


@builtin
class Coverage(Scorer):
    display_name = "Coverage"
    description = (
        "How much of the source's main content the output keeps, 0 to 1: the salience-weighted share of the "
        "source's main topics (entities, figures, key nouns) present in the output, lexically or by meaning, "
        "and the share of its key sentences kept. Evidence: topics covered (on the output) and missed (on the "
        "source)."
    )
    fields = ("output",)
    queue = "models"
    version = "1"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return self.model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

    def __init__(
        self,
        semantic: bool = True,
        max_topics: int = MAX_TOPICS,
        key_sentences: int = KEY_SENTENCES,
        model: str | None = None,
    ) -> None:
        self.semantic = bool(semantic)
        self.max_topics = int(max_topics)
        self.key_sentences = int(key_sentences)
        self.model = model or None
        if self.max_topics < 1:
            raise ValueError(f"coverage: max_topics must be at least 1, got {max_topics!r}")
        if self.model and models.looks_local(self.model) and not Path(self.model).expanduser().exists():
            raise models.unavailable(self.name(), self.model, "no such file or folder", models.override_fix())

    @staticmethod
    def name() -> str:
        return "coverage"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def encoder(self) -> models.Encoder:
        if self.model is None:
            return models.packaged_encoder(self.name())
        return models.user_encoder(self.name(), self.model)

    def model_id(self) -> str:
        spacy_id = spacy_english.SPACY_MODEL
        if not self.semantic:
            return spacy_id
        if self.model is None:
            return f"{spacy_id}+{models.packaged_encoder_id(self.name())}"
        return f"{spacy_id}+{self.model}@{models.model_digest(self.model)}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        assessments = self.assess(candidate_batch, input_text_batch, context_batch)
        return [self.to_score(a) if isinstance(a, Assessment) else a for a in assessments]

    def assess(
        self, candidate_batch: list[str], input_text_batch: list[str] | None, context_batch: list[Any] | None
    ) -> list[Assessment | Score]:
        """Each output's assessment, or the Score that says why it has none."""
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        count = len(texts)
        inputs = input_text_batch or [""] * count
        contexts = context_batch or [None] * count
        sources = {i: source_texts(inputs[i], contexts[i]) for i in scored}
        for i in scored:
            if not sources[i]:
                results[i] = Score.not_applicable(NO_SOURCE)
        todo = [i for i in scored if sources[i]]
        out: list[Assessment | Score] = list(results)
        if scored:  # load the models with the first output, even one without a source (a warm-up)
            spacy_english.pipeline(self.name())
            if self.semantic:
                self.encoder()
        if not todo:
            return out
        # One spaCy pass over every text of the batch.
        flat = [text for i in todo for _, text in sources[i]] + [texts[i] for i in todo]
        parsed = topics.parse(flat)
        outputs = parsed[len(flat) - len(todo) :]
        position = 0
        for i, output in zip(todo, outputs, strict=True):
            mine = parsed[position : position + len(sources[i])]
            position += len(sources[i])
            out[i] = self._lexical([name for name, _ in sources[i]], mine, output)
        if self.semantic:
            self._semantic([a for a in out if isinstance(a, Assessment)])
        return out

    def _lexical(self, fields: list[str], sources: list[topics.Parsed], output: topics.Parsed) -> Assessment:
        ranked = topics.main_topics(sources)
        main = ranked[: self.max_topics]
        found = [topics.present(topic, output) for topic in main]
        how = ["lexical" if where is not None else "" for where in found]
        assessment = Assessment(fields, sources, output, ranked, main, found, how)
        assessment.key_sentences = pick_key_sentences(sources, ranked, self.key_sentences)
        return assessment

    def _semantic(self, assessments: list[Assessment]) -> None:
        """Nouns missed lexically and key sentences, against the output's nouns and sentences: one
        encoder call for the whole batch."""
        phrases: dict[str, int] = {}

        def index(text: str) -> int:
            return phrases.setdefault(text, len(phrases))

        plans = []
        for a in assessments:
            missed = [k for k, t in enumerate(a.main) if a.found[k] is None and t.kind == "noun"]
            nouns = [m for m in a.output.mentions if m.kind == "noun"]
            sentences = [s for s in a.output.sentences if a.output.text[s[0] : s[1]].strip()]
            # A summary sentence often joins two source sentences ("profit fell, and the CEO expects
            # ..."): each clause is compared too, so that both count as kept.
            sentences += [c for s in sentences for c in clauses(a.output.text, *s)]
            plans.append(
                (
                    [(k, index(a.main[k].key.removeprefix("noun:"))) for k in missed],
                    [(m, index(m.words[0])) for m in nouns],
                    [index(a.sources[s.source].text[s.start : s.end]) for s in a.key_sentences],
                    [(s, index(a.output.text[s[0] : s[1]])) for s in sentences],
                )
            )
        if not phrases:
            return
        vectors = self.encoder().encode(list(phrases))
        for a, (missed, nouns, keys, sentences) in zip(assessments, plans, strict=True):
            a.judged_sentences = self.key_sentences > 0
            if nouns:
                noun_vectors = vectors[[v for _, v in nouns]]
                for k, v in missed:
                    sims = noun_vectors @ vectors[v]
                    best = int(np.argmax(sims))
                    if sims[best] >= NOUN_SIMILARITY:
                        mention = nouns[best][0]
                        a.found[k] = (mention.start, mention.end)
                        a.how[k] = (
                            f"semantic: {a.output.text[mention.start : mention.end]!r}, similarity {sims[best]:.2f}"
                        )
            if sentences:
                sentence_vectors = vectors[[v for _, v in sentences]]
                for key, v in zip(a.key_sentences, keys, strict=True):
                    sims = sentence_vectors @ vectors[v]
                    best = int(np.argmax(sims))
                    key.similarity = round(float(sims[best]), 4)
                    if sims[best] >= SENTENCE_SIMILARITY:
                        key.match = sentences[best][0]

    def to_score(self, a: Assessment) -> Score:
        if not a.main:
            return Score.not_applicable("the source has no topics (no names, figures or nouns) to cover")
        spans: list[Span] = []
        covered, missed = [], []
        for topic, where, how in zip(a.main, a.found, a.how, strict=True):
            weight = round(topic.weight, 3)
            summary = f"{topic.kind}, {len(topic.mentions)} mention(s) in the source, weight {weight}"
            if where is not None:
                covered.append(topic.label)
                spans.append(Span(self.current_field, *where, topic.label, weight, f"covered ({how}); {summary}"))
            else:
                missed.append(topic.label)
                source, mention = topic.labelled
                start, end = mention.start, mention.end
                spans.append(Span(a.fields[source], start, end, topic.label, weight, f"missed; {summary}"))
        if a.judged_sentences:
            for key in a.key_sentences:
                text = a.sources[key.source].text[key.start : key.end]
                if key.match is not None:
                    note = f"keeps key sentence {_clip(text)!r} (similarity {key.similarity:.2f})"
                    spans.append(Span(self.current_field, *key.match, "key sentence", key.similarity, note))
                else:
                    note = f"key sentence missed: best output sentence similarity {key.similarity:.2f}"
                    spans.append(Span(a.fields[key.source], key.start, key.end, "key sentence", key.similarity, note))
        value = round(a.value(), 4)
        details = {
            "coverage": value,
            "topic_recall": round(a.topic_recall(), 4),
            "key_sentence_recall": round(a.sentence_recall(), 4) if a.judged_sentences else None,
            "covered_topics": covered,
            "missed_topics": missed,
            "main_topics": len(a.main),
            "source_topics": len(a.all_topics),
            "key_sentences": len(a.key_sentences) if a.judged_sentences else 0,
            "method": "lexical+semantic" if self.semantic else "lexical",
        }
        return Score(value=value, spans=spans, details=details)


_CLAUSE_BREAK = re.compile(r"[,;:]\s+(?:and|but|while|whereas)\s+|;\s+|\s+and\s+(?=\w+\s+\w+\s+\w+)")
MIN_CLAUSE_WORDS = 4


def clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The clauses of a sentence of at least MIN_CLAUSE_WORDS words, when it has more than one."""
    pieces, position = [], start
    for brk in _CLAUSE_BREAK.finditer(text, start, end):
        pieces.append((position, brk.start()))
        position = brk.end()
    pieces.append((position, end))
    kept = [(s, e) for s, e in pieces if len(text[s:e].split()) >= MIN_CLAUSE_WORDS]
    return kept if len(kept) > 1 else []


def pick_key_sentences(sources: list[topics.Parsed], ranked: list[topics.Topic], count: int) -> list[KeySentence]:
    """The source sentences that carry the most topic weight (each topic counted once per sentence),
    with the lead bonus of their position; in source order."""
    if count <= 0:
        return []
    carried: dict[tuple[int, int], set[int]] = {}
    for number, topic in enumerate(ranked):
        for source, mention in topic.mentions:
            carried.setdefault((source, mention.sentence), set()).add(number)
    candidates = []
    for (source, sentence), numbers in carried.items():
        start, end = sources[source].sentences[sentence]
        if len(sources[source].text[start:end].split()) < MIN_KEY_SENTENCE_WORDS:
            continue
        lead = 1.0 + 1.0 / (1.0 + sentence / topics.LEAD_SENTENCES)
        weight = lead * sum(ranked[n].weight for n in numbers)
        candidates.append(KeySentence(source, start, end, round(weight, 3)))
    best = sorted(candidates, key=lambda s: -s.weight)[:count]
    return sorted(best, key=lambda s: (s.source, s.start))


def _clip(text: str, size: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"
