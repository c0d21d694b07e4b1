"""PRM204 facts: a conversation's request whose tool list changes only when an optional
parameter is given (python/option_tools.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint.python.module import load
from promptlint.python.option_tools import find_option_tools


def _found(src: str):
    return find_option_tools(load(Path("m.py"), textwrap.dedent(src)))


def test_a_tool_appended_for_a_structured_request_is_found():
    found, = _found("""
        def perform_args(self, turns, tools, data_model=None, kwargs=None):
            tool_schemas = [self.schema(t) for t in tools.values()]
            if data_model is not None and self.native:
                fmt = {"schema": data_model}
            elif data_model is not None:
                tool_schemas.append(self.schema(self.data_tool(data_model)))
            return {"messages": self.as_messages(turns), "tools": tool_schemas, **(kwargs or {})}
    """)
    assert ast.unparse(found.node) == "tool_schemas.append(self.schema(self.data_tool(data_model)))"
    assert (found.option, found.target, found.removed, found.function) == ("data_model", "tool_schemas", False,
                                                                            "perform_args")


def test_tools_deleted_from_the_request_for_a_response_format_are_found():
    found, = _found("""
        def perform_args(self, turns, tools, data_model=None):
            tool_schemas = []
            for tool in tools.values():
                tool_schemas.append(tool.schema)
            kwargs_full = {"messages": self.inputs(turns), "model": self.model}
            if tool_schemas:
                kwargs_full["tools"] = tool_schemas
            if data_model is not None:
                kwargs_full["response_format"] = {"schema": data_model}
                if "tools" in kwargs_full:
                    del kwargs_full["tools"]
            return kwargs_full
    """)
    assert ast.unparse(found.node) == "del kwargs_full['tools']"
    assert (found.option, found.target, found.removed) == ("data_model", "kwargs_full", True)


def test_tools_of_the_caller_a_one_shot_request_or_a_required_switch_are_not():
    assert not _found("""
        def caller_tools(self, messages, extra_tools=None):
            tool_specs = [t.spec for t in self.tools]
            if extra_tools is not None:
                tool_specs.extend(extra_tools)
            return self.client.create(messages=messages, tools=tool_specs)

        def one_shot(self, question, data_model=None):
            tool_specs = [t.spec for t in self.tools]
            if data_model is not None:
                tool_specs.append(data_model)
            return self.client.create(messages=[{"role": "user", "content": question}], tools=tool_specs)

        def required(self, messages, data_model):
            tool_specs = [t.spec for t in self.tools]
            if data_model is not None:
                tool_specs.append(data_model)
            return self.client.create(messages=messages, tools=tool_specs)

        def other_test(self, messages, data_model=None):
            tool_specs = [t.spec for t in self.tools]
            if self.native and data_model is not None:
                tool_specs.append(data_model)
            return self.client.create(messages=messages, tools=tool_specs)
    """)
