"""PRM104: a conversation sent as chat `messages` or rendered as one raw `prompt` by a test on its
content (an image present) switches format within the conversation (python/format_switches.py);
a choice by configuration or by the request's kind does not (fixtures/format_switches/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.format_switches import format_switches, might_switch
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "format_switches" / "adapter.py"


def test_the_format_chosen_by_the_requests_content_is_the_fact():
    module = load(FIXTURE, FIXTURE.read_text())
    assert [(s.test.lineno, s.messages.lineno, s.prompt.lineno, s.reads, s.function) for s in format_switches(module)] \
        == [(26, 27, 29, "media_present", "get_params")]


def test_it_is_info_at_the_test_with_both_formats_related():
    # (main: nothing)
    result = check([FIXTURE], Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in result.diagnostics if d.code == "PRM104"] == [("PRM104", "info", 26, [27, 29])]


def test_a_module_that_writes_one_key_only_is_not_read():
    assert might_switch("d['messages'] = m\nd['prompt'] = p")
    assert not might_switch("d['messages'] = m")
