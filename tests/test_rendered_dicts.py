"""Values that reach a Jinja template through a dict built elsewhere (python/linking.py,
flow/values.branch_keys, flow/kept_entries.py): `env.from_string(T).render(**pass_vars)` where
`pass_vars` is completed in a branch (`if resource_vars: pass_vars.update(resource_vars)`) with a
dict another method returns, filtered to the template's own keys (`{k: d[k] for k in names if k in
d}`), rendered by an environment made only when none is handed in. Each key's value fills the
placeholder of its name: a clock reading there is PRM102, a constant is no finding."""
from __future__ import annotations

from analysis_support import one_call, probe, roles, write

from promptlint import api
from promptlint.model import Kind, Volatility

SOURCE = '''
from datetime import datetime

from jinja2.meta import find_undeclared_variables
from jinja2.sandbox import SandboxedEnvironment
from openai import OpenAI

client = OpenAI()

SYSTEM = """You are {{ role }}. Today is {{ now_time }}.
""" + "Follow the rules of the shop carefully, and answer every question precisely and politely. " * 60


class Profile:
    def template(self):
        return SYSTEM

    def format_system_prompt(self, question=None, resource_vars=None, **kwargs):
        return self._format(self.template(), question=question, resource_vars=resource_vars, **kwargs)

    def _format(self, template, template_env=None, question=None, resource_vars=None, **kwargs):
        if not template_env:
            template_env = SandboxedEnvironment()
        pass_vars = {"role": "a shop assistant", "question": question}
        if resource_vars:
            pass_vars.update(resource_vars)
        pass_vars.update(kwargs)
        names = find_undeclared_variables(template_env.parse(template))
        picked = {key: pass_vars[key] for key in names if key in pass_vars}

        def _render(env, text, **values):
            return env.from_string(text).render(**values)

        return _render(template_env, template, **picked)


class Agent:
    profile = Profile()

    def variables(self):
        now_time = datetime.now().strftime(FORMAT)
        return {"now_time": now_time}

    def run(self, question, history):
        resource_vars = self.variables()
        system = self.profile.format_system_prompt(question=question, resource_vars=resource_vars)
        messages = [{"role": "system", "content": system}] + history + [{"role": "user", "content": question}]
        return client.chat.completions.create(model="gpt-4.1", messages=messages)
'''

SECONDS = SOURCE.replace("FORMAT", '"%Y-%m-%d %H:%M:%S"')
DAY = SOURCE.replace("FORMAT", '"%Y-%m-%d"')


def _segment(layout, expr):
    return next(s for p in layout.parts for s in p.segments if s.expr == expr)


def test_a_key_of_a_dict_another_method_returns_fills_its_placeholder(tmp_path):
    layout = one_call(tmp_path, SECONDS)
    assert roles(layout) == ["system", "history", "user"]
    now = _segment(layout, "now_time")
    assert (now.kind, now.volatility) == (Kind.TIMESTAMP, Volatility.PER_REQUEST)
    # the constant of the dict written in the helper is static text, not a value of unknown volatility
    head = layout.parts[0].segments[:3]
    assert all(s.is_static for s in head) and "".join(s.text for s in head).startswith("You are a shop assistant")


def test_the_rule_reports_the_placeholder_as_a_timestamp_before_the_history(tmp_path):
    write(tmp_path, {"app.py": SECONDS})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [("PRM102", "warning", 9)]


def test_a_date_in_the_same_place_is_info_and_a_constant_key_is_no_finding(tmp_path):
    write(tmp_path, {"app.py": DAY})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value) for d in report.diagnostics] == [("PRM102", "info")]


def test_a_dict_no_branch_completes_with_the_key_leaves_its_placeholder_unknown(tmp_path):
    layout = one_call(tmp_path, SECONDS.replace('return {"now_time": now_time}', 'return {"other": now_time}'))
    now = _segment(layout, "now_time")
    assert now.kind is not Kind.TIMESTAMP


PICKED = """
    CATALOG = {"lookup": "Look an invoice up.", "refund": "Refund an invoice.", "ticket": "Open a ticket."}


    def use(names, extra):
        values = {"lookup": "a", "refund": "b"}
        if extra:
            values.update(extra)
        probe({key: values[key] for key in names if key in values})
        probe({name: CATALOG[name] for name in set(names)})
"""


def test_a_dict_of_keys_looked_up_in_a_known_dict_holds_its_entries(tmp_path):
    from promptlint.python.flow.values import Mapping, branch_keys
    found = branch_keys(probe(tmp_path, PICKED, index=0).value)
    assert isinstance(found, Mapping) and sorted(found.items) == ["lookup", "refund"]
    assert found.open  # (the branch merged a dict of keys not known)


def test_keys_taken_in_a_sets_order_keep_that_order(tmp_path):
    found = probe(tmp_path, PICKED, index=1).value
    assert found.repeated and found.unordered is not None
