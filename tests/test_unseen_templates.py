"""PRM101 facts: a system message rendered from a template whose text is not in the code with the
values the user message is made from (python/unseen_templates.py). A template written in the code
(a string, a module constant), a system template given other values than the user message's, and a
system render with no user message made from its values are not ones. The fixture is
fixtures/unseen_templates/nodes.py."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.unseen_templates import might_hold, unseen_templates

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "unseen_templates" / "nodes.py"


def test_system_templates_of_unseen_text_fed_the_user_values_are_found_and_others_are_not():
    module = load(FIXTURE, FIXTURE.read_text(encoding="utf-8"))
    # `run` (Template(config).render(data), the user message rendered with **data), `run_wrapped`
    # (a method that renders its parameters; the user message json.dumps(data)), `format_input`
    # (system_prompt.format(**row) in a system message dict); not `run_literal`, `run_settings`,
    # `run_constant`, `run_system_only`
    assert [(r.lineno, u.lineno, t, v) for r, u, t, v in unseen_templates(module)] == [
        (11, 12, "self.config.system_message", "data"),
        (20, 21, "self.config.system_message", "data"),
        (51, 52, "system_prompt", "row")]


def test_the_rule_reports_them_at_info_with_the_user_message_related():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if d.code == "PRM101" and "not in the code" in d.message]
    assert found == [("info", 11, [12]), ("info", 20, [21]), ("info", 51, [52])]


def test_the_text_test_needs_a_render_or_a_format_and_a_system_word():
    source = 'from jinja2 import Template\nsystem = Template(t).render(d)\n'
    assert might_hold(source)
    assert might_hold('system = text.format(**row)\n')
    assert not might_hold('user = Template(t).render(d)\n')
    assert not might_hold('system = text.format(row)\n')


KEYWORDS = Path(__file__).resolve().parent.parent / "fixtures" / "unseen_templates" / "keywords.py"


def test_a_system_template_given_by_keyword_a_value_the_user_message_is_made_from_too():
    # `format` hands the system template a glossary picked with its parameter `chunk`, which the
    # user message is made from; not `judge` (the shared languages are the instance's settings) nor
    # `convert` (each message's own text, one per role)
    module = load(KEYWORDS, KEYWORDS.read_text(encoding="utf-8"))
    assert [(r.lineno, u.lineno, t, v) for r, u, t, v in unseen_templates(module)] == [
        (9, 11, "self.system_prompt", "chunk")]
    assert might_hold('system = self.system_prompt.format(glossary=pick(chunk))\n')
