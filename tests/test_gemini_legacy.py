"""The Gemini SDK before google-genai (google-generativeai, `vertexai.generative_models`): a model
built by `GenerativeModel(model_name, system_instruction=..., tools=...)` sends its system part,
tools and model with each `model.generate_content(contents)`, and a chat it starts
(`model.start_chat(history=...)`) with that history and each `chat.send_message(content)`: read as
one request there, with the cached-token figures of its model. A `generate_content` of any other
receiver is not such a request; `explain` at a `GenerativeModel(...)` with no system instruction
says why it holds no prompt. Fixtures under fixtures/gemini_legacy/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.unread_calls import describe, unread_calls

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gemini_legacy"


def _report(name: str):
    return api.check([FIXTURES / name], api.Settings(), jobs=1)


def test_generate_content_of_a_model_built_with_a_system_instruction_is_the_request():
    # (main: only the constructor was read, worded for a bare prompt with no cached-token figure)
    report = _report("model_send.py")
    sends = [p for p in report.prompts if p.site.start.row == 8]
    assert [(p.provider, p.api, p.model) for p in sends] == [("google", "GenerativeModel.generate_content",
                                                              "gemini-2.5-flash")]
    assert [p.role for p in sends[0].parts] == ["system", "user"]
    [finding] = report.diagnostics
    assert (finding.code, finding.severity.value, finding.span.start.row) == ("PRM102", "warning", 7)
    assert "(google:gemini-2.5-flash: 0 cached tokens per request instead of about 2,405)" in finding.message


def test_send_message_of_a_chat_started_on_such_a_model_sends_its_history():
    report = _report("chat_send.py")
    [send] = [p for p in report.prompts if p.api == "GenerativeModel.send_message"]
    assert (send.site.start.row, send.model) == (11, "gemini-2.5-flash")
    assert [p.role for p in send.parts] == ["system", "user", "history", "user"]


def test_generate_content_of_another_receiver_is_no_gemini_request():
    assert [p.api for p in _report("other_receiver.py").prompts] == []


def test_explain_says_a_model_without_a_system_instruction_holds_no_prompt():
    path = FIXTURES / "unread_model.py"
    module = load(path, path.read_text(), filename="unread_model.py")
    lines = describe(unread_calls(module, 5), "unread_model.py")
    assert lines[1] == ("  a `GenerativeModel(...)` holds prompt text only with `system_instruction=`; the requests "
                        "of the model it builds are read at its `generate_content` and `start_chat(...).send_message` calls")


def test_a_model_family_without_implicit_caching_gets_a_note_whether_the_send_is_read_or_not():
    # (main: a warning "processed uncached on every request" although the model table says the
    # family caches no request prefix; Gemini 1.5 and 2.0 have explicit context caches only)
    # (the send is the request: its finding counts tokens of the request, the model only built of
    # "this prompt")
    for name, row, whose in (("old_model_send.py", 7, "the request"), ("old_model_built.py", 8, "this prompt")):
        [finding] = _report(name).diagnostics
        assert (finding.code, finding.severity.value, finding.span.start.row) == ("PRM102", "info", row)
        assert (f"at token 3 of {whose}, in the system prompt: "
                "nothing of this request is cached today (this model has no implicit caching, only explicit "
                "context caches); once it is, the 2,402 static tokens after it") in finding.message


def test_the_model_table_names_what_caching_gemini_1_5_lacks():
    from promptlint.profiles import lookup
    profile, _ = lookup("google", "gemini-1.5-flash")
    assert (profile.caching_supported, profile.no_caching) == (False, "no implicit caching, only explicit context caches")
    assert "https://ai.google.dev/gemini-api/docs/caching" in profile.source


def test_a_model_built_and_sent_in_view_is_one_prompt_with_one_set_of_findings():
    # (main: the `GenerativeModel(...)` call at line 7 was a prompt of its own too, judged without
    # the chat's history: "Static prefix of about 1,301 tokens is below the 2,048-token minimum:
    # nothing of this prompt is cached", although the request at line 9 sends a history after it
    # that grows past the minimum); a model only returned (line 13) stays a prompt of its own
    report = _report("built_and_sent.py")
    assert sorted((p.site.start.row, p.api) for p in report.prompts) == [
        (9, "GenerativeModel.send_message"), (13, "GenerativeModel")]
    [send] = [p for p in report.prompts if p.site.start.row == 9]
    assert [p.role for p in send.parts] == ["system", "history", "user"]
    assert sorted((d.code, d.span.start.row) for d in report.diagnostics) == [("PRM301", 13)]
