"""A prompt text handed whole to a model whose class is not known (`self.model.invoke(prompt)`, a
LangChain runnable of an application's own wiring): the text is the whole request, one user
message, so it is judged as a one-shot request, on its size: a prompt that stays below every
provider's minimum even with its value moved loses nothing (no finding), a long static text after
the value is a warning. Fixtures under fixtures/invoked_text/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "invoked_text"


def _report(name):
    report = api.check([FIXTURES / name], api.Settings(), jobs=1)
    return report, [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in report.diagnostics]


def test_a_short_one_shot_text_invoked_on_an_unknown_model_loses_nothing():
    # (main: PRM101 info at 17:11, "alone, this prompt stays below the 1,024-token minimum ... even with it moved")
    report, found = _report("short_one_shot.py")
    assert found == []
    assert "langchain.invoke" in [p.api for p in report.prompts]  # (`model: BaseChatModel`: a chat model by its type)


def test_a_long_static_text_after_the_question_is_a_warning_of_the_request():
    report, found = _report("long_one_shot.py")
    assert found == [("PRM101", "warning", 13, 30)]
    assert "of the request, in the newest user message" in report.diagnostics[0].message


def test_a_bare_value_or_a_short_query_invoked_on_a_runnable_is_no_request():
    report, found = _report("bare_values.py")
    assert found == []
    assert "chat.invoke" not in [p.api for p in report.prompts]
