"""The `evalsite` command: score a file, or gate CI on requirements. No server, no database.

    evalsite score data.csv --properties word_count,valid_json --out results.jsonl
    evalsite gate data.jsonl --require "invalid_links.output<0.1" --require "mean(reading_ease.output)>=50"

Rows are read and validated by the upload parser (properties.uploads.ingest.read_interactions): CSV, JSONL,
JSON or Parquet, with the same column names and the same per-row errors as an upload.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import operator
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from evalsite.sdk.bootstrap import setup

# Rows scored per run_batch call: the pipeline's default chunk size.
BATCH = 200
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SHOWN_FAILURES = 20
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
_ADDRESS = r"[a-z][a-z0-9_]*(?:\.(?:input|output))?"
_NUMBER = r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
REQUIREMENT = re.compile(
    rf"^\s*(?:(mean|min|max)\(\s*({_ADDRESS})\s*\)|({_ADDRESS}))\s*(<=|>=|==|!=|<|>)\s*({_NUMBER})\s*$"
)


class UsageError(Exception):
    pass


@dataclass
class ScoredRow:
    line: int
    user_interaction_id: str
    values: dict[str, float | str | None] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


@dataclass
class Requirement:
    text: str
    aggregate: str | None  # None: every row must satisfy it
    address: str
    op: str
    threshold: float

    @classmethod
    def parse(cls, text: str) -> Requirement:
        match = REQUIREMENT.match(text)
        if match is None:
            raise UsageError(
                f"bad requirement {text!r}: write e.g. 'toxicity.output<0.1' or 'mean(sentiment.output)>=0'"
            )
        aggregate, inner, bare, op, number = match.groups()
        return cls(text, aggregate, inner or bare, op, float(number))

    def holds(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.threshold)


def _scorers(names: list[str]) -> dict[str, Any]:
    from properties.scorers import registry

    try:
        return {name: registry.get(name)() for name in names}
    except registry.RegistryError as exc:
        raise UsageError(str(exc)) from exc


def _address(name: str, field_name: str) -> str:
    return name if field_name == "interaction" else f"{name}.{field_name}"


def resolve_address(address: str, scorers: dict[str, Any]) -> str:
    """`toxicity` alone means its output value when the property is per field."""
    name, _, field_name = address.partition(".")
    fields = scorers[name].fields
    if not field_name:
        field_name = "interaction" if "interaction" in fields else "output" if "output" in fields else fields[0]
    if field_name not in fields:
        raise UsageError(f"{name} has no {field_name} value; it has {', '.join(fields)}")
    return _address(name, field_name)


def score_rows(
    path: Path, scorers: dict[str, Any], column_mapping: dict[str, Any] | None, progress: bool
) -> tuple[list[ScoredRow], Any]:
    from tqdm import tqdm

    from properties.uploads import ingest

    result = ingest.IngestResult()
    rows: list[ScoredRow] = []
    warm_up: ModelWarmUp | None = None
    with path.open("rb") as handle, tqdm(unit=" rows", disable=not progress, file=sys.stderr) as bar:
        for batch in _batches(ingest.read_interactions(handle, path.name, result, column_mapping)):
            if warm_up is None:
                warm_up = ModelWarmUp(scorers, batch[0][1])
                warm_up.start()
            rows.extend(_score_batch(batch, scorers, warm_up))
            bar.update(len(batch))
    result.accepted = len(rows)
    return rows, result


def _batches(items: Iterator[tuple[int, Any]]) -> Iterator[list[tuple[int, Any]]]:
    batch: list[tuple[int, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class ModelWarmUp(threading.Thread):
    """Loads the models of the model-backed properties in the background, one property after the
    other in the order they are scored, by scoring the first row with each.

    A command's run is mostly loading: imports and weights take about half of `evalsite score` with
    the default properties on 100 rows. Loading is Python work, and a model's forward passes (ONNX,
    torch) leave the interpreter free, so on a second core the next property's model loads while
    the current one scores. The row's results are kept by the models' memos, so it is not computed
    twice. `wait_for` holds a property back until its own warm-up is over: no property is scored by
    the two threads at once. A failing warm-up is left to the scoring loop, which meets the same
    error and reports it per row.
    """

    def __init__(self, scorers: dict[str, Any], interaction: Any) -> None:
        super().__init__(name="evalsite-model-warm-up", daemon=True)
        # Copies: a scorer keeps the field it is scoring on itself.
        self.jobs = [(name, copy.copy(scorer)) for name, scorer in scorers.items() if scorer.queue == "models"]
        self.done = {name: threading.Event() for name, _ in self.jobs}
        self.interaction = interaction

    def run(self) -> None:
        from properties.pipeline import scoring

        for name, scorer in self.jobs:
            try:
                scoring.score_field(scorer, scorer.fields[0], [self.interaction])
            except Exception:  # noqa: BLE001 - the scoring loop reports it
                pass
            finally:
                self.done[name].set()

    def wait_for(self, name: str) -> None:
        event = self.done.get(name)
        if event is not None:
            event.wait()


def _score_batch(
    batch: list[tuple[int, Any]], scorers: dict[str, Any], warm_up: ModelWarmUp | None = None
) -> list[ScoredRow]:
    from properties.pipeline import scoring

    rows = [ScoredRow(line, interaction.user_interaction_id) for line, interaction in batch]
    interactions = [interaction for _, interaction in batch]
    for name, scorer in scorers.items():
        if warm_up is not None:
            warm_up.wait_for(name)
        for field_name in scorer.fields:
            for row, score in zip(rows, scoring.score_field(scorer, field_name, interactions), strict=True):
                key = _address(name, field_name)
                row.values[key] = (score.value if score.value is not None else score.label) if score.ok else None
                if not score.ok:
                    row.errors[key] = score.error or "failed"
    return rows


def summary_table(rows: list[ScoredRow]) -> str:
    addresses = list(dict.fromkeys(key for row in rows for key in row.values))
    lines = [f"{'property':<32} {'count':>7} {'mean':>10} {'min':>10} {'max':>10} {'errors':>7}"]
    for address in addresses:
        values = [row.values.get(address) for row in rows]
        numbers = [v for v in values if isinstance(v, int | float) and math.isfinite(v)]
        errors = sum(1 for row in rows if address in row.errors)
        stats = [sum(numbers) / len(numbers), min(numbers), max(numbers)] if numbers else []
        shown = " ".join(f"{number:>10.4g}" for number in stats) if stats else f"{'-':>10} {'-':>10} {'-':>10}"
        lines.append(f"{address:<32} {len(numbers):>7} {shown} {errors:>7}")
    return "\n".join(lines)


def _report_rejected(result: Any, out: TextIO) -> None:
    if result.fatal:
        print(f"error: {result.fatal}", file=out)
    for error in result.errors:
        where = f"line {error.line}" if error.line is not None else "file"
        field_name = f" {error.field}:" if error.field else ""
        print(f"rejected {where}:{field_name} {error.reason}", file=out)
    if result.rejected > len(result.errors):
        print(f"... and {result.rejected - len(result.errors)} more rejected rows", file=out)


def _mapping(pairs: list[str]) -> dict[str, Any] | None:
    mapping: dict[str, Any] = {}
    for pair in pairs:
        field_name, sep, column = pair.partition("=")
        if not sep:
            raise UsageError(f"--column-map takes field=column, not {pair!r}")
        mapping[field_name.strip()] = column.strip()
    return mapping or None


def run_score(args: argparse.Namespace) -> int:
    names = [name.strip() for name in args.properties.split(",") if name.strip()]
    rows, result = score_rows(args.file, _scorers(names), _mapping(args.column_map), not args.quiet)
    _report_rejected(result, sys.stderr)
    if result.fatal and not rows:
        return EXIT_USAGE
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row.__dict__, ensure_ascii=False) + "\n")
    print(summary_table(rows))
    print(f"{len(rows)} rows scored, {result.rejected} rejected")
    return EXIT_OK


def check_requirement(requirement: Requirement, rows: list[ScoredRow]) -> tuple[bool, list[str]]:
    """Whether it holds, and the failing rows (or the aggregate) described one per line."""
    if requirement.aggregate:
        numbers = [v for row in rows if isinstance(v := row.values.get(requirement.address), int | float)]
        if not numbers:
            return False, [f"no {requirement.address} values to take the {requirement.aggregate} of"]
        value = {"mean": sum(numbers) / len(numbers), "min": min(numbers), "max": max(numbers)}[requirement.aggregate]
        return requirement.holds(value), [f"{requirement.aggregate}({requirement.address}) = {value:.4g}"]
    failures = []
    for row in rows:
        value = row.values.get(requirement.address)
        if not isinstance(value, int | float):
            reason = row.errors.get(requirement.address, f"no numeric value ({value!r})")
            failures.append(f"line {row.line} ({row.user_interaction_id}): {reason}")
        elif not requirement.holds(value):
            failures.append(f"line {row.line} ({row.user_interaction_id}): {requirement.address} = {value:.4g}")
    return not failures, failures


def run_gate(args: argparse.Namespace) -> int:
    requirements = [Requirement.parse(text) for text in args.require]
    names = list(dict.fromkeys(req.address.partition(".")[0] for req in requirements))
    scorers = _scorers(names)
    for requirement in requirements:
        requirement.address = resolve_address(requirement.address, scorers)
    rows, result = score_rows(args.file, scorers, _mapping(args.column_map), not args.quiet)
    _report_rejected(result, sys.stderr)
    if result.fatal and not rows:
        return EXIT_USAGE
    passed = True
    for requirement in requirements:
        ok, details = check_requirement(requirement, rows)
        passed &= ok
        print(
            f"{'PASS' if ok else 'FAIL'} {requirement.text}"
            + ("" if ok or requirement.aggregate else f": {len(details)} failing")
        )
        # A passing aggregate still shows its value; a passing row requirement has nothing to show.
        shown = details[:SHOWN_FAILURES] if not ok else details if requirement.aggregate else []
        for detail in shown:
            print(f"  {detail}")
        if not ok and len(details) > SHOWN_FAILURES:
            print(f"  ... and {len(details) - SHOWN_FAILURES} more")
    if result.rejected and not args.allow_bad_rows:
        print(f"FAIL {result.rejected} rows could not be read (see above); --allow-bad-rows to ignore them")
        passed = False
    return EXIT_OK if passed else EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalsite", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score a CSV, JSONL, JSON or Parquet file")
    gate = commands.add_parser("gate", help="exit non-zero unless every requirement holds (for CI)")
    for command in (score, gate):
        command.add_argument("file", type=Path)
        command.add_argument("--column-map", action="append", default=[], metavar="FIELD=COLUMN")
        command.add_argument("--quiet", action="store_true", help="no progress bar")
    score.add_argument("--properties", required=True, help="comma-separated property names")
    score.add_argument("--out", help="write one JSON line of values per row here")
    gate.add_argument("--require", action="append", required=True, metavar="REQUIREMENT")
    gate.add_argument("--allow-bad-rows", action="store_true", help="do not fail on rows that cannot be read")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.file.is_file():
        print(f"error: no file {args.file}", file=sys.stderr)
        return EXIT_USAGE
    setup()
    try:
        return run_score(args) if args.command == "score" else run_gate(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
