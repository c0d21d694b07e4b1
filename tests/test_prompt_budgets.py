"""PRM105 facts: token budgets given to OpenAI Assistants runs (python/history_loads.py)."""
import ast
import textwrap
from types import SimpleNamespace

from promptlint.python.history_loads import prompt_budgets


def _budgets(src: str) -> list[str]:
    tree = ast.parse(textwrap.dedent(src))
    return [ast.unparse(n) for n in prompt_budgets(SimpleNamespace(tree=tree))]


def test_a_constant_budget_in_a_call_or_set_in_keyword_arguments_is_found():
    assert _budgets("""
        agent = Agent(name="Devid", max_prompt_tokens=25000)
        kwargs["max_prompt_tokens"] = 16000
    """) == ["25000", "16000"]


def test_a_budget_passed_on_a_disabled_truncation_or_a_field_default_is_not():
    assert _budgets("""
        client.beta.threads.runs.create(thread_id=t, max_prompt_tokens=agent.max_prompt_tokens)
        client.beta.threads.runs.create(thread_id=t, max_prompt_tokens=5000,
                                        truncation_strategy={"type": "disabled"})
        class Config:
            max_prompt_tokens: int = 100_000
        Agent(max_prompt_tokens=None)
    """) == []
