"""A memory class that cuts the conversation it keeps in another object through that object's
remover (`self.msg_manager.pop_message(i)` under a size test, as messages are added) is a sliding
window: PRM105 info where it is cut, the remover's pop related; the newest removed, an index from
the end, a prune only the user asks for and a test that is no size test are not
(fixtures/delegated_cuts, python/delegated_cuts.py)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from promptlint.python.delegated_cuts import TEXT, _from_head, _holder_call
from promptlint.python.prefilter import might_hold_prompt

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "delegated_cuts"


def _found(tmp_path, name):
    shutil.copytree(FIXTURE / name, tmp_path / name)
    found = api.check([tmp_path / name], api.Settings(), jobs=1).diagnostics
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row, d.message.split(" is cut")[0],
             [(r.span.start.row, r.message) for r in d.related]) for d in found]


def test_a_cut_through_the_holders_remover_under_a_size_test_is_a_window(tmp_path):
    held = "The conversation kept in `self.msg_manager.messages`"
    assert [f for f in _found(tmp_path, "pkg") if f[2] == "memory.py"] == [
        ("PRM105", "info", "memory.py", 28, held, [(12, "the message removed here")]),
        ("PRM105", "info", "memory.py", 43, held, [(12, "the message removed here")])]


def test_the_newest_removed_an_index_from_the_end_or_a_prune_when_asked_is_none(tmp_path):
    assert [f for f in _found(tmp_path, "pkg") if f[2] != "memory.py"] == []


def _call(text: str) -> ast.Call:
    return ast.parse(text, mode="eval").body


def test_the_holders_remover_is_named_for_removing_a_message_and_given_an_index_from_the_head():
    assert _holder_call(_call("self.msg_manager.pop_message(0)")) == "msg_manager"
    assert _holder_call(_call("self.store.delete_turn(k)")) == "store"
    assert _holder_call(_call("self.msg_manager.pop(0)")) is None  # (the list's own pop: no message word)
    assert _holder_call(_call("self.pop_message(0)")) is None
    assert _holder_call(_call("self.cache.remove_entry(0)")) is None
    zero = ast.Constant(0)
    assert _from_head(_call("m.pop_message()"), "index", zero)
    assert not _from_head(_call("m.pop_message()"), "index", ast.Constant(-1))
    assert not _from_head(_call("m.pop_message()"), "index", None)
    assert _from_head(_call("m.pop_message(self.kept * 2)"), "index", None)
    assert not _from_head(_call("m.pop_message(n - 1)"), "index", zero)
    assert not _from_head(_call("m.pop_message(-1)"), "index", zero)
    assert not _from_head(_call("m.pop_message(len(xs))"), "index", zero)


def test_the_text_gates_let_a_memory_module_be_analysed():
    source = (FIXTURE / "pkg" / "memory.py").read_text()
    assert TEXT.search(source) is not None and might_hold_prompt(source)
    assert TEXT.search("self.msg_manager.pop(0)") is None
