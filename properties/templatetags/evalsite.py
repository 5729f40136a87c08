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
    if value.status == PropertyValue.Status.NOT_APPLICABLE:
        return "n/a"
    if value.label:
        return value.label
    if value.value is None:
        return "—"
    return f"{value.value:.3g}"


@register.filter
def percent(fraction: float | None) -> str:
    return "—" if fraction is None else f"{100 * fraction:.0f}%"


@register.simple_tag
def queue_problems(job) -> list:
    """The queues this unfinished job has work waiting on that no live worker takes (worker heartbeats)."""
    from properties import workers

    if job is None or job.is_finished:
        return []
    return workers.queue_problems(job.waiting_queues())
