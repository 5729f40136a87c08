"""Where an installed package's files lie, found without importing the package or numpy: the
packaged models, and TextBlob's lexicon for Sentiment (a cheap property that must start at once)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir(module: str) -> Path:
    """Where an installed package lies, without importing it (some ship only data, or import
    dependencies we install without)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the package {module!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))
