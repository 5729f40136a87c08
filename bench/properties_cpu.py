"""Throughput of the CPU properties against the raw library calls they wrap, on the same texts.

    .venv/bin/python -m bench.properties_cpu [--count 10000] [--batch-size 500] [--repeat 3]

Scores `count` synthetic interactions (bench/corpus.py) with every CPU property through the scorer
API (`run_batch` in batches) and prints interactions/s next to the raw library call on the same
texts, and the ratio ours/raw (target >= 0.8). Links point at an HTTP server started here, so the
bench allows private addresses for links, as an operator's EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES does.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from xml.etree.ElementTree import ParseError

import httpx
import jsonschema
import sqlglot
import textstat
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml
from sqlglot.errors import ErrorLevel, SqlglotError
from textblob import TextBlob

from bench.corpus import interactions
from properties.scorers.base import Scorer
from properties.scorers.compression_ratio import CompressionRatio
from properties.scorers.content_type import ContentType
from properties.scorers.invalid_links import InvalidLinks, extract_links
from properties.scorers.net import link_checker, policy
from properties.scorers.reading_ease import ReadingEase
from properties.scorers.schema import Schema
from properties.scorers.sentiment import Sentiment
from properties.scorers.valid_json import ValidJSON
from properties.scorers.valid_xml import ValidXML

ORDER_SCHEMA = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku", "quantity"],
                "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
            },
        },
    },
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

    def do_HEAD(self) -> None:
        kind = self.path.split("/")[1]
        if kind == "redirect":
            self.send_response(301)
            self.send_header("Location", self.path.replace("/redirect/", "/ok/"))
        else:
            self.send_response(404 if kind == "missing" else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(port_sender: Connection) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    port_sender.send(httpd.server_address[1])
    httpd.serve_forever()


def start_server() -> tuple[multiprocessing.Process, str]:
    """The link server runs in its own process, so that it does not compete for our GIL."""
    receiver, sender = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_serve, args=(sender,), daemon=True)
    process.start()
    return process, f"http://127.0.0.1:{receiver.recv()}"


def best_time(function: Callable[[], object], repeat: int, before: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(repeat):
        before()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def ours(scorer: Scorer, outputs: list[str], inputs: list[str], batch_size: int) -> Callable[[], object]:
    return lambda: scorer.run(outputs, inputs=inputs, batch_size=batch_size)


# The raw library calls, written as a user would write them without Evalsite: the plainest and
# fastest form, so try/except rather than contextlib.suppress (a context manager per item).
def raw_json(texts: list[str]) -> None:
    for text in texts:
        try:  # noqa: SIM105
            json.loads(text)
        except ValueError:
            pass


def raw_xml(texts: list[str]) -> None:
    for text in texts:
        try:  # noqa: SIM105
            parse_xml(text)
        except (ParseError, DefusedXmlException):
            pass


def raw_content_type(texts: list[str]) -> None:
    for text in texts:
        try:  # noqa: SIM105
            json.loads(text)
            continue
        except ValueError:
            pass
        try:  # noqa: SIM105
            sqlglot.parse(text, error_level=ErrorLevel.RAISE)
        except SqlglotError:
            pass


def raw_schema(texts: list[str]) -> None:
    for text in texts:
        try:  # noqa: SIM105
            jsonschema.validate(json.loads(text), ORDER_SCHEMA)
        except (ValueError, jsonschema.ValidationError):
            pass


def raw_schema_prebuilt(texts: list[str], list_errors: bool) -> None:
    """A validator built once; `list_errors` collects every error (what evidence needs), else yes/no."""
    validator = jsonschema.Draft202012Validator(ORDER_SCHEMA)
    for text in texts:
        try:
            document = json.loads(text)
        except ValueError:
            continue
        if list_errors:
            list(validator.iter_errors(document))
        else:
            validator.is_valid(document)


def raw_links(texts: list[str]) -> None:
    urls = list(dict.fromkeys(url for text in texts for _, _, url in extract_links(text)))
    with (
        httpx.Client(timeout=5.0, follow_redirects=True, limits=httpx.Limits(max_connections=32)) as client,
        ThreadPoolExecutor(max_workers=16) as pool,
    ):
        list(pool.map(lambda url: client.head(url).status_code, urls))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    server, base_url = start_server()
    rows = interactions(args.count, base_url)
    outputs, inputs = [row.output for row in rows], [row.input for row in rows]
    n, batch = len(rows), args.batch_size
    print(f"{n} interactions, batch size {batch}, best of {args.repeat}; kinds:", end=" ")
    print(", ".join(f"{kind} {sum(r.kind == kind for r in rows)}" for kind in ("prose", "json", "sql", "xml", "links")))

    # Warm up lazy loads (textstat's syllable dictionary, TextBlob's lexicon, sqlglot's tables).
    for scorer in (ReadingEase(), Sentiment(), ContentType()):
        scorer.run_batch(outputs[:50])
    textstat.flesch_reading_ease(outputs[0] + " warm")
    TextBlob(outputs[0]).sentiment  # noqa: B018

    policy.configure(allow_private_links=True)
    links = InvalidLinks(concurrency=16, per_host_limit=16)
    cases: list[tuple[str, Callable[[], object], Callable[[], object], Callable[[], object]]] = [
        ("reading_ease", ours(ReadingEase(), outputs, inputs, batch),
         lambda: [textstat.flesch_reading_ease(t) for t in outputs], lambda: None),
        ("sentiment", ours(Sentiment(), outputs, inputs, batch),
         lambda: [TextBlob(t).sentiment.polarity for t in outputs], lambda: None),
        ("content_type", ours(ContentType(), outputs, inputs, batch), lambda: raw_content_type(outputs), lambda: None),
        ("compression_ratio", ours(CompressionRatio(), outputs, inputs, batch),
         lambda: [len(i) / len(o) if o else None for i, o in zip(inputs, outputs, strict=True)], lambda: None),
        ("valid_json", ours(ValidJSON(), outputs, inputs, batch), lambda: raw_json(outputs), lambda: None),
        ("valid_xml", ours(ValidXML(), outputs, inputs, batch), lambda: raw_xml(outputs), lambda: None),
        ("schema", ours(Schema(json_schema=ORDER_SCHEMA), outputs, inputs, batch),
         lambda: raw_schema(outputs), lambda: None),
        ("schema (vs prebuilt, all errors)", ours(Schema(json_schema=ORDER_SCHEMA), outputs, inputs, batch),
         lambda: raw_schema_prebuilt(outputs, list_errors=True), lambda: None),
        ("schema (vs prebuilt, is_valid)", ours(Schema(json_schema=ORDER_SCHEMA), outputs, inputs, batch),
         lambda: raw_schema_prebuilt(outputs, list_errors=False), lambda: None),
        ("invalid_links", ours(links, outputs, inputs, batch), lambda: raw_links(outputs), link_checker.clear_cache),
    ]  # fmt: skip
    print(f"{'property':32} {'ours/s':>10} {'raw/s':>10} {'ratio':>6}")
    for name, our_call, raw_call, before in cases:
        # Alternate so that neither side always runs on a warmer CPU cache.
        raw_seconds = best_time(raw_call, args.repeat)
        our_seconds = best_time(our_call, args.repeat, before)
        ratio = raw_seconds / our_seconds
        print(f"{name:32} {n / our_seconds:10.0f} {n / raw_seconds:10.0f} {ratio:6.2f}")
    cached = best_time(ours(links, outputs, inputs, batch), args.repeat)
    print(f"{'invalid_links (cache warm)':32} {n / cached:10.0f}")
    server.terminate()


if __name__ == "__main__":
    main()
