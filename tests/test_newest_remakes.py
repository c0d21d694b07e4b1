"""PRM105 facts: the newest message of a kept conversation re-made for the request on a copy
(python/newest_remakes.py): the kept conversation re-sends it as it was. A copy written back to
the instance, a write into a shallow copy's newest message (the kept one itself), a list that is
not an instance's conversation, and a call that only reads the newest message are not ones. The fixture is fixtures/newest_remakes/agents.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.newest_remakes import might_remake, newest_remakes

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "newest_remakes" / "agents.py"


def test_the_newest_message_re_made_on_a_copy_is_found_and_kept_remakes_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `request` (a formatter's messages put in place of the newest, the copy made in a loop),
    # `wrapped` (its content written with a wrap of it, on new dicts: `[dict(m) for m in ...]`);
    # not `written_back`, `not_kept` (`rows`), `shallow` (`list(...)`: the kept message written too), `read_only`
    assert [(c.lineno, k.lineno) for c, k in newest_remakes(module)] == [(15, 13), (22, 21)]


def test_the_rule_reports_them_at_info_with_the_copy_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if "re-made here" in d.message]
    assert found == [("PRM105", "info", 15, [13]), ("PRM105", "info", 22, [21])]


def test_the_text_test_needs_the_newest_item_an_instance_and_a_removal_or_a_write():
    assert might_remake("x = f(self.history)\nr = g(out[-1])\ndel out[-1]\n")
    assert might_remake('m = list(self.messages)\nm[-1]["content"] = w(m[-1]["content"])\n')
    assert not might_remake("x = f(self.rows)\nr = g(out[-1])\ndel out[-1]\n")  # no kept conversation
    assert not might_remake("x = f(self.history)\nr = g(out[-1])\n")
