"""A cut conversation whose messages are each exported by a method of their own (`[m.model_dump()
for m in history[-k:]]`, `m.to_dict()`) is still that cut: PRM105 where it is cut; the whole
conversation exported, or a method given what it reads of the item, is not
(fixtures/exported_windows, python/flow/item_maps.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint.python.flow.item_maps import exports_itself

from analysis_support import fixture_findings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "exported_windows"


def _found(tmp_path, name):
    return [(d.code, d.severity.value, d.span.start.row, d.message.split(" is cut")[0])
            for d in fixture_findings(FIXTURE, name, tmp_path)]


def test_messages_of_a_cut_exported_one_by_one_are_the_cut(tmp_path):
    assert _found(tmp_path, "exported.py") == [
        ("PRM105", "info", 14, "The conversation history `self.messages[-self.recent_messages:]`"),
        ("PRM105", "info", 20, "The conversation history `self.messages[-self.recent_messages:]`")]


def test_the_whole_conversation_exported_or_an_export_given_the_item_is_no_window(tmp_path):
    assert _found(tmp_path, "fields.py") == []


def _exports(text: str) -> bool:
    comp = ast.parse(text, mode="eval").body
    return exports_itself(comp.elt, comp.generators[0].target.id)


def test_exports_itself_reads_a_method_of_the_item_that_exports_it_whole():
    assert _exports("[m.model_dump(include=self.fields, exclude_none=True) for m in xs]")
    assert _exports("[m.to_openai_format() for m in xs]")
    assert _exports("[m.dict() for m in xs]")
    assert not _exports("[m.get('content') for m in xs]")
    assert not _exports("[m.content.strip() for m in xs]")
    assert not _exports("[m.to_dict(m.role) for m in xs]")
    assert not _exports("[m.to_dict(lookup()) for m in xs]")
    assert not _exports("[other.to_dict() for m in xs]")
