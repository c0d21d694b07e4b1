"""A Jinja template rendered from Python: a `{% if flag %}` whose flag the render call passes as a
Python constant (`include_diff=True`) takes that branch, so what the branch outputs is read as any
placeholder (`Segment.truth`); a template text joined from a value not read (a prefix chosen by a
condition) and a template constant reads the constant's placeholders instead of drawing its Jinja
syntax as static text (`linking._mixed`)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import write

from promptlint import api

RULES = "Review rules: be precise, cite the file and the line, and never speculate about unseen code.\n" * 150

FLAGGED = '''
import jinja2
import openai

client = openai.OpenAI()

TEMPLATE = """You are a code reviewer.
{% if include_diff %}
=== DIFF ===
{{ unified_diff }}
=== END DIFF ===
{% endif %}
""" + RULES


def review(diff: str):
    prompt = jinja2.Environment().from_string(TEMPLATE).render({"include_diff": FLAG, "unified_diff": diff})
    return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": prompt},
                                                                      {"role": "user", "content": "Go."}])
'''


def _found(root: Path, source: str) -> list[tuple]:
    write(root, {"app.py": f"RULES = {RULES!r}\n" + source})
    report = api.check([root], api.Settings(), jobs=1)
    return [(d.code, d.span.start.row, d.message.split(" at token")[0]) for d in report.diagnostics]


def test_a_branch_the_render_call_turns_on_is_read_as_written(tmp_path):
    found = _found(tmp_path, FLAGGED.replace("FLAG", "True"))
    assert found == [("PRM101", 11, "Content of unknown volatility `unified_diff` (the parameter `diff`)")]


def test_a_branch_the_render_call_turns_off_outputs_nothing(tmp_path):
    assert _found(tmp_path, FLAGGED.replace("FLAG", "False")) == []
    assert _found(tmp_path, FLAGGED.replace("FLAG", "None")) == []


def test_a_flag_not_known_keeps_the_conditional_section(tmp_path):
    found = _found(tmp_path, FLAGGED.replace("def review(diff: str)", "def review(diff: str, FLAG)"))
    assert [f[:2] for f in found] == [("PRM104", 9)]
    # a string is true whatever it says: not a constant's truth
    found = _found(tmp_path, FLAGGED.replace("FLAG", '"False"'))
    assert [f[:2] for f in found] == [("PRM104", 9)]


JOINED = '''
import jinja2

PREFIX_A = """{{ cached_prompt_prefix }}
Look at the diff."""
PREFIX_B = """Look at the conversation."""

TEMPLATE = """Somebody has reviewed the {% if is_code %}diff{% else %}conversation{% endif %} and flagged this issue:
{{ issue_description }}

""" + RULES


def full_template(is_code: bool) -> str:
    prefix = PREFIX_A if is_code else PREFIX_B
    return prefix + TEMPLATE


def format_prompt(is_code: bool, issue_description: str) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    return env.from_string(full_template(is_code)).render({"issue_description": issue_description, "is_code": is_code})
'''


def test_a_template_joined_from_a_chosen_prefix_reads_its_placeholders(tmp_path):
    found = [(c, r, m.split(" after ")[0]) for c, r, m in _found(tmp_path, JOINED)]
    assert found == [("PRM101", 10, "Content of unknown volatility `issue_description` (the parameter `issue_description`)"),
                     ("PRM104", 16, "Conditional content `{{ cached_prompt_prefix }} Look at the diff`")]
