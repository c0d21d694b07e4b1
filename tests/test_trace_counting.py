"""promptlint.trace.counting: chunked, cached token counts equal tiktoken's count of the whole."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint import tokens
from promptlint.profiles import lookup
from promptlint.trace.counting import Tokenizer, safe_cuts

PIECES = st.sampled_from(["Hello", " world", "\n", "\n\n", "  ", "12345", " ünïcode", "-", "'s", ".\n", "\t",
                          "A", "é", "  \n", "{\"k\":", "}\n", "日本語", "\r\n", "x" * 300, "\nThe", " 2026-11-30 "])


@settings(max_examples=150, deadline=None)
@given(st.lists(PIECES, max_size=400), st.integers(min_value=0, max_value=10_000))
def test_chunked_count_equals_the_exact_count(pieces, end):
    text = "".join(pieces)
    end = min(end, len(text))
    for name in ("o200k_base", "cl100k_base"):
        encode = tokens.encoding(name).encode_ordinary
        profile = lookup("openai", "gpt-4.1" if name == "o200k_base" else "gpt-4")[0]
        tok = Tokenizer(profile)
        assert tok.encoding == name and tok.exact
        assert tok.count(text) == len(encode(text))
        assert tok.count(text, end) == len(encode(text[:end]))


def test_cuts_fall_after_a_line_break_before_a_letter():
    text = ("A line of policy text.\n" * 300) + "\n\n42 is not a cut\nLast line"
    cuts = safe_cuts(text, every=100)
    assert cuts and all(text[c - 1] == "\n" and text[c].isalpha() for c in cuts)
    assert all(b - a >= 100 for a, b in zip([0, *cuts], cuts))


def test_other_families_are_estimated_from_o200k_with_the_profile_ratio():
    claude = Tokenizer(lookup("anthropic", "claude-sonnet-5")[0])
    assert not claude.exact and claude.ratio == 1.5
    assert claude.scale(1000) == 1500
    assert Tokenizer(None).exact
