"""Grounded in Context (Deepchecks) and HallucinationFree (Weave): is every factual statement of the
output supported by what the model was given?

Context: the input, the retrieved documents (`information_retrieval`), the full prompt and the
history (`uses_full_context`); Python callers may pass a plain string or a list of documents.

1. The output is split into factual statements (`statements.factual_statements`: greetings,
   questions, hedges and lead-ins skipped; a one-phrase answer is a statement).
2. Every context field is cut into overlapping passages of up to 3 sentences, so a long document
   is covered end to end. Each statement's closest passage: among the `CANDIDATES` passages that
   share most of its content words, the one with the highest cosine of the packaged MiniLM
   embeddings plus the share of the statement's content words it contains.
3. Each statement is restated in its passage's terms (`text.restatement`: a quantity the passage
   gives in another unit written as the passage writes it, a short form of its words written out),
   and the learnt signals read the restated statement. Signals per statement (`COMBINER_FEATURES`):
   the NLI signal (`nli.py`) and the packaged
   ms-marco cross-encoder's logit against the closest passage, the embeddings' cosine, the share
   of content words new to the passage and to the whole context (separately for one-phrase
   answers), and the share of numbers and of named entities (spaCy) of the statement that the
   context never mentions.
4. A logistic regression over these signals (`artifacts/grounded.npz`, fitted on training NLI
   pairs only by `python -m properties.training.grounded`) gives P(supported) per statement.
5. Rules settle what needs no weighing (`text.support`): a statement copied from one sentence of
   its passage (same content words in the same order, same numbers, same polarity) is supported;
   a number, named entity or negation that the passage lacks or contradicts makes it unsupported
   (at most `MISMATCH_CAP`), whatever the other signals say, and the span's note says which.
6. The value mixes the weakest statement and the mean (`MIN_WEIGHT`): one unsupported statement
   pulls the whole output down, as it should, without one borderline phrase deciding alone.

A user's question is never evidence: question sentences of the input are left out of the context.
With no context at all the property is not applicable.

Evidence: each statement below `threshold` is a span on the output with its score; its note and
`details["statements"]` name the closest passage (field and character offsets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.llm.judges import LLMHallucinationFree
from properties.scorers.llm.weave_routing import JudgedWhenModelNamed
from properties.scorers.registry import builtin
from properties.scorers.retrieval_relevance import documents_of
from properties.scorers.runtime import cross_encoder, models, nli, spacy_english
from properties.scorers.runtime.heads import ARTIFACTS, Head, load_head
from properties.scorers.text import measures, restatement, statements, support

COMBINER = ARTIFACTS / "grounded.npz"
COMBINER_FEATURES = (
    "nli_logit",
    "cross_encoder_logit",
    "cosine",
    "novel_words_passage",
    "novel_words_context",
    "missing_numbers_context",
    "missing_entities_context",
    "short_claim",
    "novel_words_short_claim",
)
# A claim of at most this many words is a one-phrase answer: its words are nearly all it says, so
# the combination weighs their novelty separately (`short_claim`, `novel_words_short_claim`).
SHORT_CLAIM_WORDS = 5
# Passages per statement embedded and compared (picked by shared content words), see `candidates`.
CANDIDATES = 4
# Share of the value given to the weakest statement (the rest to the mean over statements).
MIN_WEIGHT = 0.75
# Numbers are checked on their own (`statements.numbers`); these entity types are names.
ENTITY_LABELS = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "DATE"}
)
NO_CONTEXT = "no context to ground the output in: no retrieved documents, prompt, history or input statements"
# P(supported) of a copied statement, of a reworded one (one word replaced, the sentences' embeddings
# at least REWORDED_COSINE alike), and the most a statement with a mismatch can get.
COPIED = 0.95
REWORDED = 0.85
REWORDED_COSINE = 0.88
MISMATCH_CAP = 0.2
RETRAIN = nli.RETRAIN


@dataclass(frozen=True)
class Passage:
    field: str
    start: int
    end: int
    text: str

    def where(self) -> str:
        return f"{self.field} [{self.start}:{self.end}]"


@dataclass
class Context:
    """One interaction's context: its passages, and its whole text for the lexical checks."""

    passages: list[Passage]
    lower: str = ""
    stems: set[str] = field(default_factory=set)
    numbers: set[str] = field(default_factory=set)
    passage_stems: list[set[str]] = field(default_factory=list)
    text: str = ""

    @classmethod
    def of(cls, fields: Sequence[tuple[str, str]]) -> Context:
        passages = [
            Passage(name, start, end, text[start:end])
            for name, text in fields
            if isinstance(text, str)
            for start, end in statements.passage_windows(text)
        ]
        whole = "\n".join(text for _, text in fields if isinstance(text, str))
        stems = [statements.content_stems(p.text) for p in passages]
        return cls(passages, whole.lower(), statements.content_stems(whole), statements.numbers(whole), stems, whole)


