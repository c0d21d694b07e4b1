"""Where the evaluator reads a value (`Segment.source`, `source_name`): a parameter of a function
(its callers' argument not read), a keyword read from the `**kwargs` a call hands in
(`kwargs.pop("schema")`, `.get`, `[...]`; values.keyword_read), what a helper returns of either,
and text computed from it alone keep `Source.PARAMETER` and the parameter's name; the result of a
call not followed is `Source.CALL`; a name not resolved has no source."""
from __future__ import annotations

from analysis_support import Probed, probe

from promptlint.model import Kind, Source, Volatility


def _sources(p) -> list[tuple]:
    """(kind, volatility, source, source_name, evidence) of each dynamic segment of a probed value."""
    return [(s.kind.value, s.volatility.value, s.source and s.source.value, s.source_name, s.evidence)
            for s in p.segs if not s.is_static]


RENDERED = '''
def render(ontology) -> str:
    lines = []
    for label in [e.label for e in ontology.entities]:
        lines.append(f"- {label}")
    return "\\n".join(lines)


def generate(question, *, ontology=None):
    probe(render(ontology))
    probe(question)
'''


def test_a_parameter_and_text_computed_from_it_are_read_from_that_parameter(tmp_path):
    assert _sources(probe(tmp_path, RENDERED)) == [
        ("unknown", "unknown", "parameter", "ontology", "the parameter `ontology`")]
    # a parameter named as the user's input keeps what its name says, and is a parameter all the same
    [question] = probe(tmp_path, RENDERED, index=1).segs
    assert (question.kind, question.volatility, question.source) == (Kind.USER_INPUT, Volatility.PER_REQUEST, None)


POPPED = '''
def _pop_alias(kwargs: dict, ontology):
    if "schema" in kwargs:
        legacy = kwargs.pop("schema")
        return legacy
    return ontology


def generate(question, *, ontology=None, **legacy):
    probe(_pop_alias(legacy, ontology))
    probe(legacy.get("schema"))
    probe(legacy["schema"])
    probe(legacy.get("mode", "plain"))
    probe(legacy.pop("style"))


def run(question, onto):
    return generate(question, ontology=onto, style="terse")
'''


def test_a_keyword_popped_from_the_kwargs_a_caller_hands_in_is_read_from_that_parameter(tmp_path):
    handed = ("unknown", "unknown", "parameter", "legacy", "the keyword `schema` a caller may pass through `**legacy`")
    # popped in a helper that returns it, or the helper's other parameter (the caller's parameter)
    either = probe(tmp_path, POPPED)
    assert [_sources(Probed(o, either.ev, either.frame, either.module)) for o in either.value.options] == [
        [handed], [("unknown", "unknown", "parameter", "onto", "the parameter `onto`")]]
    assert _sources(probe(tmp_path, POPPED, index=1)) == [handed]  # `.get("schema")`
    assert _sources(probe(tmp_path, POPPED, index=2)) == [handed]  # `["schema"]`


def test_a_keyword_the_calls_pass_or_leave_to_a_default_is_that_value(tmp_path):
    assert probe(tmp_path, POPPED, index=3).text == "plain"  # not passed by the call read: the default
    assert probe(tmp_path, POPPED, index=4).text == "terse"  # `.pop("style")` of `style="terse"`


UNBOUND = '''
def generate(question, **kwargs):
    probe(kwargs.pop("schema"))
'''


def test_a_keyword_of_kwargs_no_caller_binds_is_read_from_that_parameter(tmp_path):
    assert _sources(probe(tmp_path, UNBOUND)) == [("unknown", "unknown", "parameter", "kwargs", "the parameter `kwargs`")]


MADE = '''
def generate(question, client, table):
    probe(client.fetch_page(question))
    probe(summary)
    probe(table.render())
'''


def test_what_a_call_gives_or_a_name_not_resolved_is_no_parameter(tmp_path):
    [page] = probe(tmp_path, MADE).segs  # data fetched with the user's input: a call's result
    assert (page.kind, page.source, page.source_name) == (Kind.USER_INPUT, Source.CALL, "")
    assert _sources(probe(tmp_path, MADE, index=1)) == [("unknown", "unknown", None, "", "`summary` is not resolved")]
    # what a method of a parameter's object gives, not followed: computed from that parameter alone
    assert _sources(probe(tmp_path, MADE, index=2)) == [("unknown", "unknown", "parameter", "table", "the parameter `table`")]


TWO_CALLERS = '''
def generate(question, **legacy):
    probe(legacy.get("schema"))
    probe(legacy.pop("schema"))


def run(question):
    return generate(question, schema="Person, Place")


def run_plain(question):
    return generate(question)
'''


def test_each_caller_gives_its_keyword_or_leaves_it_to_be_passed(tmp_path):
    for index in (0, 1):
        either = probe(tmp_path, TWO_CALLERS, index=index)
        read = [Probed(o, either.ev, either.frame, either.module) for o in either.value.options]
        assert sorted((r.text, tuple(_sources(r))) for r in read) == [
            ("", (("unknown", "unknown", "parameter", "legacy", "the keyword `schema` a caller may pass through `**legacy`"),)),
            ("Person, Place", ())]
