"""The behaviour-suite runner (evalsite.sdk.behavior) on a cheap property: each kind of case passes and
fails as it should, spans are matched by their text, and a malformed file names the case."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evalsite.sdk.behavior import SuiteError, load_suite, run_suite


def write(tmp_path: Path, cases: list[dict], **top) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump({"property": "word_count", **top, "cases": cases}))
    return path


def outcomes(tmp_path: Path, cases: list[dict], **top) -> dict[str, tuple[bool, str]]:
    result = run_suite(load_suite(write(tmp_path, cases, **top)))
    return {o.case.id: (o.passed, o.reason) for o in result.outcomes}


def test_minimum_functionality_bounds(tmp_path):
    got = outcomes(
        tmp_path,
        [
            {"id": "in", "interaction": {"output": "one two three"}, "expect": {"min": 3, "max": 3}},
            {"id": "low", "interaction": {"output": "one"}, "expect": {"min": 2}},
        ],
    )
    assert got["in"] == (True, "")
    assert got["low"][0] is False and "< min 2" in got["low"][1]


def test_invariance_and_direction(tmp_path):
    base = {"output": "a b c"}
    got = outcomes(
        tmp_path,
        [
            {"id": "same", "kind": "INV", "interaction": base, "variant": {"output": " a  b c "}, "expect": {}},
            {"id": "moved", "kind": "INV", "interaction": base, "variant": {"output": "a b c d e"}, "expect": {}},
            {
                "id": "up",
                "kind": "DIR",
                "interaction": base,
                "variant": {"output": "a b c d"},
                "expect": {"direction": "up", "by": 1},
            },
            {
                "id": "wrong-way",
                "kind": "DIR",
                "interaction": base,
                "variant": {"output": "a"},
                "expect": {"direction": "up"},
            },
            {
                "id": "bound",
                "kind": "DIR",
                "interaction": base,
                "variant": {"output": "a b c d"},
                "expect": {"direction": "up", "variant_max": 3},
            },
        ],
    )
    assert got["same"][0] and got["up"][0]
    assert not got["moved"][0] and "tolerance" in got["moved"][1]
    assert not got["wrong-way"][0] and "expected up" in got["wrong-way"][1]
    assert not got["bound"][0] and "> max 3" in got["bound"][1]


def test_fields_and_not_applicable(tmp_path):
    got = outcomes(
        tmp_path,
        [
            {
                "id": "input",
                "field": "input",
                "interaction": {"input": "a b", "output": "c"},
                "expect": {"min": 2, "max": 2},
            },
            {"id": "na", "interaction": {"output": "x"}, "expect": {"not_applicable": True}},
        ],
    )
    assert got["input"][0]
    assert not got["na"][0] and "expected not applicable" in got["na"][1]


def test_spans_are_matched_by_label_and_text(tmp_path):
    path = tmp_path / "suite.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "property": "valid_json",
                "cases": [
                    {
                        "id": "hit",
                        "interaction": {"output": '{"a": 1,}'},
                        "expect": {"spans": [{"label": "error", "contains": "}"}]},
                    },
                    {
                        "id": "miss",
                        "interaction": {"output": '{"a": 1,}'},
                        "expect": {"spans": [{"label": "error", "contains": "a"}]},
                    },
                ],
            }
        )
    )
    result = {o.case.id: o for o in run_suite(load_suite(path)).outcomes}
    assert result["hit"].passed and not result["miss"].passed and "no span like" in result["miss"].reason


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ([{"interaction": {"output": "x"}}], "needs an `id`"),
        ([{"id": "a", "kind": "XYZ", "interaction": {"output": "x"}}], "kind must be one of"),
        ([{"id": "a", "kind": "INV", "interaction": {"output": "x"}}], "needs a `variant`"),
        ([{"id": "a", "interaction": {"answer": "x"}}], "unknown interaction field"),
        ([{"id": "a", "interaction": {"output": "x"}}, {"id": "a", "interaction": {"output": "y"}}], "used twice"),
    ],
)
def test_a_malformed_suite_names_the_case(tmp_path, cases, message):
    with pytest.raises(SuiteError, match=message):
        load_suite(write(tmp_path, cases))


def test_values_on_the_evidence_side_must_show_spans(tmp_path):
    """`evidence` fails a case (or its variant) whose value lies on the named side of the threshold
    without a span, whatever the case's own expectations say."""
    cases = [
        {"id": "bad-json", "interaction": {"output": '{"a": 1,}'}, "expect": {"max": 0.5}},
        {"id": "good-json", "interaction": {"output": '{"a": 1}'}, "expect": {"min": 0.5}},
    ]
    got = outcomes(tmp_path, cases, property="valid_json", evidence={"side": "below", "threshold": 0.5})
    assert got == {"bad-json": (True, ""), "good-json": (True, "")}, "an invalid JSON shows where it breaks"

    counted = [
        {"id": "long", "interaction": {"output": "one two three"}, "expect": {"min": 3}},
        {"id": "short", "interaction": {"output": "one"}, "expect": {"max": 1}},
        {
            "id": "grows",
            "kind": "DIR",
            "interaction": {"output": "one"},
            "variant": {"output": "one two three four"},
            "expect": {"direction": "up"},
        },
    ]
    got = outcomes(tmp_path, counted, evidence={"side": "at_or_above", "threshold": 3})
    assert got["long"][0] is False and "3.000 is at or above 3 but shows no evidence span" in got["long"][1]
    assert got["short"] == (True, "")
    assert got["grows"][0] is False and got["grows"][1].startswith("the variant's value 4.000")


