from __future__ import annotations

import json
import re

from django import forms
from django.utils import timezone

from properties import provider_keys
from properties.annotations import project_rules
from properties.annotations.rules import Block, RulesError
from properties.models import Project, ProjectKey, PromptProperty, Run, Upload
from properties.projects import project_config, project_templates
from properties.quality import criteria as criteria_defaults
from properties.quality import thresholds
from properties.scorers import registry
from properties.scorers.base import ScorerUnavailable
from properties.scorers.llm.prompt_property import check_output_type, check_template
from properties.scorers.net import policy

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
    template = forms.ChoiceField(
        choices=project_templates.choices,
        initial=project_templates.DEFAULT_TEMPLATE,
        required=False,
        widget=forms.RadioSelect,
        help_text="Which properties the project scores and shows first; you can change them later.",
    )

    class Meta:
        model = Project
        fields = ["name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def save(self, commit: bool = True) -> Project:
        project = super().save(commit=False)
        project_templates.apply(project, self.cleaned_data["template"] or project_templates.DEFAULT_TEMPLATE)
        if commit:
            project.save()
        return project


class UploadForm(forms.Form):
    run_name = forms.CharField(max_length=200, help_text="A new run is created, or rows are added to this run.")
    environment = forms.ChoiceField(choices=Run.Environment.choices, initial=Run.Environment.EVALUATION)
    file = forms.FileField(help_text="CSV, JSONL, JSON (an array of objects) or Parquet.")
    # Offered (as a checkbox) only once the same file was found in the run already.
    append_anyway = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def offer_append(self, earlier: Upload) -> None:
        """Refuse the file as a copy of `earlier`, and offer to add its rows again."""
        self.add_error(
            "file",
            f"This file is the same as {earlier.original_name} (upload {earlier.pk}, "
            f"{earlier.created_at:%Y-%m-%d %H:%M} UTC, {earlier.accepted} rows accepted) into run "
            f"{self.cleaned_data['run_name']}: nothing was stored. Choose it again and tick \u201cAppend anyway\u201d "
            "to add its rows a second time, with new ids for the rows that have none.",
        )
        self.fields["append_anyway"].widget = forms.CheckboxInput()
        self.fields["append_anyway"].label = "Append anyway"


class RenameForm(forms.Form):
    name = forms.CharField(max_length=200)


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

    def __init__(self, *args, project: Project | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.fields["enabled"].choices = [
            (name, registry.display_name(cls)) for name, cls in registry.all_scorers().items()
        ]
        if project is not None:
            self.fields["enabled"].choices += [(p.property_name, p.name) for p in project.prompt_properties.all()]

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
            found = project_config.problems(self.project, name, options)
            if found:
                problems.extend(found)
                continue
            try:
                registry.get(name).from_dict(project_config.strip_for_scorer_check(options))
            except registry.RegistryError as exc:
                problems.append(str(exc))
            except (TypeError, ValueError, ScorerUnavailable) as exc:
                problems.append(f"{name}: {exc}")
        if problems:
            raise forms.ValidationError(problems)
        return config


class RulesForm(forms.Form):
    """A project's rules, checked against the properties it scores and their ranges; the run their
    preview counts labels on."""

    rules = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "code"}))
    run = forms.ModelChoiceField(queryset=Run.objects.none(), required=False, empty_label=None, label="Preview on run")

    def __init__(self, *args, project: Project, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.fields["run"].queryset = project.runs.live()
        self.fields["run"].label_from_instance = lambda run: run.name
        self.blocks: list[Block] = []

    def clean_rules(self) -> str:
        text = self.cleaned_data["rules"]
        try:
            self.blocks = project_rules.parse_for(self.project, text)
        except RulesError as exc:
            raise forms.ValidationError(exc.problems) from None
        return text


class PromptPropertyForm(forms.ModelForm):
    """A prompt property. The key is picked by name (an allowed variable or a project key); a new key
    typed here is write-only: stored encrypted as a project key and never shown back."""

    categories = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="For a category property: one category per line.",
    )
    key = forms.ChoiceField(
        required=False,
        label="Provider key",
        help_text="A key stored for this project, or an environment variable of the workers that the operator "
        "allows. None is sent to a base URL unless you choose one here.",
    )
    new_api_key = forms.CharField(
        required=False,
        label="New key",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Optional: paste a key to store it encrypted as a project key named after this property "
        "and use it. It is never shown back.",
    )

    class Meta:
        model = PromptProperty
        fields = ["name", "template", "output_type", "categories", "model_id", "base_url", "max_calls", "max_tokens"]
        widgets = {
            "template": forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "code"}),
            "output_type": forms.RadioSelect,
        }
        help_texts = {
            "template": "The instructions, reading the interaction through {input}, {output}, "
            "{information_retrieval} and {expected_output}.",
            "model_id": 'litellm\'s provider/model, e.g. "openai/gpt-4o-mini" or "ollama/llama3.1".',
            "base_url": "For Ollama or an OpenAI-compatible server; only the URLs the operator allows "
            "(EVALSITE_LLM_BASE_URLS). Empty: the provider's own endpoint.",
            "max_calls": "The most calls one run may make for this property (retries count); blank: no limit.",
            "max_tokens": "The most tokens one run may use for this property; blank: no limit.",
        }

    field_order = ["name", "template", "output_type", "categories", "model_id", "base_url", "key", "new_api_key"]

    def __init__(self, *args, project: Project, user=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.user = user  # who stored a new key
        outbound = policy.current()
        self.fields["key"].choices = [
            ("", "The provider's usual variable, if the operator allows it"),
            *((f"var:{name}", f"${name} (workers' environment)") for name in outbound.llm_key_variables),
            *((f"key:{key.pk}", f"Project key: {key.name}") for key in project.provider_keys.all()),
        ]
        if self.instance.pk:
            self.initial["categories"] = "\n".join(self.instance.categories)
            if self.instance.project_key_id:
                self.initial["key"] = f"key:{self.instance.project_key_id}"
            elif self.instance.api_key_variable:
                self.initial["key"] = f"var:{self.instance.api_key_variable}"

    def clean_template(self) -> str:
        template = self.cleaned_data["template"]
        try:
            check_template(template)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return template

    def clean_categories(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["categories"].splitlines() if line.strip()]

    def clean_base_url(self) -> str:
        url = self.cleaned_data["base_url"].strip()
        if url:
            try:
                policy.current().check_llm_base_url(url)
            except policy.OutboundRefused as exc:
                raise forms.ValidationError(str(exc)) from None
        return url

    def clean_new_api_key(self) -> str:
        key = self.cleaned_data["new_api_key"].strip()
        if key and not provider_keys.can_store():
            raise forms.ValidationError(
                "this server cannot store keys (its operator has not set EVALSITE_SECRETS_KEY); choose an "
                "environment variable instead"
            )
        return key

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if self.instance.pk:
            return name
        property_name = prompt_property_name(name)
        if property_name == PromptProperty.PREFIX:
            raise forms.ValidationError("the name needs at least one letter or digit")
        if property_name in registry.all_scorers():
            raise forms.ValidationError(f"{property_name!r} is already a registered property's name")
        if self.project.prompt_properties.filter(property_name=property_name).exists():
            raise forms.ValidationError(f"this project already has a prompt property {property_name!r}")
        return name

    def clean(self) -> dict:
        cleaned = super().clean()
        if "output_type" in cleaned and "categories" in cleaned:
            try:
                check_output_type(cleaned["output_type"], cleaned["categories"])
            except ValueError as exc:
                self.add_error("categories", str(exc))
        self.instance.api_key_variable, self.instance.project_key = "", None
        choice = cleaned.get("key") or ""
        if choice.startswith("var:"):
            self.instance.api_key_variable = choice.removeprefix("var:")
        elif choice.startswith("key:"):
            self.instance.project_key = self.project.provider_keys.get(pk=int(choice.removeprefix("key:")))
        return cleaned

    def save(self, commit: bool = True) -> PromptProperty:
        prompt = super().save(commit=False)
        prompt.project = self.project
        if not prompt.property_name:
            prompt.property_name = prompt_property_name(prompt.name)
        new_key = self.cleaned_data.get("new_api_key")
        if new_key and commit:  # a preview (commit=False) uses the key once and stores nothing
            prompt.project_key = store_project_key(self.project, prompt.property_name, new_key, self.user)
            prompt.api_key_variable = ""
        if commit:
            prompt.save()
        return prompt


class ProjectKeyForm(forms.Form):
    name = forms.SlugField(max_length=100, help_text="How configurations name it, e.g. team-openai.")
    key = forms.CharField(
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted; never shown back, not even in part.",
    )

    def clean_key(self) -> str:
        if not provider_keys.can_store():
            raise forms.ValidationError("this server cannot store keys: its operator has not set EVALSITE_SECRETS_KEY")
        return self.cleaned_data["key"].strip()


def store_project_key(project: Project, name: str, key: str, user=None) -> ProjectKey:
    """Create or replace the project key of this name (encrypted)."""
    stored = project.provider_keys.filter(name=name).first() or ProjectKey(project=project, name=name)
    stored.set_key(key)
    stored.created_by = user
    stored.created_at = timezone.now()
    stored.save()
    return stored


def prompt_property_name(name: str) -> str:
    """`Polite tone` -> `prompt_polite_tone`: a name the filters, rules and API accept."""
    return PromptProperty.PREFIX + "_".join(re.findall(r"[a-z0-9]+", name.lower()))[:80]


class PassCriteriaForm(forms.Form):
    """A property's pass or fail in one project, and whether it is one of the project's key properties."""

    direction = forms.ChoiceField(
        choices=[("higher", "Higher is better"), ("lower", "Lower is better"), ("", "Neither: no pass or fail")],
        required=False,
        widget=forms.RadioSelect,
    )
    threshold = forms.FloatField(
        required=False, help_text="Higher is better: passes at the threshold and above. Lower: passes below it."
    )
    tolerance = forms.FloatField(
        required=False, min_value=0, help_text="Row-by-row comparison leaves out changes smaller than this."
    )
    key = forms.BooleanField(
        required=False,
        label="Key property",
        help_text="Key properties are the Data Screen's default columns and the comparison's default charts.",
    )

    def __init__(self, *args, name: str, criterion: criteria_defaults.Criterion, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.name = name
        self.criterion = criterion  # its range bounds the threshold

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("direction") and cleaned.get("threshold") is None:
            self.add_error("threshold", "a direction needs a threshold")
        problem = criteria_defaults.threshold_problem(self.name, self.criterion, cleaned.get("threshold"))
        if problem:
            self.add_error("threshold", problem)
        return cleaned

    def save(self, project: Project, prop: str, user) -> None:
        data = self.cleaned_data
        tolerance = data["tolerance"] if data["tolerance"] is not None else criteria_defaults.DEFAULT_TOLERANCE
        thresholds.save_criterion(
            project,
            prop,
            direction=data["direction"],
            threshold=data["threshold"],
            tolerance=tolerance,
            user=user,
            key=data["key"],
        )


class AgreementForm(forms.Form):
    """Which runs a property is measured on against the team's labels, and what the suggestion aims at."""

    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="All the project's runs when none is ticked.",
    )
    target_precision = forms.FloatField(
        required=False,
        min_value=0.01,
        max_value=1.0,
        label="Target precision",
        help_text="Empty: the threshold with the best balanced accuracy. A number from 0.01 to 1: the threshold "
        "that fails the most bad interactions while that share of the failed ones, or more, are labelled bad.",
    )

    def __init__(self, *args, project: Project, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["runs"].queryset = project.runs.live().order_by("created_at", "pk")
        self.fields["runs"].label_from_instance = lambda run: run.name


class ApplyThresholdForm(AgreementForm):
    """One click on the suggestion: the threshold and direction as the page showed them."""

    threshold = forms.FloatField()
    direction = forms.ChoiceField(choices=[("higher", "Higher is better"), ("lower", "Lower is better")])
