"""Anthropic's legacy Text Completions API: its requests are read (one prompt string, the newest
user message), its turn markers are static text, and PRM302 says it takes no breakpoint
(fixtures/text_completions, its README)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "text_completions"


def _report():
    return api.check([FIXTURES], api.Settings(), jobs=1)


def test_an_adapter_on_the_text_completions_api_is_reported_as_needing_the_messages_api():
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message)
             for d in _report().diagnostics]
    # `Model.run`: the caller's prompt framed by the API's turn markers alone (`f"{HUMAN_PROMPT} {prompt}
    # {AI_PROMPT}"`) is still the caller's whole prompt; (`framed`: a sentence of its own besides, nothing)
    assert [f[:4] for f in found] == [("backend.py", "PRM302", "info", 7), ("backend.py", "PRM302", "info", 20)]
    assert found[1][4] == found[0][4]
    assert found[0][4].startswith("Every prompt passed to this function is sent as one user message with no cache "
                                  "breakpoint, and no file of the package names one")
    assert found[0][4].endswith("the legacy Text Completions API takes no breakpoint: sent to the Messages API with a "
                                "top-level `cache_control` (automatic caching), the longest shared beginning would be "
                                "cached")


def test_text_completions_requests_and_their_turn_markers():
    layouts = {(Path(l.site.filename).name, l.site.start.row): l for l in _report().prompts}
    assert sorted((k, l.provider, l.api) for k, l in layouts.items() if l.api == "completions") == [
        (("backend.py", 7), "anthropic", "completions"),
        (("backend.py", 20), "anthropic", "completions"),
        (("backend.py", 25), "anthropic", "completions"),
        (("support.py", 10), "anthropic", "completions"),
        (("support.py", 15), "anthropic", "completions"),
    ]
    title = layouts[("support.py", 15)]
    texts = [(s.is_static, s.text) for p in title.parts for s in p.segments]
    assert texts[0] == (True, "\n\nHuman:")
    assert texts[-1] == (True, "\n\nAssistant:")
    assert not any(l.provider == "anthropic" for (name, _), l in layouts.items() if name == "openai_text.py")
