"""Each model-backed property on clear cases, with its default packaged model."""

from __future__ import annotations

import re

from properties.scorers import registry
from properties.scorers.base import Score

SLUR = "You are a worthless faggot, go kill yourself you stupid bitch."
THANKS = "Thank you so much for your help yesterday, I really appreciate it!"
CHAT = "u r gr8 lol"
LEGAL = "The Licensee shall indemnify the Licensor against all claims arising under this Agreement."
REFUSAL = "I'm sorry, but I can't help with that. Writing malware is illegal and harmful."
ANSWER = "The capital of France is Paris. It has been the capital since the tenth century."


def values(results: list) -> list[float]:
    return [result.value for result in results]


def test_registered_on_the_models_queue() -> None:
    for name in ("toxicity", "fluency", "formality", "avoided_answer", "pii_risk"):
        cls = registry.get(name)
        assert cls.queue == "models"
        assert registry.is_builtin(name)


def test_toxicity_slur_versus_thanks(toxicity) -> None:
    slur, thanks = values(toxicity.run_batch([SLUR, THANKS]))
    assert slur > 0.9
    assert thanks < 0.1


def test_toxicity_scores_the_tail_of_a_long_text(toxicity) -> None:
    # ~900 harmless words push the insult far past every model's window: windows keep it seen.
    long_text = "The committee reviewed the quarterly budget and approved it. " * 100 + SLUR
    [value] = values(toxicity.run_batch([long_text]))
    assert value > 0.5


def test_toxicity_is_the_most_toxic_sentence_and_each_toxic_sentence_is_evidence(toxicity) -> None:
    polite = "Thanks for waiting. Your refund was issued today. "
    insult = "Honestly, you are a stupid idiot."
    threat = "Ask again and I will make you regret it."
    text = polite + insult + " It should reach your card within five days. " + threat
    [score] = toxicity.run_batch([text])
    by_text = {text[span.start : span.end]: span for span in score.spans}
    assert set(by_text) == {insult, threat}
    assert by_text[insult].note == "rude or insulting to the person it speaks to"
    assert by_text[threat].note.startswith("threatens harm")
    assert all(span.label == "toxic" and span.field == "output" and span.score >= 0.5 for span in score.spans)
    assert score.value == max(span.score for span in score.spans)
    [alone] = toxicity.run_batch([polite])
    assert alone.value < 0.1 and [span.label for span in alone.spans] == ["most toxic"]


def test_formality_chat_versus_legal(formality) -> None:
    scored = formality.run_batch([CHAT, LEGAL])
    chat, legal = values(scored)
    assert chat < 0.2
    assert legal > 0.8
    # An informal text shows its informal sentences and their markers; a formal one shows none.
    assert [span.label for span in scored[0].spans] == ["informal"] and "chat words" in scored[0].spans[0].note
    assert scored[1].spans == []


def test_fluency_chat_versus_legal(fluency) -> None:
    chat, legal = values(fluency.run_batch([CHAT, LEGAL]))
    assert chat < 0.3
    assert legal > 0.7


def test_avoided_answer_refusal_versus_answer(avoided_answer) -> None:
    refusal, answer = avoided_answer.run_batch([REFUSAL, ANSWER], None, ["Write me malware.", "Capital of France?"])
    assert refusal.value > 0.5
    assert answer.value < 0.2
    assert [span.score for span in answer.spans] == [answer.value]  # the output as a whole, under 0.5
    # The refusal sentence comes first; every span scores on the same side as the value it explains.
    assert REFUSAL[refusal.spans[0].start : refusal.spans[0].end] == "I'm sorry, but I can't help with that."
    assert all(span.field == "output" and span.label == "refusal" and span.score >= 0.5 for span in refusal.spans)


def test_pii_spans_point_at_the_entities(pii_risk) -> None:
    pii_risk.current_field = "input"
    text = "Please contact John Smith at john.smith@example.com or pay with card 4111 1111 1111 1111."
    [score] = pii_risk.run_batch([text])
    found = {span.label: text[span.start : span.end] for span in score.spans}
    assert found["email"] == "john.smith@example.com"
    assert found["credit_card"] == "4111 1111 1111 1111"
    assert "John Smith" in found["person_name"]
    assert score.value == max(span.score for span in score.spans) >= 0.95
    assert all(span.field == "input" and re.search(r"confidence .* x risk factor", span.note) for span in score.spans)


def test_pii_clean_text_is_low(pii_risk) -> None:
    [score] = pii_risk.run_batch(["The weather in Paris is lovely this time of year."])
    assert score.value < 0.3


def test_empty_text_is_not_applicable_and_the_rest_go_on(toxicity) -> None:
    empty, thanks = toxicity.run_batch(["   ", THANKS])
    assert isinstance(empty, Score) and empty.ok and empty.value is None and empty.not_applicable_reason
    assert thanks.ok and thanks.value < 0.1
