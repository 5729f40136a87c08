"""The side panel's form: a person's annotation of the interaction shown, with an optional reason."""

from __future__ import annotations

from django import forms

from properties.models import Annotation


class AnnotationForm(forms.Form):
    annotation = forms.ChoiceField(choices=Annotation.choices)
    reason = forms.CharField(required=False, widget=forms.TextInput(attrs={"placeholder": "Why? (optional)"}))
