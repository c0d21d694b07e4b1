"""Candidates read only in case they are prompts (a tools list kept in a local name or returned, a
cut conversation where a function returns, the message list of a function not named for
prompts): what the names and shapes admit, and the speculative budget past which such a
candidate is dropped (python/flow/budget.py `SPECULATIVE_BUDGET`)."""
from __future__ import annotations

import pytest

from analysis_support import layouts

from promptlint.python import candidates, prompt_names
from promptlint.python.flow import budget
from promptlint.python.history_cuts import CUTS, cuts_text


@pytest.mark.parametrize("name", ["tools", "_tools", "build_tool_specs", "tools_param", "tool_config", "get_tools",
                                  "mcpTools", "tool_names", "toolDefs"])
def test_names_of_tool_definitions_are_tools_named(name):
    assert prompt_names.tools_named(name)


@pytest.mark.parametrize("name", ["tool_call_id", "tool_calls", "tool_results", "first_tool_call", "tool_choice",
                                  "use_native_tools", "max_tool_rounds", "run_tool", "execute_crew_tool",
                                  "_execute_text_tool_with_events", "toolbox_ready", "prompt", "tool_stats",
                                  "tool_usage_counts", "tool_param", "tool_parameters"])
def test_names_of_a_tools_use_are_not_tools_named(name):
    assert not prompt_names.tools_named(name)


@pytest.mark.parametrize("text", ["history[-10:]", "msgs[len(msgs) - k:]", "h[max(0, len(h) - k):]",
                                  "h[1 + max(0, len(h) - k):]", "turns[-self.window :]", "messages.pop(0)",
                                  "history.pop()", "del history[0]", "del self.messages[1:k]", "list(reversed(h))"])
def test_slices_and_pops_are_cut_shapes(text):
    assert CUTS.search(text)
    assert cuts_text(f"x = 1\n{text}\n", 6, 6 + len(text))


@pytest.mark.parametrize("text", ["messages[-1]", 'messages[-1]["role"]', "items[len(items) - 1]", "return x",
                                  'kwargs.pop("model", None)', "options.pop('stream')", 'del params["seed"]',
                                  "del self.client"])
def test_an_index_from_the_end_is_no_cut_shape(text):
    assert not CUTS.search(text)
    assert not cuts_text(f"x = 1\n{text}\n", 6, 6 + len(text))


SHUFFLED_TOOLS = """
    import json

    def registry_tools(registry):
        tools = [{"type": "function", "function": spec} for spec in set(registry.values())]
        return tools
"""


def _tools_layouts(found):
    return [lt for lt in found if any(p.role == "tools" for p in lt.parts)]


def test_a_tools_list_in_set_order_is_a_candidate_within_the_speculative_budget(tmp_path):
    found = _tools_layouts(layouts(tmp_path, SHUFFLED_TOOLS))
    assert [lt.site.start.row for lt in found] == [4, 5]  # the local list, and the function returning it


def test_a_tools_candidate_past_the_speculative_budget_is_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr("promptlint.python.flow.core.SPECULATIVE_BUDGET", 2)
    assert budget.SPECULATIVE_BUDGET == 2_000  # (the module's own figure; the evaluator reads its copy)
    assert _tools_layouts(layouts(tmp_path, SHUFFLED_TOOLS)) == []


def test_a_function_not_named_for_prompts_returning_joined_text_is_not_read(tmp_path, monkeypatch):
    read = []
    original = candidates.speculative
    monkeypatch.setattr(candidates, "speculative", lambda *a: read.append(a[1]) or original(*a))
    layouts(tmp_path, """
        import textwrap

        def render(lines, body):
            if lines:
                return "\\n".join(lines)
            return textwrap.dedent(body)
    """)
    assert read == []


def _read_values(tmp_path, monkeypatch, source):
    """The value nodes read speculatively while `source` is analysed, as source text, and the tools layouts' rows."""
    import ast
    read = []
    original = candidates.speculative
    monkeypatch.setattr(candidates, "speculative", lambda *a: read.append(ast.unparse(a[1])) or original(*a))
    found = _tools_layouts(layouts(tmp_path, source))
    return read, [lt.site.start.row for lt in found]


