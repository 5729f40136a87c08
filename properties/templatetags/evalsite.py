from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from properties.models import PropertyValue
from properties.projects.property_names import PropertyName
from properties.quality.criteria import is_not_applicable

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
def named(address: str, names: dict[str, PropertyName]) -> PropertyName | str:
    """A property address by its display name, from the page's `names` (property_names.names_for)."""
    return names.get(address, address)


@register.filter
def percent(fraction: float | None) -> str:
    return "—" if fraction is None else f"{100 * fraction:.0f}%"


@register.filter
def caret(column: int) -> str:
    """A mark under the character at a 1-based column of a line shown above it in monospace."""
    return " " * max(0, column - 1) + "^"


@register.simple_tag
def queue_problems(job) -> list:
    """The queues this unfinished job has work waiting on that no live worker takes (worker heartbeats)."""
    from properties.pipeline import workers

    if job is None or job.is_finished:
        return []
    return workers.queue_problems(job.waiting_queues())


GENERATED_ID_LENGTH = 32


@register.filter
def short_id(user_interaction_id: str) -> str:
    """An id a person can read: a generated 32-hex id shortened like a git hash, long ids cut."""
    text = str(user_interaction_id)
    if len(text) == GENERATED_ID_LENGTH and all(c in "0123456789abcdef" for c in text):
        return text[:8]
    return text if len(text) <= 24 else text[:23] + "…"


@register.simple_tag
def verdict(judged: str, value: PropertyValue | None) -> SafeString:
    """A value with its verdict: a mark and words beside the colour (a tag, not an include: the
    Data Screen renders hundreds of them per page)."""
    if judged in ("pass", "fail"):
        mark, words = ("✓", "passes") if judged == "pass" else ("✗", "fails")
        return format_html(
            '<span class="verdict {}"><span aria-hidden="true">{}</span> {}'
            '<span class="visually-hidden"> {}</span></span>',
            judged,
            mark,
            shown(value),
            words,
        )
    if judged == "n/a":
        return format_html('<span class="verdict {}">{}</span>', "na", "n/a")
    if judged == "error":
        return format_html('<span class="verdict error"><span aria-hidden="true">{}</span> {}</span>', "⚠", "error")
    return format_html("{}", shown(value))
