"""PRM105 facts: every message of a conversation an object keeps rewritten in place from its own
text, then a new message added to it (python/kept_rewrites.py): the new message is sent as written
and rewritten on the next turn. A rewrite after the add, a copy, a placeholder and a list handed in
are not ones. The fixture is fixtures/kept_rewrites/workers.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.kept_rewrites import kept_rewrites, might_rewrite
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "kept_rewrites" / "workers.py"


def test_a_rewrite_run_before_an_add_is_found_and_the_others_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `StripsThenAdds.step` runs the method that rewrites each part's text (line 12), then adds to the
    # holder; `ShortensInline.turn` rewrites in its own loop (line 23), then appends. Not
    # `AddsThenStrips` (the new message rewritten before it is sent), not `RewritesCopies` (copies),
    # not `Placeholder` (no old text read), not `handed` (a parameter: the caller's keeping unseen).
    assert [(at.lineno, w.lineno) for at, w in kept_rewrites(module)] == [(15, 12), (22, 23)]


def test_the_rule_reports_them_at_info_with_the_write_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if "rewritten in place here" in d.message]
    assert found == [("PRM105", "info", 15, [12]), ("PRM105", "info", 22, [23])]


def test_the_text_test_needs_a_kept_walk_and_a_content_write():
    source = 'class A:\n    def f(self):\n        for m in self.agent.messages:\n            m["content"] = m["content"].strip()\n'
    assert might_rewrite(source) and might_hold_prompt(source)
    assert not might_rewrite('for m in messages:\n    m["content"] = x\n')
    assert not might_rewrite('for m in self.messages:\n    print(m["content"])\n')
