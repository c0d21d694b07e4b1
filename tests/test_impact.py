"""The cache-impact model (promptlint/impact.py): rates, what each target caches, the cached tokens
lost per request, and the severity that follows (DESIGN.md Policies 1-4, 7, 8)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from promptlint import tokens
from promptlint.estimates import estimate
from promptlint.impact import Rate, impacts, rate_of
from promptlint.model import Breakpoint, Kind, Part, Position, Precision, PromptLayout, Segment, Severity, Span, Volatility
from promptlint.profiles import apply_overrides

LONG = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                 for i in range(1, 81))  # about 1,600 o200k tokens
MID = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                for i in range(1, 21))  # about 400 o200k tokens: worth caching, below every minimum
SHORT = ("Classify the message above as billing (invoices, refunds, fees), cards (lost, stolen or declined "
         "cards) or access (sign-in, passwords, new phones). Reply with one lowercase word only, no punctuation.")


def span(row: int) -> Span:
    return Span("app.py", Position(row, 1), Position(row, 10))


def text(t: str, row: int = 1) -> Segment:
    return Segment(text=t, span=span(row))


def value(expr: str = "question", vol: Volatility = Volatility.PER_REQUEST, kind: Kind = Kind.USER_INPUT,
          precision: Precision | None = None, row: int = 2) -> Segment:
    return Segment(kind=kind, volatility=vol, expr=expr, span=span(row), precision=precision)


def history() -> Part:
    return Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="*history")])


def layout(parts, provider="openai", model="gpt-4.1", newest_user=None, source="python-call") -> PromptLayout:
    apply_overrides([])
    lay = PromptLayout(id="app.py:1", site=span(1), source=source, provider=provider, model=model, parts=parts,
                       newest_user=newest_user)
    lay.estimates = estimate(lay)
    return lay


def one(lay: PromptLayout):
    found = [i for i in impacts(lay) if i.first]
    assert len(found) == 1, found
    return found[0]


def test_rates_follow_precision_and_volatility():
    assert rate_of(value()) is Rate.REQUEST
    assert rate_of(value(kind=Kind.TIMESTAMP, precision=Precision.DAY)) is Rate.DAY  # volatility says per-request
    assert rate_of(value(kind=Kind.TIMESTAMP, precision=Precision.MONTH)) is Rate.MONTH
    assert rate_of(value(kind=Kind.TIMESTAMP, precision=Precision.YEAR)) is None
    assert rate_of(value(kind=Kind.TIMESTAMP, vol=Volatility.PER_PROCESS, precision=Precision.SUB_DAY)) is Rate.PROCESS
    assert rate_of(value(vol=Volatility.PER_CONVERSATION, kind=Kind.UNIQUE_ID)) is Rate.CONVERSATION
    assert rate_of(value(vol=Volatility.UNKNOWN, kind=Kind.TEMPLATE_VARIABLE)) is Rate.UNKNOWN
    assert rate_of(value(vol=Volatility.STABLE)) is None
    assert rate_of(text("static")) is None


def test_per_request_value_before_enough_static_text_is_a_warning_with_its_figures():
    lay = layout([Part("system", [value(), text(LONG)]), Part("user", [value(row=3)])], newest_user=1)
    imp = one(lay)
    n = tokens.count(LONG)
    assert (imp.placed.static_before, imp.static_after, imp.history_after) == (0, n, False)
    (t,) = imp.targets
    assert (t.target, t.now, t.fixed) == ("openai:gpt-4.1", 0, 1024 + (n - 1024) // 128 * 128)
    assert imp.severity is Severity.WARNING


def test_below_every_minimum_a_whole_request_loses_nothing_and_a_fragment_is_info():
    """A whole request whose static text stays below every minimum with the value moved loses
    nothing: no finding (its message would say so). The same text built apart from its request
    (a prompt constant) loses it in a request that sends more: info."""
    small = layout([Part("system", [value(), text(SHORT)]), Part("user", [value(row=3)])], newest_user=1)
    imp = one(small)
    assert imp.below_minimum and imp.targets[0].lost == 0 and imp.costs_nothing and imp.severity is None
    fragment = layout([Part("prompt", [value(), text(MID)])], source="python-constant")
    imp = one(fragment)
    assert imp.costs_nothing and not imp.complete and imp.severity is Severity.INFO
    # a few words after it are not worth caching when the request is not known (UNKNOWN_STATIC_AFTER)
    assert one(layout([Part("prompt", [value(), text(SHORT)])], source="python-constant")).severity is None
    tiny = layout([Part("system", [value(), text(".</q>")]), Part("user", [value(row=3)])], newest_user=1)
    assert one(tiny).severity is None
    # the history after a per-request value is lost whatever the static size
    chat = layout([Part("system", [value(), text(SHORT)]), history(), Part("user", [value(row=3)])], newest_user=2)
    assert not one(chat).costs_nothing and one(chat).severity is Severity.WARNING


def test_history_after_makes_it_a_warning_whatever_the_static_size():
    lay = layout([Part("system", [text("Be brief."), value()]), history(), Part("user", [value(row=3)])],
                 newest_user=2)
    imp = one(lay)
    assert imp.history_after and imp.static_after == 0 and imp.severity is Severity.WARNING


def test_a_window_of_the_conversation_after_the_value_ends_what_moving_it_gains():
    """A conversation cut to its newest messages (PRM105's window) changes from its start on every
    turn once full, wherever the value is: the value costs the static text before the window only
    (a short one here: nothing), not the history."""
    windowed = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="history[-5:]", span=span(4),
                       window=span(4))
    lay = layout([Part("system", [text("Be brief."), value()]), Part("history", [windowed]),
                  Part("user", [value(row=3)])], newest_user=2)
    imp = one(lay)
    assert not imp.history_after and imp.static_after == 0 and imp.severity is None
    whole = layout([Part("system", [text("Be brief."), value()]), history(), Part("user", [value(row=3)])],
                   newest_user=2)
    assert one(whole).history_after and one(whole).severity is Severity.WARNING


def test_a_date_or_a_value_fixed_at_import_is_info_or_nothing():
    date = value("date.today()", kind=Kind.TIMESTAMP, precision=Precision.DAY)
    assert one(layout([Part("system", [date, text(LONG)]), history()])).severity is Severity.INFO
    first = impacts(layout([Part("system", [date, text(SHORT)]), Part("user", [value(row=3)])], newest_user=1))[0]
    assert first.rate is Rate.DAY and first.severity is None  # nothing cacheable, even once a day
    fixed = value("datetime.now()", vol=Volatility.PER_PROCESS, kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY)
    assert one(layout([Part("system", [fixed, text(LONG)]), history()])).severity is Severity.INFO


def test_per_conversation_value_costs_the_static_text_shared_across_conversations():
    sid = value("session_id", vol=Volatility.PER_CONVERSATION, kind=Kind.UNIQUE_ID)
    assert one(layout([Part("system", [sid, text(LONG)]), history()])).severity is Severity.WARNING
    assert one(layout([Part("system", [sid, text(SHORT)]), history()])).severity is None  # below the minimum
    assert one(layout([Part("system", [text(LONG), sid]), history()])).severity is None  # only the history follows


def test_anthropic_breakpoints_bound_what_is_lost():
    bp = Breakpoint(after=0, span=span(5))
    after_last = layout([Part("system", [text(LONG), value()], [bp]), history()],
                        provider="anthropic", model="claude-sonnet-4-5")
    assert impacts(after_last) == []  # nothing after the last breakpoint is cached (Policy 4)
    none = layout([Part("system", [value(), text(LONG)]), Part("user", [value(row=3)])], newest_user=1,
                  provider="anthropic", model="claude-sonnet-4-5")
    imp = one(none)
    assert imp.dormant and imp.targets[0].dormant == "no `cache_control` breakpoint"
    assert imp.severity is Severity.INFO
    tied = layout([Part("system", [text(LONG), value("conv_id", Volatility.PER_CONVERSATION, Kind.UNIQUE_ID),
                                   text("\n")], [Breakpoint(after=2)]), history()],
                  provider="anthropic", model="claude-sonnet-4-5")
    imp = one(tied)
    assert imp.before_lost == tokens.count(LONG) and imp.targets[0].now == 0
    assert imp.severity is Severity.WARNING


def test_instructions_after_the_message_in_a_one_shot_prompt():
    reach = layout([Part("user", [value(), text(LONG)])], newest_user=0)
    imp = one(reach)
    assert imp.placed.in_newest and imp.severity is Severity.WARNING
    small = layout([Part("user", [value(), text(SHORT)])], newest_user=0)
    assert one(small).costs_nothing and one(small).severity is None  # below every minimum either way
    conversation = layout([Part("system", [text("Be brief.")]), history(), Part("user", [value(), text(LONG)])],
                          newest_user=2)
    assert impacts(conversation) == []  # the newest message of a conversation ends the prefix (Policy 3)


def test_a_timestamp_or_an_id_behind_another_value_is_its_own_cause():
    stamp = value("datetime.now()", kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY, row=3)
    uid = value("uuid.uuid4()", kind=Kind.UNIQUE_ID, row=4)
    lay = layout([Part("system", [value(), text("Session "), uid, text(" at "), stamp, text(LONG)]), history()])
    user, rid, now = impacts(lay)
    assert user.first and user.behind is None and user.severity is Severity.WARNING
    # each needs its own fix: fixing the user's text alone gives nothing back, so both are reported
    assert rid.first and rid.behind is user.placed and rid.severity is Severity.WARNING
    assert now.first and now.behind is user.placed and now.severity is Severity.WARNING
    # a second timestamp after the first is the same cause (one fix: coarsen or move the time)
    two = layout([Part("system", [stamp, text(" and "), replace(stamp, span=span(5)), text(LONG)]), history()])
    first, later = impacts(two)
    assert first.first and not later.first and later.severity is None


def test_a_timestamp_after_a_value_does_not_end_what_moving_that_value_gains():
    # the time is its own cause with its own fix: with it moved, the memories before it break the
    # static text and the history after both (judged as if the time were gone)
    stamp = value("datetime.now()", kind=Kind.TIMESTAMP, precision=Precision.SUB_DAY, row=4)
    memories = value("memory.memory", Volatility.UNKNOWN, Kind.UNKNOWN, row=3)
    lay = layout([Part("system", [text("Rules. "), memories, text("Now: "), stamp, text(LONG)]), history()])
    kept, now = impacts(lay)
    assert kept.first and kept.history_after and kept.static_after >= tokens.count(LONG)
    assert kept.severity is Severity.INFO
    assert now.first and now.severity is Severity.WARNING
    # a later per-request value of another kind still ends it
    asked = layout([Part("system", [text("Rules. "), memories, text("Asked: "), value(row=4), text(LONG)]),
                    history()])
    assert not impacts(asked)[0].history_after and impacts(asked)[0].severity is None


def test_one_root_cause_per_prompt_and_unknown_values():
    second = layout([Part("system", [value(), text(LONG), value(row=4), text(LONG)]), history()])
    first, later = impacts(second)
    assert first.first and not later.first and later.severity is None
    assert first.static_after == tokens.count(LONG) * 2  # the second value is the same cause: counted, not a stop
    whole = layout([Part("system", [value("system", Volatility.UNKNOWN, Kind.UNKNOWN)]), history(),
                    Part("user", [value(row=3)])], newest_user=2)
    assert one(whole).severity is None  # the system prompt passed in whole (Policy 7)
    persona = layout([Part("system", [value("persona", Volatility.UNKNOWN, Kind.UNKNOWN), text("Be brief.")]),
                      history()])
    assert one(persona).severity is Severity.INFO


@pytest.mark.parametrize(("source", "severity"), [("template", Severity.WARNING), ("prompt-text", Severity.WARNING),
                                                  ("python-constant", Severity.INFO)])
def test_fragments_followed_by_a_conversation_are_not_excused_by_minimums(source, severity):
    """A prompt file is a system prompt that a conversation of unknown size follows (Policy 5); a
    prompt string built in Python with no call found may be any part of a request, so it is judged
    on its known text (Policy 4); as a system prompt, the conversation follows it (Policy 2)."""
    lay = layout([Part("system", [value("now()", kind=Kind.TIMESTAMP), text(SHORT)])], provider=None, model=None,
                 source=source)
    imp = one(lay)
    assert not imp.complete and imp.severity is severity


CHAT = '''from datetime import datetime
from pathlib import Path

import anthropic
from openai import OpenAI

POLICY = Path(__file__).with_name("policy.md").read_text()
client = OpenAI()
claude = anthropic.Anthropic()


def answer(question: str, history: list):
    return client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": f"Now: {datetime.now():%H:%M}\\n{POLICY}"}, *history,
                  {"role": "user", "content": question}],
    )


def route(message: str):
    return claude.messages.create(
        model="claude-sonnet-4-5", max_tokens=10,
        messages=[{"role": "user", "content": [
            {"type": "text", "text": f"{message}\\n\\n{POLICY}", "cache_control": {"type": "ephemeral"}}]}],
    )
'''


def test_messages_state_the_figures_of_explain(tmp_path, monkeypatch):
    """The token counts of a message are those of `promptlint explain` for the same prompt; no
    internal placeholder and no "1 tokens" in any message."""
    from promptlint.api import check
    from promptlint.config import Settings
    from promptlint.report.explain import explain_json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy.md").write_text(LONG, encoding="utf-8")
    (tmp_path / "chat.py").write_text(CHAT, encoding="utf-8")
    report = check(["."], Settings(root=tmp_path))
    explained = {p["id"]: p for p in explain_json(report.prompts)["prompts"]}
    found = [d for d in report.diagnostics if d.code in ("PRM101", "PRM102")]
    assert [(d.code, d.severity) for d in found] == [("PRM102", Severity.WARNING), ("PRM101", Severity.WARNING)]
    for d in found:
        (imp,) = explained[d.prompt]["impacts"]
        (t,) = imp["targets"]
        now = f"{t['cached_now']:,}" if t["exact"] or not t["cached_now"] else f"about {t['cached_now']:,}"
        fixed = f"{t['cached_fixed']:,}" if t["exact"] else f"about {t['cached_fixed']:,}"
        assert f"at token {imp['static_before']:,} of the request" in d.message
        assert f"the {imp['static_after']:,} static tokens" in d.message
        assert f"{t['target']}: {now} cached tokens per request instead of {fixed}" in d.message
        assert "1 tokens" not in d.message and "instance:" not in d.message
    stamp = next(d for d in found if d.code == "PRM102")
    assert stamp.message.endswith("plus the history)")
    assert explained[stamp.prompt]["static_prefix_tokens"] == explained[stamp.prompt]["impacts"][0]["static_before"]


def test_size_is_blamed_only_when_size_is_the_cause():
    """PRM301 says "nothing of this prompt is cached" only when the whole static text is below the
    minimum; not when a per-request value with static text after it cuts the prefix short (that
    value is the finding, PRM101), nor when a part's content is not known (an empty part)."""
    from promptlint.rules.prm301_prefix_below_minimum import PrefixBelowMinimumRule

    rule = PrefixBelowMinimumRule()
    small = layout([Part("system", [text(SHORT)]), Part("user", [value(row=3)])], newest_user=1)
    (d,) = rule.check_layout(small)
    assert d.severity is Severity.INFO and "1 tokens" not in d.message
    cut_short = layout([Part("system", [text("Hi."), value(), text(SHORT)]), Part("user", [value(row=3)])],
                       newest_user=1)
    assert list(rule.check_layout(cut_short)) == []
    unknown = layout([Part("user", [])], provider="google", model=None, newest_user=0)
    assert list(rule.check_layout(unknown)) == []


def test_reordered_text_in_a_fragment_with_a_small_tail_is_info():
    from promptlint.rules.prm202_unordered_iteration_in_prompt import UnorderedIterationInPromptRule
    unordered = value("fnames", kind=Kind.UNORDERED_ITERATION, vol=Volatility.PER_PROCESS)
    rule = UnorderedIterationInPromptRule()
    small = layout([Part("user", [unordered, text("Ok, I will use these images.")])], source="template")
    assert [d.severity for d in rule.check_layout(small)] == [Severity.INFO]
    # built in Python with no send found: a few words after it are not worth caching on their own,
    # but the items are the same content in another order (their own text is at stake): info
    apart = layout([Part("user", [unordered, text("Ok, I will use these images.")])], source="python-constant")
    assert [d.severity for d in rule.check_layout(apart)] == [Severity.INFO]
    mid = layout([Part("user", [unordered, text(MID)])], source="python-constant")
    assert [d.severity for d in rule.check_layout(mid)] == [Severity.WARNING]
    big = layout([Part("user", [unordered, text(LONG)])], source="python-constant")
    assert [d.severity for d in rule.check_layout(big)] == [Severity.WARNING]
    replayed = layout([Part("system", [unordered, text("Be brief.")]), history()], source="python-constant")
    assert [d.severity for d in rule.check_layout(replayed)] == [Severity.WARNING]
    request = layout([Part("system", [unordered, text("Be brief.")]), Part("user", [value(row=3)])], newest_user=1)
    assert [d.severity for d in rule.check_layout(request)] == [Severity.WARNING]


def test_a_segment_in_a_message_of_unknown_role_is_named_as_such():
    from promptlint.model import Kind, Part, Segment, Volatility
    from promptlint.prefix import Placed
    seg = Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="m.content")
    where = [Placed(0, 0, Part(role=role, segments=[seg]), seg, 0, 0, True).where for role in ("unknown", "model", "system")]
    # never "in the unknown": a role without a name of its own is called a message
    assert where == ["message of unknown role", "model message", "system prompt"]


