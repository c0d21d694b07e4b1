"""promptlint.trace.engine: grouping, conversations, first divergences, their cost and their source.

Requests are built here as log lines; layouts are built by hand (the pure data model), so each
test states exactly what the static analysis knew.
"""
from __future__ import annotations

import json

from promptlint import tokens
from promptlint.estimates import cached_tokens
from promptlint.model import (Diagnostic, Kind, Part, Position, PromptLayout, Segment, Severity, Span,
                              Volatility)
from promptlint.profiles import lookup
from promptlint.trace.engine import TraceOptions, Tracer, trace_requests
from promptlint.trace.model import TraceReport
from promptlint.trace.reader import BadLine, parse_line

POLICY = "".join(f"Rule {i}: answer questions about order {i} politely and check the order state first.\n"
                 for i in range(1, 80))
SHORT = "Answer in one short sentence about the weather outside.\n" * 3


def _chat(system, *messages, time=None, model="gpt-4.1"):
    roles = ["user", "assistant"]
    body = {"model": model, "messages": [{"role": "system", "content": system}] +
            [{"role": roles[i % 2], "content": m} for i, m in enumerate(messages)]}
    return {"endpoint": "/v1/chat/completions", "time": time, "body": body}


def _run(lines, layouts=(), diagnostics=(), **options) -> TraceReport:
    items = []
    for i, line in enumerate(lines, 1):
        if isinstance(line, BadLine):
            items.append(line)
        else:
            items.append(parse_line(i, json.dumps(line).encode()))
    return trace_requests(items, list(layouts), list(diagnostics), TraceOptions(**options))


def _span(filename, row, column, length=1):
    return Span(filename, Position(row, column), Position(row, column + length))


def _layout(*segments, provider="openai", history=True, ident="app/chat.py:30"):
    parts = [Part("system", list(segments))]
    if history:
        parts.append(Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="history",
                                              span=_span("app/chat.py", 31, 40))]))
    return PromptLayout(ident, _span("app/chat.py", 30, 5), "python-call", provider, "chat.completions.create",
                        "gpt-4.1", parts)


def _turns(system_of, turns=3, time0=0):
    """One conversation: turn t re-sends the history with the system text system_of(t)."""
    lines, messages = [], []
    for t in range(turns):
        messages.append(f"question {t}")
        lines.append(_chat(system_of(t), *messages, time=time0 + t))
        messages.append(f"answer {t}")
    return lines


def test_an_append_only_conversation_has_no_divergence():
    report = _run(_turns(lambda t: POLICY, turns=4))
    assert report.divergences == []
    assert report.requests == 4
    assert [(g.requests, g.conversations) for g in report.groups] == [(4, 1)]


def test_a_timestamp_in_the_system_prompt_costs_the_whole_previous_turn():
    system = lambda t: f"Now: 09:00:0{t}\n\n{POLICY}"  # noqa: E731
    lines = _turns(system, turns=3)
    report = _run(lines)
    [d] = report.divergences
    assert d.part == "messages[0]" and d.role == "system"
    assert d.comparisons == {"conversation": 2}
    assert d.char_offset == len("Now: 09:00:0")
    assert d.token_offset == tokens.count("Now: 09:00:0") and d.tokens_exact
    assert d.source is None and not d.missed  # no layout: nothing to say about the static analysis
    profile = lookup("openai", "gpt-4.1")[0]
    expected_prefix, expected_cached = 0, 0
    for t in (1, 2):  # turn t loses what turn t-1 could have left in the cache
        previous = lines[t - 1]["body"]["messages"]
        ideal = sum(tokens.count(m["content"]) for m in previous)
        expected_prefix += ideal - d.token_offset
        expected_cached += cached_tokens(profile, ideal) - cached_tokens(profile, d.token_offset)
    assert d.prefix_tokens_lost == expected_prefix
    assert d.cached_tokens_lost == expected_cached > 2000
    assert d.severity == "warning"
    assert (d.example.line, d.example.previous_line) == (2, 1)
    assert d.example.previous_changed == 1 and d.example.current_changed == 1
    assert d.example.before.endswith("00:00:0") and "x" in d.example.before  # redacted: shape only
    shown = _run(lines, show_text=True).divergences[0].example
    assert shown.before == "Now: 09:00:0" and shown.previous.startswith("0\n\nRule 1: answer")


