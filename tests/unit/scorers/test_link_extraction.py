from __future__ import annotations

import pytest

from properties.scorers.invalid_links import extract_links


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        ("See https://example.com.", ["https://example.com"]),
        (
            "Links: http://a.io/x, http://b.io/y; http://c.io/z: done!",
            ["http://a.io/x", "http://b.io/y", "http://c.io/z"],
        ),
        ("[the docs](https://example.com/docs) and more", ["https://example.com/docs"]),
        ("[https://a.com](https://b.com/page)", ["https://a.com", "https://b.com/page"]),
        ("(see https://example.com/page)", ["https://example.com/page"]),
        ("https://en.wikipedia.org/wiki/Python_(language)", ["https://en.wikipedia.org/wiki/Python_(language)"]),
        ("[w](https://en.wikipedia.org/wiki/Python_(language))", ["https://en.wikipedia.org/wiki/Python_(language)"]),
        ("<https://example.com/a?b=1&c=2#frag>", ["https://example.com/a?b=1&c=2#frag"]),
        ('<a href="https://example.com/x">x</a>', ["https://example.com/x"]),
        ("**https://example.com/bold**", ["https://example.com/bold"]),
        ("日本語 https://example.jp/ページ。次の文", ["https://example.jp/ページ"]),
        ("http://[::1]:8080/path ok", ["http://[::1]:8080/path"]),
        ("HTTPS://EXAMPLE.COM/Upper", ["HTTPS://EXAMPLE.COM/Upper"]),
        ("broken: http:// here", ["http://"]),
        ("no links: www.example.com, ftp://example.com, mailto:a@b.c, xhttp://nope", []),
        ("", []),
    ],
)
def test_extracts_links_without_surrounding_punctuation(text: str, urls: list[str]) -> None:
    assert [url for _, _, url in extract_links(text)] == urls


def test_offsets_point_at_the_link() -> None:
    text = "Voilà: «https://example.fr/été» et (https://example.fr/a)."
    for start, end, url in extract_links(text):
        assert text[start:end] == url


def test_every_occurrence_is_kept_and_long_text_is_fast() -> None:
    text = "x https://example.com/a y " * 50_000
    links = extract_links(text)
    assert len(links) == 50_000 and links[1][0] > links[0][0]