def _lines(n_tokens: int) -> str:
    """Static prose of about `n_tokens` o200k tokens (whole lines of LONG)."""
    out = []
    for line in LONG.splitlines():
        if tokens.count("\n".join(out + [line])) > n_tokens:
            break
        out.append(line)
    return "\n".join(out)


def test_a_loss_that_needs_the_tokenizer_estimate_to_reach_the_minimum_is_info():
    # Claude is counted as about 1.16 x o200k (1.05-1.30): 900 o200k tokens are about 1,044 Claude
    # tokens, over the 1,024 minimum only on the point estimate; 1,000 are over it on every count.
    near, far = _lines(900), _lines(1000)
    assert 1024 / 1.16 < tokens.count(near) < 1024 / 1.05 < tokens.count(far)
    for static, severity in ((near, Severity.INFO), (far, Severity.WARNING)):
        lay = layout([Part("system", [value(), text(static)]), Part("user", [value(row=3)])],
                     provider="anthropic", model="claude-sonnet-4-5", newest_user=1)
        lay.parts[0].breakpoints.append(Breakpoint(after=1))
        imp = one(lay)
        (t,) = imp.targets
        assert t.fixed >= 1024 and t.sure is (severity is Severity.WARNING)
        assert imp.severity is severity


def test_explain_summary_says_either_way_when_nothing_more_would_be_cached():
    """explain's one-line summary: a loss of zero tokens (below the minimum either way) is not
    '0 cached tokens per request instead of 0'."""
    from promptlint.impact import Impact, Placed, TargetLoss
    from promptlint.impact_phrases import summary
    seg = Segment(kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST, expr="now",
                  span=Span("app.py", Position(1, 1), Position(1, 4)))
    placed = Placed(0, 0, Part("system", [seg]), seg, 0, 40, False)
    none_lost = Impact(placed, Rate.REQUEST, True, 40, False, True,
                       targets=[TargetLoss("openai:gpt-4.1", True, 1024, 0, 0)])
    assert summary(none_lost) == ("changes on every request: 40 static tokens after it; openai:gpt-4.1: "
                                  "0 cached tokens per request either way")
    lost = replace(none_lost, targets=[TargetLoss("openai:gpt-4.1", True, 1024, 0, 1408)])
    assert summary(lost).endswith("openai:gpt-4.1: 0 cached tokens per request instead of 1,408")


