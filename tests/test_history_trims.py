"""A conversation cut to its newest part by code the request builder calls: loaded with a window
keyword that names its unit (`last_n_runs=`), a window a module-private helper hands on and its
calls choose, and a helper that keeps the newest messages of a kind and writes them back into the
caller's list (python/history_loads.py, python/history_trims.py; PRM105, info)."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, files: dict[str, str]):
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]


LOADER = """
    class Concierge:
        rounds_replayed: int = 5

        def replay(self, journal, thread: str):
            def pull(window):
                return journal.fetch_messages(thread, last_n_rounds=window)

            first = pull(self.rounds_replayed)
            everything = pull(None)
            return first, everything

        def latest(self, journal, thread: str):
            return journal.get_history(thread, last_n_runs=self.rounds_replayed)

        def previous_answer(self, journal, thread: str):
            return journal.get_history(thread, last_n_runs=1)
"""


def test_a_window_keyword_with_its_unit_and_a_window_handed_on_by_a_nested_helper(tmp_path):
    # reported where the window is chosen: the nested helper's call with a setting (line 8), not
    # the call that asks for everything (None); the keyword given directly (line 13); one run is no window
    assert _found(tmp_path, {"concierge.py": LOADER}) == [("PRM105", "info", "concierge.py", 8),
                                                        ("PRM105", "info", "concierge.py", 13)]


def test_a_read_given_a_limit_is_a_window_when_its_result_is_kept_as_the_conversation(tmp_path):
    # `limit=` alone says nothing of what is kept; a read of a session assigned to `history`
    # keeps its newest items (line 5); the same read kept as `rows`, a search given a limit, a read
    # named for a history alone (a search history, a schedule's) and a limit of one are none; a read
    # given a named window and a limit is one finding, at the named window (13); the newest few read under another name (to look up
    # memories with) are none
    assert _found(tmp_path, {"runner.py": """
        async def prepare(session, settings, query, store):
            if settings.limit is not None:
                history = await get_session_items(
                    session,
                    limit=settings.limit,
                )
            rows = await get_session_items(session, limit=settings.limit)
            messages = store.search_messages(query, limit=10)
            history3 = await get_history(user_id, limit=20)
            memory_messages = await thread.get_messages_async(limit=3)
            last = await get_session_items(session, limit=1)
            history2 = await get_session_items(session)
            history4 = session.get_messages(last_n_runs=settings.runs, limit=settings.messages)
            return history, rows, messages, last, history2, history4, memory_messages
    """}) == [("PRM105", "info", "runner.py", 5), ("PRM105", "info", "runner.py", 13)]


def test_a_window_handed_on_by_a_public_function_is_chosen_by_its_callers_elsewhere(tmp_path):
    source = """
        def load(journal, thread: str, last_n_runs=None):
            return journal.get_history(thread, last_n_runs=last_n_runs)
    """
    assert _found(tmp_path, {"loader.py": source}) == []


PAGES = """
    from chatbox import chat_box

    SETTINGS = {"history_len": 10}


    def get_messages_history(history_len: int, system: str = "") -> list:
        messages = chat_box.filter_history(history_len=history_len)
        if system:
            messages = [{"role": "system", "content": system}] + messages
        return messages


    def dialogue_page(ctx):
        history = get_messages_history(SETTINGS.get("history_len", 3))
        everything = get_messages_history(-1)
        last = get_messages_history(1)
        return history, everything, last
"""

KB_PAGE = """
    from openai import OpenAI

    from pages.dialogue import get_messages_history

    client = OpenAI()


    def kb_page(ctx, chosen, question):
        history = get_messages_history(ctx.get("history_len", 0))
        again = get_messages_history(chosen)
        messages = history + again + [{"role": "user", "content": question}]
        return client.chat.completions.create(model="gpt-4.1", messages=messages)
