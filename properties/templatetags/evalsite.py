from django import template

from properties.models import PropertyValue

register = template.Library()


@register.filter
def shown(value: PropertyValue | None) -> str:
    """A property value as the tables show it: its category, its number, or that it failed."""
    if value is None:
        return "—"
    if value.status == PropertyValue.Status.ERROR:
        return "error"
    if value.label:
        return value.label
    if value.value is None:
        return "—"
    return f"{value.value:.3g}"


@register.filter
def percent(fraction: float | None) -> str:
    return "—" if fraction is None else f"{100 * fraction:.0f}%"
