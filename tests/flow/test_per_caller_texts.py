"""A parameter whose call sites pass different fixed texts (`callers.caller_arguments`): each
caller sends its own text on every call, so the requests of one caller share it; it is not a
choice made per request (conditional), and the text it holds counts as static after a value that
does change (`Does {v} follow the rules: {statement}`). A caller passing data of the request
still makes it change."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

CHECKS = """
    def check(value, statement):
        probe(f"Does `{value}` follow the rules: {statement}")


    def check_name(name):
        return check(name, "The name must be a full name, all lowercase, with no titles or initials.")


    def check_code(code):
        return check(code, "The code must be complete, with no placeholders, and it must run as written.")
"""


def test_fixed_texts_of_several_callers_are_one_text_per_caller_not_a_condition(tmp_path):
    segs = probe(tmp_path, CHECKS).value.segs
    assert not any(s.kind is Kind.CONDITIONAL for s in segs), segs
    changing = [s for s in segs if not s.is_static and s.volatility is not Volatility.STABLE]
    assert len(changing) == 1 and changing[0].expr in ("name", "code")  # what the callers validate
    tail = "".join(s.text for s in segs[segs.index(changing[0]) + 1:])
    assert tail.startswith("` follow the rules: The ") and tail.endswith("with no titles or initials.")  # the shortest stands for them


DATA = """
    def check(value, statement):
        probe(f"Does `{value}` follow the rules: {statement}")


    def check_name(name):
        return check(name, "The name must be a full name, all lowercase, with no titles or initials.")


    def check_reply(reply, user_rules):
        return check(reply, user_rules)
"""


def test_a_caller_that_passes_what_it_is_given_keeps_the_parameter_changing(tmp_path):
    segs = probe(tmp_path, DATA).value.segs
    statement = segs[-1]
    assert not statement.is_static and statement.volatility is not Volatility.STABLE, segs