def context_fields(input_text: str, context: Any) -> list[tuple[str, str]]:
    """(field name, text) of everything the output may be grounded in, retrieved documents first
    (so a tie names the document rather than the prompt that repeats it)."""
    full = isinstance(context, dict) and bool({"information_retrieval", "full_prompt", "history"} & context.keys())
    documents = documents_of(context.get("information_retrieval") if full else context)
    fields = [(f"information_retrieval[{i}]", text) for i, text in enumerate(documents)]
    fields.append(("input", statements.without_questions(input_text or "")))
    if full:
        fields += [("full_prompt", context.get("full_prompt") or ""), ("history", context.get("history") or "")]
    return [(name, text) for name, text in fields if isinstance(text, str) and text.strip()]


@dataclass
class Judgement:
    supported: float
    passage: Passage
    signals: dict[str, float]
    # Why a rule decided, in words ("the documents say 10, the answer says 25"); "" when the
    # trained combination did.
    reason: str = ""


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def embed(encoder: models.Encoder, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Embeddings of the distinct texts (passages repeat across the statements of an item)."""
    unique = list(dict.fromkeys(texts))
    vectors = encoder.encode(unique) if unique else np.zeros((0, 0))
    return dict(zip(unique, vectors, strict=True))


def candidates(claim: str, context: Context) -> list[int]:
    """The passages worth embedding for a claim: the `CANDIDATES` sharing most of its content words
    (all of them in a short context). Embedding every window of a long document for every claim
    would cost far more than judging the claim."""
    words = statements.content_stems(claim)
    shared = [len(words & stems) for stems in context.passage_stems]
    order = sorted(range(len(shared)), key=lambda i: (-shared[i], i))
    return order[:CANDIDATES]


def closest_passages(
    claims: Sequence[str], contexts: Sequence[Context], encoder: models.Encoder, entities: Sequence[Sequence[str]]
) -> tuple[list[Passage], np.ndarray, dict[str, np.ndarray]]:
    """Each claim's closest passage in its own context (cosine + share of its content words + share of
    its figures and names it mentions), the cosine, and the embeddings computed on the way."""
    picked = [candidates(claim, context) for claim, context in zip(claims, contexts, strict=True)]
    texts = [*claims, *(c.passages[i].text for c, rows in zip(contexts, picked, strict=True) for i in rows)]
    vectors = embed(encoder, texts)
    best: list[Passage] = []
    cosines = np.zeros(len(claims))
    for index, (claim, context, rows) in enumerate(zip(claims, contexts, picked, strict=True)):
        words = statements.content_stems(claim)
        cosine = np.stack([vectors[context.passages[i].text] for i in rows]) @ vectors[claim]
        shared = np.array([len(words & context.passage_stems[i]) for i in rows]) / max(len(words), 1)
        named = np.array([_mentions(claim, entities[index], context.passages[i].text) for i in rows])
        pick = int(np.argmax(cosine + shared + named))
        best.append(context.passages[rows[pick]])
        cosines[index] = cosine[pick]
    return best, cosines, vectors


def restate(
    claims: Sequence[str], premises: Sequence[str], vectors: dict[str, np.ndarray], encoder: models.Encoder
) -> tuple[list[str], dict[str, np.ndarray]]:
    """Each claim restated in its passage's terms (`restatement.restated`), and the embeddings with
    those of the restated claims added (only the claims that changed are embedded again)."""
    restated = [restatement.restated(claim, premise) for claim, premise in zip(claims, premises, strict=True)]
    return restated, {**vectors, **embed(encoder, [text for text in restated if text not in vectors])}


def _mentions(claim: str, entities: Sequence[str], passage: str) -> float:
    """The share of the claim's figures and names that a passage mentions (1.0 when it has none)."""
    wanted = [*support.figures(claim), *(e.lower() for e in entities)]
    if not wanted:
        return 1.0
    lower, figures = passage.lower(), support.figures(passage)
    return sum(w in figures or w in lower for w in wanted) / len(wanted)


