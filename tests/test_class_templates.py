"""Templates a class holds for a method of it or of a base class to fill (python/class_templates.py,
Policy 9; fixtures/class_templates): a constructor default handed up to the base that keeps it as
`self.instruction` and fills it with `self.instruction.format(**values)` is a prompt where it is
written, its placeholders template variables at their places; a class attribute too. Text no
method fills, or filled into a name that says nothing of prompts (a URL), is not one."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import layouts, parts

from promptlint import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "class_templates"

RULES = "\n".join(f"        {i}. Check every column the query names against the schema; explain nothing at all." for i in range(1, 12))

BASE = '''
class BaseGenerator:
    def __init__(self, client, instruction, role=None):
        self.client = client
        self.instruction = instruction
        self.role = role

    def transform(self, record, data):
        record.prompt = self.instruction.format(**data)
        return record
'''


def _check(tmp_path, name):
    shutil.copytree(FIXTURE / name, tmp_path / name)
    report = api.check([tmp_path / name], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
             for d in report.diagnostics]
    return found, sorted((Path(p.site.filename).name, p.site.start.row) for p in report.prompts)


def test_a_constructor_default_filled_in_a_base_class_is_a_prompt(tmp_path):
    found, prompts = _check(tmp_path, "before")
    # the question first, then 477 static tokens: one-shot text, info (Policy 4); the class attribute
    # `instruction` of review.py was a prompt constant already
    assert found == [("review.py", "PRM101", "info", 5, 32), ("sql_debugger.py", "PRM101", "info", 9, 19)]
    assert prompts == [("review.py", 5), ("sql_debugger.py", 8)]


def test_the_same_template_with_its_values_last_is_fine(tmp_path):
    found, prompts = _check(tmp_path, "after")
    assert found == []
    assert prompts == [("review.py", 5), ("sql_debugger.py", 8)]  # drawn, and nothing to report


def test_its_placeholders_are_template_variables_at_their_places(tmp_path):
    source = f'''
        from base import BaseGenerator


        class Debugger(BaseGenerator):
            def __init__(self, client, instruction=None):
                instruction = instruction or """Question: {{question}}
        {RULES}
        Schema: {{schema}}
        """
                super().__init__(client=client, instruction=instruction)
    '''
    found = layouts(tmp_path, source, {"base.py": BASE})
    assert len(found) == 1
    (role, segments), = parts(found[0])
    assert role == "prompt"  # (filled into `record.prompt`)
    assert segments[0] == ("text", "Question: ")
    assert segments[1] == ("user-input", "per-request", "{question}")
    assert segments[-2] == ("template-variable", "unknown", "{schema}")
    assert found[0].site.start.row == 6


def test_a_default_in_the_signature_and_a_class_attribute_named_otherwise(tmp_path):
    source = f'''
        from base import BaseGenerator


        class Debugger(BaseGenerator):
            def __init__(self, client, instruction="""Question: {{question}}
        {RULES}
        """):
                super().__init__(client, instruction=instruction)


        class Reviewer(BaseGenerator):
            template = """Answer: {{answer}}
        {RULES}
        """

            def review(self, record, data):
                record.prompt = self.template.format(**data)
                return record
    '''
    found = layouts(tmp_path, source, {"base.py": BASE})
    assert [(lt.site.start.row, parts(lt)[0][1][1]) for lt in found] == [
        (5, ("user-input", "per-request", "{question}")), (22, ("template-variable", "unknown", "{answer}"))]


def test_text_no_method_fills_or_filled_into_a_url_is_no_prompt(tmp_path):
    source = f'''
        from base import BaseGenerator


        class Kept(BaseGenerator):
            def __init__(self, client, instruction=None):
                self.notes = instruction or """Question: {{question}}
        {RULES}
        """
                super().__init__(client, instruction="Answer.")


        class Fetcher:
            page = """https://example.org/{{region}}/search?q={{query}}&fields=title,abstract,authors,year,venue,doi,citations,references,keywords,license,updated,created,source,language,pages&sort=relevance&order=desc&limit=100"""

            def url(self, region, query):
                link = self.page.format(region=region, query=query)
                return link
    '''
    assert layouts(tmp_path, source, {"base.py": BASE}) == []
