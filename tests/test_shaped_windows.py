"""A list known as the conversation by what it holds (its items read by their role, the function
annotated to return messages, a parameter annotated as messages), cut to its newest items and
handed back or kept on the instance (python/shaped_windows.py; PRM105, info where it is cut)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import code, write

from promptlint import api
from promptlint.python.module import load
from promptlint.python.shaped_windows import shaped_windows

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "shaped_windows"


def _found(tmp_path, name: str):
    (tmp_path / name).write_text((FIXTURES / name).read_text())
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def _facts(source: str):
    module = load(Path("app.py"), code(source))
    return [(w.lineno, kept, why) for w, kept, why in shaped_windows(module, lambda span: False)]


def test_a_list_that_holds_messages_by_what_it_holds_cut_and_kept_is_reported_where_it_is_cut(tmp_path):
    # nodes of a graph handed back as `List[BaseMessage]` (9); records read by their role, cut and
    # converted twice before they are returned (26); a list turned around, cut and turned back,
    # kept on the instance (43)
    # a list the instance keeps whose items another method reads by their role (60); a roster of
    # users whose role is compared with "admin" is none
    assert _found(tmp_path, "memory.py") == [("PRM105", "info", 9, 20), ("PRM105", "info", 26, 53),
                                             ("PRM105", "info", 43, 26), ("PRM105", "info", 60, 21)]


def test_the_message_says_what_shows_the_list_holds_the_conversation_and_how_it_is_kept(tmp_path):
    (tmp_path / "memory.py").write_text((FIXTURES / "memory.py").read_text())
    first, second, third, fourth = api.check([tmp_path / "memory.py"], api.Settings(), jobs=1).diagnostics
    assert first.message.startswith("`nodes[-n_results:]` keeps only the newest items of a list that holds the "
                                    "conversation (the function is annotated to return `List[BaseMessage]`), and "
                                    "what is made from it is handed back to the caller")
    assert "(its items are read by their role)" in second.message
    assert "(`items` is annotated `list['ChatItem']`), and what is made from it is kept on the instance" \
        in third.message
    assert "(the class `ChatContext` reads the role of the items of `self._items`), and what is made from it is kept " \
        "on the instance" in fourth.message


def test_lists_not_known_as_messages_text_counts_a_summary_s_input_and_the_last_turn_are_none(tmp_path):
    assert _found(tmp_path, "clean.py") == []


def test_a_window_only_read_or_of_a_list_read_by_no_role_is_no_fact():
    assert _facts("""
        def newest(records, k):
            kept = records[-k:]
            print(kept)
            return [r.text for r in records]

        def tail(events, k):
            return events[-k:]
    """) == []
    assert _facts("""
        def newest(records, k):
            kept = records[-k:]
            return [{"role": r["role"], "content": r["text"]} for r in kept]
    """) == [(2, "returned", "its items are read by their role")]


def test_a_count_named_as_a_window_of_the_history_is_chosen_by_the_callers():
    # `runs[-last_n_runs:]` of a loader: the calls that give `last_n_runs=` are reported (history_loads)
    assert _facts("""
        from typing import List

        def get_messages(runs, last_n_runs=None) -> List["Message"]:
            kept = runs[-last_n_runs:]
            return [m for run in kept for m in run.messages]
    """) == []


def test_a_page_of_a_listing_or_the_newest_results_of_a_search_are_no_fact():
    assert _facts("""
        def page(records, before=None, limit=50):
            return [{"role": r["role"], "content": r["text"]} for r in records[-limit:]]

        def found(records, needle, limit=20):
            return [{"role": r["role"], "content": r["text"]} for r in records[-limit:] if needle in r["text"]]
    """) == []
