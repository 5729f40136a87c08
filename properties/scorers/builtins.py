"""Imports every built-in scorer module so that each registers itself."""

from properties.scorers import (  # noqa: F401
    compression,
    content_type,
    links,
    llm_judges,
    readability,
    schema,
    sentiment,
    structured,
    text_stats,
)
