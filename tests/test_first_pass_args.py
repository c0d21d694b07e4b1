"""PRM104: prompt text a loop's request carries on its first pass only (python/first_pass_args.py).
The fixture is fixtures/first_pass_args/loops.py."""
from __future__ import annotations

from pathlib import Path

from promptlint.python.first_pass_args import find_first_pass_args
from promptlint.python.module import load

from analysis_support import fixture_findings

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "first_pass_args"


def test_an_argument_given_on_the_first_pass_of_a_for_or_a_counted_while_is_a_fact_once_per_request():
    path = FOLDER / "loops.py"
    module = load(path, path.read_text(encoding="utf-8"))
    found = [(f.node.lineno, f.keyword, f.test, f.conversation, f.request.lineno, [o.lineno for o in f.others])
             for f in find_first_pass_args(module)]
    # the option `stream`, a new conversation per item (or per pass) and a pass other than the first are not read
    assert found == [(15, "context", "step == 0", "messages", 15, []),
                     (23, "prompt", "iteration == 1", "messages", 24, [24])]


def test_the_rule_reports_it_as_info_with_the_request_related(tmp_path):
    reported = fixture_findings(FOLDER, "loops.py", tmp_path)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in reported if d.code == "PRM104"]
    assert found == [("PRM104", "info", 15, [15]), ("PRM104", "info", 23, [24, 24])]
    message = next(d.message for d in reported if d.code == "PRM104")
    assert message.startswith("`context` is given to the request (line 15) only on the first pass of the loop "
                              "(`step == 0`), which re-sends the conversation `messages`")
