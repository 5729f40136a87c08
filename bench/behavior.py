"""Pass rates of the properties' behaviour suites (tests/behavior/*.yaml), and each failing case.

    .venv/bin/python -m bench.behavior [--property NAME] [--verbose] [--write] [FOLDER_OR_FILE ...]
    .venv/bin/python -m bench.behavior --generated [--property NAME] [--verbose] [--write]

Prints one line per property (passed / cases, and per kind: minimum functionality, invariance,
directional), then every failing case with its reason. The test suite runs the same suites and
fails below 95% (tests/behavior/test_behavior.py). `--write` records each property's pass rate
in properties/quality/report_card.json, which the property pages show. The suites of LLM-judged properties
run with the judge model named in EVALSITE_BEHAVIOR_JUDGE (JSON options per property, see
evalsite/sdk/behavior.py), say why they were not run without it, and are never written to the report
card: their pass rate is the judge model's, not the packaged defaults'.

`--generated` runs the generated suites instead (bench/generated/: templates filled from lexicons,
at least 300 cases per model-backed property) and prints the pass rate of the development templates
and of the held-out templates apart, then the failing cases of the development templates only: the
held-out ones are measured, never read for a fix.
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
    parser.add_argument("--generated", action="store_true", help="run the generated suites (bench/generated/)")
    args = parser.parse_args()
    if args.generated:
        run_generated(args)
        return
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


def run_generated(args: argparse.Namespace) -> None:
    from bench import generated

    names = [name for name in generated.PROPERTIES if not args.property or name in args.property]
    print(f"{'property':<22} {'cases':>5}  {'development':>16}  {'held-out':>16}  {'gap':>6} {'s':>6}")
    failures = []
    rates: dict[str, dict[str, tuple[int, int]]] = {}
    for name in names:
        built = generated.build(name)
        started = time.perf_counter()
        result = run_suite(built.suite)
        seconds = time.perf_counter() - started
        counts = {generated.DEVELOPMENT: [0, 0], generated.HELD_OUT: [0, 0]}
        by_template: dict[str, list[int]] = {}
        for outcome in result.outcomes:
            group = built.group_of(outcome.case)
            counts[group][0] += outcome.passed
            counts[group][1] += 1
            if group == generated.DEVELOPMENT:
                tally = by_template.setdefault(built.template_of(outcome.case), [0, 0])
                tally[0] += outcome.passed
                tally[1] += 1
                if args.verbose or not outcome.passed:
                    failures.append((name, outcome))
        dev, held = (tuple(counts[group]) for group in (generated.DEVELOPMENT, generated.HELD_OUT))
        rates[name] = {generated.DEVELOPMENT: dev, generated.HELD_OUT: held}
        print(
            f"{name:<22} {len(result.outcomes):>5}  {_rate(dev):>16}  {_rate(held):>16}  "
            f"{100 * (_share(dev) - _share(held)):>+5.1f} {seconds:>6.1f}",
            flush=True,
        )
        for template, (passed, total) in by_template.items():
            if passed < total:
                print(f"    development template {template}: {passed}/{total}")
    for name, outcome in failures:
        mark = "ok  " if outcome.passed else "FAIL"
        print(f"{mark} {name} {outcome.case.id}: {outcome.reason or 'passed'}")
    if args.write:
        from properties.quality import report_card

        report_card.write_generated(rates)
        print(f"wrote {len(rates)} generated pass rates to {report_card.PATH}")


def _share(counts: tuple[int, int]) -> float:
    return counts[0] / counts[1] if counts[1] else 0.0


def _rate(counts: tuple[int, int]) -> str:
    return f"{counts[0]}/{counts[1]} {_share(counts):6.1%}"


if __name__ == "__main__":
    main()
