"""A real local server that speaks the OpenAI protocol, for the LLM-judged properties' tests.

Chat completions answer from a script, one step per request, then the last step forever. POST
/moderations answers every text by a fixed word list (MODERATED_WORDS), and POST /embeddings with
each text's letter counts (`letter_vector`, so that a test can compute the expected similarity),
unless a scripted step says otherwise (an error status). Test modules load the fixtures (server,
provider, base_url) with `pytest_plugins = ["tests.unit.llm_server"]`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from properties.scorers.llm import client as llm

USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
# What the fake moderation endpoint flags, by category.
MODERATED_WORDS = {"kill": "violence", "idiot": "harassment"}
MODERATION_CATEGORIES = ("harassment", "harassment/threatening", "hate", "self-harm", "sexual", "violence")


class FakeProvider:
    """What the server answers, one scripted step per request; then the last step forever."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = [{"content": "{}"}]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def script(self, *steps: dict[str, Any] | str) -> None:
        self.steps = [{"content": step} if isinstance(step, str) else step for step in steps]

    def next_step(self) -> dict[str, Any]:
        with self.lock:
            return self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]


def moderation_result(text: str) -> dict[str, Any]:
    hits = {category for word, category in MODERATED_WORDS.items() if word in text.lower()}
    return {
        "flagged": bool(hits),
        "categories": {category: category in hits for category in MODERATION_CATEGORIES},
        "category_scores": {category: 0.9 if category in hits else 0.01 for category in MODERATION_CATEGORIES},
    }


def letter_vector(text: str) -> list[float]:
    """The fake embedding of a text: how often each letter a-z occurs in it."""
    lowered = text.lower()
    return [float(lowered.count(letter)) for letter in "abcdefghijklmnopqrstuvwxyz"]


def make_handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with provider.lock:
                provider.requests.append(body)
                provider.headers.append({k.lower(): v for k, v in self.headers.items()})
                provider.paths.append(self.path)
            step = provider.next_step()
            time.sleep(step.get("sleep", 0))
            if "status" in step:
                payload = json.dumps({"error": {"message": step.get("message", "try later"), "type": "x"}})
                self.reply(step["status"], payload.encode(), step.get("headers", {}))
                return
            if self.path.endswith("/moderations"):
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                answer = {"id": "modr-1", "model": body["model"], "results": [moderation_result(t) for t in texts]}
                self.reply(200, json.dumps(answer).encode(), {})
                return
            if self.path.endswith("/embeddings"):
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": letter_vector(t)} for i, t in enumerate(texts)]
                usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
                answer = {"object": "list", "model": body["model"], "data": data, "usage": usage}
                self.reply(200, json.dumps(answer).encode(), {})
                return
            completion = {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": step["content"]}}
                ],
                "usage": USAGE,
            }
            self.reply(200, json.dumps(completion).encode(), {})

        def reply(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left; that is what the timeout tests want

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, FakeProvider]]:
    provider = FakeProvider()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(provider))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", provider
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def provider(server: tuple[str, FakeProvider], monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    _, fake = server
    with fake.lock:
        fake.requests.clear()
        fake.headers.clear()
        fake.paths.clear()
    # Backoff without a Retry-After is real code, just quicker here.
    monkeypatch.setattr(llm, "BACKOFF_BASE_S", 0.05)
    return fake


@pytest.fixture
def base_url(server: tuple[str, FakeProvider], settings) -> str:
    """The server's base URL, allowed as an operator allows a local model server (EVALSITE_LLM_BASE_URLS)."""
    settings.EVALSITE_LLM_BASE_URLS = [server[0]]
    return server[0]
