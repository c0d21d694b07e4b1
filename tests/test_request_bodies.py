"""Anthropic Messages API request bodies a function returns for another to send are read as the
SDK call would be (fixtures/request_bodies, its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "request_bodies"
OVERRIDDEN = FIXTURES.parent / "request_bodies_overridden"


def _report(folder: Path = FIXTURES):
    return api.check([folder], api.Settings(), jobs=1)


def test_a_returned_body_of_the_callers_messages_is_reported_once_where_it_is_written():
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
             for d in _report().diagnostics]
    assert [f[:4] for f in found] == [
        ("online.py", "PRM302", "info", 14),  # the dict display of `create_request`
        ("online.py", "PRM101", "info", 21),  # the callers' schema in the system prompt
        ("sent.py", "PRM302", "info", 11),  # the send call, not also `_body`'s dict
    ]
    assert found[0][4].startswith("Every prompt passed to this function is sent whole as the message list its "
                                  "callers give with no cache breakpoint, and no file of the package names one")


def test_returned_bodies_are_read_only_in_modules_of_the_anthropic_sdk():
    bodies = [(Path(l.site.filename).name, l.site.start.row, l.provider) for l in _report().prompts
              if l.api == "messages (a request body returned)"]
    assert bodies == [("one_shot.py", 7, "anthropic"), ("online.py", 14, "anthropic"), ("sent.py", 8, "anthropic")]
    online = next(l for l in _report().prompts if l.site.filename.endswith("online.py"))
    assert [(p.role, [s.expr or s.text for s in p.segments]) for p in online.parts] == [
        ("system", ["", "\nRespond in JSON matching this schema: ", "generic_request.response_format"]),
        ("history", ["generic_request.messages"]),
    ]
    assert online.passes_prompt and not online.tree_markers


def test_a_body_an_override_returns_is_judged_where_written_when_the_send_sites_lose_its_values():
    # the base class's record holds what every subclass's override returns: the subclasses' send
    # sites read the Anthropic override (they reach it) but not its schema: the body keeps its findings
    report = _report(OVERRIDDEN)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [
        ("anthropic_processor.py", "PRM302", "info", 14),
        ("anthropic_processor.py", "PRM101", "info", 21),
    ]
    assert "`generic_request.response_format`" in report.diagnostics[1].message
    sends = {Path(l.site.filename).name: [(Path(s.filename).name, s.start.row) for s in l.reaches]
             for l in report.prompts if l.source == "python-call"}
    assert ("anthropic_processor.py", 13) in sends["litellm_processor.py"]
