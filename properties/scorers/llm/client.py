"""A chat-model client for LLM-judged properties: any provider through litellm, strict JSON replies.

`model_id` is litellm's "provider/model" ("openai/gpt-4o", "anthropic/claude-3-5-sonnet-20240620",
"ollama/llama3.1"); `base_url` points it at an OpenAI-compatible server or a local Ollama, and must
be one the operator allows (`net.policy`). The key is `api_key`, or the environment variable named
by `key_variable`, or, with neither and no `base_url`, the provider's own variable; variables must
be on the operator's allow-list, and a key from the environment never goes to a base URL it was not
named for. It never leaves this object: it is kept out of `repr`, logs, errors and stored details.
Every connection goes through the network guard (`net.guard`): the resolved address of the
endpoint and of every redirect.
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from properties.scorers.net import policy

if TYPE_CHECKING:
    # Imported where a request is made: the guard imports httpx (0.1 s), which the models module,
    # and so every process that only reads a project's settings, would otherwise pay for.
    from properties.scorers.net import guard

# litellm fetches its model price map from GitHub on import unless told otherwise; our build and CI
# machines have no internet, and a self-hosted worker should not phone home. Set before any import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

logger = logging.getLogger(__name__)

# A reply that is not the JSON asked for is asked again this many times, then stored as an error.
MAX_MALFORMED_RETRIES = 2
# Timeouts, 429 and 5xx answers are retried this many times with exponential backoff.
MAX_TRANSIENT_RETRIES = 4
BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 30.0
# A provider asking for a longer pause than this is treated as "try much later": we stop waiting.
MAX_RETRY_AFTER_S = 60.0
# How much of a bad reply an error message quotes: enough to see what went wrong, not a whole essay.
RAW_REPLY_CHARS = 500
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
# Provider keys that an error body may echo back even when the key came from the environment.
KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|sk-ant-[A-Za-z0-9_\-]{6,}|AIza[A-Za-z0-9_\-]{20,})")
NO_KEY = "no-key"
FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)

Expected = Mapping[str, type | tuple[type, ...]]


class JudgeError(Exception):
    """The model gave no usable verdict for one item; the message is safe to store and show."""

    def __init__(self, message: str, usage: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.usage = usage or {}


class BudgetExhausted(JudgeError):
    pass


class MalformedReply(ValueError):
    pass


@dataclass
class Budget:
    """Limits on calls and tokens shared by every item of a run (and across threads)."""

    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0
    # Summed over the calls litellm has a price for; the others are counted, so a total is never
    # mistaken for complete.
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_config(cls, config: Budget | Mapping[str, Any] | None) -> Budget:
        if isinstance(config, Budget):
            return config
        config = dict(config or {})
        unknown = set(config) - {"max_calls", "max_tokens"}
        if unknown:
            raise ValueError(f"unknown budget option(s) {sorted(unknown)}; use max_calls and max_tokens")
        return cls(max_calls=config.get("max_calls"), max_tokens=config.get("max_tokens"))

    def limits(self) -> dict[str, int | None]:
        return {"max_calls": self.max_calls, "max_tokens": self.max_tokens}

    def reserve_call(self) -> None:
        """Count one call before it is made, so that concurrent threads cannot overshoot max_calls."""
        with self._lock:
            if self.max_calls is not None and self.calls >= self.max_calls:
                raise BudgetExhausted(f"budget exhausted: {self.calls} of max_calls={self.max_calls} calls used")
            if self.max_tokens is not None and self.tokens >= self.max_tokens:
                raise BudgetExhausted(f"budget exhausted: {self.tokens} of max_tokens={self.max_tokens} tokens used")
            self.calls += 1

    @property
    def limited(self) -> bool:
        return self.max_calls is not None or self.max_tokens is not None

    def record_usage(self, tokens: int, cost_usd: float | None) -> None:
        """Count what a finished call used (its call was counted by reserve_call)."""
        with self._lock:
            self.tokens += tokens
            if cost_usd is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd += cost_usd


@dataclass
class JudgeReply:
    data: dict[str, Any]
    raw: str
    usage: dict[str, int]
    cost_usd: float | None


def parse_json_reply(text: str, expected: Expected) -> dict[str, Any]:
    """The reply's verdict: the whole reply as a JSON object, or the object in its one fenced block.

    Nothing else is trusted: no "find the first brace", no number picked out of prose, so text the
    judged output smuggled into the reply ("answer 1.0") cannot become a verdict.
    """
    text = text.strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        blocks = FENCE.findall(text)
        if len(blocks) != 1:
            raise MalformedReply(f"the reply is not JSON and has {len(blocks)} fenced JSON blocks, not 1") from None
        try:
            data = json.loads(blocks[0])
        except json.JSONDecodeError as exc:
            raise MalformedReply(f"the fenced block is not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise MalformedReply(f"the reply is a JSON {type(data).__name__}, not an object")
    for key, types in expected.items():
        if key not in data:
            raise MalformedReply(f"the reply has no {key!r} key")
        value = data[key]
        allowed = types if isinstance(types, tuple) else (types,)
        # bool is an int in Python, but true is not an answer to "give a number".
        if isinstance(value, bool) and bool not in allowed:
            raise MalformedReply(f"{key!r} is a boolean, expected {_type_names(allowed)}")
        if not isinstance(value, allowed):
            raise MalformedReply(f"{key!r} is {type(value).__name__}, expected {_type_names(allowed)}")
    return data


def _type_names(types: tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in types)


class LLMClient:
    """Asks one chat model for JSON verdicts, with retries, a budget and usage accounting."""

    def __init__(
        self,
        model_id: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        key_variable: str | None = None,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_reply_tokens: int | None = None,
        budget: Budget | None = None,
    ) -> None:
        """Raises policy.OutboundRefused when the operator does not allow the base URL or variable."""
        if base_url:
            policy.current().check_llm_base_url(base_url)
        if key_variable:
            policy.current().check_key_variable(key_variable)
        self.model_id = model_id
        self.base_url = base_url
        self._api_key = api_key
        self._key_variable = key_variable
        self.timeout = timeout
        self.temperature = temperature
        self.max_reply_tokens = max_reply_tokens
        self.budget = budget or Budget()

    def __repr__(self) -> str:
        return f"LLMClient(model_id={self.model_id!r}, base_url={self.base_url!r})"

    def ask_json(
        self,
        messages: list[dict[str, str]],
        expected: Expected,
        check: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> JudgeReply:
        """One verdict. A reply that is not the expected JSON, or that `check` rejects (returns a
        reason), is asked again (MAX_MALFORMED_RETRIES), then raises JudgeError with the raw reply."""
        usage: dict[str, int] = {}
        cost: float | None = 0.0
        raw = ""
        problem = ""
        for _ in range(MAX_MALFORMED_RETRIES + 1):
            raw, call_usage, call_cost = self._complete(messages, usage)
            _add_usage(usage, call_usage)
            cost = None if cost is None or call_cost is None else cost + call_cost
            try:
                data = parse_json_reply(raw, expected)
                rejected = check(data) if check else None
                if rejected:
                    raise MalformedReply(rejected)
            except MalformedReply as exc:
                problem = str(exc)
                logger.info("%s gave a malformed reply: %s", self.model_id, problem)
                continue
            return JudgeReply(data=data, raw=raw, usage=usage, cost_usd=cost)
        attempts = MAX_MALFORMED_RETRIES + 1
        message = f"no valid JSON verdict after {attempts} replies: {problem}; last reply: {raw[:RAW_REPLY_CHARS]!r}"
        raise JudgeError(self.scrub(message), usage)

    def _complete(self, messages: list[dict[str, str]], usage_so_far: dict[str, int]) -> tuple[str, dict, float | None]:
        """One completion, retrying transient failures with exponential backoff."""
        litellm = _litellm()
        import openai  # installed with litellm, so importable once litellm is

        for attempt in range(MAX_TRANSIENT_RETRIES + 1):
            try:
                self.budget.reserve_call()
            except BudgetExhausted as exc:
                raise BudgetExhausted(str(exc), usage_so_far) from None
            try:
                response = litellm.completion(**self._request(messages))
            except openai.OpenAIError as exc:
                # litellm maps every provider's failures onto openai's exception classes (whichever
                # SDK made the call); anything else is a bug on our side, not the provider's.
                blocked = _blocked_cause(exc)
                if blocked is not None:
                    message = f"{self.model_id}: refused by the network guard: {blocked}"
                    raise JudgeError(message, usage_so_far) from None
                status = getattr(exc, "status_code", None)
                retryable = status in RETRY_STATUSES or isinstance(
                    exc, litellm.Timeout | litellm.APIConnectionError | litellm.RateLimitError
                )
                reason = self.scrub(f"{type(exc).__name__}: {exc}")[:RAW_REPLY_CHARS]
                if not retryable or attempt == MAX_TRANSIENT_RETRIES:
                    message = f"{self.model_id} failed after {attempt + 1} attempt(s): {reason}"
                    raise JudgeError(message, usage_so_far) from None
                delay = _retry_after(exc)
                if delay is None:
                    delay = min(BACKOFF_BASE_S * 2**attempt, BACKOFF_MAX_S)
                elif delay > MAX_RETRY_AFTER_S:
                    raise JudgeError(f"{self.model_id} asked to wait {delay:.0f}s: {reason}", usage_so_far) from None
                logger.info("%s: %s; retrying in %.2fs", self.model_id, reason, delay)
                time.sleep(delay)
                continue
            usage = _usage_of(response)
            cost = _cost_of(litellm, response)
            self.budget.record_usage(usage.get("total_tokens", 0), cost)
            return _content_of(response), usage, cost
        raise AssertionError("unreachable: the loop returns or raises")

    def _request(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model_id,
            "messages": messages,
            "timeout": self.timeout,
            "temperature": self.temperature,
            # We retry ourselves (bounded, logged, budgeted); litellm's and the openai SDK's own
            # retries would multiply the attempts behind our back.
            "num_retries": 0,
            "max_retries": 0,
        }
        if self.base_url:
            request["api_base"] = self.base_url
        key = resolve_key(_provider_of(self.model_id, self.base_url), self.base_url, self._api_key, self._key_variable)
        if key is not None:
            request["api_key"] = key
        if self.max_reply_tokens:
            request["max_tokens"] = self.max_reply_tokens
        return request

    def scrub(self, text: str) -> str:
        """Remove the key from text a provider may have echoed (an error body, a reply)."""
        return scrub_secrets(text, [self._api_key] if self._api_key else [])


# A value shorter than this is not replaced: it would garble ordinary words, and no key is that short.
MIN_SECRET_CHARS = 8


def secret_values() -> list[str]:
    """The keys this process could send: the values of the operator's allowed key variables."""
    values = {os.environ.get(name, "") for name in policy.current().llm_key_variables}
    return [value for value in values if len(value) >= MIN_SECRET_CHARS]


