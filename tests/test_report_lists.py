"""Lists in one-line messages: a single remaining item is named, never hidden behind "..."."""
from __future__ import annotations

from promptlint.model import Diagnostic, Position, PromptLayout, Report, Severity, Span
from promptlint.report.names import listed
from promptlint.report.text import summary


def unread(row: int) -> PromptLayout:
    """A request read with no part (messages passed on as `*args`): it holds no text read."""
    site = Span("app.py", Position(row, 5), Position(row, 40))
    return PromptLayout(id=f"app.py:{row}", site=site, source="python-call", provider="openai",
                        api="chat.completions.create", model="gpt-4.1", parts=[])


def test_listed_names_every_item_or_says_how_many_more():
    assert listed(["a", "b", "c"]) == "a, b, c"
    assert listed(["a", "b", "c", "d"]) == "a, b, c, d"
    assert listed(["a", "b", "c", "d", "e"]) == "a, b, c and 2 more"
    assert listed([]) == ""


def test_the_summary_names_the_fourth_unread_request_and_counts_the_rest():
    four = summary(Report(prompts=[unread(row) for row in (10, 20, 30, 40)], files=1))
    assert four.splitlines()[1].endswith(": app.py:10:5, app.py:20:5, app.py:30:5, app.py:40:5")
    assert four.splitlines()[1].startswith("4 of them hold no text promptlint could read")
    six = summary(Report(prompts=[unread(row) for row in (10, 20, 30, 40, 50, 60)], files=1))
    assert six.splitlines()[1].endswith(": app.py:10:5, app.py:20:5, app.py:30:5 and 3 more")


def test_a_request_that_sends_only_a_conversation_handed_in_and_not_read_is_named():
    from promptlint.model import Kind, Part, Segment, Volatility
    site = Span("models.py", Position(29, 21), Position(29, 60))
    handed = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="messages")
    wrapper = PromptLayout(id="models.py:29", site=site, source="python-call", provider="openai",
                           api="chat.completions.create", model="gpt-4.1", parts=[Part("history", [handed])])
    assert summary(Report(prompts=[wrapper], files=1)).splitlines()[1].endswith(": models.py:29:21")
    # a conversation read where it is built (its messages written in the code) or a static system
    # prompt before it: the request holds text that was read
    read = PromptLayout(id="models.py:29", site=site, source="python-call", provider="openai",
                        api="chat.completions.create", model="gpt-4.1", parts=[Part("history", [handed], read=True)])
    system = PromptLayout(id="models.py:29", site=site, source="python-call", provider="openai",
                          api="chat.completions.create", model="gpt-4.1",
                          parts=[Part("system", [Segment(text="You are a helpful assistant.")]), Part("history", [handed])])
    assert "could read" not in summary(Report(prompts=[read], files=1))
    assert "could read" not in summary(Report(prompts=[system], files=1))


def test_the_summary_counts_the_files_with_findings_of_the_files_checked():
    def finding(filename: str, severity: Severity) -> Diagnostic:
        span = Span(filename, Position(3, 1), Position(3, 9))
        return Diagnostic("PRM102", "timestamp-in-prefix", severity, "Timestamp", span)

    two_of_five = Report(diagnostics=[finding("a.py", Severity.WARNING), finding("a.py", Severity.INFO),
                                      finding("b.py", Severity.INFO)], files=5)
    assert summary(two_of_five) == "Found 3 findings (1 warning, 2 info) in 2 of 5 files checked; 0 prompts analysed."
    every_one = Report(diagnostics=[finding("a.py", Severity.INFO)], files=1)
    assert summary(every_one) == "Found 1 finding (1 info) in 1 file checked; 0 prompts analysed."
    assert summary(Report(files=3)) == "No findings in 3 files checked; 0 prompts analysed."
    # a finding in a file the one checked reads (a template, a helper of another module): not "2 of 1"
    read_too = Report(diagnostics=[finding("agent.py", Severity.INFO), finding("template.py", Severity.INFO)], files=1)
    assert summary(read_too) == ("Found 2 findings (2 info) in 2 files (1 file checked and the files it reads); "
                                 "0 prompts analysed.")
