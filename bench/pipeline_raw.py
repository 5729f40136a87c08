"""The raw-model limit of bench.pipeline: the model calls the RAG template's properties make, alone.

For each property, the same interactions the pipeline scored, in batches of its chunks' size (the
rows of its largest chunk), go straight to the models the property calls, with the inputs the property gives them
(computed before the clock starts). The raw calls are those of the throughput benches:

- Toxicity, Avoided Answer, PII Risk: `bench.properties_models.raw_call` (encoder, packaged
  classifiers and heads; the NER model and detectors for PII), on each field the property scores;
- Relevance, Retrieval Relevance, Context Relevancy, Information Density: `bench.properties_rag.RAW`
  (cross-encoder pairs: Relevance's per output window and per sentence, with MiniLM on one-phrase
  answers; spaCy and the Avoided Answer head for density);
- Grounded in Context: `bench.nli_dev.raw_inputs` and `run_raw` (encoder, cross-encoder, spaCy NER).

Every model is loaded and warmed up on two rows first; then the models' memos are cleared once and
the properties run one after the other in one process, so that a text several properties send to
the same model is computed once (Context Relevancy's pairs are Retrieval Relevance's), as a worker's
memo does when one process scores both. Their sum is the limit: the seconds this machine needs for
the model work alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

RawCall = Callable[[], object]
Row = dict[str, Any]


def calls_for(prop: str, rows: list[Row]) -> list[RawCall]:
    """The raw model calls of one property on one batch of rows (input, context, output)."""
    from bench import nli_dev, properties_models, properties_rag
    from bench.quality import context_for
    from properties.scorers import registry

    scorer = registry.get(prop)()
    if prop in ("toxicity", "avoided_answer", "pii_risk"):
        scorer.current_field = "output"
        call = properties_models.raw_call(scorer)
        fields = [[row[field] for row in rows if row[field].strip()] for field in scorer.fields]
        return [lambda texts=texts: call(texts) for texts in fields if texts]
    if prop in properties_rag.RAW:
        contexts = [context_for(scorer, row["context"]) for row in rows]
        args = ([row["output"] for row in rows], None, [row["input"] for row in rows], contexts)
        return properties_rag.RAW[prop][0](args)
    if prop == "grounded_in_context":
        grounder = scorer.grounder()
        inputs = nli_dev.raw_inputs(grounder, rows)
        return [lambda: nli_dev.run_raw(grounder, [inputs])]
    raise ValueError(f"no raw model calls are written for {prop!r}")


def limit_seconds(rows: list[Row], properties: list[str], batch_size: int) -> dict[str, float]:
    """Seconds of each property's raw model calls on `rows` in batches of `batch_size`."""
    from properties.scorers.runtime import models

    for prop in properties:  # load and warm up every model before the clock starts
        for call in calls_for(prop, rows[:2]):
            call()
    batches = [rows[first : first + batch_size] for first in range(0, len(rows), batch_size)]
    calls = {prop: [call for batch in batches for call in calls_for(prop, batch)] for prop in properties}
    models.clear_memos()  # building the calls embedded some texts (Grounded in Context's passages)
    seconds = {}
    for prop in properties:
        started = time.perf_counter()
        for call in calls[prop]:
            call()
        seconds[prop] = time.perf_counter() - started
    return seconds
