"""PRM105: the conversation read back from storage as its newest messages, cut where it is read
(python/flow/windows.py `_stored_cut`): a read named for the conversation that returns the newest
items of what it reads (`raw[-limit:]`), or a slice of what such a read returns. A warning when
a request sends it as its history, with the count on by default or asked for by the caller;
info where no request is linked, or where the count is off unless a caller asks for it. The
fixtures are under fixtures/stored_reads/."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.class_facts import grown
from promptlint.python.flow.store_reads import reads_conversation

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "stored_reads"


def _report(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics]


def test_a_store_read_that_keeps_the_newest_messages_replayed_by_a_request_is_a_warning_where_it_is_cut():
    # (the store in its own module; `self.store.append(session_id, message)` is the store's method,
    # not a list the agent grows: the call is followed into the store's read)
    assert _report("redis_chat") == [("store.py", "PRM105", "warning", 15, 16)]


def test_a_store_read_with_no_request_linked_is_info_where_it_is_cut():
    assert _report("state_store.py") == [("state_store.py", "PRM105", "info", 14, 24)]


def test_a_count_off_by_default_is_info_and_a_warning_once_the_caller_asks_for_it():
    assert _report("opt_in.py") == [("opt_in.py", "PRM105", "info", 15, 44)]
    assert _report("opt_in_asked.py") == [("opt_in_asked.py", "PRM105", "warning", 15, 44)]


def test_whole_reads_logged_tails_and_reads_that_are_no_conversation_are_not_reported():
    assert _report("whole.py") == []


def test_the_newest_messages_of_a_read_rebuilt_one_by_one_are_still_the_cut():
    assert _report("rebuilt.py") == [("rebuilt.py", "PRM105", "info", 10, 91)]


def test_names_of_reads_of_the_conversation():
    assert [n for n in ("get_messages", "load_chat_history", "fetchRecentTurns", "get_history", "get_session",
                        "load_log_messages", "get_recent_errors", "messages", "read_trace_history")
            if reads_conversation(n)] == ["get_messages", "load_chat_history", "fetchRecentTurns", "get_history"]


def test_a_method_of_a_held_object_given_two_arguments_does_not_grow_a_list():
    cls = ast.parse(
        "class A:\n"
        "    def add(self, sid, m):\n"
        "        self.store.append(sid, m)\n"
        "        self.log.append(m)\n"
        "        self.queue.insert(0, m)\n"
        "        self.other.extend(m, key=1)\n").body[0]
    assert [a for a in ("store", "log", "queue", "other") if grown(cls, a)] == ["log", "queue"]


def test_the_newest_messages_of_a_read_put_before_the_conversation_are_a_cut_where_they_are_taken():
    # (the whole read put there, `reconstruct_all`, is no cut)
    assert _report("put_before.py") == [("put_before.py", "PRM105", "info", 12, 18)]


def test_the_generic_read_method_of_a_message_store_that_returns_its_newest_messages_is_a_cut():
    # (`DictChatHistory.get`: the class's name says it keeps a conversation; `RowsStore.load`: its
    # annotation says it returns turns, converted one for one in a loop; `JsonMemoryBackend.aget`:
    # converted one for one in a comprehension)
    assert _report("generic_get.py") == [("generic_get.py", "PRM105", "info", 23, 16),
                                         ("generic_get.py", "PRM105", "info", 34, 16),
                                         ("generic_get.py", "PRM105", "info", 47, 41)]


def test_generic_reads_of_other_records_whole_reads_and_logged_tails_are_not_cuts():
    assert _report("generic_get_clean.py") == []


def test_which_methods_are_the_read_method_of_a_message_store():
    from promptlint.python.flow.store_reads import reads_stored_messages
    tree = ast.parse(
        "class ChatMemory:\n    def get(self): pass\n    def aload(self): pass\n    def gather(self): pass\n"
        "class EventLogMemory:\n    def get(self): pass\n"
        "class Cache:\n    def get(self) -> list[Message]: pass\n    def fetch(self) -> list[str]: pass\n")
    found = [f"{c.name}.{f.name}" for c in tree.body for f in c.body if reads_stored_messages(f, c)]
    assert found == ["ChatMemory.get", "ChatMemory.aload", "Cache.get"]


def test_which_methods_read_the_newest_records_of_a_message_store():
    from promptlint.python.flow.store_reads import reads_newest_stored
    tree = ast.parse(
        "class MessageHistory:\n    def get_recent(self): pass\n    def get_relevant(self): pass\n"
        "    def load_latest(self): pass\n    def recent(self): pass\n"
        "class EventLog:\n    def get_recent(self): pass\n"
        "class Index:\n    def get_latest(self): pass\n")
    found = [f"{c.name}.{f.name}" for c in tree.body for f in c.body if reads_newest_stored(f, c)]
    assert found == ["MessageHistory.get_recent", "MessageHistory.load_latest"]


def test_a_newest_first_query_turned_back_into_time_order_is_a_window_where_the_limit_is():
    # (a search body's `size`, SQL `ORDER BY ... DESC LIMIT ?`, `.order_by(x.desc()).limit(k)`,
    # `.sort("at", -1).limit(k)`, a query object's `num_results=k` sorted by `q.sort_by("ts", asc=False)`
    # in a history class's `get_recent`; each reversed)
    assert _report("newest_queries.py") == [("newest_queries.py", "PRM105", "info", 14, 64),
                                            ("newest_queries.py", "PRM105", "info", 27, 13),
                                            ("newest_queries.py", "PRM105", "info", 38, 55),
                                            ("newest_queries.py", "PRM105", "info", 47, 78),
                                            ("newest_queries.py", "PRM105", "info", 56, 107)]


def test_ascending_single_record_log_and_unreversed_queries_are_not_windows():
    assert _report("newest_queries_clean.py") == []


def test_a_store_read_put_in_time_order_then_turned_around_is_newest_first_where_it_is_turned():
    # (`sorted(key=<time>)` then `.reverse()`, `.sort(key=<time>)` then `[::-1]`, a conversion given
    # `sort_by_time=True` then `.reverse()`; each returned)
    assert _report("newest_first.py") == [("newest_first.py", "PRM105", "info", 14, 9),
                                          ("newest_first.py", "PRM105", "info", 25, 17),
                                          ("newest_first.py", "PRM105", "info", 38, 9)]


def test_time_order_restored_a_reversal_a_caller_asks_for_relevance_and_events_are_not_newest_first():
    assert _report("newest_first_clean.py") == []


def test_a_graph_query_walking_back_a_bounded_path_from_the_newest_message_is_a_window_where_the_limit_is():
    # (Cypher `<-[:NEXT*0..{window}]-()` then `reverse(nodes(p))`: the newest messages of the linked
    # list, in time order; in a store's `messages` property filled by `.format(window=...)`, and in an
    # f-string of a `get_messages` read)
    assert _report("path_queries.py") == [("path_queries.py", "PRM105", "info", 21, 68),
                                          ("path_queries.py", "PRM105", "info", 34, 96)]


def test_an_unbounded_path_a_walk_not_turned_around_and_other_reads_are_not_windows():
    assert _report("path_queries_clean.py") == []


def test_a_stored_conversation_read_with_no_order_asked_is_info_where_it_is_read():
    # (SQL with no ORDER BY, at its text; `select(Row)` and `session.query(Row)` given no `order_by`; a
    # document `find` with no sort, also named through an adapter; a key-value range read)
    assert _report("unordered_reads.py") == [("unordered_reads.py", "PRM105", "info", 15, 13),
                                             ("unordered_reads.py", "PRM105", "info", 32, 45),
                                             ("unordered_reads.py", "PRM105", "info", 36, 62),
                                             ("unordered_reads.py", "PRM105", "info", 39, 21),
                                             ("unordered_reads.py", "PRM105", "info", 42, 21),
                                             ("unordered_reads.py", "PRM105", "info", 45, 24)]


def test_ordered_sorted_single_record_and_other_reads_are_not_unordered_conversations():
    assert _report("unordered_reads_clean.py") == []


def test_the_prefilter_keeps_a_conversation_reader_of_a_store_and_no_other_store_read():
    from promptlint.python.prefilter import might_hold_prompt
    reader = ("class TurnStore:\n    async def get_session_turns(self, s):\n"
              "        return await self.kv.values_in_range(start_key=s, end_key=s + 'z')\n")
    other = "class Shelf:\n    def items(self, s):\n        return self.db.execute('SELECT a FROM b').fetchall()\n"
    assert [might_hold_prompt(reader), might_hold_prompt(other)] == [True, False]


def test_a_stored_conversation_read_through_a_generic_read_helper_with_no_order_is_info_at_the_helper():
    report = api.check([FIXTURES / "helper_reads"], api.Settings(), jobs=1)
    assert [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [(Path(r.span.filename).name, r.span.start.row) for r in d.related]) for d in report.diagnostics] \
        == [("manager.py", "PRM105", "info", 14, 17, [("chat.py", 10)])]


def test_a_helper_that_orders_its_read_or_a_reader_that_sorts_what_a_helper_gives_is_not_reported():
    assert _report("helper_reads_clean") == []
