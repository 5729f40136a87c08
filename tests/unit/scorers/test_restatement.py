"""A statement restated in its passage's units and words, for Grounded in Context's learnt signals."""

from __future__ import annotations

from properties.scorers.text.restatement import restated

PASSAGE = "The Kettle Pro holds 1.5 litres. Its warranty lasts 24 months, says the chief operating officer."


def test_a_quantity_the_passage_gives_in_another_unit_is_written_as_the_passage_writes_it() -> None:
    assert restated("The Kettle Pro holds 1,500 ml.", PASSAGE) == "The Kettle Pro holds 1.5 litres."
    assert restated("The warranty lasts two years.", PASSAGE) == "The warranty lasts 24 months."
    assert restated("It boils in 90 seconds.", "It boils in a minute and a half.") == "It boils in a minute and a half."
    assert restated("Charging takes 90 minutes.", "Charging takes an hour and a half.") == (
        "Charging takes an hour and a half."
    )


def test_a_figure_the_passage_does_not_give_stays_as_written() -> None:
    assert restated("The Kettle Pro holds 2,000 ml.", PASSAGE) == "The Kettle Pro holds 2,000 ml."
    assert restated("The warranty lasts three years.", PASSAGE) == "The warranty lasts three years."


def test_a_short_form_of_the_passages_words_is_written_out() -> None:
    assert restated("The COO says so.", PASSAGE) == "The chief operating officer says so."
    assert (
        restated("Revenue was USD 58M.", "Revenue was 58 million US dollars.") == "Revenue was US dollars 58 million."
    )


def test_an_initialism_ends_on_a_word_that_says_something() -> None:
    passage = "Tove Berg is the chief executive of Lund Freight."
    assert restated("Lund Freight's CEO is Tove Berg.", passage) == "Lund Freight's chief executive is Tove Berg."
