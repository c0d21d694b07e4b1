"""A LangChain chat model known by its annotation (a parameter, a field, an attribute set from
one: `model: BaseChatModel`, `llm: ChatOpenAI | None`, `Runnable[LanguageModelInput,
BaseMessage]`) is a chat model: its `.invoke` / `.stream` / `.ainvoke` with a message list is a
request and its `.bind_tools(tools)` binds a request's tools (langchain_models.annotated_chat_model);
fixtures/typed_chat_models."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.langchain_models import TYPED_MODEL, annotated_chat_model

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "typed_chat_models"


def _check(path):
    return api.check([path], api.Settings(), jobs=1)


def _prompts(report):
    return [(Path(p.site.filename).name, p.site.start.row, p.source, p.api, p.provider) for p in report.prompts]


def test_invoke_of_a_model_known_by_its_annotation_is_a_chat_request():
    report = _check(FIXTURES / "typed")
    assert _prompts(report) == [
        ("graph.py", 14, "python-constant", None, None),  # (the tool list, also judged where it is built)
        ("graph.py", 15, "python-call", "langchain.bind_tools", None),
        ("graph.py", 18, "python-call", "langchain.invoke", None),
        ("nodes.py", 19, "python-call", "langchain.invoke", None),  # `model: BaseChatModel`, read in a nested function
        ("nodes.py", 24, "python-call", "langchain.invoke", None),  # `Optional[Union[str, BaseChatModel]]`
        ("nodes.py", 28, "python-call", "langchain.invoke", None),  # `Runnable[LanguageModelInput, BaseMessage]`
        ("nodes.py", 36, "python-call", "langchain.invoke", "openai"),  # `self.llm = llm` of `llm: ChatOpenAI | None`
        ("nodes.py", 43, "python-call", "langchain.invoke", None),  # the pydantic field `model: BaseChatModel`
    ]


def test_tools_bound_to_a_typed_model_in_listing_order_are_a_warning():
    report = _check(FIXTURES / "typed")
    assert [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] \
        == [("graph.py", "PRM203", "warning", 14)]  # (on main: info, "only its name says it is a tool list")


def test_a_receiver_no_annotation_says_is_a_chat_model_sends_no_request():
    report = _check(FIXTURES / "untyped")
    assert [p[2] for p in _prompts(report)] == ["python-constant"] * 4
    assert report.diagnostics == []


class _Module:
    """The one method `annotated_chat_model` asks of a module: names through its imports."""

    def __init__(self, imports):
        self.imports = imports

    def qualified_name(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        return ".".join([self.imports.get(node.id, node.id), *reversed(parts)])


def test_annotated_chat_model_reads_the_langchain_classes_and_their_unions():
    m = _Module({"BaseChatModel": "langchain_core.language_models.BaseChatModel",
                 "ChatAnthropic": "langchain_anthropic.ChatAnthropic", "ChatOpenAI": "langchain_openai.ChatOpenAI",
                 "Runnable": "langchain_core.runnables.Runnable", "ChatSession": "app.chat.ChatSession",
                 "lcm": "langchain_core.language_models"})

    def read(text):
        return annotated_chat_model(m, ast.parse(text, mode="eval").body)
    assert read("BaseChatModel") == TYPED_MODEL
    assert read("lcm.BaseLanguageModel") == TYPED_MODEL
    assert read("ChatAnthropic") == "langchain_anthropic.ChatAnthropic"
    assert read("Optional[ChatAnthropic]") == "langchain_anthropic.ChatAnthropic"
    assert read("'ChatAnthropic'") == "langchain_anthropic.ChatAnthropic"
    assert read("str | ChatOpenAI | None") == "langchain_openai.ChatOpenAI"
    assert read("Union[ChatOpenAI, ChatAnthropic]") == TYPED_MODEL  # (either provider)
    assert read("Runnable[LanguageModelInput, BaseMessage]") == TYPED_MODEL
    assert read("Runnable") is None and read("Runnable[dict, str]") is None
    assert read("ChatSession") is None  # (the project's own class)
    assert read("Union[BaseChatModel, Runnable]") is None  # (a member that is no chat model)
    assert read("str") is None and read("Optional[str]") is None
