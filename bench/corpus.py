"""Deterministic synthetic interactions for benchmarks: prose, JSON, SQL, XML and text with links."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

_WORDS = """
the a an cat dog river city model answer question result data table user customer order price
is was are were runs ran shows showed returns returned improves explains describes contains
very quite rather not never always often good bad great terrible excellent poor simple clear
extraordinary philosophical infrastructure organisational responsibility documentation
configuration performance availability consideration unfortunately interestingly
"""
_VOCABULARY = _WORDS.split()
_CONNECTORS = ["and", "but", "because", "so", "while", "although", "however,", "therefore,"]
_TABLES = ["users", "orders", "products", "sessions", "invoices", "events"]
_COLUMNS = ["id", "name", "email", "total", "created_at", "status", "price", "quantity"]


@dataclass(frozen=True)
class Interaction:
    kind: str
    input: str
    output: str


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_VOCABULARY) for _ in range(rng.randint(4, 28))]
    if rng.random() < 0.4:
        words.insert(rng.randrange(1, len(words)), rng.choice(_CONNECTORS))
    return " ".join(words).capitalize() + rng.choice([".", ".", ".", "!", "?"])


def prose(rng: random.Random, sentences: tuple[int, int] = (1, 8)) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(*sentences)))


def json_output(rng: random.Random) -> str:
    order = {
        "id": rng.randint(1, 10_000),
        "items": [
            {"sku": f"SKU-{rng.randint(1, 999)}", "quantity": rng.randint(0, 5)} for _ in range(rng.randint(1, 6))
        ],
        "note": prose(rng, (1, 2)),
    }
    text = json.dumps(order, indent=rng.choice([None, 2]))
    if rng.random() < 0.15:
        text = text[: rng.randint(1, len(text) - 1)]  # truncated: almost JSON
    return f"```json\n{text}\n```" if rng.random() < 0.2 else text


def sql_output(rng: random.Random) -> str:
    table, column = rng.choice(_TABLES), rng.choice(_COLUMNS)
    statements = [
        f"SELECT {column}, count(*) FROM {table} WHERE status = 'open' GROUP BY {column} ORDER BY 2 DESC",
        f"select * from {table} where id = {rng.randint(1, 99)}",
        f"WITH recent AS (SELECT * FROM {table} WHERE created_at > '2024-01-01') SELECT {column} FROM recent",
        f"INSERT INTO {table} ({column}) VALUES ({rng.randint(1, 99)})",
        f"UPDATE {table} SET {column} = {rng.randint(1, 99)} WHERE id = {rng.randint(1, 99)}",
        f"DELETE FROM {table} WHERE {column} IS NULL",
        f"Select the {column} from the {table} list.",  # prose that starts like SQL
    ]
    return ";\n".join(rng.sample(statements, rng.randint(1, 2)))


def xml_output(rng: random.Random) -> str:
    items = "".join(f'<item sku="{rng.randint(1, 999)}">{rng.choice(_VOCABULARY)}</item>' for _ in range(4))
    text = f"<order id='{rng.randint(1, 99)}'>{items}</order>"
    return text[:-3] if rng.random() < 0.2 else text


def linked_output(rng: random.Random, base_url: str, unique_links: int) -> str:
    links = []
    for _ in range(rng.randint(1, 3)):
        number = rng.randrange(unique_links)
        kind = rng.choice(["ok", "ok", "ok", "missing", "redirect"])
        links.append(f"{base_url}/{kind}/{number}")
    text = prose(rng, (1, 3))
    for url in links:
        text += rng.choice([f" See {url}.", f" [source]({url})", f" ({url})", f" {url}"])
    return text


def interactions(count: int, base_url: str, unique_links: int = 500, seed: int = 20240601) -> list[Interaction]:
    """`count` interactions: 40% prose, 20% JSON, 15% SQL, 10% XML, 15% prose with links."""
    rng = random.Random(seed)
    makers = [
        ("prose", 40, lambda: prose(rng)),
        ("json", 20, lambda: json_output(rng)),
        ("sql", 15, lambda: sql_output(rng)),
        ("xml", 10, lambda: xml_output(rng)),
        ("links", 15, lambda: linked_output(rng, base_url, unique_links)),
    ]
    kinds = [kind for kind, weight, _ in makers for _ in range(weight)]
    make = {kind: maker for kind, _, maker in makers}
    result = []
    for _ in range(count):
        kind = rng.choice(kinds)
        result.append(Interaction(kind, prose(rng, (2, 12)), make[kind]()))
    return result
