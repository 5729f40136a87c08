from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from properties.models import PropertyValue
from properties.screen import datascreen, filters, rows
from tests.factories import InteractionFactory, RunFactory, UserFactory


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


def test_a_filter_with_an_error_shows_no_rows_and_keeps_its_text(run):
    """Older links repeat `where=`: a bad one is not dropped silently, leaving a wider view."""
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>lots&where=toxicity.output>0.5"))
    assert query.error == query.problems[0] == "column 18: > needs a number, not lots"
    assert query.where == "(toxicity.output>lots) AND (toxicity.output>0.5)"
    assert ids(run, "where=toxicity.output>lots&where=toxicity.output>0.5") == []
    assert ids(run, "where=toxicity.output >") == []


def test_repeated_where_parameters_are_one_filter_joined_with_and(run):
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>0.5&where=annotation=good OR text~sql"))
    assert query.where == "toxicity.output > 0.5 AND (annotation = good OR text ~ sql)"
    assert ids(run, query.params()) == ["a"]


def test_and_or_not_and_parentheses(run):
    assert ids(run, "where=toxicity.output > 0.5 OR content_type = sql") == ["a", "b", "c"]
    assert ids(run, "where=toxicity.output > 0.5 AND NOT content_type = json") == ["a"]
    # NOT keeps the interactions that have no value at all, unlike !=.
    assert ids(run, "where=NOT toxicity.output > 0.5") == ["b", "d"]
    assert ids(run, "where=toxicity.output <= 0.5") == ["b"]
    assert ids(run, "where=(toxicity.output > 0.5 OR content_type = sql) AND annotation != good") == ["b", "c"]
    assert ids(run, "where=toxicity.output > 0.1 AND content_type = sql OR annotation = good") == ["a", "b"]
    assert ids(run, "where=toxicity.output > 0.1 AND (content_type = sql OR annotation = good)") == ["a", "b"]
    assert ids(run, "where=NOT (toxicity.output > 0.1 OR annotation = unknown)") == []


def test_text_annotation_and_metadata_in_the_filter(run):
    assert ids(run, 'where=text ~ "PLEASE"') == ["b", "c"]
    assert ids(run, "where=output ~ please") == []
    assert ids(run, "where=input ~ refund OR output ~ select") == ["a", "b"]
    assert ids(run, "where=annotation = unknown") == ["c", "d"]
    first, second = run.interactions.order_by("pk")[:2]
    first.metadata = {"model": "gpt-4o", "tokens": 120}
    first.save()
    second.metadata = {"model": "gpt-4o-mini", "tokens": 80}
    second.save()
    assert ids(run, 'where=metadata.model = "gpt-4o"') == ["a"]
    assert ids(run, "where=metadata.model != gpt-4o") == ["b"]
    assert ids(run, "where=metadata.tokens > 100 OR metadata.tokens < 50") == ["a"]
    assert ids(run, "where=metadata.tokens >= 80 AND toxicity.output < 0.5") == ["b"]


def test_status_conditions_combine_with_or(run):
    run.project.pass_criteria = {"toxicity": {"direction": "lower", "threshold": 0.5}}
    run.project.save()
    assert ids(run, "where=failing:toxicity.output") == ["a", "c"]
    assert ids(run, "where=passing:toxicity.output OR annotation = good") == ["a", "b"]
    assert ids(run, "where=NOT failing:toxicity.output") == ["b", "d"]


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


def test_a_filtered_page_sorted_by_another_property_is_a_slice_of_the_whole_order(db):
    """The page, the count and the order are those of the whole list, whatever the page size;
    matches without a value for the sort come last."""
    run = RunFactory()
    for number in range(40):
        interaction = InteractionFactory(run=run, user_interaction_id=f"r{number:02d}")
        add_value(interaction, "toxicity", value=0.9 if number % 3 else 0.1)  # a match unless number % 3 == 0
        if number < 34:
            add_value(interaction, "fluency", value=number / 100)
    query = datascreen.ScreenQuery.from_params(QueryDict("where=toxicity.output>0.5&sort=-fluency.output"))
    expected = [f"r{n:02d}" for n in range(33, -1, -1) if n % 3] + [f"r{n:02d}" for n in range(34, 40) if n % 3]

    for page_size in (5, 7, 100):
        pages = datascreen.Paginator(datascreen.filtered_interactions(run, query), page_size)
        assert pages.count == len(expected)
        seen = [i.user_interaction_id for number in pages.page_range for i in pages.page(number)]
        assert seen == expected
    assert [i.user_interaction_id for i in datascreen.filtered_interactions(run, query)] == expected


