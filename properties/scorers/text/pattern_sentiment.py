"""TextBlob's English sentiment analyser (the pattern lexicon), built without importing TextBlob.

`from textblob.en import sentiment` imports the `textblob` package, whose `__init__` imports NLTK,
which imports SciPy's statistics and scikit-learn: 1.7 s before the first value, for a property
that then reads about 10,000 texts a second. The analyser itself lives in one module of TextBlob,
`textblob/_text.py`, which needs only the standard library. This module loads that file as a module
of its own and configures it exactly as `textblob/en/__init__.py` does (the same lexicon file,
negations, modifiers and tokenizer, and the same `load` that adds the "-ly" adverbs): the same
analyser, the same numbers, in about 0.1 s. `tests/unit/scorers/test_pattern_sentiment.py` checks it gives
TextBlob's values.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from properties.scorers.runtime import packages

_lock = threading.Lock()
_analyser: Callable[[str], Any] | None = None


def _pattern_module(textblob: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("properties.scorers.text._textblob_pattern", textblob / "_text.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot read {textblob / '_text.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build() -> Callable[[str], Any]:
    textblob = packages.package_dir("textblob")
    pattern = _pattern_module(textblob)

    class EnglishSentiment(pattern.Sentiment):  # type: ignore[name-defined,misc]
        """textblob.en.Sentiment: on load, each adjective also scores as its "-ly" adverb."""

        def load(self, path: str | None = None) -> None:
            pattern.Sentiment.load(self, path)
            if not path:
                for word, pos in list(dict.items(self)):
                    if "JJ" in pos:
                        if word.endswith("y"):
                            word = word[:-1] + "i"
                        if word.endswith("le"):
                            word = word[:-2]
                        polarity, subjectivity, intensity = pos["JJ"]
                        self.annotate(word + "ly", "RB", polarity, subjectivity, intensity)

    parser = pattern.Parser(default=("NN", "NNP", "CD"), language="en")
    return EnglishSentiment(
        path=str(textblob / "en" / "en-sentiment.xml"),
        synset="wordnet_id",
        negations=("no", "not", "n't", "never"),
        modifiers=("RB",),
        modifier=lambda word: word.endswith("ly"),
        tokenizer=parser.find_tokens,
        language="en",
    )


def sentiment(text: str) -> tuple[float, float]:
    """(polarity, subjectivity) of a text, as `textblob.en.sentiment(text)` gives them."""
    global _analyser
    if _analyser is None:
        with _lock:
            if _analyser is None:
                _analyser = _build()
    polarity, subjectivity = _analyser(text)[:2]
    return float(polarity), float(subjectivity)
