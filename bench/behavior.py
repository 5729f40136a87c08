"""Pass rates of the properties' behaviour suites (tests/behavior/*.yaml), and each failing case.

    .venv/bin/python -m bench.behavior [--property NAME] [--verbose] [--write] [FOLDER_OR_FILE ...]

Prints one line per property (passed / cases, and per kind: minimum functionality, invariance,
directional), then every failing case with its reason. The test suite runs the same suites and
fails below 95% (tests/behavior/test_behavior.py). `--write` records each property's pass rate
in properties/quality/report_card.json, which the property pages show. The suites of LLM-judged properties
run with the judge model named in EVALSITE_BEHAVIOR_JUDGE (JSON options per property, see
evalsite/sdk/behavior.py), say why they were not run without it, and are never written to the report
card: their pass rate is the judge model's, not the packaged defaults'.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evalsite.sdk.behavior import load_suite, run_suite, suites_in  # noqa: E402

SUITES = Path(__file__).resolve().parents[1] / "tests" / "behavior"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[SUITES])
    parser.add_argument("--property", action="append", default=[], help="only these properties")
    parser.add_argument("--verbose", action="store_true", help="print every case, passing ones too")
    parser.add_argument(
        "--write", action="store_true", help="record the pass rates in properties/quality/report_card.json"
    )
    args = parser.parse_args()
    files = [file for path in args.paths for file in (suites_in(path) if path.is_dir() else [path])]
    print(f"{'property':<24} {'passed':>9} {'rate':>6}  {'MFT':>7} {'INV':>7} {'DIR':>7} {'s':>6}")
    failures = []
    skipped: list[str] = []
    total_passed = total = 0
    rates: dict[str, tuple[int, int]] = {}
    measured_with: dict[str, str] = {}
    for file in files:
        suite = load_suite(file)
        if args.property and suite.property_name not in args.property:
            continue
        if reason := suite.unavailable():
            skipped.append(reason)
            continue
        started = time.perf_counter()
        scorer = suite.scorer()
        result = run_suite(suite, scorer)
        seconds = time.perf_counter() - started
        kinds = result.by_kind()
        columns = [f"{kinds[k][0]}/{kinds[k][1]}" if k in kinds else "-" for k in ("MFT", "INV", "DIR")]
        print(
            f"{suite.property_name:<24} {result.passed:>4}/{len(result.outcomes):<4} {result.pass_rate:>6.1%}  "
            f"{columns[0]:>7} {columns[1]:>7} {columns[2]:>7} {seconds:>6.1f}",
            flush=True,
        )
        if not suite.needs_judge():  # a judge's pass rate is its model's, not the packaged default's
            rates[suite.property_name] = (result.passed, len(result.outcomes))
            if scorer.queue != "cpu":
                measured_with[suite.property_name] = scorer.model_id()
        total_passed += result.passed
        total += len(result.outcomes)
        for outcome in result.outcomes:
            if args.verbose or not outcome.passed:
                failures.append((suite.property_name, outcome))
    print(f"{'all':<24} {total_passed:>4}/{total:<4} {total_passed / max(total, 1):>6.1%}")
    for name, outcome in failures:
        mark = "ok  " if outcome.passed else "FAIL"
        print(f"{mark} {name} {outcome.case.kind} {outcome.case.id}: {outcome.reason or 'passed'}")
    for reason in skipped:
        print(f"not run: {reason}")
    if args.write:
        from properties.quality import report_card

        report_card.write_behaviour(rates, models=measured_with)
        print(f"wrote {len(rates)} pass rates to {report_card.PATH}")


if __name__ == "__main__":
    main()
