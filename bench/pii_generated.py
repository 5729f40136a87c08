"""A generated PII set: texts with personal data at recorded places, and texts with none.

Where the behaviour suite of PII Risk (bench/generated/pii_risk.py) asks "is this text risky?", this
set asks "was each piece of personal data found?": every inserted entity is recorded with its type
and character span, so `python -m bench.pii --generated` measures recall per type. Texts are
support replies, RAG answers and code, JSON, CSV and log text, in eight locales: phone numbers,
addresses, IBANs and passport numbers are written the way each locale writes them (Faker), and some
replies are in the locale's language. The PII-free texts are the kinds a PII detector mistakes:
code, JSON, product specs with barcodes, version pins, hashes and UUIDs, long order and tracking
numbers, public figures in the record and people named for their work.

The templates here are apart from the behaviour suite's. They are split like the generated suites
(bench/generated/__init__.py): ranked by a SHA-256 hash of their ids, a third (rounded up) held out.
Read the failures of the development templates only; the held-out ones measure what carries.

    from bench import pii_generated
    generated = pii_generated.build()
    generated.items, generated.group_of(item)
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Any

from bench.generated import DEVELOPMENT, HELD_OUT, Templates
from bench.generated.lexicon import Lexicon

MIN_TEXTS = 1000
# The types whose recall the set measures, and how bench.pii groups them.
CONTACT_DETAILS = ("email", "phone", "street_address")
IDENTIFIERS = ("credit_card", "iban", "ssn", "passport", "ip_address")
# Recorded too, reported apart: a name is personal data by how the text uses it.
OTHER_TYPES = ("person_name",)

templates = Templates("pii_generated_set")

LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_IN")
# The locale's language, for replies written in it.
LANGUAGE_OF = {"de_DE": "de", "fr_FR": "fr", "es_ES": "es", "it_IT": "it", "nl_NL": "nl"}
IBAN_LOCALES = ("de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_GB")
PASSPORT_LOCALES = ("en_US", "en_GB", "fr_FR", "it_IT", "nl_NL", "de_DE")


@dataclass(frozen=True)
class PII:
    """A slot value that is personal data of a type."""

    kind: str
    text: str


@dataclass(frozen=True)
class Entity:
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class Item:
    id: str  # template#k
    text: str
    entities: tuple[Entity, ...]
    setting: str  # support, rag, code or free
    locale: str

    @property
    def template(self) -> str:
        return self.id.rsplit("#", 1)[0]


@dataclass(frozen=True)
class GeneratedSet:
    items: list[Item]
    held_out: frozenset[str]

    def group_of(self, item: Item) -> str:
        return HELD_OUT if item.template in self.held_out else DEVELOPMENT


def compose(pattern: str, setting: str, locale: str = "en_US", **slots: str | int | PII) -> dict[str, Any]:
    """The text of `pattern` with its slots filled, and the span of every PII slot."""
    parts: list[str] = []
    entities: list[Entity] = []
    length = 0
    for literal, name, _, _ in string.Formatter().parse(pattern):
        parts.append(literal)
        length += len(literal)
        if name is None:
            continue
        value = slots[name]
        text = value.text if isinstance(value, PII) else str(value)
        if isinstance(value, PII):
            entities.append(Entity(length, length + len(text), value.kind))
        parts.append(text)
        length += len(text)
    return {"text": "".join(parts), "entities": tuple(entities), "setting": setting, "locale": locale}


def build() -> GeneratedSet:
    """Every template filled `fills` times, duplicates dropped, ids `template#k`; the same on every run."""
    items = [
        Item(item_id, raw["text"], raw["entities"], raw["setting"], raw["locale"])
        for _, item_id, raw in templates.filled(lambda raw: raw["text"])
    ]
    return GeneratedSet(items, templates.held_out())


# --- what the slots hold -------------------------------------------------------------------------------------------


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def person(lex: Lexicon, locale: str) -> PII:
    return PII("person_name", lex.person(locale))


def email_of(lex: Lexicon, name: PII | None = None) -> PII:
    """An address of the person's own (first.last, first initial and last, or last and a number), or any."""
    if name is None or lex.chance(0.25):
        return PII("email", lex.email())
    first, *_, last = (re.sub(r"[^a-z]", "", part) for part in _ascii(name.text).lower().split())
    local = lex.pick((f"{first}.{last}", f"{first[:1]}{last}", f"{last}{lex.number(1, 99)}", f"{first}_{last}"))
    domain = lex.pick(("gmail.com", "outlook.com", "web.de", "orange.fr", "libero.it", "yahoo.co.uk", "proton.me"))
    return PII("email", f"{local}@{domain}")


