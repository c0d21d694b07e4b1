"""Lists added where a side is written in variants (`([system] if prompt else []) + extra`): `+`
with a list is list concatenation in every variant, so the joined value stays a message list of
variants, and a conversation cut to a token budget after such a head is still found where it is
cut (PRM105)."""
from promptlint import api
from promptlint.python.flow.values import Alt, Seq, Spread

from analysis_support import pos, probe, write

JOINED = """
    def f(intro, pinned, history):
        head = ([{"role": "system", "content": intro}] if intro else []) + (pinned or [])
        probe(head)
        probe(head + history)
"""


def test_a_list_in_variants_added_to_another_list_is_one_list_per_variant(tmp_path):
    head = probe(tmp_path, JOINED, index=0).value
    assert isinstance(head, Alt) and all(isinstance(o, Seq) for o in head.options)
    # (system message or none) x (pinned messages or none): every variant is a list
    shapes = sorted(tuple(type(i).__name__ for i in o.items) for o in head.options)
    assert shapes == [(), ("Mapping",), ("Mapping", "Spread"), ("Spread",)]


def test_the_conversation_added_after_a_head_in_variants_stays_a_list_item(tmp_path):
    joined = probe(tmp_path, JOINED, index=1).value
    assert isinstance(joined, Alt) and len(joined.options) == 4
    for option in joined.options:
        last = option.items[-1]
        assert isinstance(last, Spread) and last.expr == "history"


BUDGETED = """
    class Chat:
        def __init__(self, engine, persona=None, pinned=None, turns=None):
            self.engine = engine
            self.head = ([{"role": "system", "content": persona}] if persona else []) + (pinned or [])
            self.turns: list[dict] = turns or []

        def restore(self, saved):
            self.head = saved.head

        def size(self, msgs):
            return sum(len(m["content"]) for m in msgs)

        def visible(self, limit):
            keep = len(self.turns)
            while keep > 0:
                if self.size(self.head + self.turns[-keep:]) <= limit:
                    break
                keep -= 1
            if not keep:
                return self.head
            return self.head + self.turns[-keep:]

        def everything(self):
            return self.head + self.turns
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_conversation_cut_to_a_budget_after_a_head_in_variants_is_found_where_it_is_cut(tmp_path):
    # the head is a list in variants (a system message or none, pinned messages or none, or what
    # `restore` sets): the newest messages that fit are kept, one finding at the returned slice
    found = _found(tmp_path, BUDGETED)
    at = pos(BUDGETED, "self.turns[-keep:]\n")
    assert found == [("PRM105", "info", at.row, at.column)]


def test_the_whole_conversation_after_a_head_in_variants_is_not_a_cut(tmp_path):
    source = BUDGETED.replace("return self.head + self.turns[-keep:]", "return self.head + self.turns")
    source = source.replace("keep -= 1", "break")
    assert _found(tmp_path, source) == []


def test_past_the_variant_bound_the_sides_are_spread_into_one_list(tmp_path):
    # (4 heads + what `restore` sets) x (the turns or an empty list): 10 pairs, over the bound
    probed = probe(tmp_path, BUDGETED.replace("return self.head + self.turns\n", "return probe(self.head + self.turns)\n"))
    joined = probed.value
    assert isinstance(joined, Seq) and [type(i).__name__ for i in joined.items] == ["Spread", "Spread"]
    assert [i.expr for i in joined.items] == ["self.head", "self.turns"]
