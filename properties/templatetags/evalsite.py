from django import template

from properties.criteria import is_not_applicable
from properties.models import PropertyValue

register = template.Library()


@register.filter
def shown(value: PropertyValue | None) -> str:
    """A property value as the tables show it: its category, its number, or that it failed."""
    if value is None:
        return "—"
    if value.status == PropertyValue.Status.ERROR:
        return "error"
    if is_not_applicable(value):
        return "n/a"
    if value.label:
        return value.label
    if value.value is None:
        return "—"
    return f"{value.value:.3g}"


@register.filter
def percent(fraction: float | None) -> str:
    return "—" if fraction is None else f"{100 * fraction:.0f}%"


GENERATED_ID_LENGTH = 32


@register.filter
def short_id(user_interaction_id: str) -> str:
    """An id a person can read: a generated 32-hex id shortened like a git hash, long ids cut."""
    text = str(user_interaction_id)
    if len(text) == GENERATED_ID_LENGTH and all(c in "0123456789abcdef" for c in text):
        return text[:8]
    return text if len(text) <= 24 else text[:23] + "…"
