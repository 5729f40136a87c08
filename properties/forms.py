from __future__ import annotations

import json

from django import forms

from properties.models import Annotation, Project, Run
from properties.rules import RulesError, parse_rules
from properties.scorers import registry
from properties.scorers.base import ScorerUnavailable

# Interaction fields a file column can be mapped to, in the order the mapping step shows them.
MAPPABLE_FIELDS = [
    "user_interaction_id",
    "input",
    "information_retrieval",
    "full_prompt",
    "history",
    "output",
    "expected_output",
    "annotation",
    "started_at",
    "finished_at",
]


class ProjectForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = ["name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class UploadForm(forms.Form):
    run_name = forms.CharField(max_length=200, help_text="A new run is created, or rows are added to this run.")
    environment = forms.ChoiceField(choices=Run.Environment.choices, initial=Run.Environment.EVALUATION)
    file = forms.FileField(help_text="CSV, JSONL, JSON (an array of objects) or Parquet.")


class ColumnMappingForm(forms.Form):
    """One choice per interaction field, offering the file's columns."""

    def __init__(self, *args, columns: list[str], suggested: dict[str, str | list[str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        single = [("", "(not in the file)")] + [(column, column) for column in columns]
        for field in MAPPABLE_FIELDS:
            initial = suggested.get(field)
            if field == "information_retrieval":
                self.fields[field] = forms.MultipleChoiceField(
                    choices=single[1:],
                    required=False,
                    initial=initial if isinstance(initial, list) else ([initial] if initial else []),
                    help_text="One column holding a JSON list or a single document, or several columns.",
                    widget=forms.SelectMultiple(attrs={"size": min(6, max(2, len(columns)))}),
                )
            else:
                self.fields[field] = forms.ChoiceField(choices=single, required=field == "output", initial=initial)

    def mapping(self) -> dict[str, str | list[str]]:
        return {field: value for field, value in self.cleaned_data.items() if value}


class PropertySettingsForm(forms.Form):
    """Which properties a project scores, and each one's configuration as JSON."""

    enabled = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, required=False)
    configuration = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "code"}),
        help_text='A JSON object by property name, e.g. {"invalid_links": {"timeout": 3}}.',
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["enabled"].choices = [
            (name, registry.display_name(cls)) for name, cls in registry.all_scorers().items()
        ]

    def clean_configuration(self) -> dict:
        text = self.cleaned_data["configuration"].strip() or "{}"
        try:
            config = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from None
        if not isinstance(config, dict) or not all(isinstance(v, dict) for v in config.values()):
            raise forms.ValidationError("write a JSON object mapping property names to objects of options")
        problems = []
        for name, options in config.items():
            try:
                registry.get(name).from_dict(options)
            except registry.RegistryError as exc:
                problems.append(str(exc))
            except (TypeError, ValueError, ScorerUnavailable) as exc:
                problems.append(f"{name}: {exc}")
        if problems:
            raise forms.ValidationError(problems)
        return config


class AnnotationForm(forms.Form):
    annotation = forms.ChoiceField(choices=Annotation.choices)
    reason = forms.CharField(required=False, widget=forms.TextInput(attrs={"placeholder": "Why? (optional)"}))


class RulesForm(forms.Form):
    rules = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "code"}))

    def clean_rules(self) -> str:
        text = self.cleaned_data["rules"]
        try:
            parse_rules(text)
        except RulesError as exc:
            raise forms.ValidationError(exc.problems) from None
        return text
