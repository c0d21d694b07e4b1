"""Placeholders of a prompt file take the Python value that fills them as their origin (the related
location of a finding on them: docs/policies.md, Policy 8), found by what the code writes: a dict
of exactly the template's placeholders, or a dict beside a literal that names the template."""
from __future__ import annotations

from pathlib import Path

from promptlint.templates import layouts_for_file
from promptlint.templates.fills import _index, parsed_module

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
    parsed_module.cache_clear()
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


TASKS = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "task_prompts"


def _task_origins() -> dict[tuple[int, str], tuple[str, int] | None]:
    """(row of the prompt's key, placeholder) -> (file, row) of the value that fills it, for the
    prompts of fixtures/templates/task_prompts/guide/prompts/tasks.yml and the placeholders of
    their conditional sections."""
    from promptlint.templates.fills import with_inner
    from promptlint.templates.fills import _uppers
    _index.cache_clear()
    parsed_module.cache_clear()
    _uppers.cache_clear()
    path = TASKS / "guide" / "prompts" / "tasks.yml"
    out = {}
    for lay in layouts_for_file(path, "tasks.yml", path.read_text(), kind="config"):
        for seg in with_inner(lay.parts[0].segments):
            if seg.kind is not None and not seg.expr.startswith("if "):
                out[(lay.site.start.row, seg.expr)] = \
                    (Path(seg.origin.filename).name, seg.origin.start.row) if seg.origin else None
    return out


def test_an_entry_named_by_its_task_is_filled_by_a_call_that_names_it_with_an_enum_member():
    """`- task: suggest_reply` is picked by `render_task_prompt(task=Task.SUGGEST_REPLY, context={...})`
    (`SUGGEST_REPLY = "suggest_reply"`): the dict fills the placeholders it names, also one inside a
    conditional section; a key the prompt does not read (`customer`) fills nothing, and a name
    written in a loop (`examples += ...`) is placed where the dict takes it, not at its empty start."""
    assert _task_origins() == {
        (4, "examples"): ("replies.py", 12), (4, "history"): None,
        (16, "relevant_chunks"): ("replies.py", 19), (16, "history"): None,
        (29, "history"): None,
    }


def test_a_call_naming_another_task_or_no_task_fills_nothing():
    """drafts.py passes `{"examples": ...}` for the summary task, which reads no `examples`: the
    reply prompt's `examples` is not taken from it, though it is scanned first."""
    origins = _task_origins()
    assert all(o is None or o[0] == "replies.py" for o in origins.values())


def test_placeholder_and_condition_names_of_jinja_expressions():
    from promptlint.templates.fills import condition_names, placeholder_name
    assert [placeholder_name(e) for e in ("{date}", "{{ date }}", "examples | verbose_v1", "context.relevant_chunks",
                                          "for m in messages", "score_range[0]", "if rubric", "range(3)",
                                          "x(1)", '"text"')] == \
        ["date", "date", "examples", "context", "messages", "score_range", None, None, None, None]
    assert condition_names("if relevant_chunks and not context.flag") == ["relevant_chunks", "context"]
    assert condition_names('elif "a" in tags or x is defined') == ["tags", "x"]
    assert condition_names("for x in y") == []


def test_the_finding_on_a_task_prompt_names_where_the_code_fills_it():
    """PRM107 on the reply prompt (few-shot `examples` before `history`, in a prompt set that also
    takes `relevant_chunks`) and on the manual prompt names the line of the Python that fills them."""
    from promptlint import api
    _index.cache_clear()
    parsed_module.cache_clear()
    report = api.check([TASKS], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
              [(Path(r.span.filename).name, r.span.start.row) for r in d.related]) for d in report.diagnostics]
    assert found == [("tasks.yml", "PRM107", "info", 9, [("tasks.yml", 12), ("replies.py", 12)]),
                     ("tasks.yml", "PRM107", "info", 21, [("tasks.yml", 25), ("replies.py", 19)])]
