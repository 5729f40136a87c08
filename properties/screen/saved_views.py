"""Saved views: a project's named Data Screen views (filter, columns, sort), checked when they are
saved, and the view a run's screen shows now. Applying one to a run is a plain URL (`?view=<id>`),
which the page turns into the Data Screen's own parameters (SavedView.query_string)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import IntegrityError, transaction

from properties.models import Project, Run, SavedView
from properties.screen import datascreen, filters
from properties.screen.datascreen import ScreenQuery

SEARCH_IN = ("both", "input", "output")
# The error code of a name the project already has (the API answers it with a 409).
NAME_TAKEN = "taken"


class SavedViewForm(forms.Form):
    """The fields a view saves, named as the model names them; the page posts its current query, the
    API a JSON body. Every problem names its field."""

    name = forms.CharField(max_length=100, label="Name")
    where = forms.CharField(required=False, label="Filter")
    annotation = forms.ChoiceField(required=False, choices=[("", "any"), *((a, a) for a in filters.ANNOTATIONS)])
    source = forms.ChoiceField(
        required=False, choices=[("", "anyone"), ("person", "person"), ("estimated", "estimated")]
    )
    search = forms.CharField(required=False, max_length=500)
    search_in = forms.ChoiceField(required=False, choices=[(value, value) for value in SEARCH_IN], label="Search in")
    errors_only = forms.BooleanField(required=False, label="Errors only")
    columns = forms.MultipleChoiceField(
        required=False, error_messages={"invalid_choice": "%(value)s is not a property of this project"}
    )
    sort = forms.CharField(required=False, max_length=200)

    def __init__(self, project: Project, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.addresses = datascreen.project_addresses(project)
        self.fields["columns"].choices = [(address, address) for address in self.addresses]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if self.project.saved_views.filter(name=name).exists():
            raise forms.ValidationError(f"the project already has a view named {name}", code=NAME_TAKEN)
        return name

    def clean_where(self) -> str:
        """The filter as the Data Screen parses it: its error names the column where it goes wrong."""
        text = self.cleaned_data["where"]
        if text:
            try:
                filters.parse(text)
            except filters.FilterError as exc:
                raise forms.ValidationError(str(exc)) from None
        return text

    def clean_search_in(self) -> str:
        return self.cleaned_data["search_in"] or "both"

    def clean_columns(self) -> list[str]:
        return list(dict.fromkeys(self.cleaned_data["columns"]))

    def clean_sort(self) -> str:
        sort = self.cleaned_data["sort"]
        key = sort.removeprefix("-")
        if key and key not in datascreen.SORTABLE_COLUMNS and key not in self.addresses:
            columns = ", ".join(datascreen.SORTABLE_COLUMNS)
            raise forms.ValidationError(
                f"{sort} is not a column of this project: sort by {columns} or one of its properties "
                "(like toxicity.output), with - before it for descending"
            )
        return sort

    def problems(self, by_name: bool = False) -> str:
        """Every error in one line, each after its field's label (or its name, for the API)."""
        return "; ".join(
            f"{field if by_name else self.fields[field].label or field.replace('_', ' ').capitalize()}: {error}"
            for field, errors in self.errors.items()
            for error in errors
        )

    def save(self, user) -> SavedView | None:
        """The new view; None when another request took the name meanwhile (the form then says so)."""
        try:
            with transaction.atomic():
                return SavedView.objects.create(project=self.project, created_by=user, **self.cleaned_data)
        except IntegrityError:
            taken = forms.ValidationError(
                f"the project already has a view named {self.cleaned_data['name']}", NAME_TAKEN
            )
            self.add_error("name", taken)
            return None


def form_data(params) -> dict:
    """The Data Screen's URL parameters (or the page's save form) as the form's fields."""
    return {
        "name": params.get("name", ""),
        "where": params.get("where", ""),
        "annotation": params.get("annotation", ""),
        "source": params.get("source", ""),
        "search": params.get("q", ""),
        "search_in": params.get("in", ""),
        "errors_only": params.get("errors") == "1",
        "columns": params.getlist("col"),
        "sort": params.get("sort", ""),
    }


def screen_views(run: Run, user, context: dict[str, Any]) -> dict[str, Any]:
    """The saved views the Data Screen lists for a run (screen_context's `context`), which one it
    shows now, and which of them the user may delete (their own; every one for a project owner)."""
    views = list(run.project.saved_views.select_related("created_by"))
    owner = run.project.is_owner(user)
    for view in views:
        view.deletable = view.deletable_by(user, owner)
    shown = shown_view(views, context["query"], context["columns"], context["addresses"], context["key_columns"])
    return {"saved_views": views, "shown_view": shown}


def shown_view(
    views: list[SavedView], query: ScreenQuery, columns: list[str], addresses: list[str], key_columns: list[str]
) -> SavedView | None:
    """The saved view the screen shows now, if any: the same filter, search and sort, and the same
    columns (those of the view the run has; none: the key properties, as the page shows them), in
    whatever order: the screen shows columns in its one order (`property_names`)."""
    for view in views:
        same_query = (view.where, view.annotation, view.source, view.search, view.errors_only, view.sort) == (
            query.where,
            query.annotation,
            query.source,
            query.search,
            query.errors_only,
            query.sort,
        )
        same_search_in = not view.search or view.search_in == query.search_in
        own_columns = [column for column in view.columns if column in addresses]
        if same_query and same_search_in and set(own_columns or key_columns) == set(columns):
            return view
    return None
