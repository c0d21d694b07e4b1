"""PRM205 facts: an Anthropic thinking budget computed from the request's `max_tokens`
(python/thinking_budgets.py; fixtures/thinking_budgets/adapter.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.thinking_budgets import might_derive, thinking_budgets

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "thinking_budgets" / "adapter.py"


def _found(src: str) -> list[str]:
    module = load(Path("budgets.py"), textwrap.dedent(src))
    return [ast.unparse(n) for n in thinking_budgets(module)]


def test_a_budget_read_from_the_calls_max_tokens_is_found_where_it_is_computed():
    assert _found("""
        def via_name(params):
            budget = min(BUDGETS[params.reasoning_effort], params.max_tokens - 1024)
            return {"thinking": {"type": "enabled", "budget_tokens": budget}}

        def inline(max_tokens, messages):
            return client.messages.create(messages=messages, max_tokens=max_tokens,
                                          thinking={"type": "enabled", "budget_tokens": max_tokens // 2})

        def helper(result, level):
            budget_tokens = compute_thinking_budget(level, result["max_tokens"])
            result["thinking"] = {"type": "enabled", "budget_tokens": budget_tokens}

        def keyword(kwargs):
            return ThinkingConfig(budget_tokens=kwargs.get("max_tokens", 4096) - 1)
    """) == ["budget = min(BUDGETS[params.reasoning_effort], params.max_tokens - 1024)", "max_tokens // 2",
             "budget_tokens = compute_thinking_budget(level, result['max_tokens'])",
             "kwargs.get('max_tokens', 4096) - 1"]


def test_a_fixed_budget_the_instances_max_tokens_or_a_constant_are_not():
    assert _found("""
        def fixed(params):
            return {"max_tokens": params.max_tokens, "thinking": {"budget_tokens": BUDGETS[params.effort]}}

        class Model:
            def request(self):
                return {"thinking": {"budget_tokens": self.config.max_tokens - 1024}}

        def constant():
            return {"thinking": {"budget_tokens": MAX_TOKENS - 1024}}

        class Local:
            def request(self):
                max_tokens = self.max_tokens or 4096
                return {"max_tokens": max_tokens, "thinking": {"budget_tokens": max_tokens // 2}}
    """) == []


def test_the_rule_reports_it_at_info_where_the_budget_is_computed():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM205"] == [
        ("PRM205", "info", 11)]


def test_the_text_test_needs_both_words():
    assert might_derive('{"budget_tokens": params.max_tokens - 1}')
    assert not might_derive('{"budget_tokens": 1024}')
