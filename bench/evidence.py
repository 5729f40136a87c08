"""Evidence that agrees with its verdict, on every case of every behaviour suite, at the default
threshold and at a project threshold moved by 0.2 either way (properties/screen/evidence_agreement.py
says what is checked).

    .venv/bin/python -m bench.evidence [--property NAME] [--hand-written | --generated] [--show 5]

Prints per property: values checked, values whose evidence disagrees at some threshold, apart for
the hand-written suites and the generated ones (development and held-out templates), then examples
from the hand-written suites and the development templates only: held-out cases are measured, never
read for a fix.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.behavior import SUITES  # noqa: E402
from evalsite.sdk.behavior import Suite, SuiteResult, load_suite, run_suite, suites_in  # noqa: E402
from properties.quality.criteria import default_for  # noqa: E402
from properties.screen.evidence_agreement import disagreements  # noqa: E402


def checked(suite: Suite, result: SuiteResult) -> Iterable[tuple[str, list[str]]]:
    """(case id, its disagreements) for each scored value of the suite, variants included."""
    criterion = default_for(suite.property_name)
    for case in suite.cases:
        for variant in (False, True):
            score = result.scores.get((case.id, variant))
            if score is None:
                continue
            texts = {**case.interaction, **(case.variant or {})} if variant else case.interaction
            found = disagreements(suite.property_name, score, criterion, texts)
            yield (f"{case.id} (variant)" if variant else case.id), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--property", action="append", default=[], help="only these properties")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--hand-written", action="store_true", help="only tests/behavior/*.yaml")
    which.add_argument("--generated", action="store_true", help="only bench/generated/")
    parser.add_argument("--show", type=int, default=5, help="examples per property")
    args = parser.parse_args()
    wanted = set(args.property)
    print(f"{'property':<26} {'suite':<12} {'values':>7} {'disagree':>9}")
    examples: list[str] = []
    totals = [0, 0]

    def report(name: str, group: str, rows: list[tuple[str, list[str]]], readable: bool) -> None:
        bad = [(case, found) for case, found in rows if found]
        totals[0] += len(rows)
        totals[1] += len(bad)
        print(f"{name:<26} {group:<12} {len(rows):>7} {len(bad):>9}", flush=True)
        if readable:
            examples.extend(f"{name} {case}: {found[0]}" for case, found in bad[: args.show])

    if not args.generated:
        for path in suites_in(SUITES):
            suite = load_suite(path)
            if (wanted and suite.property_name not in wanted) or suite.unavailable():
                continue
            if not default_for(suite.property_name).judges:
                continue
            report(suite.property_name, "hand-written", list(checked(suite, run_suite(suite))), True)
    if not args.hand_written:
        from bench import generated

        for name in generated.PROPERTIES:
            if wanted and name not in wanted or not default_for(name).judges:
                continue
            built = generated.build(name)
            result = run_suite(built.suite)
            groups: dict[str, list[tuple[str, list[str]]]] = {generated.DEVELOPMENT: [], generated.HELD_OUT: []}
            by_id = {case.id: case for case in built.suite.cases}
            for case_id, found in checked(built.suite, result):
                groups[built.group_of(by_id[case_id.removesuffix(" (variant)")])].append((case_id, found))
            for group, rows in groups.items():
                report(name, group, rows, group == generated.DEVELOPMENT)
    print(f"{'all':<26} {'':<12} {totals[0]:>7} {totals[1]:>9}")
    for line in examples:
        print(line)


if __name__ == "__main__":
    main()