def test_below_the_minimum_a_divergence_is_info():
    report = _run(_turns(lambda t: f"Now: 09:00:0{t}\n\n{SHORT}"))
    [d] = report.divergences
    assert d.severity == "info" and d.cached_tokens_lost == 0 and d.prefix_tokens_lost > 0


def _claude(blocks, question, time):
    return {"provider": "anthropic", "endpoint": "/v1/messages", "time": time,
            "body": {"model": "claude-sonnet-5", "max_tokens": 100, "system": blocks,
                     "messages": [{"role": "user", "content": question}]}}


def test_opt_in_caching_counts_only_what_breakpoints_close():
    cached = {"type": "ephemeral"}
    after = [_claude([{"type": "text", "text": POLICY, "cache_control": cached}, {"type": "text", "text": f"Now {t}"}],
                     f"question {t}", t) for t in range(2)]
    [d] = _run(after).divergences  # the time sits after the breakpoint: the cached prefix is intact
    assert d.part == "system[1]" and d.comparisons == {"across conversations": 1}
    assert d.cached_tokens_lost == 0 and d.severity == "info"
    before = [_claude([{"type": "text", "text": f"Now {t}\n" + POLICY, "cache_control": cached}], f"question {t}", t)
              for t in range(2)]
    [d] = _run(before).divergences
    claude = lookup("anthropic", "claude-sonnet-5")[0]
    ideal = round(tokens.count("Now 0\n" + POLICY) * 1.5)  # estimated: o200k x the claude-2026 ratio
    assert not d.tokens_exact
    assert d.cached_tokens_lost == cached_tokens(claude, ideal) == ideal
    assert d.severity == "warning"


def test_across_conversations_only_the_head_must_be_shared():
    same = [_chat(POLICY, "first customer", time=0), _chat(POLICY, "second customer", time=1)]
    assert _run(same).divergences == []
    fresh = [_chat(f"Request {n}\n{POLICY}", f"customer {n}", time=n) for n in range(3)]
    [d] = _run(fresh).divergences
    assert d.comparisons == {"across conversations": 2} and d.char_offset == len("Request ")


def test_shared_few_shot_messages_do_not_join_two_conversations():
    shots = ["example question", "example answer"]
    lines = [_chat(POLICY, *shots, "question A", time=0), _chat(POLICY, *shots, "question B", time=1),
             _chat(POLICY, *shots, "question B", "answer B", "question B2", time=2),
             _chat(POLICY, *shots, "question A", "answer A", "question A2", time=3)]
    report = _run(lines)
    assert report.divergences == []
    assert [(g.requests, g.conversations) for g in report.groups] == [(4, 2)]


def test_time_order_is_restored_within_the_window():
    lines = _turns(lambda t: POLICY, turns=3)
    assert _run(list(reversed(lines))).divergences == []  # written newest first, read in time order


def test_state_stays_bounded():
    report = TraceReport("log")
    tracer = Tracer([], [], TraceOptions(max_conversations=8, max_groups=4), report)
    names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kit", "Lu", "Max", "Ned", "Olo",
             "Pia", "Quin", "Ray", "Sol", "Tom"]
    for n in range(300):
        system = f"Assistant {names[n % 20]} of the help desk.\n{SHORT}"
        line = dict(_chat(system, f"question {n}"), conversation=f"c{n}" if n % 2 else None)
        tracer.add(parse_line(n + 1, json.dumps(line).encode()))
        assert len(tracer.conversations) <= 8 and len(tracer.groups) <= 4 and len(tracer.explicit) <= 8
    tracer.finish()
    assert report.requests == 300 and len(report.groups) == 20


