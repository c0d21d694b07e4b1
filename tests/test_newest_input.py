"""What the code does not read in the newest user message of a one-shot request is the request's
input, per request (docs/policies.md, Policy 7), unless the message holds the conversation, or
the value is a parameter of the call and the request's known input (a parameter named as the
user's input, a loop element, a request's field) comes after it in the message: the input is
then that one, and the parameter keeps its unknown volatility (an info at most). A parameter is
what the evaluator reads from one (`Segment.source`), not words of the evidence: a keyword popped
from the `**kwargs` a caller hands in, through a helper too, is one. Fixtures: fixtures/newest_input/
(a graph-RAG SDK's Cypher generator: the schema rendered from its ontology, the rules, the
question)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from promptlint import api
from promptlint.model import Kind, Segment, Source, Volatility
from promptlint.python.layout_values import newest_input

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "newest_input"


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    """file name -> its diagnostics, the fixtures checked once, copied out of the repository."""
    root = tmp_path_factory.mktemp("newest_input")
    for path in FIXTURE.glob("*.py"):
        shutil.copy(path, root / path.name)
    found: dict[str, list] = {}
    for d in api.check([root], api.Settings(), jobs=1).diagnostics:
        found.setdefault(Path(d.span.filename).name, []).append(d)
    return found


def _prefix(findings, name: str):
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in findings.get(name, []) if d.code in ("PRM101", "PRM102", "PRM103")]


def test_a_value_before_the_question_keeps_its_unknown_volatility(findings):
    [found] = findings["schema_question.py"]
    assert (found.code, found.severity.value, found.span.start.row, found.span.start.column) == ("PRM101", "info", 10, 1)
    assert found.message.startswith("Content of unknown volatility `\"\\n\".join(lines)` (the parameter `ontology`)")


def test_the_only_value_of_the_message_is_the_request_input(findings):
    assert _prefix(findings, "schema_only.py") == [("PRM101", "warning", 10, 1)]


def test_a_question_before_the_value_is_the_finding(findings):
    assert _prefix(findings, "question_first.py") == [("PRM101", "warning", 8, 11)]


def test_a_keyword_popped_from_the_callers_kwargs_before_the_question_keeps_its_unknown_volatility(findings):
    [found] = findings["popped_schema.py"]
    assert (found.code, found.severity.value, found.span.start.row, found.span.start.column) == ("PRM101", "info", 12, 1)
    assert found.message.startswith("Content of unknown volatility `\"\\n\".join(lines)` "
                                    "(the keyword `schema` a caller may pass through `**legacy`)")


def test_a_popped_keyword_alone_in_the_message_is_the_request_input(findings):
    assert _prefix(findings, "popped_only.py") == [("PRM101", "warning", 9, 1)]


def test_a_value_the_function_makes_before_the_question_is_the_request_input(findings):
    [found] = findings["made_question.py"]
    assert (found.code, found.severity.value, found.span.start.row) == ("PRM101", "warning", 11)
    assert "(result of `fetch_latest_notes(...)`)" in found.message


def _seg(kind, vol, expr, evidence="", source=None, name=""):
    return Segment(kind=kind, volatility=vol, expr=expr, evidence=evidence, source=source, source_name=name)


def _read(segs):
    return [(s.expr, s.volatility.value) for s in newest_input(segs) if not s.is_static]


def test_newest_input_reads_each_side():
    block = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "block", "the parameter `ontology`", Source.PARAMETER, "ontology")
    q = _seg(Kind.USER_INPUT, Volatility.PER_REQUEST, "question")
    text = Segment(text="Rules\n")
    assert _read([block, text, q]) == [("block", "unknown"), ("question", "per-request")]
    assert _read([q, text, block]) == [("question", "per-request"), ("block", "per-request")]
    assert _read([block, text]) == [("block", "per-request")]
    # a value the function makes itself (a reply it awaits) is made on each call: still the input
    reply = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "reply.content", "`reply.content` is not resolved")
    assert _read([reply, text, q]) == [("reply.content", "per-request"), ("question", "per-request")]
    made = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "fetch()", "result of `fetch(...)`", Source.CALL)
    assert _read([made, text, q]) == [("fetch()", "per-request"), ("question", "per-request")]
    # the source decides, not the words: a keyword popped from `**legacy` is a parameter, and
    # evidence that reads like one without the fact is not
    popped = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "kwargs.pop(\"schema\")",
                  "the keyword `schema` a caller may pass through `**legacy`", Source.PARAMETER, "legacy")
    assert _read([popped, text, q]) == [("kwargs.pop(\"schema\")", "unknown"), ("question", "per-request")]
    worded = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "block", "the parameter `ontology`")
    assert _read([worded, text, q]) == [("block", "per-request"), ("question", "per-request")]
    # a field of the object the known input is read from is the request's too
    roots = {"func_desc": "row", "query": "row", "block": "", "question": "question"}
    field = _seg(Kind.UNKNOWN, Volatility.UNKNOWN, "func_desc", "the parameter `row`", Source.PARAMETER, "row")
    query = _seg(Kind.USER_INPUT, Volatility.PER_REQUEST, "query")
    assert [(s.expr, s.volatility.value) for s in newest_input([field, text, query], lambda s: roots[s.expr])
            if not s.is_static] == [("func_desc", "per-request"), ("query", "per-request")]
    assert [(s.expr, s.volatility.value) for s in newest_input([block, text, q], lambda s: roots[s.expr])
            if not s.is_static] == [("block", "unknown"), ("question", "per-request")]
    # a clock reading after the parameter is no input of the request: the parameter is still the input
    stamp = _seg(Kind.TIMESTAMP, Volatility.PER_REQUEST, "now")
    assert _read([block, text, stamp]) == [("block", "per-request"), ("now", "per-request")]
    # the message holds the conversation: the transcript is what is new
    history = _seg(Kind.HISTORY, Volatility.UNKNOWN, "transcript")
    assert _read([block, text, history]) == [("block", "unknown"), ("transcript", "unknown")]