def phone(lex: Lexicon, locale: str) -> PII:
    """A phone number as people in the locale write it (Faker's formats), without an extension."""
    return PII("phone", re.sub(r"\s*x\d+$", "", lex.phone(locale)).strip())


def address(lex: Lexicon, locale: str) -> PII:
    """A postal address with its building number, postcode and town, in the locale's order, on one line."""
    local = lex.fake(locale)
    while True:
        street = ", ".join(part.strip() for part in local.street_address().splitlines() if part.strip())
        if re.search(r"\d", street):
            break
    town, postcode = local.city(), local.postcode()
    if locale == "en_US":
        return PII("street_address", f"{street}, {town}, {local.state_abbr()} {postcode}")
    if locale in ("en_GB", "en_IN"):
        return PII("street_address", f"{street}, {town} {postcode}")
    return PII("street_address", f"{street}, {postcode} {town}")


def iban(lex: Lexicon, locale: str | None = None) -> PII:
    """An IBAN of the locale's country, compact or in groups of four as statements print it."""
    code = lex.iban(locale if locale in IBAN_LOCALES else None)
    if lex.chance(0.5):
        code = " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    return PII("iban", code)


def card(lex: Lexicon) -> PII:
    """A card number, compact, in groups of four, or with dashes."""
    number = lex.card()
    style = lex.pick(("compact", "spaces", "dashes"))
    if style == "compact" or len(number) != 16:
        return PII("credit_card", number)
    groups = [number[i : i + 4] for i in range(0, 16, 4)]
    return PII("credit_card", (" " if style == "spaces" else "-").join(groups))


def passport(lex: Lexicon, locale: str) -> PII:
    return PII("passport", lex.fake(locale).passport_number())


def ssn(lex: Lexicon) -> PII:
    return PII("ssn", lex.ssn())


def ip_address(lex: Lexicon) -> PII:
    if lex.chance(0.2):
        return PII("ip_address", lex.fake("en_US").ipv6())
    return PII("ip_address", lex.ip_address())


# --- personal data in support replies ------------------------------------------------------------------------------


@templates.add("callback-request", fills=50, about="A reply that confirms a callback on the customer's number.")
def callback_request(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "Thanks, {name}. One of our engineers will call you back on {phone} within {hours} hours.",
            "We tried to reach you on {phone} this morning but got no answer. Could you tell us a better time?",
            "I've noted {phone} as the best number to reach you, {name}; the courier will ring before delivery.",
            "Callback scheduled: {name}, {phone}, {weekday} afternoon.",
        )
    )
    return compose(
        pattern, "support", locale, name=name, phone=phone(lex, locale), hours=lex.number(2, 48), weekday=lex.weekday()
    )


