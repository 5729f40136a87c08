"""What generated cases are filled with: people, organisations, places, products, figures and identifiers.

Faker draws the names, addresses, phone numbers, IBANs and cards, in several locales; the lists
below add what Faker does not have (product names, plans, units, times of day, versions, hashes).
Every draw comes from one seeded `random.Random` and one seeded Faker, so a fill is the same on
every machine and every run.
"""

from __future__ import annotations

import random
import string
from functools import cache

from faker import Faker

# Locales whose names, phone numbers and addresses read differently; English first, for the text
# around them is English.
LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_IN")

PRODUCT_NAMES = (
    "Titan",
    "Lumen",
    "Nimbus",
    "Orbit",
    "Atlas",
    "Vega",
    "Harbor",
    "Quill",
    "Beacon",
    "Cobalt",
    "Juniper",
    "Meridian",
    "Pioneer",
    "Sonata",
    "Tundra",
    "Zephyr",
    "Falcon",
    "Aurora",
    "Mosaic",
    "Summit",
)
PRODUCT_KINDS = (
    "subscription",
    "desk lamp",
    "router",
    "backup service",
    "note-taking app",
    "e-bike",
    "coffee grinder",
    "smart thermostat",
    "project tracker",
    "password manager",
    "standing desk",
    "robot vacuum",
    "analytics platform",
    "headset",
    "camera",
    "payroll service",
)
PLANS = ("Starter", "Basic", "Team", "Pro", "Business", "Enterprise", "Plus", "Premium")
CURRENCIES = (("$", ""), ("€", ""), ("£", ""), ("", " EUR"), ("", " USD"))
PERIODS = ("per month", "per year", "per seat per month", "one-off")
# (unit, plural, what it measures, a plausible range)
UNITS = (
    ("kilogram", "kilograms", "weighs", (1, 40)),
    ("metre", "metres", "is long", (1, 30)),
    ("watt", "watts", "draws", (5, 900)),
    ("hour", "hours", "lasts", (2, 72)),
    ("litre", "litres", "holds", (1, 20)),
    ("gigabyte", "gigabytes", "stores", (8, 512)),
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
ROLES = (
    "chief executive",
    "head of engineering",
    "product manager",
    "support lead",
    "finance director",
    "chief technology officer",
    "head of sales",
    "data scientist",
    "site reliability engineer",
)
DEPARTMENTS = ("billing", "support", "engineering", "sales", "security", "logistics", "research")
FEATURES = (
    "single sign-on",
    "audit logs",
    "offline mode",
    "two-factor authentication",
    "data export",
    "shared workspaces",
    "priority support",
    "custom domains",
    "API access",
    "scheduled reports",
)
LANGUAGES = ("Python", "JavaScript", "Go", "Rust", "Java", "TypeScript", "Ruby", "SQL")
COLOURS = ("red", "blue", "green", "black", "white", "silver", "yellow", "grey")


@cache
def _faker() -> Faker:
    faker = Faker(list(LOCALES))
    # Faker's Italian towns are a list made from a set, in an order that changes with the hash seed
    # of each Python process: sorted, the same seed draws the same towns on every run.
    if "it_IT" in LOCALES:
        for provider in faker["it_IT"].providers:
            if isinstance(getattr(provider, "cities", None), list):
                provider.cities = sorted(provider.cities)
    return faker


class Lexicon:
    """Draws for one generated case, all from `seed`."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    # --- choices ----------------------------------------------------------------------------
    def pick(self, options):
        return self.random.choice(list(options))

    def sample(self, options, k: int) -> list:
        return self.random.sample(list(options), k)

    def chance(self, p: float) -> bool:
        return self.random.random() < p

    def locale(self) -> str:
        return self.pick(LOCALES)

    def fake(self, locale: str | None = None) -> Faker:
        """Faker's generator for a locale, seeded from this lexicon's own draws: the Faker is shared,
        so each draw seeds it, and two lexicons with one seed draw the same whatever their order."""
        generator = _faker()[locale or self.locale()]
        generator.seed_instance(self.random.getrandbits(64))
        return generator

    # --- people, organisations, places ---------------------------------------------------------
    def person(self, locale: str | None = None) -> str:
        local = self.fake(locale)
        return f"{local.first_name()} {local.last_name()}"

    def first_name(self, locale: str | None = None) -> str:
        return self.fake(locale).first_name()

    def company(self) -> str:
        name = self.fake("en_US").last_name()
        return f"{name} {self.pick(('Labs', 'Systems', 'Logistics', 'Foods', 'Analytics', 'Energy', 'Health'))}"

    def city(self) -> str:
        return (
            self.fake("en_US").city()
            if self.chance(0.3)
            else self.pick(
                (
                    "Lisbon",
                    "Oslo",
                    "Nairobi",
                    "Osaka",
                    "Porto",
                    "Lyon",
                    "Leeds",
                    "Austin",
                    "Denver",
                    "Hamburg",
                    "Valencia",
                    "Turin",
                    "Utrecht",
                    "Pune",
                    "Krakow",
                    "Tallinn",
                    "Montreal",
                    "Perth",
                    "Seville",
                    "Gdansk",
                )
            )
        )

    def country(self) -> str:
        return self.pick(("Portugal", "Norway", "Kenya", "Japan", "France", "Canada", "Brazil", "Poland", "India"))

    def role(self) -> str:
        return self.pick(ROLES)

    # --- products and figures ------------------------------------------------------------------
    def product(self) -> str:
        return f"{self.pick(PRODUCT_NAMES)} {self.pick(PRODUCT_KINDS)}"

    def product_name(self) -> str:
        return self.pick(PRODUCT_NAMES)

    def plan(self) -> str:
        return self.pick(PLANS)

    def feature(self) -> str:
        return self.pick(FEATURES)

    def number(self, low: int = 2, high: int = 99) -> int:
        return self.random.randint(low, high)

    def other_number(self, number: int, low: int = 2, high: int = 99) -> int:
        """A number in the range that differs from `number` by at least a tenth, and at least 2."""
        while True:
            other = self.random.randint(low, high)
            if abs(other - number) >= max(2, number // 10):
                return other

    def price(self) -> str:
        symbol, suffix = self.pick(CURRENCIES)
        amount = self.pick(
            (self.number(5, 99), self.number(100, 999), f"{self.number(5, 99)}.{self.pick(('00', '50', '99'))}")
        )
        return f"{symbol}{amount}{suffix}"

    def period(self) -> str:
        return self.pick(PERIODS)

    def quantity(self) -> tuple[str, str, int, str]:
        """(unit, plural, amount, verb): "weighs", 12, "kilograms"."""
        unit, plural, verb, (low, high) = self.pick(UNITS)
        return unit, plural, self.random.randint(low, high), verb

    def weekday(self) -> str:
        return self.pick(WEEKDAYS)

    def month(self) -> str:
        return self.pick(MONTHS)

    def date(self) -> str:
        return f"{self.random.randint(1, 28)} {self.month()} {self.random.randint(2015, 2026)}"

    def year(self) -> int:
        return self.random.randint(1990, 2026)

    def time_of_day(self) -> tuple[int, str]:
        """(hour on the 24-hour clock, the time as written: "9 am", "14:30", "6 pm")."""
        hour = self.random.randint(6, 21)
        if self.chance(0.5):
            suffix = "am" if hour < 12 else "pm"
            return hour, f"{hour if hour <= 12 else hour - 12} {suffix}"
        return hour, f"{hour:02d}:{self.pick(('00', '15', '30', '45'))}"

    def version(self) -> str:
        return f"{self.random.randint(1, 9)}.{self.random.randint(0, 20)}.{self.random.randint(0, 30)}"

    def commit_hash(self, length: int = 7) -> str:
        return self.fake("en_US").sha1()[:length]

    def order_number(self) -> str:
        letters = "".join(self.random.choices(string.ascii_uppercase, k=self.random.randint(2, 3)))
        return f"{letters}-{self.random.randint(10000, 999999)}"

    def ticket(self) -> str:
        return f"#{self.random.randint(1000, 99999)}"

    # --- personal data -------------------------------------------------------------------------
    def email(self, person: str | None = None) -> str:
        if person:
            first, _, last = person.lower().partition(" ")
            local = "".join(ch for ch in f"{first}.{last}" if ch.isascii() and (ch.isalnum() or ch == "."))
            domain = self.fake("en_US").free_email_domain()
            return f"{local.strip('.') or 'contact'}@{domain}"
        return self.fake("en_US").email()

    def phone(self, locale: str | None = None) -> str:
        return self.fake(locale).phone_number()

    def street_address(self, locale: str | None = None) -> str:
        return self.fake(locale).street_address()

    def postcode(self, locale: str | None = None) -> str:
        return self.fake(locale).postcode()

    def iban(self, locale: str | None = None) -> str:
        return self.fake(locale or self.pick(("de_DE", "fr_FR", "es_ES", "nl_NL", "en_GB", "it_IT"))).iban()

    def card(self) -> str:
        return self.fake("en_US").credit_card_number(card_type=self.pick(("visa", "mastercard", "amex")))

    def ssn(self) -> str:
        return self.fake("en_US").ssn()

    def ip_address(self) -> str:
        return self.fake("en_US").ipv4_public()

    def birth_date(self) -> str:
        return (
            self.fake("en_US")
            .date_of_birth(minimum_age=18, maximum_age=90)
            .strftime(self.pick(("%d/%m/%Y", "%B %d, %Y", "%Y-%m-%d")))
        )
