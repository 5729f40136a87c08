import pytest
from django.http import QueryDict

from properties.models import PropertyValue
from properties.screen import datascreen
from tests.factories import InteractionFactory, RunFactory


def add_value(interaction, prop, field="output", value=None, label="", status="ok"):
    return PropertyValue.objects.create(
        interaction=interaction,
        run=interaction.run,
        property_name=prop,
        field=field,
        value=value,
        label=label,
        status=status,
        error="it broke" if status == "error" else "",
        scorer_version="1:x",
    )


@pytest.fixture
def run(db):
    run = RunFactory()
    rows = [
        ("a", "refund policy?", "30 days", 0.9, "other", "good"),
        ("b", "sql please", "SELECT 1", 0.2, "sql", "bad"),
        ("c", "json please", '{"a": 1}', 0.6, "json", "unknown"),
        ("d", "nothing", "no values", None, None, "unknown"),
    ]
    for uid, question, answer, toxicity, kind, annotation in rows:
        interaction = InteractionFactory(run=run, user_interaction_id=uid, input=question, output=answer)
        interaction.annotation = annotation
        interaction.annotation_source = (
            "person" if annotation == "good" else ("estimated" if annotation == "bad" else "")
        )
        interaction.save()
        if toxicity is not None:
            add_value(interaction, "toxicity", value=toxicity)
            add_value(interaction, "content_type", label=kind)
    add_value(run.interactions.get(user_interaction_id="d"), "reading_ease", status="error")
    return run


def ids(run, query_string):
    query = datascreen.ScreenQuery.from_params(QueryDict(query_string))
    return [i.user_interaction_id for i in datascreen.filtered_interactions(run, query)]


def test_parse_condition():
    assert datascreen.parse_condition("toxicity.output>0.5") == datascreen.Condition("toxicity", "output", ">", 0.5)
    assert datascreen.parse_condition("compression_ratio <= 0.8").field == "interaction"
    assert datascreen.parse_condition("my_own_scorer <= 0.8").field == "interaction"
    assert datascreen.parse_condition("content_type.output=sql").value == "sql"
    # A property scored on one field needs no field name; one scored on several is refused, showing how.
    assert datascreen.parse_condition("content_type=sql") == datascreen.Condition("content_type", "output", "=", "sql")
    assert datascreen.parse_condition("grounded_in_context <= 0.8").field == "output"
    with pytest.raises(datascreen.FilterError, match="write toxicity.input or toxicity.output"):
        datascreen.parse_condition("toxicity>0.5")
    with pytest.raises(datascreen.FilterError, match="needs a number"):
        datascreen.parse_condition("toxicity.output>high")
    with pytest.raises(datascreen.FilterError, match="input, output or interaction"):
        datascreen.parse_condition("toxicity.reference>0.1")
    with pytest.raises(datascreen.FilterError, match="not a condition"):
        datascreen.parse_condition("toxicity")


def test_numeric_ranges_combine_with_and(run):
    assert ids(run, "where=toxicity.output>0.5") == ["a", "c"]
    assert ids(run, "where=toxicity.output>0.5&where=toxicity.output<0.8") == ["c"]
    assert ids(run, "where=toxicity.output<=0.2") == ["b"]
    assert ids(run, "where=toxicity.output!=0.2") == ["a", "c"]


def test_category_annotation_source_search_and_errors(run):
    assert ids(run, "where=content_type.output=sql") == ["b"]
    assert ids(run, "where=content_type.output!=sql") == ["a", "c"]
    assert ids(run, "annotation=unknown") == ["c", "d"]
    assert ids(run, "source=person") == ["a"]
    assert ids(run, "q=PLEASE&in=input") == ["b", "c"]
    assert ids(run, "q=please&in=output") == []
    assert ids(run, "errors=1") == ["d"]


def test_sorting_by_a_property_puts_missing_values_last(run):
    assert ids(run, "sort=toxicity.output") == ["b", "c", "a", "d"]
    assert ids(run, "sort=-toxicity.output") == ["a", "c", "b", "d"]
    assert ids(run, "sort=-id") == ["d", "c", "b", "a"]


def test_bad_conditions_are_reported_not_applied(run):
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>lots&where=toxicity.output>0.5"))
    assert len(query.problems) == 1 and "needs a number" in query.problems[0]
    assert [str(c) for c in query.conditions] == ["toxicity.output>0.5"]


def test_query_round_trips_through_the_url(run):
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>0.5&annotation=good&q=x&sort=-id"))
    again = datascreen.ScreenQuery.from_params(QueryDict(query.params()))
    assert again == query


def test_values_by_interaction_pivots_one_page(run, django_assert_num_queries):
    pks = list(run.interactions.values_list("pk", flat=True))
    with django_assert_num_queries(1):
        values = datascreen.values_by_interaction(pks)
    first = run.interactions.get(user_interaction_id="a").pk
    assert values[first]["toxicity.output"].value == 0.9
    assert values[first]["content_type.output"].label == "other"


def test_property_conditions_combine_with_every_other_filter_and_order(run):
    assert ids(run, "where=toxicity.output>0.1&annotation=bad") == ["b"]
    assert ids(run, "where=toxicity.output>0.1&sort=-id") == ["c", "b", "a"]
    assert ids(run, "where=toxicity.output>0.1&sort=annotation") == ["b", "a", "c"]
    assert ids(run, "where=toxicity.output>0.1&sort=-toxicity.output") == ["a", "c", "b"]
    assert ids(run, "where=toxicity.output>0.1&where=content_type.output=sql") == ["b"]
    assert ids(run, "where=toxicity.output>0.95&where=content_type.output=sql") == []
    assert ids(run, "where=toxicity.output>0.1&q=please") == ["b", "c"]


def test_a_filtered_page_sorted_by_another_property_reads_the_sorted_index_in_slices(db, monkeypatch):
    """The page, the count and the order are those of the whole list, however far the slices go;
    matches without a value for the sort come last."""
    run = RunFactory()
    for number in range(40):
        interaction = InteractionFactory(run=run, user_interaction_id=f"r{number:02d}")
        add_value(interaction, "toxicity", value=0.9 if number % 3 else 0.1)  # a match unless number % 3 == 0
        if number < 34:
            add_value(interaction, "fluency", value=number / 100)
    monkeypatch.setattr(datascreen.SortedMatches, "FIRST_SLICE", 2)
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>0.5&sort=-fluency.output"))
    expected = [f"r{n:02d}" for n in range(33, -1, -1) if n % 3] + [f"r{n:02d}" for n in range(34, 40) if n % 3]

    for page_size in (5, 7, 100):
        pages = datascreen.Paginator(datascreen.filtered_interactions(run, query), page_size)
        assert pages.count == len(expected)
        seen = [i.user_interaction_id for number in pages.page_range for i in pages.page(number)]
        assert seen == expected
    assert [i.user_interaction_id for i in datascreen.filtered_interactions(run, query)] == expected


def test_a_view_applies_at_most_max_conditions_and_says_so():
    from properties.screen.datascreen import MAX_CONDITIONS, ScreenQuery

    params = QueryDict(mutable=True)
    params.setlist("where", ["toxicity.output>0.5"] * (MAX_CONDITIONS + 10))
    query = ScreenQuery.from_params(params)
    assert len(query.conditions) == MAX_CONDITIONS
    assert query.problems == [
        f"{MAX_CONDITIONS + 10} conditions: at most {MAX_CONDITIONS} are applied; the others were dropped"
    ]
