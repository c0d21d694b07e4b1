"""Token counts of request text, fast enough for logs of 100,000 bodies, in bounded memory.

OpenAI tokenizers (o200k_base, cl100k_base) are counted exactly with tiktoken, offline
(`promptlint.tokens`); other families are estimated as the o200k count times the family's ratio
(`promptlint.estimates.RATIOS`), as the static estimates are.

A text is cut into chunks at safe boundaries: a position right after a line break and before a
letter. There both tiktoken patterns always end one pre-token and start the next (a line break
is never part of a word, and a word's optional leading character excludes line breaks), and BPE
never merges across pre-tokens, so the count of a text is the sum of its chunks' counts. Chunk
counts are cached by digest in a bounded LRU: the static text that thousands of requests share
is counted once, and a request whose system prompt differs only in a timestamp costs one chunk.
"""
from __future__ import annotations

import re
from collections import OrderedDict

from .. import tokens
from ..estimates import RATIOS
from ..profiles import Profile
from .model import digest

__all__ = ["Tokenizer", "safe_cuts"]

_SAFE = re.compile(r"\n(?=[^\W\d_])")
_EXACT = {"o200k_base": "o200k_base", "cl100k_base": "cl100k_base", "o200k_harmony": "o200k_base"}
CHUNK_CHARS = 2048  # characters: the target size of a cached chunk


def safe_cuts(text: str, every: int = CHUNK_CHARS) -> list[int]:
    """Offsets (0 < cut < len) where `text` may be cut without changing its token count,
    at least `every` characters apart."""
    cuts, last = [], 0
    if len(text) <= every:
        return cuts
    for m in _SAFE.finditer(text, every):
        cut = m.start() + 1
        if cut - last >= every:
            cuts.append(cut)
            last = cut
    return cuts


class _Counts:
    """Exact base-encoding counts of chunks, cached by digest (at most `size` entries)."""

    def __init__(self, encoding: str, size: int):
        self.encode = tokens.encoding(encoding).encode_ordinary
        self.cache: OrderedDict[bytes, int] = OrderedDict()
        self.size = size

    def chunk(self, text: str) -> int:
        if not text:
            return 0
        if len(text) < 64:  # cheaper to count than to hash and look up
            return len(self.encode(text))
        key = digest(text)
        found = self.cache.get(key)
        if found is not None:
            self.cache.move_to_end(key)
            return found
        n = len(self.encode(text))
        self.cache[key] = n
        if len(self.cache) > self.size:
            self.cache.popitem(last=False)
        return n

    def count(self, text: str, end: int | None = None) -> int:
        """Tokens of `text[:end]`: cached chunks up to the last safe cut before `end`, then the rest."""
        end = len(text) if end is None else end
        total, start = 0, 0
        for cut in safe_cuts(text):
            if cut > end:
                break
            total += self.chunk(text[start:cut])
            start = cut
        tail = text[start:end]
        if end == len(text):  # a whole last chunk: shared by other requests, so cached
            return total + self.chunk(tail)
        return total + (len(self.encode(tail)) if tail else 0)


class Tokenizer:
    """Counts for one provider profile: exact for OpenAI tokenizers, else o200k x ratio.

    `count(text, end)` gives tokens of `text[:end]` in the base encoding; `scale(n)` turns a base
    count into the profile's tokens (identity when exact). Shared counters per base encoding
    keep one cache for all profiles.
    """

    _shared: dict[str, _Counts] = {}

    def __init__(self, profile: Profile | None, cache_size: int = 65536):
        name = profile.tokenizer if profile is not None else "o200k_base"
        self.exact = name in _EXACT
        self.encoding = _EXACT.get(name, "o200k_base")
        ratio = RATIOS.get(name)
        self.ratio = 1.0 if self.exact or ratio is None else ratio.value
        counts = self._shared.get(self.encoding)
        if counts is None:
            counts = self._shared[self.encoding] = _Counts(self.encoding, cache_size)
        self.counts = counts

    def count(self, text: str, end: int | None = None) -> int:
        return self.counts.count(text, end)

    def scale(self, n: int) -> int:
        return n if self.exact else round(n * self.ratio)
