"""Imports every built-in scorer module so that each registers itself."""

from properties.scorers import text_stats  # noqa: F401
