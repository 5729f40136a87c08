"""Deterministic varied texts for comparing our scorers with the libraries they wrap."""

from __future__ import annotations

import random

_VOCABULARY = """
the a cat dog sat ran is was very not never good bad great terrible awful lovely happy sad
extraordinary philosophical consideration infrastructure organisational responsibility
unbelievably quick slow bright dark interesting boring beautiful ugly excellent poor simple
complicated understand government environment opportunity, however; therefore: nevertheless
"""
WORDS = _VOCABULARY.split()
EXTRAS = ["café", "naïve", "日本語", "emoji 🙂", "3.14", "1,000", "e.g.", "Dr.", "U.S.A.", "don't", "it's", "—"]


def varied_texts(count: int, seed: int = 1234) -> list[str]:
    """Texts of 1 to 12 sentences of 1 to 40 words, mixing plain words with punctuation and unicode."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        sentences = []
        for _ in range(rng.randint(1, 12)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 40))]
            if rng.random() < 0.3:
                words.insert(rng.randrange(len(words) + 1), rng.choice(EXTRAS))
            sentences.append(" ".join(words).capitalize() + rng.choice([".", ".", "!", "?", "...", ""]))
        texts.append(rng.choice([" ", "\n", "  "]).join(sentences))
    return texts
