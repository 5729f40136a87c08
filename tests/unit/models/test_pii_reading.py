"""PII Risk's reading of entities: quantities dismissed, validated detectors first, names by use,
spans on whole words. The first tests feed the scorer entities directly (no model); the last ones
run the packaged Rampart model."""

from __future__ import annotations

import pytest

from properties.scorers.pii_risk import ENCYCLOPEDIC_FACTOR, MENTION_FACTOR, Finding, PIIRisk, resolve_overlaps
from properties.scorers.runtime.pii_model import merge_adjacent, widen_to_words, word_bounds
from properties.scorers.text.pii_detectors import detect


def entity(text: str, words: str, kind: str, confidence: float = 0.98) -> tuple[int, int, str, float]:
    start = text.index(words)
    return (start, start + len(words), kind, confidence)


def test_a_figure_the_model_took_for_an_address_is_not_personal_data() -> None:
    text = "Mount Everest is 8,849 metres tall."
    score = PIIRisk().to_score(text, [entity(text, "8,849", "street_address")])
    assert score.value == 0.0 and score.spans == []
    assert score.details["not_personal_data"] == [
        {"text": "8,849", "type": "street_address", "reason": "a figure with thousands separators"}
    ]


def test_a_year_is_a_postal_code_only_inside_an_address() -> None:
    scorer = PIIRisk()
    year = "The Great Wall was finished in 1644."
    assert scorer.to_score(year, [entity(year, "1644", "zip_code")]).value == 0.0
    address = "Send it to 12 George Street, Sydney NSW 2000."
    found = [entity(address, "12 George Street", "street_address"), entity(address, "Sydney", "city")]
    found += [entity(address, "NSW", "state"), entity(address, "2000", "zip_code")]
    labels = {span.label for span in scorer.to_score(address, found).spans}
    assert labels == {"street_address", "city", "state", "zip_code"}


def test_a_street_address_locates_a_household_or_is_only_part_of_an_address() -> None:
    scorer = PIIRisk()
    cases = {
        "I live at 42 Elm Road now.": ("42 Elm Road", "street_address"),
        "The market stands between Grey Street and Clayton Street.": ("Clayton Street", "address_part"),
        "Launch complex LC-34 was used for the test.": ("LC-34", "address_part"),
        "The network has 232 affiliated stations.": ("232", "address_part"),
        "The parade turns at 82nd Street.": ("82nd Street", "address_part"),
        "The studio moved to 7 West 66th Street.": ("7 West 66th Street", "street_address"),
    }
    for text, (words, expected) in cases.items():
        [span] = scorer.to_score(text, [entity(text, words, "street_address", 1.0)]).spans
        assert span.label == expected
        assert span.score == pytest.approx(0.8 if expected == "street_address" else 0.3)


def test_an_address_block_spans_lines() -> None:
    text = "12 George Street\nSydney NSW\n2000"
    found = [entity(text, "12 George Street", "street_address"), entity(text, "Sydney", "city")]
    found += [entity(text, "NSW", "state"), entity(text, "2000", "zip_code")]
    labels = {span.label for span in PIIRisk().to_score(text, found).spans}
    assert labels == {"street_address", "city", "state", "zip_code"}


def test_a_validated_detector_wins_over_the_model_on_the_same_characters() -> None:
    text = "The failed logins came from 203.0.113.42 at night."
    model = Finding(*entity(text, "203.0.113.42", "phone", 0.95))
    detector = Finding(*detect(text)[0])
    assert resolve_overlaps(text, [model, detector], {"phone": 0.8, "ip_address": 0.6}) == [detector]


def test_a_name_counts_by_how_it_is_used_and_the_note_says_so() -> None:
    scorer = PIIRisk()
    encyclopedic = "Marie Curie won the Nobel Prize in Physics in 1903."
    mention = "The keynote was given by Marie Curie, followed by a panel."
    personal = "Hi Marie Curie, your account has been unlocked."
    values = {}
    for text in (encyclopedic, mention, personal):
        [span] = scorer.to_score(text, [entity(text, "Marie Curie", "person_name", 1.0)]).spans
        values[text] = span.score
    assert values[personal] == pytest.approx(0.7)
    assert values[mention] == pytest.approx(0.7 * MENTION_FACTOR)
    assert values[encyclopedic] == pytest.approx(0.7 * ENCYCLOPEDIC_FACTOR)
    [span] = scorer.to_score(encyclopedic, [entity(encyclopedic, "Marie Curie", "person_name", 1.0)]).spans
    assert "encyclopedic statement" in span.note and "risk factor 0.70" in span.note


