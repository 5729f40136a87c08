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

The calls run as a models worker's pool process runs them: each batch in as many parts as the
process has streams (every other row, `scoring._score_properties`), the parts' calls side by side in
that many threads, every model session with one thread (`workers.share_model_threads`). The bench
starts one models worker process, whose share is every core this process may run on. The models are
loaded again for that, and the variable that sets their threads is put back afterwards, so that the
workers the bench starts later do not inherit it.
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
    properties that call a model, in a models worker's streams (see the module docstring)."""
    from properties.scorers.runtime import models

    properties = [prop for prop in properties if kind_of(prop) != "none"]
    streams = models.model_threads()  # one pool process: its share is every core
    with one_thread_sessions():
        for prop in properties:  # load and warm up every model before the clock starts
            for call in calls_for(prop, rows[:2]):
                call()
        batches = [rows[first : first + batch_size] for first in range(0, len(rows), batch_size)]
        parts = [part for batch in batches for part in (batch[first::streams] for first in range(streams)) if part]
        calls = {prop: [call for part in parts for call in calls_for(prop, part)] for prop in properties}
        models.clear_memos()  # building the calls embedded some texts (Grounded in Context's passages)
        seconds = {}
        with ThreadPoolExecutor(streams) as pool:
            for prop in properties:
                started = time.perf_counter()
                list(pool.map(lambda call: call(), calls[prop]))
                seconds[prop] = time.perf_counter() - started
    return seconds


@contextmanager
def one_thread_sessions() -> Iterator[None]:
    """Models loaded afresh with one thread a session, as a models worker's streams have them, and
    forgotten again at the end (with the variable put back as it was)."""
    from properties.scorers.runtime import models

    saved = os.environ.get("EVALSITE_MODEL_THREADS")
    os.environ["EVALSITE_MODEL_THREADS"] = "1"
    models.clear_cache()
    try:
        yield
    finally:
        models.clear_cache()
        if saved is None:
            os.environ.pop("EVALSITE_MODEL_THREADS", None)
        else:
            os.environ["EVALSITE_MODEL_THREADS"] = saved
