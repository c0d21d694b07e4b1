"""A conversation handed to a compaction strategy its configuration chooses (PRM105,
python/strategy_cuts.py): info where it is handed over, not in a helper that relays its own
conversation and strategy parameters, nor for a strategy of something else."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

COMPACTION = """
    from typing import Protocol

    from openai import OpenAI


    class CompactionStrategy(Protocol):
        async def __call__(self, messages: list) -> bool: ...


    class SlidingWindowStrategy:
        def __init__(self, keep: int = 20):
            self.keep = keep

        async def __call__(self, messages: list) -> bool:
            return True


    async def apply_compaction(messages: list, *, strategy: CompactionStrategy | None) -> list:
        if strategy is None:
            return messages
        await strategy(messages)
        return [m for m in messages if not m.get("excluded")]


    class HistoryProvider:
        def __init__(self, compaction_strategy: CompactionStrategy | None = None):
            self.compaction_strategy = compaction_strategy

        async def before_run(self, context) -> None:
            loaded = context.load()
            context.context_messages["history"] = await apply_compaction(loaded, strategy={strategy})
            return OpenAI().chat.completions.create(model="gpt-4.1", messages=context.context_messages["history"])
"""


def _found(tmp_path, strategy):
    write(tmp_path, {"compaction.py": COMPACTION.format(strategy=strategy)})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_the_conversation_handed_to_a_configured_strategy_is_cut_there(tmp_path):
    """The provider's configured strategy runs on the loaded history every turn: info at the call;
    `apply_compaction` itself only relays its own parameters (its callers choose both)."""
    assert _found(tmp_path, "self.compaction_strategy") == [("PRM105", "info", 31)]


def test_a_strategy_the_call_does_not_take_from_configuration_is_not_reported(tmp_path):
    assert _found(tmp_path, "None") == []
    assert _found(tmp_path, "SlidingWindowStrategy()") == []


REDUCER = """
    class Agent:
        def __init__(self, history_reducer, chunking_strategy):
            self.history_reducer = history_reducer
            self.chunking_strategy = chunking_strategy
            self.history = []

        async def turn(self, client, text: str):
            self.history.append({{"role": "user", "content": text}})
            {line}
            return await client.chat.completions.create(model="gpt-4.1", messages=sent)
"""


def _reduced(tmp_path, line):
    write(tmp_path, {"agent.py": REDUCER.format(line=line)})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_the_conversation_handed_to_a_method_of_a_configured_reducer_is_cut_there(tmp_path):
    assert _reduced(tmp_path, "sent = await self.history_reducer.reduce(self.history)") == [("PRM105", "info", 9)]


def test_a_strategy_for_something_else_than_compaction_is_not_one(tmp_path):
    assert _reduced(tmp_path, "sent = self.chunking_strategy.chunk(self.history)") == []
    assert _reduced(tmp_path, "sent = self.history") == []


def test_a_method_of_a_strategy_that_does_not_compact_is_not_one(tmp_path):
    assert _reduced(tmp_path, "sent = self.history_reducer.count_tokens(self.history)") == []
