"""turn_names.serialized_name: the value a serialization written in the code reads, so that a rule
judging names (PRM107) reads `json.dumps(docs)` as it reads `docs`."""
from __future__ import annotations

import pytest

from promptlint.turn_names import serialized_name, turn_content


@pytest.mark.parametrize(("expr", "name"), [
    ("json.dumps(docs)", "docs"),
    ("json.dumps(ctx.documents, indent=2)", "documents"),
    ("yaml.safe_dump(retrieved_chunks)", "retrieved_chunks"),
    ("pprint.pformat(search_results)", "search_results"),
    ("repr(passages)", "passages"),
    ("json.dumps(len(docs))", ""),      # a call's result, not the value
    ("json.loads(docs)", ""),           # not a serialization
    ("format_docs(docs)", ""),          # what a helper writes is not known from its name
    ("docs", ""),                       # no serialization (placeholder_name reads it)
])
def test_serialized_name(expr, name):
    assert serialized_name(expr) == name


def test_a_serialized_value_is_judged_by_the_name_of_what_it_serializes():
    assert turn_content(serialized_name("json.dumps(docs, ensure_ascii=False)")) == "retrieved"