def test_a_dynamic_segment_called_stable_is_a_finding_the_static_analysis_missed():
    layout = _layout(Segment(text="You are the help desk.\n", span=_span("app/chat.py", 10, 18)),
                     Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="settings.banner",
                             span=_span("app/chat.py", 11, 9, 17)),
                     Segment(text="\n" + POLICY, span=_span("app/policy.md", 1, 1)))
    lines = _turns(lambda t: f"You are the help desk.\nbanner {t}\n{POLICY}")
    [d] = _run(lines, [layout]).divergences
    assert (d.source.filename, d.source.row, d.source.column) == ("app/chat.py", 11, 9)
    assert d.source.segment == "dynamic" and d.source.expr == "settings.banner" and d.source.prompt == layout.id
    assert d.missed and "called the value stable" in d.explanation
    assert "a finding the static analysis missed" in d.message
    assert report_groups_prompt(lines, layout) == layout.id


def report_groups_prompt(lines, layout):
    return _run(lines, [layout]).groups[0].prompt


def test_changed_static_text_is_located_at_its_row_and_column():
    text = "You are the help desk of Harborline.\n" + POLICY
    layout = _layout(Segment(text=text, span=_span("app/prompt.md", 1, 1)))
    edited = text.replace("Rule 50: answer", "Rule 50: reply to")  # past the head the groups are keyed on
    lines = [_chat(text, "q", time=0), _chat(edited, "q", "a", "q2", time=1)]
    [d] = _run(lines, [layout]).divergences
    assert d.source.segment == "static" and d.source.filename == "app/prompt.md"
    assert (d.source.row, d.source.column) == (51, len("Rule 50: ") + 1)
    assert d.missed and "constant text" in d.explanation


def test_a_reported_segment_names_the_rule_and_is_not_missed():
    stamp = Segment(kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="datetime.now()",
                    span=_span("app/chat.py", 12, 20, 5), origin=_span("app/chat.py", 11, 15))
    layout = _layout(Segment(text="You are the help desk.\nNow: ", span=_span("app/chat.py", 12, 1)), stamp,
                     Segment(text="\n" + POLICY, span=_span("app/policy.md", 1, 1)))
    warning = Diagnostic("PRM102", "timestamp-in-prefix", Severity.WARNING, "Timestamp", stamp.span)
    lines = _turns(lambda t: f"You are the help desk.\nNow: 09:0{t}\n{POLICY}")
    [d] = _run(lines, [layout], [warning]).divergences
    assert d.static_finding == "PRM102" and not d.missed and d.explanation == ""
    assert d.source.origin == "app/chat.py:11:15"
    assert "reported by the static analysis as PRM102" in d.message
    # made in the f-string field itself (`{datetime.now()}` at 12:20, the call at 12:21): no origin, as in `check`
    inside = Segment(kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="datetime.now()",
                     span=_span("app/chat.py", 12, 20, 16), origin=_span("app/chat.py", 12, 21, 14))
    layout = _layout(layout.parts[0].segments[0], inside, layout.parts[0].segments[2])
    [d] = _run(lines, [layout], [warning]).divergences
    assert d.static_finding == "PRM102" and d.source.origin is None


def test_skipped_lines_are_counted_and_listed():
    lines = _turns(lambda t: POLICY, turns=2)
    report = _run([lines[0], BadLine(2, "not valid JSON"), lines[1]], max_errors=5)
    assert report.errors == [(2, "not valid JSON")] and report.skipped == 1 and report.requests == 2
    assert report.divergences == []


def test_an_explicit_conversation_id_links_turns_whatever_their_messages():
    lines = [dict(_chat(f"Now {t}\n{POLICY}", "same question", time=t), conversation="c1") for t in range(2)]
    [d] = _run(lines).divergences
    assert d.comparisons == {"conversation": 1}
    for line in lines:
        del line["conversation"]
    [d] = _run(lines).divergences
    assert d.comparisons == {"across conversations": 1}


def test_causes_past_the_itemised_limit_are_summed_not_listed():
    lines = _turns(lambda t: f"Now 0{t}\n{POLICY}") + [
        dict(line, body=dict(line["body"], model="gpt-4o")) for line in _turns(lambda t: f"Now 0{t}\n{POLICY}", time0=10)]
    report = _run(lines, max_findings=1)
    assert sorted(d.group.startswith("(other causes") for d in report.divergences) == [False, True]
    assert [d.requests for d in report.divergences] == [2, 2]
