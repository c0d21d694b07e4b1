"""Several sets iterated into one message of a one-shot request (PRM202): each is its own cause
with its own safe fix (`sorted`). Only the last one is reported there (the earlier ones are
followed by per-request content, whose cost is not known), but its fix sorts every set iterated
into the same message, named as related locations, so `fix` leaves no set in hash order behind
and `check` finds nothing more afterwards."""
from __future__ import annotations

from analysis_support import write

from promptlint.api import check, fix

HEAD = '''
    import json
    import random

    from .llm import call_model

    RULES = (
        "1. Each rule is a single Python expression that evaluates to True or False for a pair.\\n"
        "2. Compare lower-cased text, and handle missing keys without raising an exception.\\n"
        "3. Prefer the fields that identify an entity: names, codes, dates and addresses.\\n"
    ) * 10  # (the rules repeated: they stand for a rubric long enough to be worth caching)
'''

TWO_SETS = HEAD + '''

    def rules_for(left_rows, right_rows):
        left_keys = set(left_rows[0].keys())
        right_keys = set(right_rows[0].keys())
        sample = random.sample(left_rows, 3)
        messages = [
            {"role": "system", "content": "You write Python."},
            {"role": "user", "content": (
                f"Write blocking rules for an equijoin.\\nLeft keys: {', '.join(left_keys)}\\n"
                f"Sample rows:\\n{json.dumps(sample)}\\n"
                f"Prioritize rules over these right keys: {', '.join(right_keys)}.\\n{RULES}"
            )},
        ]
        return call_model(messages)
'''

ONE_SET = HEAD + '''

    def rules_for(left_rows):
        left_keys = set(left_rows[0].keys())
        messages = [
            {"role": "system", "content": "You write Python."},
            {"role": "user", "content": f"Write blocking rules. Use these keys: {', '.join(left_keys)}.\\n{RULES}"},
        ]
        return call_model(messages)
'''

LLM = '''
    def call_model(messages):
        from .gateway import gateway_client
        return gateway_client().complete(messages=messages)
'''


def _project(root, body: str) -> None:
    write(root, {"app/__init__.py": "", "app/llm.py": LLM, "app/rules.py": body})


def test_one_finding_sorts_every_set_of_the_message(tmp_path, monkeypatch):
    _project(tmp_path, TWO_SETS)
    monkeypatch.chdir(tmp_path)
    found = [d for d in check(["."]).diagnostics if d.code == "PRM202"]
    assert len(found) == 1
    d = found[0]
    lines = (tmp_path / "app/rules.py").read_text().splitlines()
    assert "right_keys)}" in lines[d.span.start.row - 1]
    earlier = [r for r in d.related if "same message" in r.message]
    assert ["left_keys)}" in lines[r.span.start.row - 1] for r in earlier] == [True]
    assert d.fix is not None
    run = fix(["."])
    text = (tmp_path / "app/rules.py").read_text()
    assert "', '.join(sorted(left_keys))" in text and "', '.join(sorted(right_keys))" in text
    assert [d for d in run.report.diagnostics if d.code == "PRM202"] == []
    assert [d for d in check(["."]).diagnostics if d.code == "PRM202"] == []


def test_a_single_set_keeps_its_own_fix(tmp_path, monkeypatch):
    _project(tmp_path, ONE_SET)
    monkeypatch.chdir(tmp_path)
    found = [d for d in check(["."]).diagnostics if d.code == "PRM202"]
    assert len(found) == 1
    assert not [r for r in found[0].related if "same message" in r.message]
    assert found[0].fix is not None
    fix(["."])
    assert "', '.join(sorted(left_keys))" in (tmp_path / "app/rules.py").read_text()