def test_a_view_refuses_more_than_max_conditions_and_says_so(run):
    from properties.screen.datascreen import ScreenQuery
    from properties.screen.filters import MAX_CONDITIONS

    params = QueryDict(mutable=True)
    params.setlist("where", ["toxicity.output>0.5"] * (MAX_CONDITIONS + 10))
    query = ScreenQuery.from_params(params)
    assert query.expression is None and f"at most {MAX_CONDITIONS}" in query.error


# --- property-based: the query of any filter keeps exactly what the filter says ------------------

ROWS = {  # user_interaction_id: (toxicity, content_type, annotation, metadata)
    "a": (0.9, "other", "good", {"model": "gpt-4o", "tokens": 120}),
    "b": (0.2, "sql", "bad", {"model": "gpt-4o-mini", "tokens": 80}),
    "c": (0.6, "json", "unknown", {}),
    "d": (None, None, "unknown", {"tokens": 5}),
}
LEAVES = [
    "toxicity.output > 0.5",
    "toxicity.output <= 0.2",
    "toxicity.output != 0.6",
    "content_type = sql",
    "content_type != json",
    "failing:toxicity.output",
    "passing:toxicity.output",
    "na:toxicity.output",
    "annotation = unknown",
    "annotation != good",
    'text ~ "please"',
    "output ~ select",
    "metadata.model = gpt-4o",
    "metadata.tokens >= 80",
    "metadata.tokens != 5",
]


def holds(leaf: str, uid: str, row_input: str, row_output: str) -> bool:
    """What each leaf means, written out by hand for the rows above."""
    toxicity, kind, annotation, metadata = ROWS[uid]
    return {
        "toxicity.output > 0.5": toxicity is not None and toxicity > 0.5,
        "toxicity.output <= 0.2": toxicity is not None and toxicity <= 0.2,
        "toxicity.output != 0.6": toxicity is not None and toxicity != 0.6,
        "content_type = sql": kind == "sql",
        "content_type != json": kind is not None and kind != "json",
        "failing:toxicity.output": toxicity is not None and toxicity >= 0.5,
        "passing:toxicity.output": toxicity is not None and toxicity < 0.5,
        "na:toxicity.output": False,
        "annotation = unknown": annotation == "unknown",
        "annotation != good": annotation != "good",
        'text ~ "please"': "please" in (row_input + "\n" + row_output).lower(),
        "output ~ select": "select" in row_output.lower(),
        "metadata.model = gpt-4o": metadata.get("model") == "gpt-4o",
        "metadata.tokens >= 80": metadata.get("tokens", -1) >= 80,
        "metadata.tokens != 5": "tokens" in metadata and metadata["tokens"] != 5,
    }[leaf]


filter_texts = st.recursive(
    st.sampled_from(LEAVES),
    lambda children: st.one_of(
        st.tuples(children, st.sampled_from(["AND", "OR"]), children).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
        children.map(lambda text: f"NOT ({text})"),
    ),
    max_leaves=6,
)


@pytest.fixture
def described_run(run):
    run.project.pass_criteria = {"toxicity": {"direction": "lower", "threshold": 0.5}}
    run.project.save()
    for interaction in run.interactions.all():
        interaction.metadata = ROWS[interaction.user_interaction_id][3]
        interaction.save()
    return run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=filter_texts)
def test_any_filter_keeps_what_it_says(described_run, text):
    """Through the Data Screen's fast paths (id sets) and the general query (one Q, as PostgreSQL
    and annotation rules use it), every filter keeps the rows its meaning keeps."""
    tree = filters.parse(text)
    interactions = {i.user_interaction_id: i for i in described_run.interactions.all()}

    def meaning(node, uid):
        if isinstance(node, filters.And):
            return all(meaning(item, uid) for item in node.items)
        if isinstance(node, filters.Or):
            return any(meaning(item, uid) for item in node.items)
        if isinstance(node, filters.Not):
            return not meaning(node.item, uid)
        leaf = next(leaf for leaf in LEAVES if filters.parse(leaf) == node)
        return holds(leaf, uid, interactions[uid].input, interactions[uid].output)

    expected = sorted(uid for uid in ROWS if meaning(tree, uid))
    assert sorted(ids(described_run, urlencode({"where": text}))) == expected
    everything = described_run.interactions.all()
    pks = datascreen.matching_ids(described_run, tree, [i.pk for i in everything])
    assert sorted(i.user_interaction_id for i in everything if i.pk in pks) == expected