@pytest.mark.parametrize("evidence", [{"side": "above", "threshold": 1}, {"side": "below"}, "below 0.5"])
def test_a_malformed_evidence_rule_is_refused(tmp_path, evidence):
    with pytest.raises(SuiteError, match="evidence"):
        load_suite(write(tmp_path, [{"id": "x", "interaction": {"output": "a"}}], evidence=evidence))


def test_a_suite_borrows_another_suites_cases_with_their_value_expectations(tmp_path):
    lender = tmp_path / "lender.yaml"
    lender.write_text(
        yaml.safe_dump(
            {
                "property": "word_count",
                "field": "input",
                "cases": [
                    {"id": "bounds", "interaction": {"input": "a b"}, "expect": {"min": 2, "spans": [{"label": "x"}]}},
                    {"id": "only-spans", "interaction": {"input": "a"}, "expect": {"spans": [{"label": "x"}]}},
                    {"id": "na", "required": True, "interaction": {"input": ""}, "expect": {"not_applicable": True}},
                    {"id": "same", "kind": "INV", "interaction": {"input": "a"}, "variant": {"input": " a"}},
                ],
            }
        )
    )
    borrower = write(tmp_path, [{"id": "own", "interaction": {"output": "a b c"}, "expect": {"min": 3}}])
    borrower.write_text(borrower.read_text() + "cases_from: lender.yaml\n")
    suite = load_suite(borrower)
    assert [case.id for case in suite.cases] == ["bounds", "same", "own"]
    assert suite.cases[0].expect == {"min": 2} and suite.cases[0].field == "input"
    assert all(outcome.passed for outcome in run_suite(suite).outcomes)


def test_an_llm_judged_suite_runs_only_with_the_operators_judge(tmp_path, monkeypatch):
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump({"property": "llm_hallucination_free", "cases": []}))
    monkeypatch.delenv("EVALSITE_BEHAVIOR_JUDGE", raising=False)
    suite = load_suite(path)
    assert "set EVALSITE_BEHAVIOR_JUDGE" in suite.unavailable()
    monkeypatch.setenv(
        "EVALSITE_BEHAVIOR_JUDGE",
        '{"*": {"model_id": "openai/gpt-4o-mini"}, "llm_embedding_similarity": {"model_id": "openai/emb"}}',
    )
    assert suite.unavailable() is None
    assert suite.scorer().model_id() == "openai/gpt-4o-mini"
    assert load_suite(write(tmp_path, [])).unavailable() is None, "a local property needs no judge"
    monkeypatch.setenv("EVALSITE_BEHAVIOR_JUDGE", "not json")
    with pytest.raises(SuiteError, match="not JSON"):
        suite.unavailable()