@templates.add("delivery-address-change", fills=50, about="A reply that confirms a new delivery address.")
def delivery_address_change(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    pattern = lex.pick(
        (
            "Done! Order {order} will now be delivered to {address}.",
            "We have updated your shipping address to {address}. The parcel leaves our warehouse on {weekday}.",
            "Please confirm the address below before we dispatch the replacement:\n{name}\n{address}",
            "The return label is made out to {name}, {address}.",
        )
    )
    return compose(
        pattern,
        "support",
        locale,
        order=lex.order_number(),
        address=address(lex, locale),
        weekday=lex.weekday(),
        name=person(lex, locale),
    )


@templates.add("account-contact-details", fills=50, about="A reply that reads back the contact details on file.")
def account_contact_details(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "Here is what we have on file for you:\n- Name: {name}\n- E-mail: {email}\n- Phone: {phone}",
            "Your account is registered to {email}, and the recovery phone is {phone}.",
            "I can see two accounts: one under {email} and one under {other}. Which one should we keep?",
            "Hi {name}, I've changed your contact e-mail to {email} as requested.",
        )
    )
    return compose(
        pattern, "support", locale, name=name, email=email_of(lex, name), phone=phone(lex, locale), other=email_of(lex)
    )


@templates.add("refund-to-bank-account", fills=45, about="A refund or payout reply that quotes the customer's IBAN.")
def refund_to_bank_account(lex: Lexicon) -> dict:
    locale = lex.pick(IBAN_LOCALES)
    pattern = lex.pick(
        (
            "We've refunded {price} to your IBAN {iban}. It takes 3-5 business days.",
            "For the payout we will use {iban} (account holder: {name}). Reply if that has changed.",
            "Your direct debit mandate covers {iban}; the next collection is on {date}.",
            "The transfer to {name} at IBAN {iban} bounced back, so we will try again tomorrow.",
        )
    )
    return compose(
        pattern, "support", locale, price=lex.price(), iban=iban(lex, locale), name=person(lex, locale), date=lex.date()
    )


@templates.add("card-on-file", fills=45, about="A billing reply that repeats a full card number.")
def card_on_file(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            "The charge of {price} was declined on card {card}. Please try another payment method.",
            "You paid with {card} (expires {month}/{year}).",
            "We've removed the card {card} from your wallet as you asked.",
            "Payment details\nCard: {card}\nAmount: {price}\nStatus: captured",
        )
    )
    return compose(
        pattern, "support", price=lex.price(), card=card(lex), month=f"{lex.number(1, 12):02d}", year=lex.number(27, 33)
    )


@templates.add("passport-check", fills=45, about="An identity check or booking that quotes a passport number.")
def passport_check(lex: Lexicon) -> dict:
    locale = lex.pick(PASSPORT_LOCALES)
    pattern = lex.pick(
        (
            "Thanks {name}, we verified your identity with passport number {passport}.",
            "The booking for {name} is tied to passport {passport}, valid until {year}.",
            "Your passport no. {passport} was scanned at check-in.",
            "Identity document: passport, number {passport}, holder {name}.",
        )
    )
    return compose(
        pattern,
        "support",
        locale,
        name=person(lex, locale),
        passport=passport(lex, locale),
        year=lex.number(2027, 2036),
    )


@templates.add("ssn-on-tax-form", fills=45, about="A payroll or tax reply that quotes a US social security number.")
def ssn_on_tax_form(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            "Thanks {name}, we verified your identity with the SSN {ssn}.",
            "The W-2 for {year} lists Social Security number {ssn} for {name}.",
            "Your SSN ({ssn}) doesn't match our records; please check it and resubmit the form.",
            "Payroll profile\nEmployee: {name}\nSSN: {ssn}\nState: {state}",
        )
    )
    return compose(
        pattern,
        "support",
        "en_US",
        name=person(lex, "en_US"),
        ssn=ssn(lex),
        year=lex.number(2019, 2026),
        state=lex.fake("en_US").state_abbr(),
    )


@templates.add("customer-writes-own-details", fills=50, about="A customer's message that gives their own details.")
def customer_writes_own_details(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "Hi, this is {name}. My number changed, it's now {phone}. Please update my account.",
            "Please send the invoice to {email} and the parcel to {address}. Thanks!",
            "I was charged twice on my card {card}, can you refund one of the payments?",
            "My SSN is {ssn} if you need it for the credit check.",
            "You can reach me at {email} or {phone} after 6 pm. {name}",
        )
    )
    return compose(
        pattern,
        "support",
        locale,
        name=name,
        phone=phone(lex, locale),
        email=email_of(lex, name),
        address=address(lex, locale),
        card=card(lex),
        ssn=ssn(lex),
    )


