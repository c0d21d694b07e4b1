"""A template class's fill method (flow/fill_methods.py, Policies 8 and 9): a method of a class of
the tree that fills its instance's template with a dict's values through `re.sub` and a function
that looks each placeholder up in the dict. The call that fills it is a prompt of its own when
its text reaches a keyword that says prompt (`system_prompt=...generate_prompt({...})`), judged
with each value at its placeholder and the fill call as the prompt; a method whose body does not
say so (a replacement that does not read the dict, a result that is not the filled text) is
followed as any other. `cls(...)` of a `@classmethod` builds an instance of the class."""
from __future__ import annotations

from analysis_support import layouts, parts, pos, probe, write

from promptlint import api
from promptlint.python.flow.values import Obj

TEMPLATES = '''
import re


class PromptTemplate:
    def __init__(self, template_string=None):
        self.template = template_string

    @classmethod
    def from_string(cls, template_string):
        return cls(template_string=template_string)

    def _clean(self, text):
        lines = [line for line in text.split("\\n") if line.strip()]
        return "\\n".join(lines)

    def generate_prompt(self, template_fields):
        def replace_placeholder(match):
            placeholder = match.group(1)
            return template_fields.get(placeholder, match.group(0))

        prompt = re.sub(r"\\{(\\w+)\\}", replace_placeholder, self.template)
        return self._clean(prompt)

    def generate_count(self, template_fields):
        def replace_placeholder(match):
            return template_fields.get(match.group(1), "")

        prompt = re.sub(r"\\{(\\w+)\\}", replace_placeholder, self.template)
        return len(prompt)
'''

STEPS = " ".join(f"{i}. Read the page again and note every claim it makes about the query, with its source." for i in range(1, 26))

PROMPTS = f'''
SUMMARY = """Summarize what the website says about the query.
<query>{{QUERY}}</query>
Keep {{Title}} as written. {STEPS}
"""
'''

TOOL = '''
from templates import PromptTemplate
from prompts import SUMMARY


class SearchTool:
    def __init__(self, agent):
        self.agent = agent

    def search_web(self, search_query: str):
        for page in self.agent.search(search_query):
            self.agent.get_chat_response(page, system_prompt=PromptTemplate.from_string(SUMMARY).generate_prompt({"QUERY": search_query}))
'''


def test_a_classmethod_builds_an_instance_of_its_class(tmp_path):
    source = '''
        from templates import PromptTemplate

        def make():
            return probe(PromptTemplate.from_string("Answer {QUERY}"))
    '''
    value = probe(tmp_path, source, {"templates.py": TEMPLATES}).value
    assert isinstance(value, Obj) and value.qualname == "instance:PromptTemplate"
    assert probe(tmp_path, source.replace("))", ").template)"), {"templates.py": TEMPLATES}).text == "Answer {QUERY}"


def test_a_fill_method_puts_each_value_at_its_placeholder(tmp_path):
    source = '''
        from templates import PromptTemplate

        def make(query: str):
            return probe(PromptTemplate.from_string("Answer {QUERY} with {Title} and {MISSING}").generate_prompt({"QUERY": query, "Title": "T"}))
    '''
    p = probe(tmp_path, source, {"templates.py": TEMPLATES})
    assert p.described == [("text", "Answer "), ("user-input", "per-request", "query"), ("text", " with "),
                           ("text", "T"), ("text", " and {MISSING}")]
    value = p.segs[1]
    assert (value.span.start.row, value.span.start.column) == (pos(source, "{QUERY}").row, pos(source, "{QUERY}").column)


def test_a_method_whose_result_is_not_the_filled_text_is_no_fill(tmp_path):
    source = '''
        from templates import PromptTemplate

        def make(query: str):
            return probe(PromptTemplate.from_string("Answer {QUERY}").generate_count({"QUERY": query}))
    '''
    assert "Answer" not in probe(tmp_path, source, {"templates.py": TEMPLATES}).text


def test_the_fill_call_is_a_prompt_judged_at_the_placeholder(tmp_path):
    write(tmp_path, {"templates.py": TEMPLATES, "prompts.py": PROMPTS})
    found = [lt for lt in layouts(tmp_path, TOOL, name="tool.py") if lt.site.row == pos(TOOL, "self.agent.get_chat_response").row]
    assert [lt.source for lt in found] == ["python-constant"]
    (role, described), = parts(found[0])
    assert role == "system"
    assert described[0] == ("text", "Summarize what the website says about the query.\n<query>")
    assert described[1] == ("unknown", "unknown", "search_query")
    assert "{Title}" in described[2][1]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    (d,) = [d for d in report.diagnostics if d.code == "PRM101"]
    assert (d.severity.value, d.span.filename.endswith("prompts.py"), d.span.start.row) == ("info", True, 2)
    assert d.prompt.endswith(f"tool.py:{pos(TOOL, 'self.agent.get_chat_response').row}")
    assert "`search_query`" in d.message


def test_static_values_filled_add_no_finding_at_the_fill(tmp_path):
    static = TOOL.replace('{"QUERY": search_query}', '{"QUERY": "the latest release"}')
    write(tmp_path, {"templates.py": TEMPLATES, "prompts.py": PROMPTS, "tool.py": static})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [d for d in report.diagnostics if "tool.py" in (d.prompt or "")] == []
    assert not any("search_query" in d.message for d in report.diagnostics)


CONFIG = '''
import os
from pydantic import BaseModel


class Configuration(BaseModel):
    max_units: int = 5

    @classmethod
    def from_runnable_config(cls, config):
        values = {name: os.environ.get(name.upper(), config.get(name)) for name in ["max_units"]}
        return cls(**{k: v for k, v in values.items() if v is not None})

    @classmethod
    def fixed(cls):
        return cls(**{"max_units": 3})
'''


def test_an_instance_built_from_a_mapping_of_unknown_keys_holds_unknown_fields(tmp_path):
    source = '''
        from config import Configuration

        def make(config):
            return probe(f"Run {Configuration.from_runnable_config(config).max_units} units")
    '''
    p = probe(tmp_path, source, {"config.py": CONFIG})
    assert [d[:2] for d in p.described[1:2]] == [("unknown", "unknown")]
    assert p.text == "Run  units"


def test_an_instance_built_from_a_known_mapping_holds_its_values(tmp_path):
    source = '''
        from config import Configuration

        def make():
            return probe(f"Run {Configuration.fixed().max_units} units")
    '''
    assert probe(tmp_path, source, {"config.py": CONFIG}).text == "Run 3 units"
