"""promptlint/python/flow/decided_returns.py: the returns a call's constant arguments leave
reachable (`if name == "review": return ...`), read where the call is evaluated."""
from __future__ import annotations

import ast

from analysis_support import probe

from promptlint.python.flow.decided_returns import live_returns
from promptlint.python.layout_values import variants_of

PICKER = """
    def get_prompt(name, structured=False):
        if name == "review":
            if structured:
                return "review as JSON"
            return "review as text"
        if name in ("joke", "pun"):
            return "be funny"
        table = {"chat": "chat with me", "help": "help me"}
        return table[name]


    def use(other):
        probe(get_prompt("chat"))
        probe(get_prompt("review"))
        probe(get_prompt("pun"))
        probe(get_prompt(other))
"""


def _texts(value) -> list[str]:
    return sorted("".join(s.text for s in o.segs) for o in variants_of(value))


def test_a_constant_argument_rules_out_the_branches_its_tests_decide(tmp_path):
    assert _texts(probe(tmp_path, PICKER, index=0).value) == ["chat with me"]
    # the inner test reads a flag left at its default False: decided too
    assert _texts(probe(tmp_path, PICKER, index=1).value) == ["review as text"]
    assert _texts(probe(tmp_path, PICKER, index=2).value) == ["be funny"]


def test_an_argument_not_known_keeps_every_return(tmp_path):
    assert _texts(probe(tmp_path, PICKER, index=3).value) == [
        "be funny", "chat with me", "help me", "review as text"]


def test_a_rebound_parameter_or_a_test_of_something_else_decides_nothing():
    func = ast.parse("def f(name, mode):\n    name = name.lower()\n    if name == 'a':\n        return 1\n"
                     "    if mode.startswith('x'):\n        return 2\n    return 3\n").body[0]
    assert live_returns(func, lambda n: "a") is None
    func = ast.parse("def f(name):\n    if name != 'a':\n        raise ValueError(name)\n    return 1\n").body[0]
    returned = live_returns(func, lambda n: "a")
    assert returned == {id(func.body[1].value)}
    assert live_returns(func, lambda n: "b") == set()


FLAGS = """
    def build_prompt(question, is_system=True):
        if is_system:
            return "the system text"
        else:
            return "the user text"


    def other(question, plain=None):
        if not plain:
            return "formatted"
        return "plain"


    def use(question, flag):
        probe(build_prompt(question, is_system=False))
        probe(build_prompt(question))
        probe(other(question))
        probe(other(question, plain=True))
        probe(build_prompt(question, is_system=flag))
"""


def test_a_flag_bound_to_a_constant_decides_its_truth_tests(tmp_path):
    assert _texts(probe(tmp_path, FLAGS, index=0).value) == ["the user text"]
    assert _texts(probe(tmp_path, FLAGS, index=1).value) == ["the system text"]  # (its default)
    assert _texts(probe(tmp_path, FLAGS, index=2).value) == ["formatted"]  # `not None`
    assert _texts(probe(tmp_path, FLAGS, index=3).value) == ["plain"]


def test_a_flag_the_call_does_not_fix_keeps_both_returns(tmp_path):
    assert _texts(probe(tmp_path, FLAGS, index=4).value) == ["the system text", "the user text"]
    func = ast.parse("def f(flag):\n    if flag:\n        return 1\n    return 2\n").body[0]
    assert live_returns(func, lambda n: "yes") is None  # (a text other than True / False / None)


FORMATS = """
    class StringTemplate:
        def __init__(self, template, template_format="f-string"):
            self.template = template
            self.template_format = template_format

        def format(self, **kwargs):
            if self.template_format == "f-string":
                return "as f-string"
            elif self.template_format == "jinja2":
                return "as jinja"


    class Switching(StringTemplate):
        def format(self, **kwargs):
            self.template_format = "jinja2"
            if self.template_format == "f-string":
                return "as f-string"
            return "as jinja"


    JINJA = StringTemplate("T", template_format="jinja2")
    PLAIN = StringTemplate("T")


    def use(fmt, other: StringTemplate):
        probe(JINJA.format(x=1))
        probe(PLAIN.format())
        probe(StringTemplate("T", template_format=fmt).format(x=1))
        probe(other.format(x=1))
        probe(Switching("T", template_format="f-string").format())
"""


def test_a_field_the_constructor_set_to_a_constant_decides_the_methods_tests(tmp_path):
    assert _texts(probe(tmp_path, FORMATS, index=0).value) == ["as jinja"]
    assert _texts(probe(tmp_path, FORMATS, index=1).value) == ["as f-string"]  # (the default)


def test_a_field_not_known_or_set_by_the_method_itself_keeps_every_return(tmp_path):
    assert _texts(probe(tmp_path, FORMATS, index=2).value) == ["as f-string", "as jinja"]
    assert _texts(probe(tmp_path, FORMATS, index=3).value) == ["as f-string", "as jinja"]
    assert _texts(probe(tmp_path, FORMATS, index=4).value) == ["as f-string", "as jinja"]