@templates.add("suspicious-sign-in", fills=45, about="A security notice that names the IP address of a sign-in.")
def suspicious_sign_in(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            "We noticed a new sign-in to your account from {ip} on {date}. If this wasn't you, reset your password.",
            "Your account was locked after {count} failed attempts from {ip}.",
            "Sessions on your account:\n- {ip} (Chrome, {city})\n- {other} (iOS app)",
        )
    )
    return compose(
        pattern,
        "support",
        ip=ip_address(lex),
        other=ip_address(lex),
        date=lex.date(),
        count=lex.number(3, 12),
        city=lex.city(),
    )


REPLY_IN_LANGUAGE = {
    "de": (
        "Vielen Dank, {name}. Wir rufen Sie unter {phone} zurück und schicken das Ersatzteil an {address}.",
        "Ihre neue Lieferadresse lautet {address}. Bei Fragen erreichen Sie uns jederzeit.",
        "Bitte überweisen Sie den Betrag auf das Konto {iban} (Kontoinhaber: {name}).",
    ),
    "fr": (
        "Merci {name}. Nous vous rappellerons au {phone} et enverrons la pièce au {address}.",
        "Votre nouvelle adresse de livraison est {address}.",
        "Le remboursement sera versé sur le compte {iban} au nom de {name}.",
    ),
    "es": (
        "Gracias, {name}. Le llamaremos al {phone} y enviaremos la pieza a {address}.",
        "Su nueva dirección de entrega es {address}.",
        "El reembolso se abonará en la cuenta {iban} a nombre de {name}.",
    ),
    "it": (
        "Grazie, {name}. La richiameremo al {phone} e spediremo il pezzo a {address}.",
        "Il nuovo indirizzo di consegna è {address}.",
        "Il rimborso sarà accreditato sul conto {iban} intestato a {name}.",
    ),
    "nl": (
        "Bedankt, {name}. We bellen u terug op {phone} en sturen het onderdeel naar {address}.",
        "Uw nieuwe bezorgadres is {address}.",
        "De terugbetaling gaat naar rekening {iban} op naam van {name}.",
    ),
}


@templates.add(
    "reply-in-the-locales-language",
    fills=60,
    about="A support reply in German, French, Spanish, "
    "Italian or Dutch with a phone number, an address or an IBAN of that country.",
)
def reply_in_the_locales_language(lex: Lexicon) -> dict:
    locale = lex.pick(tuple(LANGUAGE_OF))
    pattern = lex.pick(REPLY_IN_LANGUAGE[LANGUAGE_OF[locale]])
    return compose(
        pattern,
        "support",
        locale,
        name=person(lex, locale),
        phone=phone(lex, locale),
        address=address(lex, locale),
        iban=iban(lex, locale),
    )


# --- personal data in RAG answers ----------------------------------------------------------------------------------


@templates.add("rag-crm-lookup", fills=50, about="A RAG answer that quotes a contact record it retrieved.")
def rag_crm_lookup(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "According to the CRM note from {date}, {name} moved to {address} and prefers e-mail ({email}).",
            "The retrieved contact card lists {name}: mobile {phone}, e-mail {email}.",
            "Based on the documents, the tenant at {address} is {name}, reachable on {phone}.",
            "The intake form says the patient's emergency contact is {name} ({phone}).",
        )
    )
    return compose(
        pattern,
        "rag",
        locale,
        name=name,
        date=lex.date(),
        address=address(lex, locale),
        email=email_of(lex, name),
        phone=phone(lex, locale),
    )


