"""A conversation cut in a helper of its own: messages removed from its middle in a loop, halves
of it joined, messages selected from it by a filter, a parameter annotated as a list of messages."""
from promptlint.model import Kind
from promptlint.python.history_cuts import windows_in
from promptlint.python.flow.values import Seq, Text

from analysis_support import pos, probe

MIDDLE = """
    def f(messages, max_tokens, rows):
        current = messages.copy()
        while count(current) > max_tokens:
            middle = len(current) // 2
            current.pop(middle)
        probe(current)
        for i in reversed(range(len(rows))):
            if rows[i] is None:
                rows.pop(i)
        probe(rows)
        kept = messages.copy()
        while count(kept) > max_tokens:
            kept.pop(len(kept) // 2)
        probe(kept)
        probe(len(messages) - 1)
"""


def test_removing_middle_messages_until_it_fits_cuts_the_conversation(tmp_path):
    cut, = probe(tmp_path, MIDDLE, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(MIDDLE, "current.pop(middle)")
    halved, = probe(tmp_path, MIDDLE, index=2).segs
    assert halved.window.start == pos(MIDDLE, "kept.pop(len(kept) // 2)")


def test_popping_the_item_a_for_loop_visits_is_a_filter_not_a_cut(tmp_path):
    rows = probe(tmp_path, MIDDLE, index=1).segs
    assert not any(s.window for s in rows)


HALVES = """
    def f(messages, n):
        head = messages[:n]
        tail = messages[-n:]
        both = head + tail
        probe(both[:n])
        both.insert(n, messages[3])
        probe(both[:n])
        probe(both[-n:])
"""


def test_halves_of_a_conversation_joined_and_sliced_keep_the_cut(tmp_path):
    for index in (0, 1):
        cut, = windows_in(probe(tmp_path, HALVES, index=index).value)
        assert cut.kind is Kind.HISTORY and cut.window.start == pos(HALVES, "messages[-n:]")
    again, = probe(tmp_path, HALVES, index=2).segs
    assert again.kind is Kind.HISTORY and again.window.start == pos(HALVES, "both[-n:]")


SELECTED = """
    from typing import List


    class Message:
        role: str


    def f(messages: List[Message], log: list["Message"], rows: list[str], n):
        others = [m for m in messages if m.role != "system"]
        probe(others)
        probe(others[-n:])
        probe(log)
        probe(rows)
        probe([m.content for m in messages])
"""


def test_messages_selected_by_a_filter_are_still_the_conversation(tmp_path):
    others, = probe(tmp_path, SELECTED, index=0).segs
    assert others.kind is Kind.HISTORY and others.window is None
    recent, = probe(tmp_path, SELECTED, index=1).segs
    assert recent.kind is Kind.HISTORY and recent.window.start == pos(SELECTED, "others[-n:]")


def test_a_parameter_annotated_as_a_list_of_messages_is_the_conversation(tmp_path):
    log, = probe(tmp_path, SELECTED, index=2).segs
    assert log.kind is Kind.HISTORY and log.expr == "log"
    rows, = probe(tmp_path, SELECTED, index=3).segs
    assert rows.kind is not Kind.HISTORY


def test_a_comprehension_that_converts_each_message_is_not_the_conversation_itself(tmp_path):
    contents = probe(tmp_path, SELECTED, index=4).value
    assert isinstance(contents, Seq) and not isinstance(contents, Text)


CHOSEN = """
    def f(messages, n, keep):
        early = messages[:-keep] if keep > 0 else messages
        probe(early[-n:])
        probe(early[:n])
"""


def test_a_slice_of_one_of_two_conversation_cuts_cuts_each(tmp_path):
    options = probe(tmp_path, CHOSEN, index=0).value.options
    assert [o.segs[0].window.start for o in options] == [pos(CHOSEN, "early[-n:]")] * 2
    kept = probe(tmp_path, CHOSEN, index=1).value
    assert not windows_in(kept)


def test_a_file_that_cuts_a_conversation_in_a_helper_is_read(tmp_path):
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("def fit(messages, n):\n    return messages[-n:]\n")
    assert might_hold_prompt("def fit(history):\n    for m in reversed(history):\n        break\n")
    assert not might_hold_prompt("def last(rows, n):\n    return rows[-n:]\n")
    assert not might_hold_prompt("def last(messages):\n    return messages[-1]\n")
    assert might_hold_prompt("def fit(messages):\n    while big(messages):\n        messages.pop(mid)\n")
    assert not might_hold_prompt("def take(messages, key):\n    return messages.pop(key)\n")
    assert might_hold_prompt("def trim(agent, cut):\n    messages = agent.messages\n    del messages[cut]\n")
    assert might_hold_prompt("def keep(messages):\n    k = len(messages) - 1\n")
    assert might_hold_prompt("def fit(messages):\n    while big(messages):\n        messages.pop()\n")
    assert not might_hold_prompt("def fit(rows):\n    while big(rows):\n        rows.pop()\n")


TURN = """
    def f(messages, budget):
        results = []
        for msg in reversed(messages):
            if msg.role == "assistant":
                break
            results.append(msg)
        probe(results)
        kept = []
        for msg in reversed(messages):
            if len(kept) >= budget:
                break
            kept.append(msg)
        probe(kept)
"""


def test_a_newest_first_walk_that_stops_at_the_last_answer_keeps_the_newest_turn_not_a_window(tmp_path):
    assert not windows_in(probe(tmp_path, TURN, index=0).value)
    cut, = windows_in(probe(tmp_path, TURN, index=1).value)
    assert cut.window.start == pos(TURN, "reversed(messages)", 1)


FITTING = """
    def f(messages, max_size, rows):
        while count(messages) > max_size:
            messages.pop()
        probe(messages)
        while rows:
            rows.pop()
        probe(rows)
        for row in rows:
            messages.pop()
        probe(messages)
"""


def test_a_pop_in_a_loop_that_runs_until_a_size_fits_cuts_the_conversation(tmp_path):
    cut, = probe(tmp_path, FITTING, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(FITTING, "messages.pop()")
    assert not windows_in(probe(tmp_path, FITTING, index=1).value)


def test_a_pop_in_a_for_loop_is_not_a_cut_until_it_fits(tmp_path):
    after = probe(tmp_path, FITTING, index=2).value
    assert [s.window.start for s in windows_in(after)] == [pos(FITTING, "messages.pop()")]


FRONT = """
    def f(messages, window, keep):
        start = len(messages) - window
        remove = [i for i in range(start) if keep(messages[i])]
        for i in reversed(remove):
            del messages[i]
        probe(messages)


    def g(messages, keep):
        for i in reversed(range(len(messages))):
            if not keep(messages[i]):
                del messages[i]
        probe(messages)
"""


def test_deleting_the_first_indices_up_to_a_cut_point_cuts_the_conversation(tmp_path):
    cut, = probe(tmp_path, FRONT, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(FRONT, "del messages[i]")


def test_deleting_items_over_every_index_is_a_filter(tmp_path):
    assert not windows_in(probe(tmp_path, FRONT, index=1).value)


WALK_BACK = """
    def f(messages, budget):
        kept = []
        left = budget
        k = len(messages) - 1
        while k > -1:
            msg = messages[k]
            if left == 0:
                break
            left -= 1
            kept = [msg] + kept
            k -= 1
        probe(kept)
        every = []
        k = len(messages) - 1
        while k >= 0:
            every = [messages[k]] + every
            k -= 1
        probe(every)
"""


def test_a_walk_by_index_from_the_end_that_stops_at_a_count_is_a_window(tmp_path):
    cut, = windows_in(probe(tmp_path, WALK_BACK, index=0).value)
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(WALK_BACK, "k > -1")


def test_a_walk_by_index_from_the_end_without_a_break_keeps_all(tmp_path):
    assert not windows_in(probe(tmp_path, WALK_BACK, index=1).value)


IN_PLACE = """
    class Manager:
        def __init__(self, window_size: int = 40) -> None:
            self.window_size = window_size

        def reduce(self, agent) -> None:
            messages = agent.messages
            start = len(messages) - self.window_size
            for i in reversed([i for i in range(start) if messages[i] is not None]):
                del messages[i]

        def local(self, agent) -> None:
            messages = list(agent.messages)
            for i in range(len(messages) - self.window_size):
                del messages[i]
            self.send(messages)

        def records(self, store) -> None:
            rows = store.rows
            for i in range(len(rows) - self.window_size):
                del rows[i]
"""


def test_a_conversation_cut_in_place_in_a_helper_is_reported_where_it_is_cut(tmp_path):
    from analysis_support import layouts
    found = [lt for lt in layouts(tmp_path, IN_PLACE) if windows_in_layout(lt)]
    assert [windows_in_layout(lt)[0].window.start for lt in found] == [pos(IN_PLACE, "del messages[i]")]


def windows_in_layout(layout):
    return [s for p in layout.parts for s in p.segments if s.window is not None]


UNTIL_IT_FITS = """
    class Agent:
        def __init__(self):
            self.message_history = []

        def clear_history(self, start: int = -2, end: int = -1) -> None:
            del self.message_history[start:end]

        def add(self, message):
            self.message_history.append(message)

        def drop(self, limit):
            hist = self.message_history
            while self.tokens(hist) > limit:
                self.clear_history(1, 2)
            probe(hist)

        def shorten(self, limit):
            hist = self.message_history
            idx = 1
            while self.tokens(hist) > limit:
                hist[idx] = self.shortened(hist[idx])
                idx += 1
            probe(hist)

        def once(self, limit):
            hist = self.message_history
            if self.tokens(hist) > limit:
                self.clear_history(1, 2)
            hist[-1] = self.shortened(hist[-1])
            probe(hist)
"""


def test_a_method_that_deletes_from_the_history_called_until_it_fits_cuts_it(tmp_path):
    cut, = probe(tmp_path, UNTIL_IT_FITS, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(UNTIL_IT_FITS, "self.clear_history(1, 2)")


def test_messages_shortened_in_place_until_it_fits_cut_the_history(tmp_path):
    cut, = probe(tmp_path, UNTIL_IT_FITS, index=1).segs
    assert cut.window.start == pos(UNTIL_IT_FITS, "hist[idx] = ")


def test_the_same_changes_outside_a_loop_that_runs_until_it_fits_are_no_cut(tmp_path):
    assert not windows_in(probe(tmp_path, UNTIL_IT_FITS, index=2).value)


MASKED = """
    def last_n(history, n):
        out = []
        total = len([e for e in history if e["role"] == "user"])
        seen = 0
        for entry in history:
            data = entry.copy()
            if data["role"] == "user":
                seen += 1
            if seen in range(total - n + 1, total + 1):
                out.append(entry)
            else:
                data["content"] = "Old output omitted"
                out.append(data)
        probe(out)


    def in_place(messages, keep):
        for i, m in enumerate(messages):
            if i < len(messages) - keep:
                m["content"] = "(omitted)"
        probe(messages)


    def superseded(history):
        out = []
        shown = set()
        for entry in reversed(history):
            data = entry.copy()
            key = entry["content"][:10]
            if key in shown:
                data["content"] = "Outdated window"
            shown.add(key)
            out.append(data)
        probe(out)


    def by_role(messages):
        out = []
        for m in messages:
            data = dict(m)
            if m["role"] == "tool":
                data["content"] = str(m["content"])
            out.append(data)
        probe(out)


    def first_seen(history):
        out = []
        shown = set()
        for entry in history:
            data = entry.copy()
            if entry["content"] in shown:
                data["content"] = "Repeated"
            shown.add(entry["content"])
            out.append(data)
        probe(out)
"""


def test_older_messages_than_the_newest_few_rewritten_cut_the_history(tmp_path):
    for index, at in ((0, 'data["content"] = "Old'), (1, 'm["content"] = "(omitted)"'), (2, 'data["content"] = "Outd')):
        cut, = windows_in(probe(tmp_path, MASKED, index=index).value)
        assert cut.kind is Kind.HISTORY and cut.window.start == pos(MASKED, at)


def test_messages_rewritten_by_what_they_are_or_at_their_first_send_are_no_cut(tmp_path):
    for index in (3, 4):
        assert not windows_in(probe(tmp_path, MASKED, index=index).value)


KEPT = """
    def f(messages, budget, pinned):
        newest = []
        for msg in reversed(messages):
            newest.append(msg)
            if tokens(newest) > budget:
                break
        kept = {id(m) for m in newest} | pinned
        probe([m for m in messages if id(m) in kept])
        every = {id(m) for m in messages}
        probe([m for m in messages if id(m) in every])
"""


def test_messages_selected_by_membership_in_what_a_cut_kept_are_the_cut(tmp_path):
    cut, = windows_in(probe(tmp_path, KEPT, index=0).value)
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(KEPT, "reversed(messages)")
    assert not windows_in(probe(tmp_path, KEPT, index=1).value)


INDEXED = """
    def f(messages):
        i = 0
        while i < len(messages):
            messages[i] = normalise(messages[i])
            i += 1
        probe(messages)
"""


def test_a_while_loop_that_steps_the_index_of_its_test_is_a_walk_not_a_fit(tmp_path):
    assert not windows_in(probe(tmp_path, INDEXED, index=0).value)


NEWEST_FIRST = """
    def f(messages, n):
        probe(messages[::-1][:n][::-1])
        probe(list(reversed(messages))[:10])
        probe(messages[::-1][:0])
        probe(messages[:10])
"""


def test_the_first_items_of_the_conversation_walked_newest_first_are_its_newest(tmp_path):
    for index in (0, 1):
        cut, = probe(tmp_path / str(index), NEWEST_FIRST, index=index).segs
        assert cut.kind is Kind.HISTORY and cut.window is not None
    for index in (2, 3):  # nothing kept; the oldest ten (a fixed head)
        assert not any(s.window for s in probe(tmp_path / str(index), NEWEST_FIRST, index=index).segs)


CUT_AGAIN = """
    def f(messages, k):
        recent = messages[-k:]
        probe(recent[-2:])
        probe(messages[-3:])
"""


def test_a_cut_of_a_cut_keeps_where_the_conversation_was_first_cut(tmp_path):
    # `recent[-2:]` drops nothing that `messages[-k:]` had not made a window already: one root cause
    again, = probe(tmp_path, CUT_AGAIN, index=0).segs
    assert again.kind is Kind.HISTORY and again.window.start == pos(CUT_AGAIN, "messages[-k:]")
    once, = probe(tmp_path, CUT_AGAIN, index=1).segs
    assert once.window.start == pos(CUT_AGAIN, "messages[-3:]")


STORED = """
    import json
    from json import dump


    class Session:
        def write(self, messages, path):
            kept = messages[:1] + messages[1 + max(0, len(messages) - self.length):]
            json.dump(kept, path.open("w"))

        def save(self, messages, path):
            path.write_text(json.dumps(messages[max(0, len(messages) - 20):]))

        def whole(self, messages, path):
            dump(messages[:1] + messages[1:], path.open("w"))

        def rows(self, rows, path):
            dump(rows[1 + max(0, len(rows) - 5):], path.open("w"))
"""


def test_a_conversation_cut_and_written_to_storage_is_reported_where_it_is_cut(tmp_path):
    from analysis_support import layouts
    found = sorted(windows_in_layout(lt)[0].window.start for lt in layouts(tmp_path, STORED) if windows_in_layout(lt))
    # clamped at 0 and shifted past the kept head message: its newest messages, read back by the
    # next turn; written whole, or a list that is no conversation: no cut
    assert found == [pos(STORED, "messages[1 + max"), pos(STORED, "messages[max(0")]


def test_a_slice_from_a_clamped_or_shifted_length_keeps_the_newest_items():
    import ast
    from promptlint.python.flow.windows import slides
    lower = lambda src: ast.parse(f"xs[{src}:]").body[0].value.slice.lower
    assert [slides(lower(s)) for s in ("1 + max(0, len(xs) - k)", "max(0, len(xs) - k)", "len(xs) - k + 1",
                                        "max(1, 2)", "1 + k", "max(0, len(xs) - k, 3)")] == \
        [True, True, True, False, False, False]


GROWN = """
    history = [{"role": "system", "content": "You write tools."}]

    def f(message, rows):
        history.append({"role": "user", "content": message})
        probe(history[-6:])
        messages = history.copy()
        messages = messages[-6:]
        probe(messages)
        probe(history[1:])
        log = [{"step": 0}]
        for row in rows:
            log.append({"step": row})
        probe(log[-5:])
"""


def test_the_newest_items_of_a_module_level_conversation_grown_by_each_call_are_a_window(tmp_path):
    cut, = probe(tmp_path, GROWN, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(GROWN, "history[-6:]")
    again, = probe(tmp_path, GROWN, index=1).segs
    assert again.window.start == pos(GROWN, "messages[-6:]")


def test_a_fixed_head_dropped_or_a_grown_list_of_other_items_is_no_window(tmp_path):
    assert not windows_in(probe(tmp_path, GROWN, index=2).value)
    assert not windows_in(probe(tmp_path, GROWN, index=3).value)


RUNS = """
    def f(message_history, rows, n):
        runs = []
        for i in range(0, len(message_history) - 1, 2):
            if message_history[i].kind == "request":
                runs.append((message_history[i], message_history[i + 1]))
        kept = runs[-n:]
        probe(kept)
        probe([m for run in kept for m in run])
        probe([m for run in kept for m in run if m.kind])
        pairs = []
        for i in range(0, len(rows) - 1, 2):
            pairs.append((rows[i], rows[i + 1]))
        probe(pairs[-n:])
"""


def test_the_newest_runs_of_a_conversation_grouped_in_runs_are_a_window(tmp_path):
    cut, = probe(tmp_path, RUNS, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(RUNS, "runs[-n:]")
    flat, = probe(tmp_path, RUNS, index=1).segs
    assert flat.kind is Kind.HISTORY and flat.window == cut.window
    assert not any(s.window for s in probe(tmp_path, RUNS, index=2).segs)  # filtered: not read here


def test_pairs_of_other_rows_are_no_conversation(tmp_path):
    assert not any(s.window for s in probe(tmp_path, RUNS, index=3).segs)


NEWEST_ONCE = """
    def f(messages, last, done=False):
        out = []
        for msg in reversed(messages):
            if not done and msg["role"] == "assistant":
                new = msg.copy()
                new["reasoning"] = last
                out.append(new)
                done = True
            else:
                out.append(msg)
        probe(out)
        kept = []
        for msg in reversed(messages):
            if not done and msg["role"] == "assistant":
                msg["reasoning"] = last
                done = True
            kept.append(msg)
        probe(kept)
"""


def test_content_given_to_a_copy_of_the_newest_message_of_a_kind_moves_every_turn(tmp_path):
    cut, = probe(tmp_path, NEWEST_ONCE, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(NEWEST_ONCE, 'new["reasoning"] = last')


def test_content_written_into_the_kept_message_itself_stays_with_it(tmp_path):
    assert not any(s.window for s in probe(tmp_path, NEWEST_ONCE, index=1).segs)


TEXTS = """
    def f(messages, n):
        texts = []
        for m in messages:
            texts.append(m["content"])
        probe(texts[-n:])
        copied = []
        for m in messages:
            copied.append(m)
        probe(copied[-n:])
"""


def test_the_texts_of_a_conversation_are_no_conversation_but_its_messages_are(tmp_path):
    assert not any(s.window for s in probe(tmp_path, TEXTS, index=0).segs)
    cut, = probe(tmp_path, TEXTS, index=1).segs
    assert cut.window.start == pos(TEXTS, "copied[-n:]")


INDEX_DOWN = """
    def f(messages, limit):
        kept = []
        remaining = limit
        for i in range(len(messages) - 1, 0, -1):
            kept.insert(0, messages[i])
            remaining -= 1
            if remaining == 0:
                break
        probe(kept)
        every = []
        for i in range(len(messages) - 1, -1, -1):
            every.insert(0, messages[i])
        probe(every)
"""


def test_a_walk_by_index_down_from_the_newest_that_stops_at_a_count_cuts_the_conversation(tmp_path):
    cut, = probe(tmp_path, INDEX_DOWN, index=0).segs
    assert cut.kind is Kind.HISTORY and cut.window.start == pos(INDEX_DOWN, "range(len(messages) - 1, 0, -1)")
    assert not windows_in(probe(tmp_path, INDEX_DOWN, index=1).value)  # no stop: the whole list, reversed twice


def test_a_file_that_walks_a_conversation_down_by_index_is_read():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("def keep(messages, n):\n    for i in range(len(messages) - 1, 0, -1):\n        break\n")
    assert not might_hold_prompt("def keep(rows):\n    for i in range(len(rows)):\n        pass\n")


STOPPED = """
    def f(messages, max_tokens):
        kept = []
        used = 0
        for msg in reversed(messages):
            if not msg.get("content"):
                kept.insert(0, msg)
                continue
            left = max_tokens - used - count(msg)
            if left < 0:
                msg["content"] = shorten(msg["content"], max_tokens - used)
                kept.insert(0, msg)
                break
            used += count(msg)
            kept.insert(0, msg)
        probe(kept)
        fitted = []
        k = len(messages) - 1
        while k >= 0:
            m = messages[k]
            if size(fitted) + size(m) > max_tokens:
                if m.pinned:
                    break
                break
            fitted.insert(0, m)
            k -= 1
        probe(fitted)
        every = []
        for msg in reversed(messages):
            every.insert(0, msg)
        probe(every)
"""


def test_a_newest_first_walk_keeps_where_it_stops_at_its_bound(tmp_path):
    cut, = windows_in(probe(tmp_path, STOPPED, index=0).value)
    assert cut.window.start == pos(STOPPED, "reversed(messages)")
    assert cut.window_stop.start == pos(STOPPED, "left < 0")  # the bound's test, not the `continue` above it
    back, = windows_in(probe(tmp_path, STOPPED, index=1).value)
    assert back.window.start == pos(STOPPED, "k >= 0")
    assert back.window_stop.start == pos(STOPPED, "size(fitted) + size(m) > max_tokens")  # the outer bound
    assert not windows_in(probe(tmp_path, STOPPED, index=2).value)  # no stop: no cut, no stop


def test_a_cut_that_is_no_walk_has_no_stop(tmp_path):
    cut, = probe(tmp_path, MIDDLE, index=0).segs
    assert cut.window is not None and cut.window_stop is None


def test_a_negative_count_times_a_positive_one_keeps_the_newest_items():
    import ast
    from promptlint.python.flow.windows import slides
    lower = lambda src: ast.parse(f"xs[{src}:]").body[0].value.slice.lower
    assert [slides(lower(s)) for s in ("-2 * self.turns", "self.turns * -2", "-self.turns * 2", "2 * self.turns",
                                        "-2 * -k", "-2 * 0")] == [True, True, True, False, False, False]
