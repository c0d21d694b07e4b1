"""A cut of a message list whose variants share values (`WindowsMixin.windowed`): each shared
value is cut once, and the cut keeps the sharing (gpt-researcher's deep_research.py built a
value of nested branches over the same list: cut as a tree it took 57 s and 2.2 GB)."""
from __future__ import annotations

import ast
from types import SimpleNamespace

from promptlint.model import Kind, Position, Span, Volatility
from promptlint.python.flow import windows
from promptlint.python.flow.values import Alt, Seq, Spread, Text, dynamic


def _history() -> Text:
    return dynamic(Span("m.py", Position(1, 1), Position(1, 8)), "history", Kind.HISTORY, Volatility.UNKNOWN,
                   "the conversation")


def _nested(depth: int):
    """A list holding the conversation, then `depth` levels of branches whose two options are
    the same value: 2 ** depth paths over `depth + 1` distinct values."""
    value = Seq(items=[Spread(_history())])
    for _ in range(depth):
        value = Alt(options=[value, value])
    return value


class _Module:
    @staticmethod
    def span(node):
        return Span("m.py", Position(node.lineno, node.col_offset + 1), Position(node.lineno, node.col_offset + 2))

    @staticmethod
    def code(node):
        return ast.unparse(node)


def test_each_shared_value_is_cut_once(monkeypatch):
    calls = []
    real = windows.WindowsMixin._windowed

    def counting(*args):
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(windows.WindowsMixin, "_windowed", staticmethod(counting))
    node = ast.parse("history[-10:]").body[0].value
    out = windows.WindowsMixin.windowed(_nested(12), node, SimpleNamespace(module=_Module()))
    # 12 Alts, the Seq, the history Text: each once (as a tree: 2 ** 13 - 1 + 4096 calls)
    assert len(calls) == 14
    assert isinstance(out, Alt) and out.options[0] is out.options[1]  # the sharing is kept
    inner = out
    while isinstance(inner, Alt):
        inner = inner.options[0]
    cut = inner.items[0].value.segs[0]
    assert cut.kind is Kind.HISTORY and cut.window == Span("m.py", Position(1, 1), Position(1, 2))


def test_a_value_not_shared_is_cut_as_before():
    node = ast.parse("history[-10:]").body[0].value
    out = windows.WindowsMixin.windowed(Alt(options=[Seq(items=[Spread(_history())]), _history()]), node,
                                        SimpleNamespace(module=_Module()))
    first, second = out.options
    assert first.items[0].value.segs[0].window is not None
    assert second.segs[0].window is not None and second.segs[0].expr == "history[-10:]"