def test_text_kept_or_returned_under_a_tools_name_is_not_read_as_a_tools_list(tmp_path, monkeypatch):
    read, rows = _read_values(tmp_path, monkeypatch, """
        def tool_label(server, tool):
            tool_name = ":".join([server.kind, tool.label])
            return f"{tool_name} ({server.label})"

        def get_tools_banner(tools) -> str:
            return tools.banner

        def has_tools(agent) -> bool:
            return agent.toolbox.ready()

        def count_tools(agent) -> int | None:
            return agent.toolbox.size
    """)
    assert read == [] and rows == []


def test_a_tools_list_a_text_annotation_does_not_rule_out_is_read(tmp_path, monkeypatch):
    read, rows = _read_values(tmp_path, monkeypatch, """
        def build_tools(registry) -> list[str]:
            tools = [{"type": "function", "function": spec} for spec in set(registry.values())]
            return tools

        def tool_names(registry) -> str:
            return list(set(registry))

        def get_tools(registry):
            return registry.tools
    """)
    assert read == ["[{'type': 'function', 'function': spec} for spec in set(registry.values())]", "tools",
                    "list(set(registry))", "registry.tools"]
    assert rows == [2, 3, 6]  # (0-based rows) the list kept and returned; `list(set(registry))`


def test_a_class_built_or_a_comparison_returned_by_a_function_not_named_for_prompts_is_not_read(tmp_path, monkeypatch):
    # an instance (of a class of the tree, or of a callable named as a class the tree does not
    # define) or a comparison is never a message list: only the callee's name is read, not the
    # arguments; a function's result, a builtin's and a method's may be one, and are read (each
    # function writes a system message, so what it returns is read in case it is a message list)
    read, _ = _read_values(tmp_path, monkeypatch, """
        from sdk.types import TokenCount

        class Settings:
            def __init__(self, history):
                self.history = history

        def history_of(turns):
            return [{"role": "system", "content": "Be brief."}, *turns]

        def settings(turns):
            log = {"role": "system", "content": "kept"}
            return Settings(history_of(turns))

        def count(n):
            log = {"role": "system", "content": "counted"}
            return TokenCount(input_tokens=n)

        async def failed(name):
            log = {"role": "system", "content": "failed"}
            return await ImportError(f"install {name}")

        def same(a, b):
            log = {"role": "system", "content": "compared"}
            return a == b

        def listed(turns):
            log = {"role": "system", "content": "listed"}
            return list(turns)

        def built(turns):
            log = {"role": "system", "content": "built"}
            return history_of(turns)

        def kept(self_like):
            log = {"role": "system", "content": "kept"}
            return self_like.window()
    """)
    assert read == ["[{'role': 'system', 'content': 'Be brief.'}, *turns]", "list(turns)", "history_of(turns)",
                    "self_like.window()"]


def test_an_instance_returned_by_a_function_that_cuts_the_conversation_is_not_read_for_a_cut(tmp_path, monkeypatch):
    # a cut conversation returned is a candidate (`window`); one handed to a class of the tree
    # (an instance: no cut conversation, whatever its fields hold) is not read, nor is a comparison;
    # a `str` subclass handed one value is read as that value, and is read
    import ast

    from promptlint.python import history_cuts
    read = []
    original = history_cuts.speculative
    monkeypatch.setattr(history_cuts, "speculative", lambda *a: read.append(ast.unparse(a[1])) or original(*a))
    found = layouts(tmp_path, """
        class Output:
            def __init__(self, raw, messages):
                self.raw = raw
                self.messages = messages

        class Rendered(str):
            pass

        def recent(messages):
            return messages[-10:]

        def wrapped(messages, raw):
            return Output(raw, messages[-10:])

        def checked(messages):
            return messages[-10:] == messages

        def rendered(messages):
            return Rendered(messages[-10:])
    """)
    assert read == ["messages[-10:]", "Rendered(messages[-10:])"]
    assert sorted(lt.site.start.row for lt in found) == [10, 19]  # (0-based) the two cuts returned
