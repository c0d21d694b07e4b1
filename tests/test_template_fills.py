"""Placeholders of a prompt file take the Python value that fills them as their origin (the related
location of a finding on them: docs/policies.md, Policy 8), found by what the code writes: a dict
of exactly the template's placeholders, or a dict beside a literal that names the template."""
from __future__ import annotations

from pathlib import Path

from promptlint.templates import layouts_for_file
from promptlint.templates.fills import _index, _tree

YAML = """research_agent:
  template: >
    You are a research agent; the date is {date}. The documents of the user: {document_context}.
    Answer with care and cite every source you use, with its identifier, in square brackets.
"""

SERVICE = """from datetime import datetime


class Service:
    async def system_prompt(self, store, documents):
        date_str = datetime.now().strftime("%m/%d/%Y")
        context = self.render(documents)
        return await store.get_prompt(self.name, inputs={"date": date_str, "document_context": context})
"""


def _origins(tmp_path: Path, service: str) -> dict[str, tuple[str, int] | None]:
    _index.cache_clear()
    _tree.cache_clear()
    folder = tmp_path / "app" / "prompts"
    folder.mkdir(parents=True)
    (tmp_path / "app" / "service.py").write_text(service)
    path = folder / "research.yaml"
    path.write_text(YAML)
    layouts = layouts_for_file(path, "research.yaml", YAML, kind="config")
    segs = [s for lay in layouts for p in lay.parts for s in p.segments if s.kind is not None]
    return {s.expr: (Path(s.origin.filename).name, s.origin.start.row) if s.origin else None for s in segs}


def test_a_dict_of_exactly_the_placeholders_fills_them(tmp_path):
    assert _origins(tmp_path, SERVICE) == {"{date}": ("service.py", 6), "{document_context}": ("service.py", 7)}


def test_a_literal_naming_the_template_links_a_single_key(tmp_path):
    service = SERVICE.replace('self.name, inputs={"date": date_str, "document_context": context}',
                              '"research_agent", inputs={"date": date_str}')
    assert _origins(tmp_path, service) == {"{date}": ("service.py", 6), "{document_context}": None}


def test_a_dict_with_other_keys_or_one_key_and_no_name_fills_nothing(tmp_path):
    other = SERVICE.replace('"document_context": context', '"document_context": context, "user": 1')
    assert _origins(tmp_path, other) == {"{date}": None, "{document_context}": None}
    one = SERVICE.replace('inputs={"date": date_str, "document_context": context}', 'inputs={"date": date_str}')
    assert _origins(tmp_path / "b", one) == {"{date}": None, "{document_context}": None}


def test_a_name_assigned_the_templates_name_says_it_too(tmp_path):
    service = SERVICE.replace('return await store.get_prompt(self.name, inputs={"date": date_str, "document_context": context})',
                              'name = "research_agent"\n        return await store.get_prompt(name, inputs={"date": date_str})')
    assert _origins(tmp_path, service) == {"{date}": ("service.py", 6), "{document_context}": None}


def test_a_config_field_whose_default_names_the_template_says_it_too(tmp_path):
    service = SERVICE.replace("class Service:\n", 'class Config:\n    agent_prompt: str = "research_agent"\n\n\nclass Service:\n') \
        .replace('store.get_prompt(self.name, inputs={"date": date_str, "document_context": context})',
                 'store.get_prompt(self.config.agent_prompt, inputs={"date": date_str})')
    assert _origins(tmp_path, service) == {"{date}": ("service.py", 10), "{document_context}": None}