"""


def test_a_window_keyword_naming_the_history_s_length_handed_on_by_a_public_helper_is_chosen_at_its_calls(tmp_path):
    found = _found(tmp_path, {"pages/__init__.py": "", "pages/dialogue.py": PAGES, "pages/kb.py": KB_PAGE})
    # `filter_history(history_len=...)`, a library's read named for the history, is handed the
    # helper's parameter: the window is chosen where the helper is called with a setting, in its
    # own module (line 14) and in another (kb.py line 9); the whole history (-1), one message, and a
    # name handed on from elsewhere (`chosen`) are not windows chosen there
    assert [f for f in found if f[0] == "PRM105"] == [("PRM105", "info", "dialogue.py", 14),
                                                     ("PRM105", "info", "kb.py", 9)]


def test_the_same_keyword_given_to_a_call_not_named_for_reading_the_conversation_is_no_window(tmp_path):
    pages = PAGES.replace("chat_box.filter_history(history_len=history_len)",
                          "chat_box.render_widgets(history_len=history_len)")
    found = _found(tmp_path, {"pages/__init__.py": "", "pages/dialogue.py": pages, "pages/kb.py": KB_PAGE})
    assert [f for f in found if f[0] == "PRM105"] == []


PRUNING = """
    def keep_fresh_readings(entries, allowance):
        kept = []
        for e in reversed(entries):
            if e["role"] == "tool" and len(kept) < allowance:
                kept.append(e["call"])
        entries[:] = [e for e in entries if e["role"] != "tool" or e["call"] in kept]


    def over_allowance(entries, allowance):
        return sum(1 for e in entries if e["role"] == "tool") > allowance


    def newest(entries, allowance):
        return entries[-allowance:]
"""

STATION = """
    from openai import OpenAI

    from weather.pruning import keep_fresh_readings, newest, over_allowance

    client = OpenAI()


    class Station:
        reading_allowance: int = 4

        def ask(self, prior_messages: list, question: str) -> str:
            keep_fresh_readings(prior_messages, self.reading_allowance)
            if over_allowance(prior_messages, self.reading_allowance):
                question = question + " (short)"
            request = [{"role": "system", "content": "You read weather stations."}, *prior_messages,
                       {"role": "user", "content": question}]
            return client.chat.completions.create(model="gpt-4.1", messages=request).choices[0].message.content

        def look(self, history: list) -> list:
            history = newest(history, self.reading_allowance)
            return history
"""


def test_a_conversation_handed_to_a_helper_that_writes_back_its_newest_part(tmp_path):
    found = _found(tmp_path, {"weather/__init__.py": "", "weather/pruning.py": PRUNING, "weather/station.py": STATION})
    # the in-place helper's call (line 12) and the returned cut assigned back to the name (line 20);
    # the helper that only counts writes nothing back
    assert [f for f in found if f[2] == "station.py"] == [("PRM105", "info", "station.py", 12),
                                                          ("PRM105", "info", "station.py", 20)]


def test_a_helper_given_a_constant_of_one_or_the_list_under_another_name_cuts_nothing_here(tmp_path):
    station = STATION.replace("keep_fresh_readings(prior_messages, self.reading_allowance)",
                              "keep_fresh_readings(prior_messages, 1)") \
        .replace("history = newest(history, self.reading_allowance)", "latest = newest(history, self.reading_allowance)") \
        .replace("return history", "return latest")
    found = _found(tmp_path, {"weather/__init__.py": "", "weather/pruning.py": PRUNING, "weather/station.py": station})
    assert [f for f in found if f[2] == "station.py"] == []


def test_a_helper_that_filters_by_membership_newest_first_is_no_cut_to_a_limit(tmp_path):
    pruning = """
        def drop_unknown_tools(entries, allowed):
            seen = []
            for e in reversed(entries):
                if e["role"] == "tool" and e["name"] in allowed:
                    seen.append(e["call"])
            entries[:] = [e for e in entries if e["role"] != "tool" or e["call"] in seen]
    """
    station = """
        from openai import OpenAI

        from weather.pruning import drop_unknown_tools

        client = OpenAI()


        class Station:
            def ask(self, history: list, question: str) -> str:
                drop_unknown_tools(history, self.allowed_tools)
                request = [{"role": "system", "content": "You read weather stations."}, *history,
                           {"role": "user", "content": question}]
                return client.chat.completions.create(model="gpt-4.1", messages=request).choices[0].message.content
    """
    found = _found(tmp_path, {"weather/__init__.py": "", "weather/pruning.py": pruning, "weather/station.py": station})
    assert found == []


WALKED = """
    class Limiter:
        def __init__(self, max_tokens):
            self.max_tokens = max_tokens

        def apply(self, messages):
            kept = []
            used = 0
            for msg in reversed(messages):
                if used + count(msg) > self.max_tokens:
                    msg["content"] = shorten(msg["content"], self.max_tokens - used)
                    kept.insert(0, msg)
                    break
                used += count(msg)
                kept.insert(0, msg)
            return kept
"""


def test_a_newest_first_walk_is_reported_at_the_walk_with_its_bounded_stop_related(tmp_path):
    write(tmp_path, {"app.py": WALKED})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found, = [d for d in report.diagnostics if d.code == "PRM105"]
    assert (found.severity.value, found.span.start.row) == ("info", 8)  # `for msg in reversed(messages):`
    assert [(r.span.start.row, r.message.split(":")[0]) for r in found.related] == [
        (9, "the walk stops here at its bound")]
