"""A models worker's pool process loads the projects' models as it starts (model_loading)."""

import threading

import pytest

from properties.pipeline import model_loading
from properties.scorers import registry
from properties.scorers.base import Scorer
from tests.factories import ProjectFactory

scored: list[tuple[str, str, str]] = []


class RecordsOnModels(Scorer):
    """Records what it is asked to score, on the models queue."""

    fields = ("input", "output")
    queue = "models"

    def __init__(self, note: str = "") -> None:
        self.note = note

    @staticmethod
    def name() -> str:
        return "records_on_models"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        scored.extend((self.note, self.current_field, text) for text in candidate_batch)
        return [1.0] * len(candidate_batch)


@pytest.fixture
def recording():
    scored.clear()
    with registry.temporarily(RecordsOnModels):
        yield scored


@pytest.mark.django_db
def test_each_model_property_a_project_enables_is_scored_once_per_configuration(recording):
    ProjectFactory(enabled_properties=["word_count", "records_on_models", "no_such_property"])
    ProjectFactory(enabled_properties=["records_on_models"])
    ProjectFactory(enabled_properties=["records_on_models"], property_config={"records_on_models": {"note": "b"}})
    assert model_loading.load_enabled_models() == ["records_on_models", "records_on_models"]
    question, answer = model_loading.MADE_UP["input"], model_loading.MADE_UP["output"]
    assert recording == [
        ("", "input", question),
        ("", "output", answer),
        ("b", "input", question),
        ("b", "output", answer),
    ]


@pytest.mark.django_db
def test_nothing_is_loaded_without_a_project():
    assert model_loading.load_enabled_models() == []


@pytest.mark.parametrize(
    ("consumed", "setting", "loads"),
    [({"models": None}, True, True), ({"cpu": None, "llm": None}, True, False), ({"models": None}, False, False)],
)
def test_only_a_models_worker_loads_and_its_tasks_wait_for_the_loading(consumed, setting, loads, settings, monkeypatch):
    monkeypatch.setattr(model_loading, "_load_in_pool", False)  # restored after the test
    release = threading.Event()
    monkeypatch.setattr(model_loading, "load_enabled_models", lambda: release.wait(5) and [])
    settings.EVALSITE_WORKER_LOAD_MODELS = setting
    model_loading.plan_loading(consumed)
    model_loading.start_loading()
    assert model_loading._loaded.is_set() is not loads
    release.set()
    model_loading.wait_until_loaded()
    assert model_loading._loaded.is_set()
