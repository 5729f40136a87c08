"""Test suites (Arthur Bench's workflow) stored in the database, and the Bench custom-scorer example."""

from __future__ import annotations

import warnings

import nltk
import pytest

from evalsite.sdk.suites import CONFIG_CHANGED, TestSuite, summarize_scores
from properties.models import PropertyValue, ScoringJob
from properties.scorers import registry
from properties.scorers.base import Scorer
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

INPUTS = ["Talk to me but don't repeat yourself too much", "Talk to me but don't repeat yourself too much"]
CANDIDATES = [
    "a great response with no repetition!",
    "a bad response that repeats response that repeats response that repeats response that repeats",
]


class TrigramRepetition(Scorer):
    # Bench's guide, tokenized by NLTK with the Punkt data installed with the project.
    def __init__(self, threshold: int = 5):
        self.threshold = threshold

    @staticmethod
    def name() -> str:
        return "trigram_repetition"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        scores = []
        for text in candidate_batch:
            counts: dict[tuple[str, ...], int] = {}
            for tri in nltk.trigrams([t.lower() for t in nltk.word_tokenize(text)]):
                counts[tri] = counts.get(tri, 0) + 1
            scores.append(float(max(counts.values()) < self.threshold))
        return scores


def test_run_scores_in_input_order_and_stores_a_run():
    owner = UserFactory()
    suite = TestSuite("trigrams", scoring_method=TrigramRepetition(threshold=3), input_text_list=INPUTS)
    run = suite.run("test_run", candidate_output_list=CANDIDATES, model_name="demo-model")
    assert run.scores == [1.0, 0.0]
    assert suite.project.members.get() == owner
    assert run.run.metadata == {"model_name": "demo-model"}
    assert list(run.run.interactions.values_list("output", flat=True)) == CANDIDATES
    values = PropertyValue.objects.filter(run=run.run, property_name="trigram_repetition").order_by("interaction")
    assert [value.value for value in values] == [1.0, 0.0]
    job = ScoringJob.objects.get(run=run.run)
    assert (job.status, job.total, job.done, job.failed) == ("done", 2, 2, 0)
    assert run.url == f"/runs/{run.run.pk}/"


def test_summary_has_the_mean_and_a_histogram():
    suite = TestSuite("summary", scoring_method=TrigramRepetition(threshold=3), input_text_list=INPUTS)
    summary = suite.run("r1", candidate_output_list=CANDIDATES).summary()["trigram_repetition"]
    assert summary["mean"] == 0.5
    assert [b["count"] for b in summary["histogram"]] == [1] + [0] * 8 + [1]
    assert suite.runs()["r1"]["trigram_repetition"]["mean"] == 0.5


def test_categorical_summary_counts_each_category():
    assert summarize_scores(["json", "other", "json", None], categorical=True) == {
        "count": 3,
        "errors": 1,
        "categories": {"json": 2, "other": 1},
    }


def test_a_suite_is_loaded_by_name_and_a_changed_configuration_warns():
    TestSuite("reload", scoring_method=TrigramRepetition(threshold=3), input_text_list=INPUTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TestSuite("reload", scoring_method=TrigramRepetition(threshold=3))
    with pytest.warns(UserWarning, match=CONFIG_CHANGED.replace(".", r"\.")):
        TestSuite("reload", scoring_method=TrigramRepetition(threshold=7))


def test_another_scorer_name_is_an_error():
    TestSuite("names", scoring_method=TrigramRepetition(), input_text_list=INPUTS)
    with pytest.raises(ValueError, match="created with scoring method trigram_repetition, not word_count"):
        TestSuite("names", scoring_method="word_count")


def test_registered_names_and_lists_and_reference_csv(tmp_path):
    path = tmp_path / "suite.csv"
    path.write_text('question,answer\n"What is 2+2?",4\n"Capital of France?",Paris\n')
    suite = TestSuite(
        "csv suite",
        scoring_method=["word_count", "char_count"],
        reference_data_path=path,
        input_column="question",
        reference_column="answer",
    )
    run = suite.run("v1", candidate_output_list=["four", "It is Paris"])
    assert run.scores == {"word_count": [1.0, 3.0], "char_count": [4.0, 11.0]}
    assert list(run.run.interactions.values_list("expected_output", flat=True)) == ["4", "Paris"]
    # Loaded later without the scorers: rebuilt from the registry.
    assert TestSuite("csv suite").run("v2", candidate_output_list=["a", "b c"]).scores["word_count"] == [1.0, 2.0]


def test_candidates_must_match_the_inputs():
    suite = TestSuite("count", scoring_method="word_count", input_text_list=INPUTS)
    with pytest.raises(ValueError, match="1 candidate outputs for the suite's 2 inputs"):
        suite.run("r", candidate_output_list=["only one"])
    suite.run("r", candidate_output_list=["a", "b"])
    with pytest.raises(ValueError, match="already has a run named 'r'"):
        suite.run("r", candidate_output_list=["a", "b"])
    assert suite.run("r", candidate_output_list=["a b", "c"], replace_existing=True).scores == [2.0, 1.0]


def test_a_scorer_needing_references_refuses_a_suite_without_them():
    class NeedsReference(TrigramRepetition):
        @staticmethod
        def name() -> str:
            return "needs_reference"

        @staticmethod
        def requires_reference() -> bool:
            return True

    with pytest.raises(ValueError, match="requires reference outputs"):
        TestSuite("refs", scoring_method=NeedsReference(), input_text_list=INPUTS)


def test_a_custom_scorer_registered_is_a_dashboard_property():
    with registry.temporarily(TrigramRepetition):
        assert "trigram_repetition" in registry.all_scorers()
        suite = TestSuite("dash", scoring_method="trigram_repetition", input_text_list=INPUTS)
        assert suite.project.enabled_properties == ["trigram_repetition"]
        assert suite.project.property_config == {"trigram_repetition": {"threshold": 5}}
