"""Sentiment's analyser is TextBlob's, built without importing TextBlob: it gives TextBlob's values,
negations, intensifiers and "-ly" adverbs included, and starts without NLTK or SciPy."""

from __future__ import annotations

import subprocess
import sys

import pytest

from properties.scorers.text.pattern_sentiment import sentiment

TEXTS = [
    "The staff were not very helpful, but the room was lovely!",
    "Refunds are accepted within 30 days of purchase.",
    "This is absolutely the worst service I have ever had.",
    "It isn't great.",
    "never happy",
    "terribly good",
    "I absolutely loved it!!! :)",
    "Not bad at all.",
    "The update is slightly better than the last one, honestly.",
    "You stupid idiot.",
    "",
    "   ",
    "Paragraph one is fine.\n\nParagraph two is awful and disappointing.",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_values_are_textblobs(text):
    from textblob.en import sentiment as textblob_sentiment

    polarity, subjectivity = textblob_sentiment(text)[:2]
    assert sentiment(text) == (float(polarity), float(subjectivity))


def test_scoring_sentiment_imports_neither_textblob_nor_nltk_nor_scipy():
    code = (
        "import sys\n"
        "from properties.scorers import registry\n"
        "score = registry.get('sentiment')().run_batch(['What a lovely day!'])[0]\n"
        "assert score.value > 0.5, score\n"
        "print(sorted(name for name in ('textblob', 'nltk', 'scipy') if name in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
