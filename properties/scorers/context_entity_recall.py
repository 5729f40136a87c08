"""Context Entity Recall (Weave's ContextEntityRecallScorer, local): the share of the source's named
entities and figures that the output contains, 0 to 1.

The source is the retrieved documents and the input, as for Coverage (`coverage.source_texts`).
Entities are the spaCy named entities (people, organisations, places, ...) and figures (dates,
amounts, numbers with digits) of the source, a one-word name folded into the longer name it ends
("Limbaugh" into "Rush Limbaugh"). Each counts once, unweighted, as in Weave. An entity is present
when all the words of one of its forms are in the output, case-insensitive, numbers normalised;
names are matched lexically only (an embedding would take France for Germany).

Direction: this is the issue's definition (how many of the context's entities the output keeps),
for summaries and answers that should carry the facts of the context. Weave's LLM scorer (see
`llm_context_entity_recall`) divides by the output's entities instead; that share is in the details
as `output_entities_in_context`.

Evidence: the entities missed on the source (first mention), those kept on the output, the
`MAX_EVIDENCE` most salient of each; the details list the same.
"""

from __future__ import annotations

from typing import Any

from properties.scorers.base import Score, Scorer, Span
from properties.scorers.coverage import NO_SOURCE, source_texts
from properties.scorers.llm.judges import LLMContextEntityRecall
from properties.scorers.llm.weave_routing import JudgedWhenModelNamed
from properties.scorers.registry import builtin
from properties.scorers.runtime import models, spacy_english
from properties.scorers.text import topics

MAX_EVIDENCE = 20
ENTITY_KINDS = frozenset({"entity", "number"})


@builtin
class ContextEntityRecall(Scorer, metaclass=JudgedWhenModelNamed):
    # With a model_id (or base_url) the LLM judge scores instead: see weave_routing.
    judge = LLMContextEntityRecall
    display_name = "Context Entity Recall"
    description = (
        "Weave's ContextEntityRecallScorer with a local model: the share of the context's named entities and "
        "figures that the output contains, 0 to 1 (spaCy NER, case-insensitive lexical match). Evidence: "
        "entities missed (on the context) and kept (on the output)."
    )
    fields = ("output",)
    queue = "models"
    version = "1"
    threshold = 0.5

    def scored_in_streams(self) -> bool:
        return True  # the packaged ONNX models (see Scorer.scored_in_streams)

    @staticmethod
    def name() -> str:
        return "context_entity_recall"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def model_id(self) -> str:
        return spacy_english.SPACY_MODEL

    def run_batch(
        self,
        candidate_batch: list[str],
        reference_batch: list[str] | None = None,
        input_text_batch: list[str] | None = None,
        context_batch: list[Any] | None = None,
    ) -> list[float | Score]:
        texts, scored, results = models.split_empty(candidate_batch, self.current_field)
        inputs = input_text_batch or [""] * len(texts)
        contexts = context_batch or [None] * len(texts)
        sources = {i: source_texts(inputs[i], contexts[i]) for i in scored}
        todo = [i for i in scored if sources[i]]
        for i in set(scored) - set(todo):
            results[i] = Score.not_applicable(NO_SOURCE)
        if not todo:
            return results
        flat = [text for i in todo for _, text in sources[i]] + [texts[i] for i in todo]
        parsed = topics.parse(flat)
        position = 0
        for i, output in zip(todo, parsed[len(flat) - len(todo) :], strict=True):
            mine = parsed[position : position + len(sources[i])]
            position += len(sources[i])
            results[i] = self.to_score([name for name, _ in sources[i]], mine, output)
        return results

    def to_score(self, fields: list[str], sources: list[topics.Parsed], output: topics.Parsed) -> Score:
        entities = topics.main_topics(sources, ENTITY_KINDS)
        if not entities:
            return Score.not_applicable("the context has no named entities or figures, so entity recall is undefined")
        found = [topics.present(entity, output) for entity in entities]
        matched = [e for e, where in zip(entities, found, strict=True) if where is not None]
        missed = [e for e, where in zip(entities, found, strict=True) if where is None]
        spans = [
            Span(self.current_field, *where, e.label, round(e.weight, 3), f"kept: {e.kind} of the context")
            for e, where in zip(entities, found, strict=True)
            if where is not None
        ][:MAX_EVIDENCE]
        for entity in missed[:MAX_EVIDENCE]:
            source, mention = entity.labelled
            note = f"missed: {entity.kind}, {len(entity.mentions)} mention(s) in the context"
            spans.append(Span(fields[source], mention.start, mention.end, entity.label, round(entity.weight, 3), note))
        own = topics.main_topics([output], ENTITY_KINDS)
        in_context = [e for e in own if any(topics.present(e, source) for source in sources)]
        recall = round(len(matched) / len(entities), 4)
        details = {
            "recall": recall,
            "context_entities": [e.label for e in entities[:MAX_EVIDENCE]],
            "matched": [e.label for e in matched[:MAX_EVIDENCE]],
            "missed": [e.label for e in missed[:MAX_EVIDENCE]],
            "expected_entities": [e.label for e in own[:MAX_EVIDENCE]],
            "context_entity_count": len(entities),
            "output_entities_in_context": round(len(in_context) / len(own), 4) if own else None,
        }
        return Score(value=recall, spans=spans, details=details)