def context_lexical(claim: str, entities: Sequence[str], context: Context) -> list[float]:
    """Shares of the claim's content words, numbers and named entities absent from the whole context."""
    words = statements.content_stems(claim)
    novel = len(words - context.stems) / len(words) if words else 0.0
    figures = statements.numbers(claim)
    missing = measures.missing_figures(figures, claim, context.text, context.numbers)
    missing_numbers = len(missing) / len(figures) if figures else 0.0
    # As the name rule reads them (`support.given_in`): a quantity or short form the context gives is no new name.
    absent = [
        e
        for e in entities
        if e.lower() not in context.lower
        and not statements.content_stems(e) <= context.stems
        and not support.given_in(e, context.text)
    ]
    missing_entities = len(absent) / len(entities) if entities else 0.0
    return [novel, missing_numbers, missing_entities]


class Grounder:
    """The loaded models of the property and the computation of its signals."""

    def __init__(self, prop: str, nli_model: str | None, combiner: Head | None) -> None:
        self.encoder = models.packaged_encoder(prop)
        self.reranker = cross_encoder.packaged_reranker(prop)
        self.prop = prop
        spacy_english.pipeline(prop)  # loaded with the other models, not on the first batch
        measures.unit_registry()  # likewise
        self.nli = nli.PackagedNli(prop, self.encoder.model_id) if nli_model is None else nli.hub_nli(prop, nli_model)
        self.combiner = combiner

    def entities(self, claims: Sequence[str]) -> list[list[str]]:
        return self.entities_of(claims, self.prop)

    @staticmethod
    def entities_of(claims: Sequence[str], prop: str) -> list[list[str]]:
        """The named entities of each claim (spaCy), of the types `ENTITY_LABELS`."""
        docs = spacy_english.parse(claims, prop, spacy_english.ENTITIES, batch_size=64)
        return [[e.text for e in doc.ents if e.label_ in ENTITY_LABELS] for doc in docs]

    def features(
        self, claims: Sequence[str], contexts: Sequence[Context], entities: Sequence[Sequence[str]]
    ) -> tuple[np.ndarray, list[Passage]]:
        """One row of `COMBINER_FEATURES` per claim, and the claim's closest passage."""
        passages, _, vectors = closest_passages(claims, contexts, self.encoder, entities)
        premises = [p.text for p in passages]
        # The learnt signals read each claim in its passage's units and words (`text.restatement`).
        restated, vectors = restate(claims, premises, vectors, self.encoder)
        u = np.stack([vectors[c] for c in restated])
        v = np.stack([vectors[p] for p in premises])
        cosines = np.einsum("ij,ij->i", u, v)
        entailment = self.nli.entailment(restated, premises, u, v)
        ce_logits = self.reranker.logits(list(zip(restated, premises, strict=True)))
        rows = []
        for i, claim in enumerate(restated):
            novel_passage = nli.nli_lexical(claim, premises[i])[0]
            lexical = context_lexical(claim, entities[i], contexts[i])
            short = float(len(claims[i].split()) <= SHORT_CLAIM_WORDS)
            row = [float(logit(entailment[i])), ce_logits[i], cosines[i], novel_passage, *lexical]
            rows.append([*row, short, short * lexical[0]])
        return np.array(rows, dtype=np.float64).reshape(-1, len(COMBINER_FEATURES)), passages

    def judge(self, claims: Sequence[str], contexts: Sequence[Context]) -> list[Judgement]:
        assert self.combiner is not None
        entities = self.entities(claims)
        features, passages = self.features(claims, contexts, entities)
        supported = self.combiner.predict(features)
        judgements = []
        for claim, names, p, passage, row in zip(claims, entities, supported, passages, features, strict=True):
            judgement = Judgement(float(p), passage, dict(zip(COMBINER_FEATURES, map(float, row), strict=True)))
            judgements.append(apply_rules(claim, names, judgement))
        return judgements


