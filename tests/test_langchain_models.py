"""PRM302 at LangChain's `ChatAnthropic` in a package that never names a breakpoint key and runs
tool-calling agents: fixtures/langchain_models (its README says what each package shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "langchain_models"


def _found(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
            for d in report.diagnostics if d.code == "PRM302"]


def test_a_claude_model_of_a_package_that_runs_agents_with_no_breakpoint_is_reported():
    found = _found("agent")
    assert [f[:4] for f in found] == [("llm.py", "PRM302", "info", 7)]  # `ChatAnthropic(...)`, not `ChatOpenAI`
    assert found[0][4].startswith("This Claude chat model sends a cache breakpoint only where a message's content "
                                  "block carries a `cache_control`, and no file of the package names one, while the "
                                  "package runs tool-calling agents")


def test_no_agent_in_the_package_or_a_file_naming_cache_control_is_not_reported():
    assert _found("oneshot") == []  # one-shot prompts: the loss is not shown
    assert _found("marked") == []  # the agent's system message carries a breakpoint


def test_a_claude_chat_model_whose_template_replays_the_conversation_is_reported():
    found = _found("chat")
    assert [f[:4] for f in found] == [("agent.py", "PRM302", "info", 11), ("claude.py", "PRM302", "info", 8)]
    assert all(f[4].startswith("This chat model runs on Anthropic (a Claude model, or a provider setting the module "
                               "expects to be \"anthropic\"), and the module replays the conversation (a prompt "
                               "template's history placeholder, or a list of LangChain messages it grows turn by "
                               "turn) with no cache breakpoint") for f in found)


def test_a_factory_of_the_package_named_create_agent_is_no_agent_and_openai_is_not_reported():
    assert _found("factory") == []
    assert _found("openai_chat") == []


def test_an_agent_factory_imported_inside_a_function_is_langchains():
    # (before: only the module's own imports were read, so `from langchain.agents import create_agent`
    # inside the function that builds the agent hid the package's agents)
    assert [f[:4] for f in _found("local_import")] == [("llm.py", "PRM302", "info", 7)]


def test_llama_index_claude_model_in_a_package_running_its_agents_is_reported():
    found = _found("llama_agent")
    assert [f[:4] for f in found] == [("llms.py", "PRM302", "info", 7)]
    assert found[0][4].startswith("This Claude chat model sends a cache breakpoint only where")
    assert _found("llama_oneshot") == []


def test_a_model_chosen_at_run_time_in_a_package_that_names_claude_is_reported_where_it_runs_agents():
    found = _found("runtime")
    # `configurable_fields=("model", ...)`, `model=config.research_model`; not the one-shot summariser (summarizer.py)
    # nor the `model_provider="openai"` model
    assert [f[:4] for f in found] == [("researcher.py", "PRM302", "info", 6), ("researcher.py", "PRM302", "info", 11)]
    assert all(f[4].startswith("This chat model's provider is chosen at run time, and the package names Claude "
                               "models among those it runs") for f in found)


def test_a_model_chosen_at_run_time_with_no_claude_named_or_a_breakpoint_named_is_not_reported():
    assert _found("runtime_unnamed") == []
    assert _found("runtime_marked") == []
    assert _found("runtime_docstring") == []  # a Claude name in a docstring example only


def test_breakpoints_named_only_where_a_function_sends_its_own_request_do_not_hide_the_agents_model():
    found = _found("runtime_own_marks")
    # (before: judge.py's `cache_control`, on the one request its `grade` sends, hid both models)
    assert [f[:4] for f in found] == [("researcher.py", "PRM302", "info", 6), ("researcher.py", "PRM302", "info", 11)]
    assert all("while no file of the package writes a cache breakpoint on this model's requests (the files that "
               "name one mark only requests their own functions send):" in f[4] for f in found)
    assert _found("agent_own_marks") == []  # the function that marks the prompt builds the agent with it
    assert _found("runtime_marked") == []  # a helper returns the marked message: it may reach any request


def test_a_claude_model_class_kept_in_a_table_to_be_built_later_is_a_model_built():
    found = _found("kept_class")
    # (before: only a call `ChatAnthropic(...)` was read; `model_class(**args_mapping[model_class])` builds it)
    assert [f[:4] for f in found] == [("llm.py", "PRM302", "info", 8)]
    assert found[0][4].startswith("This Claude chat model sends a cache breakpoint only where a message's content "
                                  "block carries a `cache_control`, and no file of the package names one")
    assert _found("tested_class") == []  # `isinstance(model, (ChatAnthropic,))` and a subclass build nothing


def test_a_claude_chat_model_of_a_module_that_grows_a_conversation_of_langchain_messages_is_reported():
    # `messages.append(HumanMessage(...))` and the reply appended in the same loop: every turn re-sends it
    found = _found("kept_chat")
    assert [f[:4] for f in found] == [("chat.py", "PRM302", "info", 10)]
    assert "a list of LangChain messages it grows turn by turn" in found[0][4]
    assert _found("batch_chat") == []  # a loop that appends only the user's messages builds one request
