"""Fluency's chat-reply training rows: seeded, balanced, every perturbation a real change, and
written apart from the generated behaviour suite."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from properties.scorers.runtime.heads import default_head_path, load_head
from properties.training import fluency_chat_rows
from properties.training.common import file_sha

REPLY = "Your ticket KX-40912 is with our team in Ghent, and someone will reply by Friday."


def test_rows_are_the_same_on_every_run_balanced_and_of_every_kind() -> None:
    first, again = fluency_chat_rows.generate(), fluency_chat_rows.generate()
    assert first == again and len(first) == fluency_chat_rows.ROWS
    assert [label for _, label, _ in first] == [1, 0] * (fluency_chat_rows.ROWS // 2)
    assert len({text for text, _, _ in first}) == len(first)
    assert {kind for _, label, kind in first if label == 1} == set(fluency_chat_rows.KINDS)
    hows = {kind.split("/")[1] for _, label, kind in first if label == 0}
    assert hows == {perturb.__name__ for perturb in fluency_chat_rows.PERTURBATIONS}


def test_a_disfluent_row_keeps_the_codes_and_figures_of_its_fluent_row() -> None:
    """Rare tokens are on both sides of every pair, so that they carry no label."""
    rows = fluency_chat_rows.generate()
    for (fluent, _, _), (broken, _, _) in zip(rows[::2], rows[1::2], strict=True):
        assert fluent.lower() != broken.lower()
        codes = {word.strip(".,;:!?") for word in fluent.lower().split() if re.search(r"\d", word)}
        assert codes <= {word.strip(".,;:!?") for word in broken.lower().split()}


@pytest.mark.parametrize("perturb", fluency_chat_rows.PERTURBATIONS, ids=lambda perturb: perturb.__name__)
def test_every_perturbation_changes_the_reply_and_keeps_its_stop(perturb) -> None:
    for seed in range(20):
        broken = perturb(random.Random(seed), REPLY)
        assert broken is not None and broken != REPLY
        assert broken[0].isupper() and broken.endswith(".")
        assert "KX-40912" in broken


def _four_word_runs(text: str) -> set[tuple[str, ...]]:
    """Runs of four words in `text`, a template's slots ("{name}") breaking a run."""
    runs = set()
    for part in re.split(r"\{[^}]*\}", text.lower()):
        words = re.findall(r"[a-z']+", part)
        runs |= {tuple(words[at : at + 4]) for at in range(len(words) - 3)}
    return runs


def test_the_rows_share_no_phrase_with_the_generated_behaviour_suite() -> None:
    """No row holds four words in a row of any string of bench/generated/fluency.py, its lexicon or
    its perturbations, and no lexicon value is one of this module's names."""
    from bench.generated import lexicon

    bench = Path(__file__).parents[3] / "bench" / "generated"
    phrases: set[tuple[str, ...]] = set()
    for name in ("fluency.py", "perturb.py", "lexicon.py"):
        for node in ast.walk(ast.parse((bench / name).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                phrases |= _four_word_runs(node.value)
    assert phrases
    shared = [text for text, _, _ in fluency_chat_rows.generate() if _four_word_runs(text) & phrases]
    assert not shared
    theirs = {
        str(value).lower()
        for name in dir(lexicon)
        if name.isupper() and isinstance(getattr(lexicon, name), tuple)
        for value in getattr(lexicon, name)
        if isinstance(value, str)
    }
    ours = {
        value.lower()
        for values in (fluency_chat_rows.HELPERS, fluency_chat_rows.TOWNS, fluency_chat_rows.APPS)
        for value in values
    }
    assert theirs and not ours & theirs


def test_the_packaged_head_records_the_chat_rows() -> None:
    head = load_head(default_head_path("fluency"))
    assert head.meta["chat_rows"] == {"rows": fluency_chat_rows.ROWS, "seed": fluency_chat_rows.SEED}
    assert head.meta["data"]["fluency_chat_rows.py"] == file_sha(Path(fluency_chat_rows.__file__))
