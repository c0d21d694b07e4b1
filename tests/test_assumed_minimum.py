"""A whole one-shot request below every minimum of the targets assumed for it (the code names no
model promptlint knows): the static text after a per-request value is worth a note (info), since an
engine that caches shorter prefixes loses it; with a named model, nothing (fixtures/assumed_minimum)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).parent.parent / "fixtures" / "assumed_minimum"


def test_a_per_request_value_before_static_text_of_an_unnamed_model_is_info_and_of_a_named_one_nothing(tmp_path):
    found = [(d.code, d.span.start.row, d.severity.value, d.message)
             for d in fixture_findings(FIXTURES, "review.py", tmp_path)]
    assert [f[:3] for f in found] == [("PRM101", 21, "info")]  # not `review_named` (gpt-4.1: its minimum is known)
    message = found[0][3]
    assert "the 230 static tokens after it are processed uncached on every request" in message
    assert "stays below the 1,024-token minimum of openai:gpt-4.1 even with it moved" in message
    assert "these targets are assumed" in message and "(vLLM, SGLang)" in message