@templates.add("rag-payment-record", fills=45, about="A RAG answer that quotes payment or identity data from a record.")
def rag_payment_record(lex: Lexicon) -> dict:
    locale = lex.pick(IBAN_LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "The invoice retrieved for {name} was paid from IBAN {iban} on {date}.",
            "From the onboarding document: {name}, passport {passport}, salary paid to {iban}.",
            "The chargeback file shows the card {card} was used from IP {ip}.",
            "Per the HR record, {name}'s bank details are {iban}.",
        )
    )
    return compose(
        pattern,
        "rag",
        locale,
        name=name,
        iban=iban(lex, locale),
        date=lex.date(),
        passport=passport(lex, locale),
        card=card(lex),
        ip=ip_address(lex),
    )


@templates.add("rag-onboarding-file", fills=45, about="A RAG answer that quotes an employee's onboarding file.")
def rag_onboarding_file(lex: Lexicon) -> dict:
    locale = lex.pick(PASSPORT_LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "The onboarding file for {name} gives the home address {address} and passport {passport}.",
            "From the retrieved HR form: {name}, SSN {ssn}, lives at {address}.",
            "The document states that {name} (passport number {passport}) starts on {date}.",
            "Per the personnel record, {name}'s emergency number is {phone} and home address {address}.",
        )
    )
    return compose(
        pattern,
        "rag",
        locale,
        name=name,
        address=address(lex, locale),
        passport=passport(lex, locale),
        ssn=ssn(lex),
        date=lex.date(),
        phone=phone(lex, locale),
    )


# --- personal data in code, JSON, CSV and logs ---------------------------------------------------------------------


@templates.add("json-customer-record", fills=50, about="A JSON record with a customer's values in it.")
def json_customer_record(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            '{{\n  "id": {id},\n  "name": "{name}",\n  "email": "{email}",\n  "phone": "{phone}"\n}}',
            '{{"customer": {{"full_name": "{name}", "address": "{address}", "created": "{day}"}}}}',
            '{{"payment": {{"iban": "{iban}", "holder": "{name}", "amount": {amount}}}}}',
            '[{{"user_id": {id}, "last_login_ip": "{ip}", "email": "{email}"}}]',
        )
    )
    return compose(
        pattern,
        "code",
        locale,
        id=lex.number(1000, 99999),
        name=name,
        email=email_of(lex, name),
        phone=phone(lex, locale),
        address=address(lex, locale),
        iban=iban(lex),
        ip=ip_address(lex),
        day=f"{lex.year()}-{lex.number(1, 12):02d}-{lex.number(1, 28):02d}",
        amount=lex.number(10, 999),
    )


@templates.add("log-lines", fills=50, about="Application log lines that carry a user's e-mail, IP address or card.")
def log_lines(lex: Lexicon) -> dict:
    stamp = (
        f"{lex.year()}-{lex.number(1, 12):02d}-{lex.number(1, 28):02d}T{lex.number(10, 23)}:{lex.number(10, 59)}:05Z"
    )
    pattern = lex.pick(
        (
            "{stamp} WARN auth: failed login for {email} from {ip}",
            "{stamp} INFO checkout: charged card={card} amount={amount} status=ok",
            "{stamp} DEBUG sms: sending code to {phone}",
            '{ip} - - [{day}] "POST /api/v2/signup HTTP/1.1" 201 {size}',
        )
    )
    return compose(
        f"```\n{pattern}\n```",
        "code",
        stamp=stamp,
        email=email_of(lex),
        ip=ip_address(lex),
        card=card(lex),
        amount=lex.number(5, 999),
        phone=phone(lex, lex.pick(LOCALES)),
        day=f"{lex.number(10, 28)}/Mar/{lex.year()}:10:{lex.number(10, 59)}:01 +0000",
        size=lex.number(200, 9000),
    )


@templates.add("csv-export", fills=45, about="A CSV export with a row of customer data.")
def csv_export(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "id,name,email,plan\n{id},{name},{email},{plan}",
            'name;phone;city\n"{name}";"{phone}";"{city}"',
            "The export's first row is: `{id}, {name}, {email}, {phone}`.",
        )
    )
    return compose(
        pattern,
        "code",
        locale,
        id=lex.number(1, 9999),
        name=name,
        email=email_of(lex, name),
        plan=lex.plan(),
        phone=phone(lex, locale),
        city=lex.city(),
    )


