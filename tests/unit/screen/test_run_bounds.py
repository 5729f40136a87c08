"""A run's interactions bounded by their first and last id: the same rows, whatever lies between."""

import pytest

from properties.models import Interaction
from tests.factories import InteractionFactory, RunFactory


@pytest.mark.django_db
def test_of_run_gives_exactly_the_runs_interactions_when_other_runs_rows_lie_before_between_and_after() -> None:
    run, other = RunFactory(), RunFactory()
    InteractionFactory(run=other)
    mine = [InteractionFactory(run=run).pk]
    InteractionFactory(run=other)
    mine.append(InteractionFactory(run=run).pk)
    InteractionFactory(run=other)
    mine.append(InteractionFactory(run=run).pk)
    InteractionFactory(run=other)

    bounded = Interaction.objects.of_run(run.pk)

    assert list(bounded.order_by("pk").values_list("pk", flat=True)) == mine
    assert list(bounded.order_by("-pk").values_list("pk", flat=True)[:1]) == [mine[-1]]


@pytest.mark.django_db
def test_of_run_of_an_empty_run_is_empty() -> None:
    assert not Interaction.objects.of_run(RunFactory().pk).exists()
