"""PRM105: history rewritten mid-conversation. A conversation rendered with its newest turn given
something the older turns lose (python/history_renders.py, flow/rewrites.py `_decorated`), a
newest-first walk that keeps only the newest message of a kind (flow/cuts.py `_older_dropped`), messages a caller names left
out of the kept conversation (python/kept_removals.py), stored messages replayed with a content
field cleared (python/replay_strips.py). The fixtures are under fixtures/history_rewrites/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.history_renders import rendered_apart
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "history_rewrites"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, [r.span.start.row for r in d.related],
             d.message) for d in report.diagnostics]


def test_only_the_newest_turn_given_its_instructions_is_found_where_it_is_told_apart():
    (code, severity, row, column, related, message), = _report("colang_history.py")
    assert (code, severity, row, column, related) == ("PRM105", "info", 20, 16, [16])
    assert message.startswith("The conversation is rendered here (into text or messages) with its newest turns written apart")


def test_a_separator_between_turns_and_a_mark_on_the_first_turn_are_no_rendering_apart():
    module = load(FIXTURES / "colang_history.py", (FIXTURES / "colang_history.py").read_text(encoding="utf-8"))
    assert [(test.lineno, loop.lineno) for test, loop in rendered_apart(module)] == [(20, 16)]


def test_older_code_messages_skipped_by_a_newest_first_walk_are_a_cut_where_it_skips():
    (code, severity, row, column, related, message), = _report("newest_code.py")
    assert (code, severity, row, column, related) == ("PRM105", "info", 16, 9, [])
    assert message.startswith("The conversation history `history` is cut here (the request that sends it is not linked")


def test_messages_a_caller_names_left_out_of_the_kept_conversation_are_found_where_they_are_left_out():
    (code, severity, row, column, related, message), = _report("context_store.py")
    assert (code, severity, row, column, related) == ("PRM105", "info", 20, 37, [20])
    assert message.startswith("The messages this function is handed are left out of the kept conversation here")


def test_appending_and_leaving_out_messages_by_kind_are_no_removal_of_named_messages():
    from promptlint.python.kept_removals import kept_removals
    module = load(FIXTURES / "context_store.py", (FIXTURES / "context_store.py").read_text(encoding="utf-8"))
    assert [(kept.lineno, call.func.id) for kept, call in kept_removals(module)] == [(20, "replace_context_messages")]


def test_a_stored_message_replayed_with_its_context_cleared_is_found_where_it_is_cleared():
    (code, severity, row, column, related, message), = _report("turn_replay.py")
    assert (code, severity, row, column, related) == ("PRM105", "info", 14, 13, [11])
    assert message.startswith("A copy of each stored message is re-sent with this field cleared")


def test_messages_replayed_as_stored_or_with_only_an_id_cleared_are_clean():
    from promptlint.python.replay_strips import replay_strips
    module = load(FIXTURES / "turn_replay.py", (FIXTURES / "turn_replay.py").read_text(encoding="utf-8"))
    assert [(n.lineno, loop.lineno) for n, loop in replay_strips(module)] == [(14, 11)]


def test_callers_that_hand_the_remover_messages_chosen_by_a_test_are_found_with_its_place_related():
    report = api.check([FIXTURES / "memory"], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
              [(Path(r.span.filename).name, r.span.start.row) for r in d.related]) for d in report.diagnostics]
    assert found == [("recall.py", "PRM105", "info", 15, [("store.py", 15)]),   # pipe(..., filter(...), remover)
                     ("recall.py", "PRM105", "info", 24, [("store.py", 15)]),   # remover(ctx, [m for m in ... if ...])
                     ("store.py", "PRM105", "info", 15, [("store.py", 15)])]    # the remover itself
    assert report.diagnostics[0].message.startswith("Messages of the kept conversation chosen by a test are handed")


COUNTED = '''
class Model:
    def count_tokens(self, messages):
        {init}
        n = len(messages)
        for i, message in enumerate(messages):
            if i == n - 1:
                total += 2 + len(self.tokenizer.encode(message["content"], eos=False))
            else:
                total += 1 + len(self.tokenizer.encode(message["content"], eos=True))
        return total
'''


def test_a_loop_that_only_counts_the_tokens_of_each_message_renders_nothing():
    counted = load(Path("m.py"), COUNTED.format(init="total = 0"))
    assert rendered_apart(counted) == []
    # the same loop building text (the newest message written apart) is a rendering
    built = load(Path("m.py"), COUNTED.format(init='total = ""').replace("2 + len(", "str(").replace("1 + len(", "str("))
    assert [(test.lineno, loop.lineno) for test, loop in rendered_apart(built)] == [(7, 6)]