def test_the_position_says_when_values_of_unknown_length_come_before():
    """`"Read: " + context + "Answer: " + query + RULES`: the token count of the query's place is
    of static text only; the message says it comes after a value of unknown length."""
    from promptlint.prefix import placed_segments
    from promptlint.rules import _prefix_rule
    lay = layout([Part("user", [text("Read the following text: "), value("context", Volatility.STABLE, Kind.UNKNOWN),
                                text("Answer the question: ", 3), value("query", row=4), text("x " * 2000, 5)])])
    first, second = placed_segments(lay)
    assert (first.values_before, second.values_before) == (0, 1)
    assert _prefix_rule.position(first).endswith("of the request, in the user message")
    assert _prefix_rule.position(first) == "at token 6 of the request, in the user message"
    assert _prefix_rule.position(second) == ("after 1 value of unknown length and 11 static tokens of the request, "
                                             "in the user message")


def test_below_the_assumed_minimums_a_whole_request_with_a_known_per_request_value_is_info():
    """A whole request whose model promptlint does not know (the default targets stand in) and that
    stays below their minimums even with the value moved: the application may send it to an engine
    that caches shorter prefixes (vLLM, SGLang), where the static text after a per-request value is
    lost on every request: info (`Impact.unsure_minimum`), at VALUE_STATIC_AFTER tokens or more."""
    def request(after: str, provider=None, model=None, **kw):
        seg = replace(value(**kw), evidence="the parameter `question`")
        return layout([Part("system", [text("You answer questions.")]), Part("user", [seg, text(after, row=3)])],
                      provider=provider, model=model, newest_user=1)
    imp = one(request(MID))
    assert imp.assumed and imp.costs_nothing and imp.unsure_minimum and imp.severity is Severity.INFO
    # the code names the model: its minimum is a fact, the whole request loses nothing
    named = one(request(MID, provider="openai", model="gpt-4.1"))
    assert not named.assumed and named.costs_nothing and named.severity is None
    # less than one of OpenAI's 128-token increments after it: not worth a note
    assert one(request(SHORT)).severity is None
    # a value known only by its name is one assumption too many
    only_name = layout([Part("user", [replace(value(), name_only=True), text(MID, row=3)])], provider=None,
                       model=None, newest_user=0)
    assert one(only_name).assumed and one(only_name).severity is None
    # a value of unknown volatility keeps the figures: nothing
    unknown = request(MID, vol=Volatility.UNKNOWN, kind=Kind.UNKNOWN)
    assert one(unknown).severity is None
    # nor one written only when an option that is off by default is on
    gated = layout([Part("user", [replace(value(), evidence="`uuid4()`", gate="self.add_nonce"), text(MID, row=3)])],
                   provider=None, model=None, newest_user=0)
    assert one(gated).assumed and one(gated).severity is None