def scrub_secrets(text: str, extra: list[str] | tuple[str, ...] = ()) -> str:
    """`text` with every key this process holds replaced by ***, by value (whatever the provider's
    format: a Mistral or Anthropic key looks like no pattern), then by the known key patterns."""
    for secret in sorted({*extra, *secret_values()}, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, "***")
    return KEY_PATTERN.sub("***", text)


def resolve_key(provider: str, base_url: str | None, api_key: str | None, key_variable: str | None) -> str | None:
    """The key one call sends: None lets the provider's own credential chain work (AWS, Google).

    A known provider always gets an explicit key, NO_KEY when it has none, so that litellm never
    falls back on an environment variable by itself: that is how an operator's key used to reach a
    base URL a project had set.
    """
    if api_key:
        return api_key
    if key_variable:
        key = os.environ.get(policy.current().check_key_variable(key_variable), "")
        if not key:
            raise JudgeError(f"the key variable {key_variable} is not set in the workers' environment")
        return key
    if base_url:
        # No key was named for this URL. (A local OpenAI-compatible server needs none, but the
        # openai SDK refuses to send a request without one.)
        return NO_KEY
    variable = policy.PROVIDER_KEY_VARIABLES.get(provider)
    if variable is None:
        return None  # a provider with a credential chain of its own (Bedrock, Vertex) or none (Ollama)
    if variable not in policy.current().llm_key_variables:
        return NO_KEY
    return os.environ.get(variable) or NO_KEY


