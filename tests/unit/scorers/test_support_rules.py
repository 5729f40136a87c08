"""Grounded in Context's lexical rules: times of day, short forms, durations in words, and an
attribute moved from one entity of a sentence to another."""

from __future__ import annotations

import pytest

from properties.scorers.text import abbreviations, measures, support, times


def minutes(text: str) -> list[list[tuple[int, int]]]:
    return [sorted(divmod(reading, 60) for reading in time.readings) for time in times.times_of_day(text)]


@pytest.mark.parametrize(
    "text, readings",
    [
        ("closes at a quarter to ten in the morning", [[(9, 45)]]),
        ("runs at half past seven in the evening", [[(19, 30)]]),
        ("starts at 3:45 pm", [[(15, 45)]]),
        ("a quarter to one in the afternoon", [[(12, 45)]]),
        ("seven o'clock", [[(7, 0), (19, 0)]]),
        ("from 9:00 to 17:00", [[(9, 0), (21, 0)], [(17, 0)]]),
        ("at noon", [[(12, 0)]]),
        ("Version 2.1.4 costs 3.50 dollars", []),
    ],
)
def test_times_of_day_are_read_however_they_are_written(text, readings) -> None:
    assert minutes(text) == readings


def test_a_time_is_compared_as_a_time() -> None:
    passage = "Daily backups run at half past seven in the evening."
    assert support.mismatch("Daily backups run at 19:30.", [], passage) is None
    assert support.copied("Daily backups run at 19:30.", passage)
    changed = support.mismatch("Daily backups run at 18:30.", [], passage)
    assert changed == "the documents say half past seven in the evening, the answer says 18:30"
    assert support.mismatch("Daily backups run at 7:30 am.", [], passage) is not None


def test_durations_in_words_are_quantities() -> None:
    assert measures.same_quantity_in("30", "The call lasts 30 minutes.", "The call lasts half an hour.")
    assert measures.same_quantity_in("90", "It takes 90 minutes.", "It takes an hour and a half.")
    assert not measures.same_quantity_in("45", "The call lasts 45 minutes.", "The call lasts half an hour.")
    assert support.copied("The cable is 300 cm long.", "The cable is 3 metres long.")


@pytest.mark.parametrize(
    "statement, passage, forms",
    [
        ("SSO is included.", "Single sign-on is included.", {"SSO": "Single sign on"}),
        ("Support is open Mon-Fri.", "Support is open Monday to Friday.", {"Mon": "Monday", "Fri": "Friday"}),
        ("Revenue was USD 58M.", "Revenue was 58 million US dollars.", {"USD": "US dollars", "58M": "58 million"}),
        ("Falcon supports 2FA.", "Falcon supports two-factor authentication.", {"2FA": "two factor authentication"}),
        ("Jan Novak leads it.", "Janet Novak leads it.", {}),  # a cut word only where the writer marks it
    ],
)
def test_short_forms_of_the_passages_words(statement, passage, forms) -> None:
    assert abbreviations.short_forms(statement, passage) == forms


def test_a_short_form_is_no_new_name_but_another_name_is() -> None:
    passage = "The Titan application programming interface allows 697 requests per minute."
    assert support.mismatch("The Titan API allows 697 requests per minute.", ["Titan API"], passage) is None
    assert support.copied("The Titan API allows 697 requests per minute.", passage)
    assert "Titan SDK" in support.mismatch("The Titan SDK allows 697 requests per minute.", ["Titan SDK"], passage)


@pytest.mark.parametrize(
    "statement, passage",
    [
        (
            "Version 2.1.4 was released on 18 February 2024.",
            "Version 2.1.4 was released on 18 February 2016 and version 6.1.9 on 18 February 2024.",
        ),
        (
            "The Summit e-bike weighs 23 kilograms.",
            "The Summit e-bike weighs 21 kilograms and the Harbor weighs 23 kilograms.",
        ),
        (
            "The Enterprise plan includes single sign-on.",
            "The Enterprise plan includes audit logs; the Pro plan adds single sign-on.",
        ),
    ],
)
def test_an_attribute_moved_to_another_entity_is_unsupported(statement, passage) -> None:
    assert not support.copied(statement, passage)
    assert support.mismatch(statement, [], passage).startswith("the documents say that of another")


