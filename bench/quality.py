"""Quality of the model-backed properties on labelled files: ROC-AUC, balanced accuracy, speed.

    .venv/bin/python -m bench.quality [FOLDER_OR_FILE ...] [--property NAME] [--batch-size 32] [--write]

Scores every labelled file that an entry of `ENTRIES` names (default folder: ../shared/data/eval/)
through the scorer API, and prints per file: rows, ROC-AUC, balanced accuracy at the property's
documented threshold, items/s, the target and whether it is met. Files in the same format from any
folder work: an entry matches a file by name. To add a property, add entries. `--write` records
the figures in properties/quality/report_card.json, which the property pages show.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.metrics import roc_auc
from properties.scorers import registry
from properties.scorers.base import Scorer, as_score, full_context
from properties.scorers.runtime import models

DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval"


@dataclass(frozen=True)
class Entry:
    """Which property a labelled file measures and how its rows map onto the scorer's inputs.

    `candidate` is the row key scored (`text` for classification rows, `output` for pairs);
    `input` the row key passed as the input; `context` the row key passed as the retrieved
    documents (for a `uses_full_context` scorer, as the information_retrieval of its record);
    `reference` the row key passed as the expected output; `positive` maps a row's label to 1 when the property
    should be high for it (the default: label 1 means high).
    """

    pattern: str
    prop: str
    candidate: str = "text"
    input: str | None = None
    context: str | None = None
    reference: str | None = None
    positive: Callable[[Any], int] = field(default=lambda label: int(label == 1))
    target: float | None = None
    config: dict[str, Any] = field(default_factory=dict)


ENTRIES = (
    Entry("refusal_xstest*.jsonl", "avoided_answer", candidate="output", input="input", target=0.95),
    Entry("refusal_*.jsonl", "avoided_answer", candidate="output", input="input"),
    Entry("toxicity_davidson*.jsonl", "toxicity", target=0.95),
    Entry("toxicity_hatecheck*.jsonl", "toxicity", target=0.85),
    Entry("toxicity_*.jsonl", "toxicity"),
    Entry("formality_pavlick*.jsonl", "formality", target=0.90),
    Entry("formality_*.jsonl", "formality"),
    Entry("fluency_cola*.jsonl", "fluency", target=0.80),
    Entry("fluency_*.jsonl", "fluency"),
    Entry("pii_presidio*.jsonl", "pii_risk", target=0.95),
    Entry("pii_*.jsonl", "pii_risk"),
    Entry("relevance_qnli*.jsonl", "relevance", candidate="output", input="input", target=0.90),
    Entry("relevance_*.jsonl", "relevance", candidate="output", input="input"),
    # Hallucination files: label 1 = not grounded, so grounded (high values) is label 0.
    Entry(
        "hallucination_halueval_qa*.jsonl",
        "grounded_in_context",
        candidate="output",
        input="input",
        context="context",
        positive=lambda label: int(label == 0),
        target=0.85,
    ),
    Entry(
        "hallucination_qags*.jsonl",
        "grounded_in_context",
        candidate="output",
        input="input",
        context="context",
        positive=lambda label: int(label == 0),
        target=0.75,
    ),
    Entry(
        "hallucination_faithbench*.jsonl",
        "grounded_in_context",
        candidate="output",
        input="input",
        context="context",
        positive=lambda label: int(label == 0),
        target=0.65,
    ),
    Entry(
        "hallucination_*.jsonl",
        "grounded_in_context",
        candidate="output",
        input="input",
        context="context",
        positive=lambda label: int(label == 0),
    ),
    # Summary files: label 1 = a good summary (relevance / informativeness); input is the instruction,
    # context the article.
    Entry("summary_summeval*.jsonl", "coverage", candidate="output", input="input", context="context", target=0.70),
    Entry("summary_newsroom*.jsonl", "coverage", candidate="output", input="input", context="context", target=0.70),
    Entry("summary_*.jsonl", "coverage", candidate="output", input="input", context="context"),
    Entry("summary_*.jsonl", "summarization", candidate="output", input="input", context="context"),
    Entry("summary_*.jsonl", "context_entity_recall", candidate="output", input="input", context="context"),
    # Proxies without a target (no labelled set exists for these): an answer that complies
    # carries more information than a refusal; the QNLI sentence as the only retrieved document.
    Entry(
        "refusal_*.jsonl",
        "information_density",
        candidate="output",
        input="input",
        positive=lambda label: int(label == 0),
    ),
    Entry("relevance_qnli*.jsonl", "context_relevancy", candidate="output", input="input", context="output"),
    Entry("relevance_qnli*.jsonl", "retrieval_relevance", candidate="output", input="input", context="output"),
)


def entries_for(path: Path) -> list[Entry]:
    """Per property, the first entry whose pattern matches the file name (specific patterns come
    first), so that one file can measure several properties."""
    chosen: dict[str, Entry] = {}
    for entry in ENTRIES:
        if entry.prop not in chosen and fnmatch.fnmatch(path.name, entry.pattern):
            chosen[entry.prop] = entry
    return list(chosen.values())


def balanced_accuracy(labels: list[int], predicted: list[int]) -> float:
    rates = []
    for cls in (0, 1):
        picked = [p for y, p in zip(labels, predicted, strict=True) if y == cls]
        rates.append(sum(p == cls for p in picked) / len(picked) if picked else 0.0)
    return sum(rates) / 2


def evaluate(path: Path, entry: Entry, batch_size: int) -> dict[str, Any]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    scorer: Scorer = registry.get(entry.prop).from_dict(entry.config)
    scorer.current_field = "output" if entry.candidate == "output" else "input"
    # Warm up on the first row with all its columns, so that every model a property uses (some
    # load only once there is a context) is loaded before the clock starts.
    scorer.run_batch(*batch_arguments(scorer, entry, rows[:1]))
    models.clear_memos()  # items/s of this property's own model calls, not of another file's results
    started = time.perf_counter()
    values: list[float | None] = []
    for first in range(0, len(rows), batch_size):
        batch = rows[first : first + batch_size]
        results = scorer.run_batch(*batch_arguments(scorer, entry, batch))
        values.extend(as_score(result).value for result in results)
    elapsed = time.perf_counter() - started
    labels = [entry.positive(row["label"]) for row in rows]
    # An item that could not be scored (an empty text) ranks lowest rather than being dropped.
    scores = [value if value is not None else -1.0 for value in values]
    threshold = getattr(scorer, "threshold", 0.5)
    return {
        "file": path.name,
        "property": entry.prop,
        "rows": len(rows),
        "errors": sum(value is None for value in values),
        "roc_auc": roc_auc(labels, scores),
        "balanced_accuracy": balanced_accuracy(labels, [int(s >= threshold) for s in scores]),
        "threshold": threshold,
        "per_second": len(rows) / elapsed,
        "target": entry.target,
        "model": scorer.model_id(),
    }


def batch_arguments(scorer: Scorer, entry: Entry, rows: list[dict[str, Any]]) -> tuple[Any, ...]:
    """`run_batch`'s arguments (candidates, references, inputs, contexts) from labelled rows."""
    return (
        [row[entry.candidate] for row in rows],
        [row[entry.reference] for row in rows] if entry.reference else None,
        [row[entry.input] for row in rows] if entry.input else None,
        [context_for(scorer, row[entry.context]) for row in rows] if entry.context else None,
    )


