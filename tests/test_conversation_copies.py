"""A local name bound once to a copy of another list (`list(messages)`, `history.copy()`,
`copy.deepcopy(messages)`, `messages[:]`, `[*messages]`, a plain alias): the expression it copies
(python/conversation_copies.py)."""
from __future__ import annotations

import ast
import textwrap

from promptlint.python.conversation_copies import copied_from


def _source_of(code: str, name: str) -> str | None:
    func = ast.parse(textwrap.dedent(code)).body[0]
    use = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)][-1]
    found = copied_from(use, func)
    return ast.unparse(found) if found is not None else None


def test_a_copy_names_the_list_it_copies():
    for value, copied in [("list(messages)", "messages"), ("messages.copy()", "messages"),
                          ("copy.deepcopy(self.history)", "self.history"), ("deepcopy(history)", "history"),
                          ("copy.copy(messages)", "messages"), ("messages[:]", "messages"),
                          ("[*messages]", "messages"), ("messages", "messages")]:
        code = f"""
            def f(messages, history):
                out: list = {value}
                out.insert(0, note)
            """
        assert _source_of(code, "out") == copied, value


def test_no_copy_for_another_value_or_a_name_bound_more_than_once():
    for body in [["out = messages[-5:]"], ["out = sorted(messages)"], ["out = list(messages, x)"],
                 ["out = copy(messages)"], ["out = list(messages)", "out = out[1:]"],
                 ["out = list(messages)", "for out in rows: pass"], ["out = list(messages)", "out += extra"]]:
        code = "def f(messages, rows, extra):\n" + "".join(f"    {line}\n" for line in body) + "    out.insert(0, note)\n"
        assert _source_of(code, "out") is None, body
    # a parameter is no local copy
    assert _source_of("""
        def f(out):
            out.insert(0, note)
        """, "out") is None
