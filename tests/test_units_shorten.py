"""``units.shorten_words``: the one cut of a long text the compare notes, the caveat lines and the
hardware headline share. By hand: textwrap.shorten cuts at a word with the placeholder; a first
word longer than the width would leave the placeholder alone, so it is cut mid-word instead."""

from llmcost.core.units import shorten_words


def test_shorten_words_cuts_at_a_word_or_mid_word_when_one_word_runs_past():
    assert shorten_words("a  short\ttext", 40) == "a short text"          # whole, spaces collapsed
    assert shorten_words("one two three four", 12) == "one two …"
    url = "https://example.com/" + "x" * 100
    assert shorten_words(url, 40) == url[:39] + "…" and len(shorten_words(url, 40)) == 40
