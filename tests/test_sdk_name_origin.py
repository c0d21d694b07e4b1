"""An SDK's constructor is recognised by where its name is imported from, not by the name alone:
`PromptTemplate(...)` of `langchain_core` is a LangChain prompt; the project's own `PromptTemplate`
(imported from the project, relatively or defined in the file) is not one."""
from __future__ import annotations

import pytest

from promptlint import api

from analysis_support import write

BODY = '''

def build(text: str):
    return PromptTemplate(template="You review answers for Acme support. " + text, engine="f-string")


def chat(topic: str):
    return ChatPromptTemplate.from_messages([("system", "You are Acme's assistant."), ("user", topic)])
'''
OWN_TYPES = '''
class PromptTemplate:
    def __init__(self, template: str, engine: str = "f-string"):
        self.template, self.engine = template, engine


class ChatPromptTemplate:
    @classmethod
    def from_messages(cls, messages):
        return cls()
'''


def _apis(tmp_path, files: dict[str, str], name: str = "myapp/critic.py") -> list[tuple[str, str]]:
    write(tmp_path, files)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return sorted((p.provider, p.api) for p in report.prompts if p.site.filename.endswith(name))


def test_langchain_imports_are_langchain_prompts(tmp_path):
    header = "from langchain_core.prompts import ChatPromptTemplate, PromptTemplate\n"
    assert _apis(tmp_path, {"myapp/__init__.py": "", "myapp/critic.py": header + BODY}) == [
        ("langchain", "ChatPromptTemplate"), ("langchain", "PromptTemplate")]


@pytest.mark.parametrize("header", [
    "from myapp.types import ChatPromptTemplate, PromptTemplate\n",
    "from .types import ChatPromptTemplate, PromptTemplate\n",
])
def test_the_projects_own_class_of_that_name_is_not_langchain(tmp_path, header):
    files = {"myapp/__init__.py": "", "myapp/types.py": OWN_TYPES, "myapp/critic.py": header + BODY}
    assert [a for a in _apis(tmp_path, files) if a[0] == "langchain"] == []


def test_a_class_defined_in_the_file_is_not_langchain(tmp_path):
    files = {"myapp/__init__.py": "", "myapp/critic.py": OWN_TYPES + BODY}
    assert [a for a in _apis(tmp_path, files) if a[0] == "langchain"] == []
