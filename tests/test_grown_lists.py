"""Lists an instance grows, written into prompt text: the conversation history only when its name,
the messages with roles added to it or the speaker's label of each added line says so, or when a
request sends the list as its messages (fixtures/grown_lists)."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import fixture_findings, layouts

FIXTURES = Path(__file__).parent.parent / "fixtures" / "grown_lists"


def _findings(name: str, tmp_path: Path) -> list[tuple]:
    return [(d.code, d.span.start.row, d.severity.value, d.message)
            for d in fixture_findings(FIXTURES, name, tmp_path)]


def _layout_segments(name: str, tmp_path: Path) -> list[tuple]:
    shutil.copy(FIXTURES / name, tmp_path / name)
    found = layouts(tmp_path, (tmp_path / name).read_text(), name=name)
    return [(s.kind.value, s.volatility.value, s.evidence) for lt in found for p in lt.parts
            for s in p.segments if not s.is_static and s.evidence != "the parameter `findings`"]


def test_lists_of_candidates_and_questions_in_a_one_shot_prompt_are_no_history(tmp_path):
    found = _findings("candidates_in_text.py", tmp_path)
    # (before: the lists were the history, a warning "and the conversation history after it"); the
    # text is the whole request a model of unknown class is invoked with, one-shot and below every
    # provider's minimum even with the query moved: nothing is lost, no finding
    assert found == []


def test_a_grown_list_its_count_and_its_items_are_content_of_unknown_volatility(tmp_path):
    described = _layout_segments("candidates_in_text.py", tmp_path)
    # what is read from the list (its count, a summary) is new whenever its methods add to it
    assert ("unknown", "per-request", "read from `self.leads`, a list its methods add to") in described
    assert ("unknown", "unknown", "built from `self.leads`, a list its methods add to") in described
    assert ("unknown", "unknown", "built from `self.asked`, a list its methods add to") in described
    assert not any(kind == "history" for kind, *_ in described)


def test_a_list_known_as_the_conversation_stays_the_history_in_text(tmp_path):
    found = _findings("conversation_in_text.py", tmp_path)
    # by its name, by the messages with roles added to it, by the speaker's label of each line
    assert [f[:3] for f in found] == [("PRM101", 14, "info"), ("PRM101", 27, "info"), ("PRM101", 40, "info")]
    assert all("the conversation history after it" in f[3] for f in found)


def test_a_grown_list_a_request_sends_as_its_messages_is_the_history(tmp_path):
    found = _findings("sent_as_messages.py", tmp_path)
    assert [f[:3] for f in found] == [("PRM101", 17, "info")]
    assert "the conversation history after it" in found[0][3]