def test_contact_details_anywhere_keep_every_name_at_full_risk() -> None:
    text = "Marie Curie won the Nobel Prize in 1903. Write to laura.jensen@hotmail.com for the talk."
    score = PIIRisk().to_score(text, [entity(text, "Marie Curie", "person_name", 1.0)], detect(text))
    names = [span for span in score.spans if span.label == "person_name"]
    assert names[0].score == pytest.approx(0.7)
    assert score.value == pytest.approx(0.99 * 0.8)


def test_words_are_what_a_reader_sees() -> None:
    text = 'Call (415) 555-0132, or write to "sarah.miller@gmail.com". Mike\'s 8,849 m.'
    assert [text[start:end] for start, end in word_bounds(text)] == [
        "Call",
        "(415)",
        "555-0132",
        "or",
        "write",
        "to",
        "sarah.miller@gmail.com",
        "Mike",
        "8,849",
        "m",
    ]


def test_a_user_models_partial_span_is_widened_to_whole_words() -> None:
    text = "She was born in 1519 at Amboise."
    start = text.index("1519")
    assert widen_to_words(text, [(start, start + 3, "zip_code", 0.9)]) == [(start, start + 4, "zip_code", 0.9)]


# --- with the packaged model ---------------------------------------------------------------------


def test_spans_cover_whole_words_exactly(pii_risk) -> None:
    text = "Ship it to Dana Whitfield, 1519 Maple Avenue, Springfield, IL 62704, or mail dana.w@gmail.com."
    [score] = pii_risk.run_batch([text])
    found = {span.label: text[span.start : span.end] for span in score.spans}
    assert found["email"] == "dana.w@gmail.com"
    assert found["zip_code"] == "62704"
    assert found["city"] == "Springfield"
    assert found["street_address"].startswith("1519 Maple Avenue")
    boundaries = {edge for bounds in word_bounds(text) for edge in bounds}
    assert all(span.start in boundaries and span.end in boundaries for span in score.spans)


def test_the_issues_figures_are_not_personal_data(pii_risk) -> None:
    texts = [
        "Mount Everest is 8,849 metres tall.",
        "The speed of light is 299,792,458 metres per second.",
        "The Mona Lisa was painted between 1503 and 1519.",
    ]
    for score in pii_risk.run_batch(texts):
        assert score.value < 0.3
        assert not {"street_address", "zip_code", "phone"} & {span.label for span in score.spans}


def test_an_identifier_the_model_guessed_counts_half_without_a_word_of_its_kind() -> None:
    scorer = PIIRisk()
    order = "Jan Novak packed order QNH-197423 on 3 January."
    licence = "Driver licence no. QNH-197423, holder Jan Novak."
    entities = {
        text: [entity(text, "QNH-197423", "drivers_license", 0.9), entity(text, "Jan Novak", "person_name", 0.9)]
        for text in (order, licence)
    }
    unnamed = scorer.to_score(order, entities[order])
    named = scorer.to_score(licence, entities[licence])
    code = next(span for span in unnamed.spans if span.label == "drivers_license")
    assert code.score == pytest.approx(0.9 * 0.9 * 0.5) and "no word of its kind" in code.note
    assert unnamed.value < 0.5, "an order number is no contact detail: the name counts as a mention"
    assert named.value >= 0.5


def test_a_phone_number_counts_half_unless_written_as_one_or_after_a_word_of_its_kind() -> None:
    scorer = PIIRisk()
    for text, number, full in (
        ("Invoice 1995417500 is due on Friday.", "1995417500", False),
        ("Tracking 8642 6843 2384 is due on Friday.", "8642 6843 2384", False),
        ("Call me back on 1995417500 on Friday.", "1995417500", True),
        ("Rufen Sie mich unter 030 1234567 an.", "030 1234567", True),
        ("Jane Doe, 212-555-0134", "212-555-0134", True),
    ):
        score = scorer.to_score(text, [entity(text, number, "phone", 1.0)])
        assert (score.value >= 0.5) is full, text
        assert full or "no word of its kind" in score.spans[0].note


def test_of_two_validated_readings_the_one_that_checked_more_stays() -> None:
    text = "The refund goes to IBAN ES79 2612 3584 7635 3033 4615 on Friday."
    found = [Finding(*found) for found in detect(text)]
    assert {finding.kind for finding in found} == {"iban", "credit_card"}, "the card's checksum holds inside"
    [kept] = resolve_overlaps(text, found, {"iban": 0.9, "credit_card": 1.0})
    assert kept.kind == "iban"


def test_an_abbreviated_street_is_one_address_with_its_number() -> None:
    text = "Deliver to Neuschäferstr. 43, 62639 Stade."
    parts = [entity(text, "Neuschäferstr", "street_address", 0.9), entity(text, "43", "street_address", 0.9)]
    assert merge_adjacent(text, parts) == [entity(text, "Neuschäferstr. 43", "street_address", 0.9)]