def test_a_filtered_count_stops_past_the_cap_and_the_whole_run_is_counted(db, monkeypatch, client):
    """Past COUNT_CAP matches (or the page asked for) the screen says "more than"; each page still
    holds the rows of the whole order, and the whole run is counted exactly."""
    run = RunFactory()
    for number in range(12):
        add_value(InteractionFactory(run=run, user_interaction_id=f"r{number:02d}"), "toxicity", value=number / 10)
    monkeypatch.setattr(rows, "COUNT_CAP", 4)
    monkeypatch.setattr(datascreen, "PAGE_SIZE", 2)

    def page(query_string, number=None):
        query = datascreen.ScreenQuery.from_params(QueryDict(query_string))
        return datascreen.page_of(datascreen.filtered_interactions(run, query), number)

    first = page("where=toxicity.output>=0.1")  # 11 matches
    assert (first.paginator.count, first.paginator.object_list.capped, first.has_next()) == (5, True, True)
    fifth = page("where=toxicity.output>=0.1&sort=-toxicity.output", 5)  # counts on to page 6
    assert (fifth.paginator.object_list.cap, fifth.paginator.object_list.capped) == (12, False)
    assert [i.user_interaction_id for i in fifth] == ["r03", "r02"]
    assert page("").paginator.count == 12 and not page("").paginator.object_list.capped

    user = UserFactory()
    run.project.add_member(user, "owner")
    client.force_login(user)
    html = client.get(f"/runs/{run.pk}/", {"where": "toxicity.output>=0.1"}).content.decode()
    assert "More than 4 interactions" in html and "page 1 of more than 2" in html


def windowed_run(monkeypatch):
    """A run of 20 interactions with toxicity 0, 0.05, ... 0.95 in id order, another run's rows
    between them, and a count cap of 4."""
    run, other = RunFactory(), RunFactory()
    for number in range(20):
        add_value(InteractionFactory(run=run, user_interaction_id=f"r{number:02d}"), "toxicity", value=number / 20)
        if number % 3 == 0:
            add_value(InteractionFactory(run=other), "toxicity", value=0.5)
    monkeypatch.setattr(rows, "COUNT_CAP", 4)
    return run


@pytest.mark.parametrize(
    ("where", "count", "capped"),
    [
        ("toxicity.output>=0.2", 5, True),  # more than the cap in the first window
        ("toxicity.output>=0.85", 3, False),  # matches past the window only: counted in the whole run
        ("toxicity.output>=0.75 OR toxicity.output<0.05", 5, True),  # two in the window, more after
        ("toxicity.output>2", 0, False),
    ],
)
def test_a_filtered_count_in_its_first_window_then_in_the_whole_run_is_exact_up_to_the_cap(
    db, monkeypatch, where, count, capped
):
    """The count's first window (COUNT_WINDOW ids from the run's first) and the whole run after it
    give the same count as one count of the whole run, with another run's rows between the run's."""
    run = windowed_run(monkeypatch)
    monkeypatch.setattr(rows, "COUNT_WINDOW", 8)

    with rows.page_reads():
        view = datascreen.filtered_interactions(
            run, datascreen.ScreenQuery.from_params(QueryDict(urlencode({"where": where})))
        )
        assert (view.count(), view.capped) == (count, capped)