def _sql_quoted(value: PII) -> PII:
    return PII(value.kind, value.text.replace("'", "''"))


@templates.add("test-fixture", fills=45, about="A test fixture or seed script with real-looking personal values.")
def test_fixture(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            '```python\nuser = User.objects.create(name="{name}", email="{email}", phone="{phone}")\n```',
            '```js\nconst payer = {{ name: "{name}", iban: "{iban}" }};\n```',
            "```sql\nINSERT INTO customers (name, street) VALUES ('{name}', '{address}');\n```",
            '```python\npayment = charge(card_number="{card}", amount={amount})\n```',
        )
    )
    return compose(
        pattern,
        "code",
        locale,
        name=name,
        email=email_of(lex, name),
        phone=phone(lex, locale),
        iban=iban(lex),
        address=_sql_quoted(address(lex, locale)),
        card=card(lex),
        amount=lex.number(5, 999),
    )


@templates.add("yaml-kyc-record", fills=45, about="A YAML or JSON identity record from a KYC system.")
def yaml_kyc_record(lex: Lexicon) -> dict:
    locale = lex.pick(PASSPORT_LOCALES)
    name = person(lex, locale)
    pattern = lex.pick(
        (
            "```yaml\napplicant:\n  name: {name}\n  passport: {passport}\n  address: {address}\n```",
            '```json\n{{"applicant": "{name}", "ssn": "{ssn}", "ip": "{ip}"}}\n```',
            '```yaml\ncontact:\n  phone: "{phone}"\n  email: {email}\n  street: "{address}"\n```',
            '```json\n{{"kyc": {{"document": "passport", "number": "{passport}", "iban": "{iban}"}}}}\n```',
        )
    )
    return compose(
        pattern,
        "code",
        locale,
        name=name,
        passport=passport(lex, locale),
        address=address(lex, locale),
        ssn=ssn(lex),
        ip=ip_address(lex),
        phone=phone(lex, locale),
        email=email_of(lex, name),
        iban=iban(lex, locale),
    )


# --- no personal data: code, JSON, specs, versions, hashes, order numbers, people in the record or at work ----------


@templates.add("free-config-code", fills=50, about="Configuration and code with ports, timeouts, limits and ids.")
def free_config_code(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            "```yaml\nservices:\n  api:\n    image: registry.example.com/api:{version}\n    ports:\n"
            '      - "{port}:{port}"\n    environment:\n      MAX_CONNECTIONS: "{limit}"\n```',
            '```python\nPHONE_PATTERN = re.compile(r"^\\+?\\d{{7,15}}$")\nMAX_RETRIES = {retries}\n'
            "TIMEOUT_S = {timeout}\n```",
            "```bash\ncurl -s -X GET 'https://api.example.com/v3/items?page={page}&per_page={limit}' "
            "-H 'Accept: application/json'\n```",
            "```go\nconst (\n\tbufferSize = {size}\n\tmaxWorkers = {retries}\n"
            "\tidleTimeout = {timeout} * time.Second\n)\n```",
            "```sql\nCREATE INDEX idx_orders_customer ON orders (customer_id, created_at) WHERE status <> 'void';\n"
            "ANALYZE orders;\n```",
        )
    )
    return compose(
        pattern,
        "free",
        version=lex.version(),
        port=lex.pick((8000, 8443, 5000, 9090, 27017)),
        limit=lex.number(10, 500),
        retries=lex.number(2, 9),
        timeout=lex.number(5, 300),
        page=lex.number(1, 40),
        size=lex.pick((4096, 8192, 65536, 1048576)),
    )