def _slot(name: str, empty: bool) -> Part:
    return Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="MessagesPlaceholder",
                                    span=span(5), slot=name, slot_empty=empty)])


@pytest.mark.parametrize("slot,empty,severity", [("chat_history", True, Severity.INFO),
                                                  ("function_response", False, Severity.INFO),
                                                  ("chat_history", False, Severity.WARNING)])
def test_a_history_slot_not_shown_to_hold_the_conversation_makes_no_warning(slot, empty, severity):
    """A question before a message placeholder: a warning only when the placeholder is shown to hold
    the conversation (named for it and filled, or required); an optional one nothing fills, or one
    named for something else (`function_response`: one request's messages), leaves a note."""
    lay = layout([Part("system", [text("Be brief.")]), Part("user", [value(row=3)]), _slot(slot, empty)])
    imp = one(lay)
    assert imp.history_after and imp.static_after == 0
    assert imp.severity is severity
    assert (imp.slot is not None) is (severity is Severity.INFO)


def test_a_loss_shown_only_by_reaching_the_minimum_past_values_of_unknown_length_is_not_sure():
    """Per-request text before a short tail (less than one 128-token increment) whose static text
    reaches the minimum only with that tail counted, after values of unknown length that count as
    empty (`Placed.values_before`): those values may reach the minimum already, so the loss is not
    shown (info); with no value before it, the figures stand (a warning)."""
    head = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                     for i in range(1, 56))
    tail = "Remember: reply with one short paragraph, cite the order number, and never guess an answer. " * 3
    n, m = tokens.count(head), tokens.count(tail)
    assert n < 1024 <= n + m and m < 128
    known = layout([Part("user", [text(head), value(row=3), text(tail, row=4)])], newest_user=0)
    assert one(known).severity is Severity.WARNING
    block = value("ontology_block", Volatility.UNKNOWN, Kind.UNKNOWN, row=2)
    unsized = layout([Part("user", [text("Schema:"), block, text(head, row=3), value(row=4), text(tail, row=5)])],
                     newest_user=0)
    imp = next(i for i in impacts(unsized) if i.rate is Rate.REQUEST)
    assert imp.placed.values_before == 1 and not imp.targets[0].sure
    assert imp.severity is Severity.INFO
