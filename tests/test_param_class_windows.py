"""A library window class reached through a parameter whose default is the class
(`memory_cls: Type[BaseMemory] = ChatMemoryBuffer`, then `memory_cls.from_defaults(...)`) is
configured there as the class is (python/param_classes.py, python/library_windows.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.library_windows import library_windows
from promptlint.python.module import load
from promptlint.python.param_classes import default_class

from analysis_support import code


def _facts(source: str):
    module = load(Path("app.py"), code(source))
    return [(c.at.lineno, c.window.name, c.limit, c.use_how, c.kept) for c in library_windows(module)]


def test_a_parameter_defaulting_to_a_window_class_configures_that_class_when_called():
    assert _facts("""
        from typing import Type
        from llama_index.core.memory import BaseMemory, ChatMemoryBuffer


        class Agent:
            @classmethod
            def from_tools(cls, tools, chat_history=None, memory=None, memory_cls: Type[BaseMemory] = ChatMemoryBuffer):
                memory = memory or memory_cls.from_defaults(chat_history or [], token_limit=3000)
                return cls(tools=tools, memory=memory)
    """) == [(8, "ChatMemoryBuffer", 3000, "handed", "what takes it is returned to the caller")]


def test_a_parameter_rebound_defaulting_to_another_class_or_to_none_configures_nothing():
    assert _facts("""
        from llama_index.core.memory import ChatMemoryBuffer
        from mylib.memory import ChatMemoryBuffer as Own


        def rebound(tools, memory_cls=ChatMemoryBuffer):
            memory_cls = pick(memory_cls)
            return Agent(tools=tools, memory=memory_cls.from_defaults(token_limit=3000))


        def other(tools, memory_cls=Own):
            return Agent(tools=tools, memory=memory_cls.from_defaults(token_limit=3000))


        def none(tools, memory_cls=None):
            return Agent(tools=tools, memory=memory_cls.from_defaults(token_limit=3000))
    """) == []


def test_default_class_reads_only_a_class_named_default_never_rebound():
    tree = ast.parse("def f(a, b=Memory, *, c=mod.Memory, d=make(), e='Memory', g=memory):\n    return a\n")
    func = tree.body[0]
    assert ast.unparse(default_class(func, "b")) == "Memory"
    assert ast.unparse(default_class(func, "c")) == "mod.Memory"
    assert [default_class(func, n) for n in ("a", "d", "e", "g", "zz")] == [None] * 5
    assert default_class(ast.parse("x = 1").body[0], "b") is None
