"""The history-window library table (promptlint/profiles/history_windows.toml): packaged data, loaded
with importlib.resources, validated on load with errors that name the entry and the key."""
from __future__ import annotations

from importlib import resources

import pytest

from promptlint.profiles.history_windows import TableError, parse_table, table

PACKAGED = resources.files("promptlint.profiles").joinpath("history_windows.toml").read_text(encoding="utf-8")


def test_the_packaged_table_holds_each_class_with_its_limit_default_and_cut():
    facts = {key: (w.limit, w.unit, w.default, w.cut) for key, w in table().by_key.items()}
    assert facts == {
        "llama_index.ChatMemoryBuffer": ("token_limit", "tokens", 3000, "oldest"),
        "llama_index.ChatSummaryMemoryBuffer": ("token_limit", "tokens", 2000, "summary"),
        "llama_index.Memory": ("token_limit", "tokens", 30000, "steps"),
        "langchain.ConversationBufferWindowMemory": ("k", "turns", 5, "oldest"),
        "langchain.ConversationTokenBufferMemory": ("max_token_limit", "tokens", 2000, "oldest"),
        "langchain.ConversationSummaryBufferMemory": ("max_token_limit", "tokens", 2000, "summary"),
        "langchain.ConversationSummaryMemory": ("", "turns", None, "summary"),
        "langchain_core.trim_messages": ("max_tokens", "tokens", None, "oldest"),
        "autogen_core.BufferedChatCompletionContext": ("buffer_size", "messages", None, "oldest"),
        "autogen_core.TokenLimitedChatCompletionContext": ("token_limit", "tokens", None, "middle"),
        "autogen_core.HeadAndTailChatCompletionContext": ("tail_size", "messages", None, "head-tail"),
        "semantic_kernel.ChatHistoryTruncationReducer": ("target_count", "messages", None, "oldest"),
        "semantic_kernel.ChatHistorySummarizationReducer": ("target_count", "messages", None, "summary"),
    }
    assert all(w.source.startswith("https://github.com/") for w in table().windows)
    runner, = table().defaults
    assert (runner.name, runner.methods, runner.window, runner.context_param) == (
        "AgentRunner", ("as_agent",), "llama_index.ChatMemoryBuffer", "llm")


def test_the_hints_name_every_class_that_cuts_on_each_turn_and_the_methods_that_make_one():
    hints = table().hints()
    assert "ConversationBufferWindowMemory" in hints and "as_agent" in hints
    assert "Memory" not in hints  # LlamaIndex's Memory cuts in steps: never reported, and a common word


@pytest.mark.parametrize("edit, message", [
    (('cut = "oldest"', 'cut = "newest"', 1), "window 1 (llama_index.ChatMemoryBuffer): `cut` must be one of"),
    (('default = 3000', 'default = "3000"', 1), "window 1 (llama_index.ChatMemoryBuffer): `default` must be a positive"),
    (('limit = "token_limit"', 'limits = "token_limit"', 1), "window 1 (llama_index.ChatMemoryBuffer): missing `limit`"),
    (('pipe = true', 'pipe = true\ncolour = "red"', 1), "(langchain_core.trim_messages): unknown key `colour`"),
    (('off_values = ["first"]\n', '', 1), "`off_param` and `off_values` go together"),
    (('absent = "every-turn"\n', 'absent = "every-turn"\nlimit = "k"\n', 1),
     "(langchain.ConversationSummaryMemory): `limit` and `absent = \"every-turn\"` exclude each other"),
    (('absent = "every-turn"\n', '', 1), "(langchain.ConversationSummaryMemory): missing `limit`"),
    (('window = "llama_index.ChatMemoryBuffer"', 'window = "llama_index.Nothing"', 1),
     "default `llama_index.AgentRunner` names no [[window]] key"),
])
def test_a_malformed_table_names_the_entry_and_the_key(edit, message):
    old, new, count = edit
    assert old in PACKAGED
    with pytest.raises(TableError) as error:
        parse_table(PACKAGED.replace(old, new, count))
    assert str(error.value).startswith("history_windows.toml") and message in str(error.value)
