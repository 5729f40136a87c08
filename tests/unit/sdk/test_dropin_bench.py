"""Arthur Bench users change one import line: `from evalsite import Scorer, TestSuite`.

The scorer below is written as a Bench user writes one: NLTK's own tokenizer, whose Punkt data is
installed with the project (evalsite/nltk_data.py), and NLTK's trigrams.
"""

from __future__ import annotations

import io
import warnings
from typing import List, Optional  # noqa: UP035  (Bench's signatures, as its users write them)

import nltk
import pytest
from nltk import trigrams
from nltk.downloader import Downloader
from nltk.tokenize.punkt import load_punkt_params

from evalsite import Scorer, TestSuite
from evalsite.nltk_data import default_data_dir, install_punkt, shipped_punkt
from evalsite.sdk.suites import CONFIG_CHANGED
from properties.models import PropertyValue, Run

pytestmark = pytest.mark.django_db

INPUTS = ["Talk to me but don't repeat yourself too much"] * 2
CANDIDATES = [
    "a great response with no repetition!",
    "a bad response that repeats response that repeats response that repeats response that repeats",
]


class TrigramRepetition(Scorer):
    """1.0 when no trigram of the candidate repeats `threshold` times or more."""

    def __init__(self, threshold: int = 3):
        self.threshold = threshold

    @staticmethod
    def name() -> str:
        return "trigram_repetition"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(
        self,
        candidate_batch: List[str],  # noqa: UP006
        reference_batch: Optional[List[str]] = None,  # noqa: UP006, UP045
        input_text_batch: Optional[List[str]] = None,  # noqa: UP006, UP045
        context_batch: Optional[List[str]] = None,  # noqa: UP006, UP045
    ) -> List[float]:  # noqa: UP006
        scores = []
        for text in candidate_batch:
            counts: dict[tuple[str, ...], int] = {}
            for trigram in trigrams([token.lower() for token in nltk.word_tokenize(text)]):
                counts[trigram] = counts.get(trigram, 0) + 1
            scores.append(float(max(counts.values()) < self.threshold))
        return scores


class ExplodesOn(Scorer):
    """Raises on the candidate `bad`, as a user's buggy scorer would."""

    def __init__(self, bad: str = "boom"):
        self.bad = bad

    @staticmethod
    def name() -> str:
        return "explodes_on"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        if self.bad in candidate_batch:
            raise ZeroDivisionError(f"cannot score {self.bad!r}")
        return [float(len(text)) for text in candidate_batch]


def test_nltk_tokenizes_offline_with_the_installed_punkt_data():
    tokens = nltk.word_tokenize("Don't repeat yourself, Dr. Smith.")
    assert tokens == ["Do", "n't", "repeat", "yourself", ",", "Dr.", "Smith", "."]
    assert nltk.sent_tokenize("Mr. Brown left at 5 p.m. today. She stayed.") == [
        "Mr. Brown left at 5 p.m. today.",
        "She stayed.",
    ]
    # Code written for the old pickled `punkt` resource is answered from punkt_tab.
    assert nltk.data.load("tokenizers/punkt/english.pickle").tokenize("One. Two.") == ["One.", "Two."]


def test_the_punkt_data_is_installed_in_a_folder_nltk_searches_by_default(tmp_path):
    assert str(default_data_dir()) in nltk.data.path
    installed = install_punkt(tmp_path)
    assert installed == tmp_path / "tokenizers" / "punkt_tab"
    # NLTK itself reads only folders no other user can write (not under /tmp): compare the files.
    english = sorted(path.name for path in (installed / "english").iterdir())
    assert english == ["abbrev_types.txt", "collocations.tab", "ortho_context.tab", "sent_starters.txt"]
    for name in english:
        assert (installed / "english" / name).read_bytes() == (shipped_punkt() / "english" / name).read_bytes()
    assert "dr" in load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/")).abbrev_types
    install_punkt(tmp_path)  # again: replaced in place, nothing left beside it
    assert sorted(path.name for path in installed.parent.iterdir()) == ["punkt_tab"]


def test_a_failed_nltk_download_returns_false_and_the_script_goes_on():
    # An index server that cannot be reached stands for a machine without internet. NLTK prints
    # the error to stderr by default; the stream is named here to read it back.
    unreachable = Downloader(server_index_url="http://127.0.0.1:9/index.xml")
    errors = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NLTK's own warning about the download folder
        assert unreachable.download("punkt", print_error_to=errors) is False
    assert "Error loading punkt" in errors.getvalue()
    assert TrigramRepetition().run_batch(CANDIDATES) == [1.0, 0.0]


def test_benchs_trigram_example_scores_one_and_zero():
    suite = TestSuite("custom_trigram_suite", scoring_method=TrigramRepetition(), input_text_list=INPUTS)
    run = suite.run("test_run", candidate_output_list=CANDIDATES)
    assert run.scores == [1.0, 0.0]
    assert run.failed == 0


def test_a_changed_configuration_warns_with_benchs_message():
    TestSuite("trigram reload", scoring_method=TrigramRepetition(), input_text_list=INPUTS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TestSuite("trigram reload", scoring_method=TrigramRepetition(threshold=7))
    assert [str(warning.message) for warning in caught] == [CONFIG_CHANGED]
    assert CONFIG_CHANGED == "scoring method configuration has changed from test suite creation."


def test_to_dict_and_from_dict_round_trip_the_configuration():
    scorer = TrigramRepetition(threshold=5)
    assert scorer.to_dict() == {"threshold": 5}
    again = TrigramRepetition.from_dict(scorer.to_dict())
    assert isinstance(again, TrigramRepetition) and again.threshold == 5
    assert again.run_batch(CANDIDATES) == [1.0, 1.0]  # the worst trigram repeats 4 times, under 5


def test_a_scorer_that_raises_makes_the_run_raise_and_stores_nothing():
    suite = TestSuite("raising", scoring_method=ExplodesOn(), input_text_list=INPUTS)
    with pytest.raises(ZeroDivisionError, match="cannot score 'boom'"):
        suite.run("v1", candidate_output_list=["fine", "boom"])
    assert not Run.objects.filter(project=suite.project).exists()
    # The name is free again once the outputs (or the scorer) are fixed.
    assert suite.run("v1", candidate_output_list=["fine", "also fine"]).scores == [4.0, 9.0]


def test_continue_on_error_records_each_failure_and_says_how_many():
    suite = TestSuite("keep going", scoring_method=ExplodesOn(), input_text_list=INPUTS * 2)
    with pytest.warns(UserWarning, match=r"explodes_on: 2 of 4 items failed \(first: ZeroDivisionError"):
        run = suite.run("v1", candidate_output_list=["ok", "boom", "fine", "boom"], continue_on_error=True)
    assert run.scores == [2.0, None, 4.0, None]
    assert run.failed == 2
    error = "ZeroDivisionError: cannot score 'boom'"
    assert run.errors["explodes_on"] == [None, error, None, error]
    stored = PropertyValue.objects.filter(run=run.run, property_name="explodes_on").order_by("interaction")
    assert [value.status for value in stored] == ["ok", "error", "ok", "error"]
    assert run.summary()["explodes_on"]["errors"] == 2
