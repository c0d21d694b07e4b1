"""The shape of the list a name is bound to, told from its bindings before its value is read
(python/flow/bound_lists.py), and the prompt candidates it rules out early: a function named for
messages that returns a list grown in a loop records no layout and reads none of its items."""
from __future__ import annotations

import ast

import pytest

from analysis_support import code, evaluator, layouts

from promptlint.python import candidates
from promptlint.python.flow.bound_lists import grown_or_empty


def _returned_name(tmp_path, source):
    """(evaluator, frame, the Name node returned by the first function of `source`)."""
    (tmp_path / "app.py").write_text(code(source), encoding="utf-8")
    ev = evaluator(tmp_path)
    module = ev.project.load(tmp_path / "app.py")
    func = module.tree.body[0]
    ret = next(n for n in ast.walk(func) if isinstance(n, ast.Return))
    return ev, ev.function_frame(module, func, None), ret.value


@pytest.mark.parametrize("body", [
    "out = []\n    for m in msgs:\n        out.append({'role': m.role, 'content': m.text})\n        out.append(m)",
    "out = [{'role': 'system', 'content': 'x'}]\n    for m in msgs:\n        out.extend(convert(m))",
    "out = []\n    for m in msgs:\n        out += [m]\n    out.sort(key=len)",
    "out = []\n    if msgs:\n        for m in msgs:\n            out.insert(0, m)",
])
def test_a_list_grown_in_a_loop_or_empty_is_known_from_its_bindings(tmp_path, body):
    ev, frame, node = _returned_name(tmp_path, f"def convert_messages(msgs):\n    {body}\n    return out\n")
    units = ev.budget.left
    assert grown_or_empty(ev, frame, node)
    assert ev.budget.left == units  # nothing evaluated


@pytest.mark.parametrize("body", [
    "out = [{'role': 'system', 'content': 'x'}]",  # a list display with items
    "out = []\n    for m in msgs:\n        out.append(m)\n    out.append({'role': 'user', 'content': 'q'})",
    "out = list(msgs)",  # a call: not known without reading it
    "out = ''\n    for m in msgs:\n        out += m",  # text grown in a loop
    "out = msgs",  # a parameter
])
def test_other_bindings_are_not_known(tmp_path, body):
    ev, frame, node = _returned_name(tmp_path, f"def convert_messages(msgs):\n    {body}\n    return out\n")
    assert not grown_or_empty(ev, frame, node)


def test_a_message_converter_returning_a_grown_list_is_no_candidate_and_reads_no_item(tmp_path, monkeypatch):
    spent = []
    returned = candidates.returned

    def counted(finder, node, func, frame):
        left = finder.ev.budget.left
        found = returned(finder, node, func, frame)
        spent.append((found, left - finder.ev.budget.left))
        return found

    monkeypatch.setattr(candidates, "returned", counted)
    found = layouts(tmp_path, """
        def prepare_messages(history, system):
            out = []
            for m in history:
                out.append({"role": "user", "content": f"{m.text} {system}"})
                out.append({"role": "assistant", "content": m.answer})
            return out
    """)
    assert found == []
    assert spent == [(False, 0)]  # decided from the bindings: no item of the list was evaluated


def test_a_message_list_returned_with_items_is_still_a_candidate(tmp_path):
    found = layouts(tmp_path, """
        def prepare_messages(history, question):
            out = [{"role": "system", "content": "You answer questions about the user's files."}]
            out.append({"role": "user", "content": question})
            return out
    """)
    assert [lt.source for lt in found] == ["python-constant"]
