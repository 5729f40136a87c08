"""Provider keys users enter for their projects, encrypted at rest with Fernet.

The operator's EVALSITE_SECRETS_KEY holds one or more Fernet keys (newest first): the first
encrypts, all of them decrypt, so a key can be rotated by putting a new one in front. A stored key
is never shown back, not even in part; it is decrypted only in the worker that makes the call.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

from properties.scorers.base import ScorerUnavailable


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