def context_for(scorer: Scorer, documents: Any) -> Any:
    return full_context(documents) if scorer.uses_full_context else documents


def collect(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.jsonl")) if path.is_dir() else [path])
    return files


def report(result: dict[str, Any]) -> dict[str, Any]:
    target = result["target"]
    verdict = "" if target is None else f">= {target:.2f} {'met' if result['roc_auc'] >= target else 'MISSED'}"
    print(
        f"{result['file']:<36} {result['property']:<22} {result['rows']:>5} {result['roc_auc']:>8.3f} "
        f"{result['balanced_accuracy']:>8.3f} {result['threshold']:>5.2f} {result['per_second']:>8.1f}  {verdict}",
        flush=True,
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, default=[DEFAULT_FOLDER])
    parser.add_argument("--property", action="append", help="only these properties (repeatable)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--write", action="store_true", help="record the figures in properties/quality/report_card.json"
    )
    args = parser.parse_args()
    results = []
    print(f"{'file':<36} {'property':<22} {'rows':>5} {'ROC-AUC':>8} {'bal.acc':>8} {'thr':>5} {'items/s':>8}  target")
    for path in collect(args.paths):
        for entry in entries_for(path):
            if not args.property or entry.prop in args.property:
                results.append(report(evaluate(path, entry, args.batch_size)))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    if args.write:
        from properties.quality import report_card

        report_card.write_quality(results)
        print(f"wrote {len(results)} figures to {report_card.PATH}")


if __name__ == "__main__":
    main()