def apply_rules(claim: str, entities: Sequence[str], judgement: Judgement) -> Judgement:
    """The lexical rules of `text.support` over the trained combination's verdict."""
    reason = support.mismatch(claim, entities, judgement.passage.text)
    if reason is not None:
        judgement.supported = min(judgement.supported, MISMATCH_CAP)
        judgement.reason = f"not supported: {reason}"
    elif support.copied(claim, judgement.passage.text):
        judgement.supported = max(judgement.supported, COPIED)
        judgement.reason = "supported: the documents say the same"
    elif judgement.signals["cosine"] >= REWORDED_COSINE and (words := support.reworded(claim, judgement.passage.text)):
        judgement.supported = max(judgement.supported, REWORDED)
        judgement.reason = f"supported: the documents say the same in other words (\u201c{words[0]}\u201d)"
    return judgement


def aggregate(supported: Sequence[float]) -> float:
    values = np.asarray(supported, dtype=np.float64)
    return float(MIN_WEIGHT * values.min() + (1 - MIN_WEIGHT) * values.mean())


@builtin
class GroundedInContext(Scorer):
    display_name = "Grounded in Context"
    description = (
        "Whether the output's factual statements are supported by the context (input, retrieved documents, full "
        "prompt, history), 0 (not grounded) to 1 (fully grounded); one unsupported statement pulls the value down. "
        "Evidence: each ungrounded statement with its score and the closest context passage."
    )
    fields = ("output",)
    queue = "models"
    # 3: every statement is a span, supported ones too. 4: times of day, durations in words and short
    # forms compared as such; an attribute moved between entities of one sentence is unsupported.
    # 5: months compared; "X is A and Y is its B" clauses are parallel; quantities and short forms the
    # context gives are no missing names. 6: the learnt signals read the statement restated in its
    # passage's units and words. 7: NLI head and combination retrained with generated paraphrase rows.
    # 8: a number's scale word ("40 billion" for "40 million") and a day of the week are compared.
    version = "8"
    uses_full_context = True

    def scored_in_streams(self) -> bool:
        return self.nli_model is None  # the packaged ONNX models (see Scorer.scored_in_streams)

    def __init__(self, nli_model: str | None = None, threshold: float = 0.5) -> None:
        self.nli_model = nli_model or None
        self.threshold = float(threshold)
        if self.nli_model and models.looks_local(self.nli_model) and not Path(self.nli_model).expanduser().exists():
            raise models.unavailable(self.name(), self.nli_model, "no such file or folder", models.override_fix())

    @staticmethod
    def name() -> str:
        return "grounded_in_context"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def grounder(self) -> Grounder:
        prop = self.name()
        return models.cached(("grounder", self.nli_model or ""), lambda: Grounder(prop, self.nli_model, self._head()))

    def _head(self) -> Head:
        try:
            return load_head(COMBINER)
        except (OSError, ValueError, KeyError) as exc:
            raise models.unavailable(
                self.name(),
                str(COMBINER),
                f"the trained combination cannot be read ({type(exc).__name__}: {exc})",
                RETRAIN,
            ) from exc

    def model_id(self) -> str:
        """The encoder, cross-encoder, spaCy model, NLI model and combination, read from the files."""
        prop = self.name()
        try:
            nli_part = (
                f"nli-head@{models.weights_digest(nli.NLI_HEAD)}"
                if self.nli_model is None
                else f"{self.nli_model}@{models.model_digest(self.nli_model)}"
            )
            combiner = f"grounded-head@{models.weights_digest(COMBINER)}"
        except OSError as exc:
            raise models.unavailable(prop, str(COMBINER), f"a trained artifact is missing ({exc})", RETRAIN) from exc
        encoders = f"{models.packaged_encoder_id(prop)}+{cross_encoder.packaged_reranker_id(prop)}"
        return f"{encoders}+{spacy_english.SPACY_MODEL}+{nli_part}+{combiner}"

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        inputs = [t if isinstance(t, str) else "" for t in (input_text_batch or [""] * len(texts))]
        raw_contexts = context_batch or [None] * len(texts)
        claims: list[str] = []
        owners: list[tuple[int, int, int]] = []  # item, start, end
        claim_contexts: list[Context] = []
        for i in scored:
            context = Context.of(context_fields(inputs[i], raw_contexts[i]))
            found = statements.factual_statements(texts[i])
            if not context.passages:
                results[i] = Score.not_applicable(NO_CONTEXT)
            elif not found:
                results[i] = self.to_score(texts[i], [], [])
            for start, end in found if context.passages else []:
                claims.append(texts[i][start:end])
                owners.append((i, start, end))
                claim_contexts.append(context)
        if not claims:
            return results
        judgements = self.grounder().judge(claims, claim_contexts)
        for item in dict.fromkeys(owner[0] for owner in owners):
            mine = [(o, j) for o, j in zip(owners, judgements, strict=True) if o[0] == item]
            results[item] = self.to_score(texts[item], [o for o, _ in mine], [j for _, j in mine])
        return results

    def to_score(self, text: str, owners: list[tuple[int, int, int]], judgements: list[Judgement]) -> Score:
        if not judgements:
            return Score(value=1.0, details={"statements": [], "note": "no factual statements to check"})
        spans = []
        rows = []
        for (_, start, end), judgement in zip(owners, judgements, strict=True):
            passage = judgement.passage
            closest = {"field": passage.field, "start": passage.start, "end": passage.end}
            rows.append(
                {
                    "start": start,
                    "end": end,
                    "score": round(judgement.supported, 4),
                    "closest": closest,
                    "signals": {k: round(v, 4) for k, v in judgement.signals.items()},
                }
            )
            if judgement.reason:
                rows[-1]["reason"] = judgement.reason
            # Every statement is a span with its support probability, on either side of this threshold:
            # a project that sets another one sees which statements fail it (the Data Screen colours
            # each span by the project's threshold). The passage too, where the closest support was.
            score = round(judgement.supported, 4)
            # The note gives the reason and the passage, not a verdict: the span's kind says supported
            # or not by the project's threshold.
            label = "ungrounded" if judgement.supported < self.threshold else "supported"
            why = f"{judgement.reason}; " if judgement.reason else ""
            note = f"{why}closest passage: {passage.where()}: {_preview(passage.text)}"
            spans.append(Span(self.current_field, start, end, label, score, note))
            quoted = _preview(text[start:end], 60)
            spans.append(Span(passage.field, passage.start, passage.end, "closest passage", score, f"for: {quoted}"))
        value = aggregate([j.supported for j in judgements])
        details = {
            "statements": rows,
            "ungrounded": sum(span.label == "ungrounded" for span in spans),
            "threshold": self.threshold,
            "formula": f"{MIN_WEIGHT} * min + {1 - MIN_WEIGHT:.2f} * mean of P(supported) over statements",
        }
        return Score(value=round(value, 4), spans=spans, details=details)


