"""How Toxicity reads a sentence besides its models: spelling tricks, quotations, address, threats,
derogation of groups."""

from __future__ import annotations

import pytest

from properties.scorers.text.toxic_reading import (
    TARGET_FEATURES,
    degrading_clause,
    find_derogation,
    find_threat,
    speaks_to_reader,
    target_features,
    undo_obfuscation,
    without_quotations,
)


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("you r a stup1d 1d10t", "you r a stupid idiot"),
        ("Too many f a g g o t s here.", "Too many faggots here."),
        ("I am going to shoot the next w o m a n I see.", "I am going to shoot the next woman I see."),
        ("You are sooo stuuupid", "You are so stupid"),
        ("You\u2019re a moron.", "You're a moron."),
    ],
)
def test_spelling_tricks_are_undone(written: str, meant: str) -> None:
    assert undo_obfuscation(written) == meant


def test_numbers_versions_and_prices_stay_as_they_are() -> None:
    text = "Run kill -9 1234, upgrade to 2.0.1 and pay $5 by 10:30."
    assert undo_obfuscation(text) == text


def test_a_quoted_sentence_is_mentioned_not_said() -> None:
    text = 'Messages such as "you are a complete idiot" are hidden by the moderation filter until reviewed.'
    assert "idiot" not in without_quotations(text)
    assert "moderation filter" in without_quotations(text)


def test_scare_quotes_and_texts_that_are_mostly_a_quotation_are_kept() -> None:
    scare = 'Thanks a lot, you "genius".'
    retweet = '"@someone: you are all worthless losers and I hate you" lol'
    assert without_quotations(scare) == scare
    assert without_quotations(retweet) == retweet


def test_second_person_is_speaking_to_the_reader() -> None:
    assert speaks_to_reader("Are you really this dumb?")
    assert speaks_to_reader("ur a clown")
    assert not speaks_to_reader("This damn router keeps dropping the connection.")
    assert not speaks_to_reader("Youth football starts in May.")


@pytest.mark.parametrize(
    "threat",
    [
        "Email us again and I will find you and break your legs.",
        "Ask again and I will make you regret it.",
        "Say that again and I'm going to punch you.",
        "I know where you live.",
        "You'll pay for this!",
        "I hope you choke on it.",
        "Refund me or I'll come to your office and smash your face in.",
        "I hate everyone and want to hurt them.",
        "We really want to kill them all.",
    ],
)
def test_threats_of_harm_are_found(threat: str) -> None:
    assert find_threat(threat)


@pytest.mark.parametrize(
    "harmless",
    [
        "I'll shoot you an email when the fix is live.",
        "We'll find you a seat on the next flight.",
        "You'll pay for it monthly, starting in June.",
        "I will not hurt you.",
        "Kill the process with kill -9 and start it again.",
        "You won't regret upgrading.",
        "Don't break your build: run the tests first.",
        "I want to kill the process before the deploy.",
        "We plan to end the trial early.",
    ],
)
def test_support_phrasing_with_violent_words_is_no_threat(harmless: str) -> None:
    assert find_threat(harmless) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("We'll handle your ticket, if those lazy Nigerians ever bother to work.", "lazy Nigerians"),
        ("Mostly immigrants, and immigrants are vermin.", "immigrants are vermin"),
        ("Women are too stupid to understand technology.", "Women are too stupid"),
        ("Muslims are all terrorists.", "Muslims are all terrorists"),
        ("Keep those filthy gypsies out of the shop.", "filthy gypsies"),
        ("Gay people are a disease.", "Gay people are a disease"),
    ],
)
def test_a_degraded_group_is_found(text: str, found: str) -> None:
    match = find_derogation(text)
    assert match is not None and match.group(0) == found


@pytest.mark.parametrize(
    "harmless",
    [
        "Our engineers in Lagos are not lazy at all: they fixed it overnight.",
        "Immigrants are rarely violent, the study found.",
        "Saying that women are stupid is simply wrong.",
        "You can't seriously believe that all Muslims are terrorists.",
        "Lazy loading keeps the Chinese and Japanese fonts out of the first page.",
        "Lawyers are scum, my uncle says, but he is one.",
        "Any household can join, including gay and lesbian couples, and Muslim and Jewish families.",
    ],
)
def test_groups_named_without_degrading_them_are_not_derogation(harmless: str) -> None:
    assert find_derogation(harmless) is None


def test_target_features_say_who_a_sentence_is_about_and_whether_it_is_negated() -> None:
    said = dict(zip(TARGET_FEATURES, target_features("Migrants are criminals."), strict=True))
    denied = dict(
        zip(TARGET_FEATURES, target_features("There is no truth to the idea that migrants are criminals."), strict=True)
    )
    to_reader = dict(zip(TARGET_FEATURES, target_features("You are an embarrassment."), strict=True))
    assert said["derogation"] == said["names_group"] == 1.0 and said["negated_derogation"] == 0.0
    assert denied["derogation"] == denied["negated_derogation"] == denied["negated_group"] == 1.0
    assert to_reader["to_reader"] == 1.0 and to_reader["names_group"] == 0.0


def test_the_degrading_clause_of_a_longer_sentence_is_read_alone() -> None:
    polite = "Our team in Lagos will handle your ticket, if those lazy Nigerians ever bother to work."
    assert degrading_clause(polite) == "if those lazy Nigerians ever bother to work."
    assert degrading_clause("Immigrants are vermin.") is None  # the sentence is the clause
    assert degrading_clause("Our team in Lagos will handle your ticket.") is None
