"""The operator's outbound policy: which destinations scorers may reach, set once per process.

Users are untrusted and operators are not, so nothing here can be widened by a project's
configuration: the Django app sets the policy from its settings when it starts
(`properties.apps`), a plain-Python user calls `configure(...)` once. Link checks and LLM calls
read it at the moment they connect.

- Links in uploaded text never reach loopback, private, link-local or metadata addresses unless
  `allow_private_links` is set.
- A provider key is read only from an environment variable the operator allows
  (`llm_key_variables`, by default the provider key names litellm documents); the app's own
  secrets (Django, database, broker) can never be listed.
- An LLM call goes to its provider's default endpoint (litellm's, a public host) or to a base URL
  under one of `llm_base_urls`. The host and port of a listed base URL may be private (a local
  Ollama or vLLM server the operator named); every other connection of an LLM call, redirects
  included, must reach a public address.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# The variable litellm reads for each provider's key (litellm's provider docs); the default allow-list.
PROVIDER_KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "azure": "AZURE_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "codestral": "CODESTRAL_API_KEY",
    "cohere": "COHERE_API_KEY",
    "cohere_chat": "COHERE_API_KEY",
    "groq": "GROQ_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
    "xai": "XAI_API_KEY",
    "huggingface": "HUGGINGFACE_API_KEY",
    "replicate": "REPLICATE_API_KEY",
    "deepinfra": "DEEPINFRA_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "ai21": "AI21_API_KEY",
    "databricks": "DATABRICKS_API_KEY",
    "nvidia_nim": "NVIDIA_NIM_API_KEY",
    "sambanova": "SAMBANOVA_API_KEY",
    "voyage": "VOYAGE_API_KEY",
}
DEFAULT_LLM_KEY_VARIABLES = tuple(sorted(set(PROVIDER_KEY_VARIABLES.values())))
# The app's own secrets and connection strings: never a provider key, whatever the operator lists.
FORBIDDEN_KEY_VARIABLES = frozenset(
    {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "EVALSITE_SECRETS_KEY", "POSTGRES_PASSWORD"}
)
FORBIDDEN_KEY_PREFIXES = ("DJANGO_", "CELERY_", "EVALSITE_", "POSTGRES", "PG", "REDIS", "DATABASE")


class OutboundRefused(ValueError):
    """A destination the operator's policy does not allow; the message says which setting allows it."""


@dataclass(frozen=True)
class BaseURL:
    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> BaseURL:
        parts = urlsplit(url.strip())
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise OutboundRefused(f"{url!r} is not an http(s) URL with a host")
        if parts.username or parts.password:
            raise OutboundRefused(f"{url!r} carries credentials; give keys through the key settings instead")
        try:
            port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            raise OutboundRefused(f"{url!r} has an invalid port") from None
        return cls(parts.scheme, parts.hostname.lower(), port, parts.path.rstrip("/"))

    def covers(self, other: BaseURL) -> bool:
        """Whether `other` is this URL or a path under it (http://h:8000 covers http://h:8000/v1)."""
        same_origin = (self.scheme, self.host, self.port) == (other.scheme, other.host, other.port)
        return same_origin and (other.path == self.path or other.path.startswith(self.path + "/"))

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}{self.path}"


def check_key_variable_names(names: Sequence[str]) -> tuple[str, ...]:
    """The names, refusing any that is one of the app's own secrets or settings."""
    bad = [name for name in names if name in FORBIDDEN_KEY_VARIABLES or name.startswith(FORBIDDEN_KEY_PREFIXES)]
    if bad:
        raise OutboundRefused(f"{', '.join(bad)} cannot hold a provider key: they are the app's own settings")
    return tuple(names)


@dataclass(frozen=True)
class OutboundPolicy:
    allow_private_links: bool = False
    llm_base_urls: tuple[BaseURL, ...] = ()
    llm_key_variables: tuple[str, ...] = DEFAULT_LLM_KEY_VARIABLES

    def check_key_variable(self, name: str) -> str:
        if name not in self.llm_key_variables:
            raise OutboundRefused(
                f"{name!r} is not a provider key variable the operator allows "
                f"(EVALSITE_LLM_KEY_VARIABLES: {', '.join(self.llm_key_variables) or 'none'})"
            )
        return name

    def check_llm_base_url(self, url: str) -> BaseURL:
        """The parsed URL when the operator allows it; OutboundRefused (naming the setting) when not."""
        wanted = BaseURL.parse(url)
        if any(allowed.covers(wanted) for allowed in self.llm_base_urls):
            return wanted
        listed = ", ".join(str(allowed) for allowed in self.llm_base_urls) or "none"
        raise OutboundRefused(
            f"base URL {url!r} is not allowed by the operator (EVALSITE_LLM_BASE_URLS lists: {listed}); "
            "leave base_url empty to use the provider's own endpoint"
        )

    def private_llm_endpoint(self, host: str, port: int) -> bool:
        """Whether (host, port) is the origin of a listed base URL, where a private address is allowed."""
        host = host.strip("[]").lower()
        return any(allowed.host.strip("[]") == host and allowed.port == port for allowed in self.llm_base_urls)


_current = OutboundPolicy()


def current() -> OutboundPolicy:
    return _current


def configure(
    *,
    allow_private_links: bool = False,
    llm_base_urls: Sequence[str] = (),
    llm_key_variables: Sequence[str] = DEFAULT_LLM_KEY_VARIABLES,
) -> None:
    """Set the policy for this process (the Django app does it from settings at start)."""
    global _current
    _current = OutboundPolicy(
        allow_private_links,
        tuple(BaseURL.parse(url) for url in llm_base_urls),
        check_key_variable_names(llm_key_variables),
    )


@contextmanager
def temporarily(
    *,
    allow_private_links: bool | None = None,
    llm_base_urls: Sequence[str] | None = None,
    llm_key_variables: Sequence[str] | None = None,
) -> Iterator[OutboundPolicy]:
    """The policy with some fields changed for the length of a block (tests)."""
    global _current
    previous = _current
    _current = OutboundPolicy(
        previous.allow_private_links if allow_private_links is None else allow_private_links,
        previous.llm_base_urls if llm_base_urls is None else tuple(BaseURL.parse(url) for url in llm_base_urls),
        previous.llm_key_variables if llm_key_variables is None else check_key_variable_names(llm_key_variables),
    )
    try:
        yield _current
    finally:
        _current = previous