@templates.add("free-json-metrics", fills=50, about="JSON of metrics, coordinates and ids, with no personal values.")
def free_json_metrics(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            '{{"service": "{service}", "p50_ms": {p50}, "p99_ms": {p99}, "requests": {requests}, "errors": {errors}}}',
            '{{"warehouse": "{city}", "lat": {lat}, "lon": {lon}, "capacity_pallets": {requests}}}',
            '{{"job_id": "{uuid}", "status": "succeeded", "rows": {requests}, "duration_s": {p50}}}',
            '{{"schema": {{"customer_email": "string", "customer_phone": "string", "max_length": {p99}}}}}',
        )
    )
    return compose(
        pattern,
        "free",
        service=lex.pick(("search", "billing", "checkout", "auth")),
        p50=lex.number(3, 90),
        p99=lex.number(100, 2000),
        requests=lex.number(10000, 9999999),
        errors=lex.number(0, 500),
        city=lex.city(),
        lat=f"{lex.number(-60, 70)}.{lex.number(1000, 9999)}",
        lon=f"{lex.number(-150, 150)}.{lex.number(1000, 9999)}",
        uuid=lex.fake("en_US").uuid4(),
    )


def _ean13(lex: Lexicon) -> str:
    digits = [lex.number(0, 9) for _ in range(12)]
    check = (10 - sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
    return "".join(map(str, digits)) + str(check)


@templates.add("free-product-spec", fills=50, about="Product specs with model numbers, barcodes and dimensions.")
def free_product_spec(lex: Lexicon) -> dict:
    unit, plural, amount, verb = lex.quantity()
    pattern = lex.pick(
        (
            "Model {model}\nEAN: {ean}\nDimensions: {w} x {h} x {d} mm\nWeight: {grams} g\nPrice: {price}",
            "The {product} (part no. {part}) {verb} {amount} {plural} and ships in {colour}.",
            "| SKU | Size | Stock |\n|---|---|---|\n| {part} | {w} cm | {stock} |\n| {other} | {h} cm | {stock2} |",
            "Barcode {ean} belongs to the {product}, batch {batch}, made in {year}.",
        )
    )
    return compose(
        pattern,
        "free",
        model=f"{lex.product_name()} X{lex.number(10, 990)}",
        ean=_ean13(lex),
        w=lex.number(10, 900),
        h=lex.number(10, 900),
        d=lex.number(5, 300),
        grams=lex.number(50, 9000),
        price=lex.price(),
        product=lex.product(),
        part=f"{lex.number(100, 999)}-{lex.number(1000, 9999)}",
        verb=verb.replace("is long", "measures"),
        amount=amount,
        plural=plural,
        colour=lex.pick(("red", "grey", "black")),
        stock=lex.number(0, 900),
        other=f"{lex.number(100, 999)}-{lex.number(1000, 9999)}",
        stock2=lex.number(0, 900),
        batch=f"B{lex.number(10000, 99999)}",
        year=lex.year(),
    )


@templates.add("free-versions-and-hashes", fills=50, about="Dependency pins, changelogs, digests and UUIDs.")
def free_versions_and_hashes(lex: Lexicon) -> dict:
    fake = lex.fake("en_US")
    pattern = lex.pick(
        (
            "requirements.txt:\n```\ndjango=={version}\ncelery=={other}\nredis=={third}\n```",
            "Image digest: sha256:{sha256}\nTag: {version}-{short}",
            "Changelog {version}: bump the parser to {other} ({short}), drop support for {third}.",
            "The migration {number}_{slug} ran in {ms} ms on node {uuid}.",
            "Checksum (MD5) of release-{version}.tar.gz: {md5}",
        )
    )
    return compose(
        pattern,
        "free",
        version=lex.version(),
        other=lex.version(),
        third=lex.version(),
        sha256=fake.sha256(),
        short=lex.commit_hash(),
        number=f"{lex.number(1, 999):04d}",
        slug=lex.pick(("add_index", "drop_legacy_table", "backfill_totals")),
        ms=lex.number(10, 99999),
        uuid=fake.uuid4(),
        md5=fake.md5(),
    )


@templates.add("free-order-and-tracking", fills=50, about="Long order, tracking, invoice and case numbers.")
def free_order_and_tracking(lex: Lexicon) -> dict:
    pattern = lex.pick(
        (
            "Your order {long_order} has shipped. Tracking: {tracking}.",
            "Case {case} is linked to invoice {invoice}; the credit note is CN-{year}-{number}.",
            "We've reopened return {rma} for order {long_order}.",
            "Shipment {tracking} left the hub at {time} and is due on {date}.",
        )
    )
    return compose(
        pattern,
        "free",
        long_order=f"{lex.number(100, 999)}-{lex.number(1000000, 9999999)}-{lex.number(1000000, 9999999)}",
        tracking=f"{lex.number(1000, 9999)} {lex.number(1000, 9999)} {lex.number(1000, 9999)}",
        case=f"{lex.number(10000000, 99999999)}",
        invoice=f"{lex.year()}{lex.number(100000, 999999)}",
        year=lex.year(),
        number=lex.number(100, 9999),
        rma=f"RMA{lex.number(1000000, 9999999)}",
        time=lex.time_of_day()[1],
        date=lex.date(),
    )


PUBLIC_RECORD = (
    ("Johannes Gutenberg", "introduced movable-type printing to Europe around 1450"),
    ("Isaac Newton", "published the Principia in 1687"),
    ("Florence Nightingale", "founded a nursing school at St Thomas' Hospital in 1860"),
    ("Nikola Tesla", "demonstrated his induction motor in 1888"),
    ("Amelia Earhart", "flew solo across the Atlantic in 1932"),
    ("Dmitri Mendeleev", "published the periodic table in 1869"),
    ("Hedy Lamarr", "co-invented a frequency-hopping system patented in 1942"),
    ("Louis Pasteur", "developed a rabies vaccine in 1885"),
    ("Margaret Hamilton", "led the software engineering team for the Apollo guidance computer"),
    ("Guido van Rossum", "released the first version of Python in 1991"),
    ("Tim Cook", "became chief executive of Apple in 2011"),
    ("Satya Nadella", "was named chief executive of Microsoft in 2014"),
    ("Chimamanda Ngozi Adichie", "published Half of a Yellow Sun in 2006"),
    ("Usain Bolt", "set the 100 metres world record of 9.58 seconds in 2009"),
    ("Simone de Beauvoir", "published The Second Sex in 1949"),
    ("Jacinda Ardern", "served as Prime Minister of New Zealand from 2017 to 2023"),
)


@templates.add("free-public-figures", fills=50, about="Public figures in RAG answers that state the record.")
def free_public_figures(lex: Lexicon) -> dict:
    name, deed = lex.pick(PUBLIC_RECORD)
    pattern = lex.pick(
        (
            "Based on the sources, {name} {deed}.",
            "Short answer: {name} {deed}. The article adds more context in its second section.",
            "{name} {deed}, as the encyclopedia entry explains.",
            "Yes. The passage confirms that {name} {deed}.",
        )
    )
    return compose(pattern, "free", name=name, deed=deed)


@templates.add("free-people-at-work", fills=50, about="Colleagues named in their role: notes, changelogs, org news.")
def free_people_at_work(lex: Lexicon) -> dict:
    locale = lex.pick(LOCALES)
    pattern = lex.pick(
        (
            "Meeting notes ({date})\nAttendees: {name}, {other}\nAction: {name} to update the {product} runbook.",
            "{name} ({role}) approved the rollout of {feature} to all regions.",
            "Reviewed-by: {name}\nFixes the {feature} toggle in release {version}.",
            "The quarterly report was prepared by {name}, {role} at {company}.",
            "On call this week: {name} (primary) and {other} (secondary) for the {department} rota.",
        )
    )
    return compose(
        pattern,
        "free",
        locale,
        date=lex.date(),
        name=lex.person(locale),
        other=lex.person(locale),
        product=lex.product_name(),
        role=lex.role(),
        feature=lex.feature(),
        version=lex.version(),
        company=lex.company(),
        department=lex.pick(("payments", "platform", "search")),
    )
