"""PRM205: a request's model chosen between two written model names by a condition on what the
request sends or on the turn's request (python/model_conditions.py). The fixture is
fixtures/model_conditions/chosen.py."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.model_conditions import find_model_conditions
from promptlint.python.module import load

from analysis_support import fixture_findings

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "model_conditions"


def test_a_size_counted_over_the_messages_and_the_turns_query_choose_the_model_and_settings_do_not():
    path = FOLDER / "chosen.py"
    module = load(path, path.read_text(encoding="utf-8"))
    found = [(c.node.lineno, ast.unparse(c.node), c.models, c.evidence, c.sent, c.request.lineno)
             for c in find_model_conditions(module)]
    assert found == [
        (12, "size > 3500", ["gpt-4.1", "gpt-4.1-mini"], "messages", "prompt", 16),
        (20, "'prove' in user_query", ["o3", "gpt-4.1"], "messages", "[*history, {'role': 'user', 'content': user_query}]", 21)]


def test_the_rule_reports_each_condition_as_info_with_the_request_related(tmp_path):
    reported = fixture_findings(FOLDER, "chosen.py", tmp_path)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in reported if d.code == "PRM205"]
    assert found == [("PRM205", "info", 12, [16]), ("PRM205", "info", 20, [21])]
    message = next(d.message for d in reported if d.code == "PRM205")
    assert message.startswith("The model of the request (line 16) is chosen here between `gpt-4.1` and `gpt-4.1-mini` "
                              "by `size > 3500`, which reads what the request sends (`prompt`)")