def _preview(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@builtin
class HallucinationFree(GroundedInContext, metaclass=JudgedWhenModelNamed):
    """Weave's HallucinationFreeScorer, locally: `has_hallucination` when a statement is ungrounded."""

    # With a model_id (or base_url) the LLM judge scores instead: see weave_routing.
    judge = LLMHallucinationFree

    display_name = "Hallucination Free"
    description = (
        "Weave's HallucinationFreeScorer with local models: 1 (true) when every factual statement of the output "
        "is grounded in the context, 0 (false) when at least one is not (`has_hallucination`); from Grounded in "
        "Context, with the same evidence."
    )

    @staticmethod
    def name() -> str:
        return "hallucination_free"

    @staticmethod
    def is_categorical() -> bool:
        return True

    @staticmethod
    def categories() -> list[str] | None:
        return ["true", "false"]

    def to_score(self, text: str, owners: list[tuple[int, int, int]], judgements: list[Judgement]) -> Score:
        grounded = super().to_score(text, owners, judgements)
        ungrounded = [(span, text[span.start : span.end]) for span in grounded.spans if span.label == "ungrounded"]
        has_hallucination = bool(ungrounded)
        if has_hallucination:
            listed = "; ".join(f"{claim!r} ({span.score:.2f}, {span.note})" for span, claim in ungrounded)
            reasoning = f"{len(ungrounded)} of {len(judgements)} statements are not supported by the context: {listed}"
        elif judgements:
            reasoning = f"All {len(judgements)} factual statements are supported by the context."
        else:
            reasoning = "The output makes no factual statement to check."
        free = not has_hallucination
        details = {"has_hallucination": has_hallucination, "reasoning": reasoning, "grounded": grounded.value}
        details.update(grounded.details)
        return Score(value=float(free), label=str(free).lower(), spans=grounded.spans, details=details)
