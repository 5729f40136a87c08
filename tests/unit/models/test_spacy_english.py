"""One spaCy pipeline per process serves every property that parses, each call with only the
components its caller reads, and leaves the shared pipeline as it found it."""

from __future__ import annotations

from properties.scorers.runtime import spacy_english

TEXT = ["Ada Lovelace wrote the first program in London in 1843."]


def test_each_call_runs_only_the_components_its_caller_reads() -> None:
    nlp = spacy_english.pipeline("formality")
    assert spacy_english.pipeline("grounded_in_context") is nlp, "one loaded copy for every property"
    disabled_before = list(nlp.disabled)

    (tagged,) = spacy_english.parse(TEXT, "formality", spacy_english.TAGGER, 8)
    assert tagged[0].pos_ == "PROPN" and not tagged.ents and not tagged[0].dep_
    (found,) = spacy_english.parse(TEXT, "grounded_in_context", spacy_english.ENTITIES, 8)
    assert "Ada Lovelace" in [e.text for e in found.ents] and not found[0].pos_
    (both,) = spacy_english.parse(TEXT, "information_density", spacy_english.TAGGER_AND_ENTITIES, 8)
    assert both[0].pos_ == "PROPN" and both.ents and not both[0].dep_
    (full,) = spacy_english.parse(TEXT, "coverage", spacy_english.FULL, 8)
    assert full.ents and full[2].dep_ == "ROOT" and full[2].lemma_ == "write"

    assert list(nlp.disabled) == disabled_before, "the shared pipeline is left as it was"
