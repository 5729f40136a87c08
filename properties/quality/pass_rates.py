"""A run's pass rates: per property the share of judged values that pass, and the share of
interactions that pass every key property.

Counting reads the (run, property, field, value, interaction) index, one range per count, but a
run of 100,000 interactions still takes a second or more for the overall rate (it unites the
failing interactions of every key property). Values change only when scoring writes them, so the
summary is cached under the run's latest job and its progress, and the Data Screen loads it as a
fragment of its own when it is not cached yet: the table never waits for it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count

from properties.models import PropertyValue, Run
from properties.quality import criteria
from properties.quality.criteria import Criterion

# Bounds staleness for values written without a job (the Python API's evaluations).
CACHE_SECONDS = 600


@dataclass(frozen=True)
class AddressRate:
    address: str
    criterion: Criterion
    judged: int
    passing: int
    not_applicable: int
    errors: int

    @property
    def rate(self) -> float | None:
        return self.passing / self.judged if self.judged else None

    @property
    def failing(self) -> int:
        return self.judged - self.passing


@dataclass(frozen=True)
class RunRates:
    rates: list[AddressRate] = field(default_factory=list)
    # Interactions with at least one judged key value, and those of them failing none.
    judged: int = 0
    passing: int = 0

    @property
    def overall(self) -> float | None:
        return self.passing / self.judged if self.judged else None

    def for_address(self, address: str) -> AddressRate | None:
        return next((rate for rate in self.rates if rate.address == address), None)


def compute(run: Run, judged_criteria: dict[str, Criterion], key: list[str]) -> RunRates:
    """Pass rates of the given addresses; the overall rate counts the key ones."""
    rates = []
    failing: set[int] = set()
    judged: set[int] = set()
    errors = _errors_by_address(run)
    for address, criterion in judged_criteria.items():
        prop, _, field_name = address.partition(".")
        values = PropertyValue.objects.filter(run=run, property_name=prop, field=field_name or "interaction")
        not_applicable = values.filter(criteria.not_applicable_q()).count()
        if not criterion.judges:
            rates.append(AddressRate(address, criterion, 0, 0, not_applicable, errors.get(address, 0)))
            continue
        numbers = values.filter(value__isnull=False)
        failures = numbers.filter(criterion.failing_q())
        if address in key:
            judged.update(numbers.values_list("interaction_id", flat=True))
            failed = set(failures.values_list("interaction_id", flat=True))
            failing |= failed
            count, failed_count = numbers.count(), len(failed)
        else:
            count, failed_count = numbers.count(), failures.count()
        passing = count - failed_count
        rates.append(AddressRate(address, criterion, count, passing, not_applicable, errors.get(address, 0)))
    return RunRates(rates, len(judged), len(judged - failing))


def _errors_by_address(run: Run) -> dict[str, int]:
    rows = (
        PropertyValue.objects.filter(run=run, status=PropertyValue.Status.ERROR)
        .values("property_name", "field")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {
        row["property_name"] if row["field"] == "interaction" else f"{row['property_name']}.{row['field']}": row["n"]
        for row in rows
    }


def scoring_state(run: Run) -> tuple | None:
    """What changes when scoring writes values: the run's latest job and its progress."""
    job = run.latest_job()
    return (job.pk, job.done, job.failed, job.status) if job else None


def cache_key(run: Run, judged_criteria: dict[str, Criterion], key: list[str]) -> str:
    version = scoring_state(run)
    settings = json.dumps([version, key, {a: c.to_dict() for a, c in judged_criteria.items()}], sort_keys=True)
    return f"pass-rates:{run.pk}:{hashlib.sha256(settings.encode()).hexdigest()[:20]}"


def cached(run: Run, judged_criteria: dict[str, Criterion], key: list[str]) -> RunRates | None:
    return cache.get(cache_key(run, judged_criteria, key))


def computed(run: Run, judged_criteria: dict[str, Criterion], key: list[str]) -> RunRates:
    """From the cache, or computed now and cached."""
    name = cache_key(run, judged_criteria, key)
    rates = cache.get(name)
    if rates is None:
        rates = compute(run, judged_criteria, key)
        cache.set(name, rates, CACHE_SECONDS)
    return rates
