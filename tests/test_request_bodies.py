"""Anthropic Messages API request bodies a function returns for another to send are read as the
SDK call would be (fixtures/request_bodies, its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "request_bodies"


def _report():
    return api.check([FIXTURES], api.Settings(), jobs=1)


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


def test_a_send_site_that_read_nothing_of_its_request_judges_no_body_it_reached():
    # `litellm.acompletion(**request.body)` of a subclass, the record built in the base class with
    # what every override of the abstract `create_request` returns: the call reaches each
    # override, Anthropic's body among them, but reads nothing of the spread (no parts): the body
    # keeps its findings where it is written
    from dataclasses import replace

    from promptlint.judged import judged
    from promptlint.model import Position, PromptLayout, Span

    layouts = list(_report().prompts)
    body = next(l for l in layouts if l.site.filename.endswith("online.py"))
    function = Span(body.site.filename, Position(13, 5), Position(22, 23))  # `create_request`
    blind = PromptLayout(id="send.py:9", site=Span("send.py", Position(9, 16), Position(9, 60)),
                         source="python-call", provider="litellm", api="litellm.acompletion",
                         model=None, parts=[], newest_user=None, reaches=[function])
    assert body in judged([*layouts, blind])
    reading = replace(blind, parts=[replace(p) for p in body.parts])  # one that read the body judges it
    assert body not in judged([*layouts, reading])
