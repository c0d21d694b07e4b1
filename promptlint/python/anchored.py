"""Regular expressions tried only where a match can start: a whole-text search of a pattern
whose alternatives begin with a character class or `\\b` tries every character of the module
(0.2 to 0.7 ms per module of the corpus, a search or two per analysed file), while the words a
match must hold are found by `str.find` at C speed.

Each pattern here is given with its anchors: words such that every match of the pattern starts
at a place of one of its `starts` words (the match's first characters), or ends at a place of
one of its `ends` words within `reach` characters of its start, on one line. The answers are
exactly those of `pattern.search` and `pattern.finditer`; the callers state the anchors of
their own pattern next to it.
"""
from __future__ import annotations

import re


#: ASCII letters that case-insensitive matching pairs with letters outside ASCII.
_PAIRED = "iks"


def _places(text: str, word: str):
    at = text.find(word)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def found(pattern: re.Pattern, text: str, starts: tuple[str, ...] = (), ends: tuple[str, ...] = (),
          reach: int | None = 0, fold: bool = False) -> bool:
    """`pattern.search(text) is not None`, for a pattern whose every match starts at a place of
    a word of `starts` (or a number of characters before it: a `(word, before)` pair of
    `starts`), or ends with a word of `ends` and starts at most `reach` characters before
    that word, on its line (no match holds a line break; nothing after a match decides whether it
    matches: no lookahead or `\\b` at its end). `reach` None: from the start of the line. `fold`:
    the pattern ignores case, and the words are in lower case and hold no `i`, `k` or `s` (the
    ASCII letters that case-insensitive matching also pairs with other letters: `ı`, `K`, `ſ`);
    they are found in `text.lower()` (the whole text is searched when lowering changes its
    length: then offsets differ)."""
    return any(True for _ in starts_of(pattern, text, starts, ends, reach, fold, first=True))


def starts_of(pattern: re.Pattern, text: str, starts: tuple[str, ...] = (), ends: tuple[str, ...] = (),
              reach: int | None = 0, fold: bool = False, first: bool = False) -> list[int]:
    """Offsets in `text` where a match of `pattern` starts, one at least on each line where
    `pattern.finditer(text)` has a match start, and none on another line (anchors as in `found`;
    in no particular order, maybe repeated). `first`: the first one found only."""
    low = text
    if fold:
        if any(letter in (word if isinstance(word, str) else word[0]) for word in (*starts, *ends) for letter in _PAIRED):
            raise ValueError(f"anchors of a case-insensitive pattern hold one of {_PAIRED!r}")
        low = text.lower()
        if len(low) != len(text):
            return [m.start() for m in ([pattern.search(text)] if first else pattern.finditer(text)) if m is not None]
    out: list[int] = []
    match = pattern.match
    for word in starts:
        word, before = (word, 0) if isinstance(word, str) else word
        for at in _places(low, word):
            if at >= before and match(text, at - before) is not None:
                out.append(at - before)
                if first:
                    return out
    search = pattern.search
    for word in ends:
        for at in _places(low, word):
            line = text.rfind("\n", 0, at) + 1
            m = search(text, line if reach is None else max(line, at - reach), at + len(word))
            if m is not None:
                out.append(m.start())
                if first:
                    return out
    return out


def any_word(words) -> re.Pattern:
    """A pattern whose `search(text)` finds a match exactly when one of `words` (non-empty
    literal strings) is in `text` (`any(w in text for w in words)`), written as a tree of their
    shared beginnings (`ab(?:c|d)` for `abc`, `abd`; a word that holds another one is left out:
    the shorter is found wherever it is): one scan of the text instead of one per word (78 words
    of the pre-filter: about 0.15 ms per module of the corpus against 0.3 ms, most modules holding none)."""
    kept = sorted({w for w in words if not any(o != w and o in w for o in words)})
    if not kept or "" in kept:
        raise ValueError("words must be non-empty")
    return re.compile(_tree(kept))


def _tree(words: list[str]) -> str:
    """The alternation of sorted, non-empty `words` no one of which begins another, as a tree of
    their first characters."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word[1:])
    parts = []
    for first, rests in groups.items():
        if rests == [""]:  # (no word of a group begins another: a group is one word or all longer)
            parts.append(re.escape(first))
        else:
            parts.append(re.escape(first) + "(?:" + _tree(rests) + ")")
    return "|".join(parts)
