"""The workers' fork server builds the o200k_base tokenizer once (`promptlint.tokenizer_preload`):
each worker starts with it instead of building its own."""
from __future__ import annotations

import importlib
import sys

from promptlint import engine, tokens


def test_the_fork_server_preloads_the_tokenizer():
    assert "promptlint.tokenizer_preload" in engine.WORKER_PRELOAD


def test_importing_it_builds_the_encoding_the_counts_use():
    tokens.encoding.cache_clear()
    sys.modules.pop("promptlint.tokenizer_preload", None)
    importlib.import_module("promptlint.tokenizer_preload")
    assert tokens.encoding.cache_info().currsize == 1
    built = tokens.encoding("o200k_base")
    assert tokens.encoding.cache_info().hits >= 1  # the worker's call finds the preloaded one
    assert len(built.encode_ordinary("You are a helpful assistant.")) == 6


def test_a_failed_build_leaves_the_import_working(monkeypatch):
    def broken(name="o200k_base"):
        raise tokens.TokenizerDataError("missing")
    monkeypatch.setattr(tokens, "encoding", broken)
    sys.modules.pop("promptlint.tokenizer_preload", None)
    module = importlib.import_module("promptlint.tokenizer_preload")
    assert module.tokens is tokens
    sys.modules.pop("promptlint.tokenizer_preload", None)