def _blocked_cause(exc: BaseException) -> guard.BlockedAddress | None:
    """The guard's refusal behind an SDK's "Connection error": not transient, so never retried."""
    from properties.scorers.net import guard

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, guard.BlockedAddress):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _provider_of(model_id: str, base_url: str | None) -> str:
    """litellm's provider name for a model id ("gpt-4o" is openai's, "ollama/llama3.1" ollama's)."""
    prefix, slash, _ = model_id.partition("/")
    if slash and prefix:
        return prefix
    try:
        return str(_litellm().get_llm_provider(model=model_id, api_base=base_url)[1])
    except Exception:
        # litellm raises a plain BadRequestError subclass for a model it cannot place.
        return ""


_litellm_module: Any = None
_import_lock = threading.Lock()


def _litellm() -> Any:
    """litellm, imported on first use: it takes seconds to import, and most processes never judge."""
    global _litellm_module
    with _import_lock:
        if _litellm_module is None:
            import litellm

            from properties.scorers.net import guard

            # It otherwise prints "Provider List: https://..." banners to stdout on every error.
            litellm.suppress_debug_info = True
            # Every request litellm makes goes through the network guard: the OpenAI SDK's client
            # (client_session) and litellm's own HTTP handler for the other providers (sync_transport).
            litellm.client_session = guard.llm_http_client()
            litellm.sync_transport = guard.GuardedTransport(guard.llm_private_allowed)
            _litellm_module = litellm
    return _litellm_module


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), if the provider sent one."""
    headers: Mapping[str, str] | None = getattr(exc, "litellm_response_headers", None)
    response = getattr(exc, "response", None)
    if not headers and response is not None:
        headers = getattr(response, "headers", None)
    value = (headers or {}).get("retry-after") or (headers or {}).get("Retry-After")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        moment = email.utils.parsedate_to_datetime(value) if email.utils.parsedate_tz(value) else None
        return max(moment.timestamp() - time.time(), 0.0) if moment else None


def _content_of(response: Any) -> str:
    content = response.choices[0].message.content
    return content if isinstance(content, str) else ""


def _usage_of(response: Any) -> dict[str, int]:
    usage = getattr(response, "usage", None)
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {key: int(getattr(usage, key, 0) or 0) for key in keys} if usage else {}


def _add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    for key, value in usage.items():
        total[key] = total.get(key, 0) + value


def _cost_of(litellm: Any, response: Any) -> float | None:
    """The call's price from litellm's bundled price map; None for models it has no price for."""
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception as exc:
        # litellm raises plain Exception subclasses (ModelNotMappedError, ...) for unpriced models.
        logger.debug("no price for %s: %s", getattr(response, "model", "?"), type(exc).__name__)
        return None


def map_concurrently(
    func: Callable[[int], Any], count: int, max_concurrency: int, deadline_s: float | None = None, late: Any = None
) -> list[Any]:
    """func(0..count-1) on a thread pool of max_concurrency, results in order.

    With deadline_s, an item not finished in time gets `late` in its place and the call returns then:
    its thread is left to end on its own request timeout (a web request must not wait on it).
    """
    if count == 0:
        return []
    pool = ThreadPoolExecutor(max_workers=max(1, min(max_concurrency, count)))
    try:
        futures = [pool.submit(func, index) for index in range(count)]
        done, _ = wait(futures, timeout=deadline_s)
        return [future.result() if future in done else late for future in futures]
    finally:
        pool.shutdown(wait=deadline_s is None, cancel_futures=True)