@pytest.mark.parametrize(
    "statement, passage",
    [
        ("The Summit e-bike costs $500.", "The Summit e-bike weighs 21 kilograms, and it costs $500 in Europe."),
        ("The Enterprise plan includes data export.", "The Enterprise plan includes audit logs and data export."),
        (
            "Version 1.5.9 of Sonata adds scheduled reports.",
            "Version 1.5.9 of Sonata, released on 26 June 2015, adds scheduled reports.",
        ),
        (
            "John Gourley is a musician from Alaska.",
            "John Gourley is an American musician, singer, and songwriter from Alaska.",
        ),
    ],
)
def test_one_entity_across_clauses_is_still_supported(statement, passage) -> None:
    # Clauses that share no predicate are no parallel pair: a list, or a clause without a subject of its own.
    assert support.mismatch(statement, [], passage) is None
    assert support.copied(statement, passage)


def test_a_negation_is_read_with_the_word_it_denies() -> None:
    passage = "You can use priority support on the Basic plan at no extra cost."
    assert support.mismatch("You cannot use priority support on the Basic plan.", [], passage).startswith(
        "the answer denies"
    )
    assert not support.copied("You cannot use priority support on the Basic plan.", passage)
    assert support.mismatch("You can use priority support on the Basic plan.", [], passage) is None
    assert support.copied("The plan does not include SSO.", "The plan doesn't include SSO.")


def test_a_unit_symbol_is_no_name() -> None:
    passage = "The Lumen camera comes with 147 gigabytes of storage."
    assert support.mismatch("The Lumen camera comes with 147 GB of storage.", ["GB", "Lumen"], passage) is None
    assert support.copied("The Lumen camera comes with 147 GB of storage.", passage)
    assert "the answer says 148" in support.mismatch("The Lumen camera comes with 148 GB of storage.", ["GB"], passage)


def test_an_attribute_moved_between_clauses_joined_by_is_is_unsupported() -> None:
    passage = "Ines Baptiste is the treasurer of Ropewalk Trust and Omar Vance is its head of research."
    assert support.mismatch("Ines Baptiste is the head of research of Ropewalk Trust.", [], passage).startswith(
        "the documents say that of another"
    )
    assert support.mismatch("Omar Vance is the head of research of Ropewalk Trust.", [], passage) is None
    assert support.mismatch("Ines Baptiste is the treasurer of Ropewalk Trust.", [], passage) is None


def test_a_changed_month_is_unsupported_and_a_short_month_is_the_same() -> None:
    passage = "The Corvid licence renews on 3 October 2027."
    assert support.mismatch("The Corvid licence renews on 3 May 2027.", ["3 May 2027"], passage) == (
        "the documents say October, the answer says May"
    )
    assert support.mismatch("The Corvid licence renews on 3 Oct 2027.", [], passage) is None
    assert support.months("You may renew it in May 2027 or by 4 June.") == {"May", "June"}


def test_closing_punctuation_and_possessives_are_no_part_of_a_name() -> None:
    assert support.mismatch("The Ember heater draws 420 W.", ["W."], "The Ember heater draws 420 watts.") is None
    passage = "Lena Okafor is the chief executive of Tamsin Works."
    assert support.mismatch("Tamsin Works' CEO is Lena Okafor.", ["Tamsin Works'"], passage) is None
    assert support.given_in("three weeks", "Returns are accepted within 21 days.")
    assert support.given_in("EU", "It ships across the European Union.")
    assert not support.given_in("Lisbon", "It ships from Porto.")


def test_a_changed_scale_word_is_a_changed_number() -> None:
    passage = "Alder Labs raised 40 million euros in its first round."
    assert support.mismatch("Alder Labs raised 40 billion euros.", [], passage) == (
        "the documents say 40 million, the answer says 40 billion"
    )
    assert support.mismatch("Alder Labs raised 40 million euros.", [], passage) is None
    assert support.scaled_figures("1,500 million or 1.5 billion") == {1.5e9}


def test_a_changed_day_of_the_week_is_unsupported_and_weekdays_are_days() -> None:
    passage = "The Wren pool opens at 7 am on Saturdays."
    assert support.mismatch("The Wren pool opens at 7 am on weekdays.", [], passage) == (
        "the documents say Saturdays, the answer says weekdays"
    )
    assert support.weekdays("Open every day, and on weekends until late") == set(support._DAYS)
    every_day = "The Wren pool opens at 7 am every day."
    assert support.mismatch("The Wren pool opens at 7 am on Saturdays.", [], every_day) is None
    # The star is no day: "the Sun" in an answer is compared as a name, not as Sunday.
    star = "The Sun rises in the east; the shop opens Mon to Fri."
    assert support.weekdays(star) == {"monday", "friday"}
