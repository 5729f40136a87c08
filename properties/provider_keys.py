"""Provider keys users enter for their projects, encrypted at rest with Fernet, and the server's
secrets scrubbed from whatever it stores or shows.

The operator's EVALSITE_SECRETS_KEY holds one or more Fernet keys (newest first): the first
encrypts, all of them decrypt, so a key can be rotated by putting a new one in front. A stored key
is never shown back, not even in part; it is decrypted only in the worker that makes the call.

`scrub` replaces, by value, every secret the server holds or uses (SECRET_KEY, the secrets key,
the database, broker and cache URLs and their passwords, the operator's allowed provider key
variables) in text about to be stored or logged: job and value errors, notices, previews. A
provider's error may quote the key it was sent in any format, so matching by pattern is not enough.
"""

from __future__ import annotations

import logging
import os
from urllib.parse import unquote, urlsplit

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

from properties.scorers.base import ScorerUnavailable
from properties.scorers.llm.client import MIN_SECRET_CHARS, scrub_secrets

# Environment variables holding connection URLs with credentials (docker-compose.yml sets them).
URL_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")


class SecretsUnavailable(ScorerUnavailable):
    """Keys cannot be stored or read: the operator has not set EVALSITE_SECRETS_KEY, or it changed.
    A scorer whose key cannot be read is unavailable, with this message."""


def _fernet() -> MultiFernet:
    keys = [key for key in settings.EVALSITE_SECRETS_KEY if key]
    if not keys:
        raise SecretsUnavailable(
            "this server cannot store provider keys: its operator has not set EVALSITE_SECRETS_KEY (see .env.example)"
        )
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except ValueError:
        raise SecretsUnavailable("EVALSITE_SECRETS_KEY is not a valid Fernet key (32 url-safe base64 bytes)") from None


def encrypt(key: str) -> str:
    return _fernet().encrypt(key.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise SecretsUnavailable(
            "a stored provider key cannot be decrypted with EVALSITE_SECRETS_KEY: the operator changed it "
            "without keeping the old key; enter the key again"
        ) from None


def can_store() -> bool:
    try:
        _fernet()
    except SecretsUnavailable:
        return False
    return True


def server_secrets() -> list[str]:
    """Every secret value the server holds, longest first (a URL before the password inside it)."""
    values = {settings.SECRET_KEY, *settings.EVALSITE_SECRETS_KEY}
    urls = [os.environ.get(name, "") for name in URL_VARIABLES]
    urls.append(getattr(settings, "CELERY_BROKER_URL", ""))
    for database in settings.DATABASES.values():
        values.add(database.get("PASSWORD") or "")
    for url in urls:
        if not url:
            continue
        values.add(url)
        try:
            password = urlsplit(url).password
        except ValueError:
            password = None
        if password:
            values.update({password, unquote(password)})
    return sorted((value for value in values if value and len(value) >= MIN_SECRET_CHARS), key=len, reverse=True)


def scrub(text: str, extra: list[str] | tuple[str, ...] = ()) -> str:
    """`text` with every server secret, provider key and `extra` value replaced by ***."""
    if not text:
        return text
    return scrub_secrets(text, [*server_secrets(), *extra])


class ScrubSecrets(logging.Filter):
    """A logging filter: the server's secrets never reach a log line (settings.LOGGING, the workers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = scrub(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        if record.exc_info and not record.exc_text:
            # Formatted here, scrubbed, and kept: handlers print exc_text as it is.
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        return True