def test_a_filtered_page_in_id_order_is_read_among_the_ids_its_count_probed(db, monkeypatch):
    """Where the count found more than its cap in the first window, a page within the cap is read
    there (on PostgreSQL; SQLite counts the whole run): the same rows as the whole run's first."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    run = windowed_run(monkeypatch)
    monkeypatch.setattr(rows, "COUNT_WINDOW", 16)
    matching = [f"r{number:02d}" for number in range(4, 20)]
    query = datascreen.ScreenQuery.from_params(QueryDict(urlencode({"where": "toxicity.output>=0.2"})))
    with rows.page_reads():
        view = datascreen.filtered_interactions(run, query)
        assert view.in_pk_order and view.capped
        with CaptureQueriesContext(connection) as queries:
            first, second = view[0:2], view[2:4]
        past_the_cap = view[4:6]
    assert [i.user_interaction_id for i in first + second + past_the_cap] == matching[:6]
    window_end = run.interactions.order_by("pk").first().pk + 16
    bounded = [q["sql"] for q in queries.captured_queries if f'"id" < {window_end}' in q["sql"]]
    assert len(bounded) == (2 if connection.vendor == "postgresql" else 0)


def test_page_reads_set_postgresqls_settings_for_the_page_only(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the settings are PostgreSQL's; SQLite reads pages as it is")

    def current():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('work_mem'), current_setting('random_page_cost'), "
                "current_setting('enable_mergejoin')"
            )
            return cursor.fetchone()

    before = current()
    with rows.page_reads():  # inside the test's transaction: the values are put back after
        names = ("work_mem", "random_page_cost", "enable_mergejoin")
        assert current() == tuple(rows.PAGE_SETTINGS[name] for name in names)
    assert current() == before


def test_an_exports_addresses_are_every_property_and_field_with_a_value_in_the_run(db):
    # Read by skipping through the run's index, one probe a pair: the same set a DISTINCT gives.
    run, other = RunFactory(project__enabled_properties=[]), RunFactory()
    first, second = InteractionFactory(run=run), InteractionFactory(run=run)
    for interaction, prop, field in [
        (first, "toxicity", "output"),
        (second, "toxicity", "output"),
        (first, "toxicity", "input"),
        (second, "coverage", "interaction"),
        (first, "zeta_custom", "output"),
        (InteractionFactory(run=other), "only_elsewhere", "output"),
    ]:
        add_value(interaction, prop, field, value=0.5)
    distinct = {
        prop if field == "interaction" else f"{prop}.{field}"
        for prop, field in PropertyValue.objects.filter(run=run).values_list("property_name", "field").distinct()
    }
    addresses = datascreen.property_addresses(run, exhaustive=True)
    assert distinct == {"coverage", "toxicity.input", "toxicity.output", "zeta_custom.output"}
    assert addresses == sorted(distinct)


@pytest.mark.parametrize("head", [(1_000, 20), (4, 2)], ids=["head holds the page", "small head"])
def test_a_filtered_view_in_a_propertys_order_pages_the_same_whichever_way_it_is_read(db, monkeypatch, head):
    # The first values in order are read and filtered by id when they hold the page; a rarer filter
    # falls back to the database's own walk. Both give the exact order, page by page.
    monkeypatch.setattr(rows, "HEAD_MIN", head[0])
    monkeypatch.setattr(rows, "HEAD_PER_MATCH", head[1])

    def toxicity(n):
        return None if n % 10 == 9 else ((n * 7) % 40) / 40

    run = RunFactory()
    for number in range(40):
        interaction = InteractionFactory(run=run, user_interaction_id=f"i{number:02d}")
        if toxicity(number) is not None:  # every tenth has none: those come last, by id
            add_value(interaction, "toxicity", value=toxicity(number))
        add_value(interaction, "coverage", value=0.9 if number % 3 else 0.1)
    for where, matches in [
        ("coverage.output > 0.5", lambda n: n % 3 != 0),  # two in three: the head holds the page
        (
            "coverage.output < 0.5 AND toxicity.output < 0.1",
            lambda n: n % 3 == 0 and toxicity(n) is not None and toxicity(n) < 0.1,
        ),
    ]:
        query = datascreen.ScreenQuery.from_params(QueryDict(urlencode({"where": where, "sort": "-toxicity.output"})))
        wanted = [n for n in range(40) if matches(n)]
        valued = sorted((n for n in wanted if toxicity(n) is not None), key=lambda n: -toxicity(n))
        expected = [f"i{n:02d}" for n in valued + [n for n in wanted if toxicity(n) is None]]
        assert len(expected) == (26 if ">" in where else 2)
        view = datascreen.filtered_interactions(run, query)
        paged = [i.user_interaction_id for start in range(0, 40, 5) for i in view[start : start + 5]]
        assert paged == expected, where
