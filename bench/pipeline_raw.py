"""The raw-model limit of bench.pipeline: the model calls a template's properties make, alone.

For each property, the same interactions the pipeline scored, in batches of its chunks' size (the
rows of its largest chunk), go straight to the models the property calls, with the inputs the property gives them
(computed before the clock starts). The raw calls are those of the throughput benches:

- Toxicity, Avoided Answer, Formality, Fluency, PII Risk: `bench.properties_models.raw_call`
  (encoder, packaged classifiers and heads; the causal LM and its adapter for Fluency; the NER model
  and detectors for PII), on each field the property scores;
- Relevance, Retrieval Relevance, Context Relevancy, Information Density, Coverage, Summarization:
  `bench.properties_rag.RAW` (cross-encoder pairs: Relevance's per output window and per sentence,
  with MiniLM on one-phrase answers; spaCy and the Avoided Answer head for density; spaCy and MiniLM
  for coverage);
- Grounded in Context: `bench.nli_dev.raw_inputs` and `run_raw` (encoder, cross-encoder, spaCy NER);
- the properties of the cpu queue, which call no model (Sentiment, Reading Ease, Compression Ratio,
  Invalid Links, Word Count, the structured-output checks): none, so their whole time in the
  pipeline counts against the template's ratio.

Every model is loaded and warmed up on two rows first; then the models' memos are cleared once and
the properties run one after the other in one process, so that a text several properties send to
the same model is computed once (Context Relevancy's pairs are Retrieval Relevance's), as a worker's
memo does when one process scores both. Their sum is the limit: the seconds this machine needs for
the model work alone.

The calls run as a models worker's pool process runs them: a property scored in streams
(`Scorer.scored_in_streams`, the packaged ONNX models) has each batch dealt in as many shares as the
process has streams (`scoring.dealt`), the shares' calls side by side in that many threads, every
session with one thread; the others (Fluency's LM in torch) run on whole batches in one thread, torch
with the threads of every stream (`workers.share_model_threads`, `models.torch_device`). The bench
starts one models worker process, whose share is every core this process may run on. The models are
loaded again for that, and the variables that set their threads are put back afterwards, so that
the workers the bench starts later do not inherit them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

RawCall = Callable[[], object]
Row = dict[str, Any]


def kind_of(prop: str) -> str:
    """Which raw calls a property makes: "none" (the cpu queue's properties call no model),
    "classifier", "rag" or "nli"; ValueError for a model-backed property this module cannot time."""
    from bench import properties_rag
    from properties.scorers import registry
    from properties.scorers.pii_risk import PIIRisk
    from properties.scorers.runtime.model_scorer import ModelScorer

    scorer = registry.get(prop)
    if scorer.queue == "cpu":
        return "none"
    if issubclass(scorer, ModelScorer | PIIRisk):
        return "classifier"
    if prop in properties_rag.RAW:
        return "rag"
    if prop == "grounded_in_context":
        return "nli"
    raise ValueError(f"no raw model calls are written for {prop!r}")


def calls_for(prop: str, rows: list[Row]) -> list[RawCall]:
    """The raw model calls of one property on one batch of rows (input, context, output)."""
    from bench import nli_dev, properties_models, properties_rag
    from bench.quality import context_for
    from properties.scorers import registry

    kind = kind_of(prop)
    if kind == "none":
        return []
    scorer = registry.get(prop)()
    if kind == "classifier":
        scorer.current_field = "output"
        call = properties_models.raw_call(scorer)
        fields = [[row[field] for row in rows if row[field].strip()] for field in scorer.fields]
        return [lambda texts=texts: call(texts) for texts in fields if texts]
    if kind == "rag":
        contexts = [context_for(scorer, row["context"]) for row in rows]
        args = ([row["output"] for row in rows], None, [row["input"] for row in rows], contexts)
        return properties_rag.RAW[prop][0](args)
    grounder = scorer.grounder()
    inputs = nli_dev.raw_inputs(grounder, rows)
    return [lambda: nli_dev.run_raw(grounder, [inputs])]


def limit_seconds(rows: list[Row], properties: list[str], batch_size: int) -> dict[str, float]:
    """Seconds of each property's raw model calls on `rows` in batches of `batch_size`, for the
    properties that call a model, as a models worker's streams make them (see the module docstring)."""
    from properties.scorers import registry
    from properties.scorers.runtime import models

    properties = [prop for prop in properties if kind_of(prop) != "none"]
    streams = models.model_threads()  # one pool process: its share is every core
    with worker_threads(streams):
        for prop in properties:  # load and warm up every model before the clock starts
            for call in calls_for(prop, rows[:2]):
                call()
        batches = [rows[first : first + batch_size] for first in range(0, len(rows), batch_size)]
        shares = [[row for _, row in share] for batch in batches for share in dealt_rows(batch, streams)]
        streamed = {prop for prop in properties if registry.get(prop)().scored_in_streams()}
        calls = {
            prop: [call for part in (shares if prop in streamed else batches) for call in calls_for(prop, part)]
            for prop in properties
        }
        models.clear_memos()  # building the calls embedded some texts (Grounded in Context's passages)
        seconds = {}
        with ThreadPoolExecutor(streams) as pool:
            for prop in properties:
                started = time.perf_counter()
                if prop in streamed:
                    list(pool.map(lambda call: call(), calls[prop]))
                else:
                    for call in calls[prop]:
                        call()
                seconds[prop] = time.perf_counter() - started
    return seconds


def dealt_rows(rows: list[Row], streams: int) -> list[list[tuple[int, Row]]]:
    """`scoring.dealt` on bench rows: shares of about equal text, longest first."""
    from properties.models import Interaction
    from properties.pipeline import scoring

    interactions = [
        Interaction(pk=number, input=row["input"], output=row["output"], information_retrieval=row["context"])
        for number, row in enumerate(rows)
    ]
    return [[(item.pk, rows[item.pk]) for item in share] for share in scoring.dealt(interactions, streams)]


@contextmanager
def worker_threads(streams: int) -> Iterator[None]:
    """Models loaded afresh as a models worker's pool process has them (`streams` streams, sessions
    of one thread), and forgotten again at the end, with the variables put back as they were."""
    from properties.scorers.runtime import models

    saved = {name: os.environ.get(name) for name in ("EVALSITE_MODEL_THREADS", "EVALSITE_MODEL_STREAMS")}
    os.environ.update({"EVALSITE_MODEL_THREADS": "1", "EVALSITE_MODEL_STREAMS": str(streams)})
    models.clear_cache()
    try:
        yield
    finally:
        models.clear_cache()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
