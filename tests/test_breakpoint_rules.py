"""The cache-size and breakpoint rules PRM301-PRM306 on synthetic layouts, and on the case
fixtures end to end (fixtures/cases, copied verbatim from the shared cases)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from promptlint import tokens
from promptlint.model import Breakpoint, Kind, Part, Position, PromptLayout, Segment, Severity, Span, Volatility
from promptlint.profiles import apply_overrides
from promptlint.rules import ALL_RULES, rule_by_code

POLICY = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                   for i in range(1, 61))  # about 1,080 o200k tokens
SHORT = "You are the writing specialist. Keep every number exactly as given."
CODES = ["PRM301", "PRM302", "PRM303", "PRM304", "PRM305", "PRM306"]


@pytest.fixture(autouse=True)
def _packaged_rows():
    apply_overrides([])


def span(row: int, col: int = 1) -> Span:
    return Span("app.py", Position(row, col), Position(row, col + 10))


def static(text: str, row: int = 5) -> Segment:
    return Segment(text=text, span=span(row))


def dyn(expr: str, volatility: Volatility, kind: Kind = Kind.UNKNOWN, row: int = 20) -> Segment:
    return Segment(kind=kind, volatility=volatility, expr=expr, span=span(row))


def history(row: int = 30) -> Part:
    return Part("history", [dyn("messages", Volatility.UNKNOWN, Kind.HISTORY, row)])


def bp(row: int, after: int = 0, ttl: str | None = None) -> Breakpoint:
    return Breakpoint(after=after, span=span(row, 25), ttl=ttl)


def layout(parts, provider="anthropic", model="claude-sonnet-4-5", **kw) -> PromptLayout:
    return PromptLayout(id="app.py:3", site=span(3), source="python-call", provider=provider,
                        api="messages.create", model=model, parts=parts, **kw)


def run(code: str, lay: PromptLayout) -> list[tuple[int, str]]:
    rule = rule_by_code(code)()
    return [(d.span.start.row, d.severity.value) for d in rule.check_layout(lay)]


def messages(code: str, lay: PromptLayout) -> list[str]:
    return [d.message for d in rule_by_code(code)().check_layout(lay)]


def test_rules_are_registered_with_their_names():
    names = {r.code: r.name for r in ALL_RULES}
    assert [names[c] for c in CODES] == ["prefix-below-minimum", "missing-cache-breakpoint", "breakpoint-below-minimum",
                                         "too-many-breakpoints", "breakpoint-after-dynamic-content", "unstable-cache-key"]
    assert [rule_by_code(c).severity for c in CODES] == [Severity.INFO, Severity.WARNING, Severity.WARNING,
                                                         Severity.ERROR, Severity.WARNING, Severity.ERROR]


# --- PRM303 breakpoint-below-minimum ----------------------------------------------------------

def haiku(tools: Part) -> PromptLayout:
    """haiku-short-cached-system: create_react_agent(model=claude-3-5-haiku, tools, prompt=SystemMessage(...))."""
    return layout([tools, Part("system", [static(SHORT, 31)], [bp(32)]), history()], model="claude-3-5-haiku-20241022")


def test_prm303_short_system_breakpoint_on_haiku():
    lay = haiku(Part("tools", [static('[{"name": "lookup", "description": "Search the knowledge base."}]')]))
    assert run("PRM303", lay) == [(32, "warning")]
    n = tokens.count('[{"name": "lookup", "description": "Search the knowledge base."}]') + tokens.count(SHORT)
    assert messages("PRM303", lay) == [
        f"Cache breakpoint in the system prompt closes about {round(n * 1.16)} tokens, below the 2,048-token minimum of "
        "claude-3-5-haiku-20241022: it never caches"]


def test_prm303_silent_when_unknown_tools_come_first():
    lay = haiku(Part("tools", [dyn("load_tools()", Volatility.UNKNOWN)]))
    assert run("PRM303", lay) == []


def test_prm303_silent_at_or_above_the_minimum_and_for_a_breakpoint_after_dynamic_content():
    lay = layout([Part("system", [static(POLICY)], [bp(9, ttl="1h")]), history(),
                  Part("user", [dyn("question", Volatility.PER_REQUEST, Kind.USER_INPUT)], [bp(40)])], newest_user=2)
    assert run("PRM303", lay) == []


def test_prm303_model_unknown_needs_to_be_below_every_claude_minimum():
    tiny = layout([Part("system", [static("Be brief.")], [bp(9)])], model=None)
    assert run("PRM303", tiny) == [(9, "warning")]
    assert "below 512 tokens, the smallest minimum of any anthropic model: it never caches, whichever model it is" in messages("PRM303", tiny)[0]
    medium = layout([Part("system", [static(POLICY[:2500])], [bp(9)])], model=None)
    assert run("PRM303", medium) == []


def test_prm303_exact_count_for_openai_breakpoints():
    lay = layout([Part("system", [static(SHORT)], [bp(9)])], provider="openai", model="gpt-5.6")
    assert messages("PRM303", lay) == [
        f"Cache breakpoint in the system prompt closes {tokens.count(SHORT)} tokens, below the 1,024-token minimum "
        "of gpt-5.6: it never caches"]


# --- PRM305 breakpoint-after-dynamic-content -------------------------------------------------

def test_prm305_one_shot_breakpoint_after_per_call_content():
    """breakpoint-after-per-call-content: system=RULES; user blocks [document, time + cache_control]."""
    user = Part("user", [static("<document>\n"), dyn("document_text", Volatility.UNKNOWN, row=21),
                         static("\n</document>"), static("Request time: "),
                         dyn("datetime.now(timezone.utc).isoformat()", Volatility.PER_REQUEST, Kind.TIMESTAMP, 24)],
                [bp(25, after=4)])
    lay = layout([Part("system", [static(POLICY, 16)]), user], newest_user=1)
    assert run("PRM305", lay) == [(25, "warning")]
    static_before = tokens.count(POLICY) + tokens.count("<document>\n") + tokens.count("\n</document>Request time: ")
    assert messages("PRM305", lay) == [
        "Cache breakpoint follows per-request content `datetime.now(timezone.utc).isoformat()` in the user message "
        f"of a one-shot request: every request writes a new cache entry and none is read; the {static_before:,} "
        "static tokens before it are never shared"]
    assert [r.span.row for d in rule_by_code("PRM305")().check_layout(lay) for r in d.related] == [24]
    assert run("PRM303", lay) == [] and run("PRM302", lay) == []


def test_prm305_per_conversation_id_inside_the_cached_system_block():
    """sandbox-host-in-cached-system: BASE + runtime ids in one system block with the breakpoint."""
    system = Part("system", [static(POLICY, 35), static("\n\n<runtime>\nSandbox host: https://work-"),
                             dyn("conv.runtime_id", Volatility.PER_CONVERSATION, Kind.UNIQUE_ID, 21),
                             static(".sandbox.example.net\n</runtime>")], [bp(36, after=3)])
    lay = layout([Part("tools", [dyn("tools", Volatility.UNKNOWN, row=39)]), system, history()])
    assert run("PRM305", lay) == [(36, "warning")]
    assert messages("PRM305", lay)[0].startswith(
        "Cache breakpoint follows per-conversation content `conv.runtime_id` in the system prompt: every new "
        "conversation writes the whole prefix again")


def test_prm305_breakpoint_on_newest_user_turn_of_a_replayed_conversation_is_right():
    """clean-breakpoint-on-static-system: 1h breakpoint on the policy, 5m on the newest user message."""
    user = Part("user", [dyn("context", Volatility.UNKNOWN), static("\n[sent "),
                         dyn("stamp", Volatility.PER_REQUEST, Kind.TIMESTAMP, 22), static("]\n"),
                         dyn("text", Volatility.PER_REQUEST, Kind.USER_INPUT)], [bp(30, after=4)])
    lay = layout([Part("system", [static(POLICY, 37)], [bp(37, ttl="1h")]), history(), user], newest_user=2)
    for code in CODES:
        assert run(code, lay) == [], code
    no_history = layout([Part("system", [static(POLICY, 37)], [bp(37, ttl="1h")]), user], newest_user=1)
    assert run("PRM305", no_history) == []  # an earlier breakpoint already closes the static part


def test_prm305_silent_for_unknown_volatility_and_for_per_conversation_user_content():
    unknown = layout([Part("system", [static(POLICY)]),
                      Part("user", [dyn("payload", Volatility.UNKNOWN)], [bp(25)])], newest_user=1)
    assert run("PRM305", unknown) == []
    conv_user = layout([Part("system", [static(POLICY)]),
                        Part("user", [dyn("session_id", Volatility.PER_CONVERSATION, Kind.UNIQUE_ID)], [bp(25)])],
                       newest_user=1)
    assert run("PRM305", conv_user) == []
    nothing_static = layout([Part("user", [dyn("q", Volatility.PER_REQUEST, Kind.USER_INPUT)], [bp(25)])])
    assert run("PRM305", nothing_static) == []


def test_prm305_per_request_content_in_the_system_prompt_of_a_conversation():
    system = Part("system", [static(POLICY), dyn("retrieved", Volatility.PER_REQUEST, Kind.USER_INPUT)], [bp(12, 1)])
    lay = layout([system, history(), Part("user", [dyn("q", Volatility.PER_REQUEST)])], newest_user=2)
    assert run("PRM305", lay) == [(12, "warning")]
    assert "in the system prompt:" in messages("PRM305", lay)[0]


# --- PRM304 too-many-breakpoints -------------------------------------------------------------

def four_blocks(n: int) -> Part:
    return Part("system", [static(f"Section {i}. " + POLICY[:200], 10 + i) for i in range(n)],
                [bp(10 + i, after=i) for i in range(n)])


def test_prm304_counts_the_automatic_slot():
    lay = layout([four_blocks(4), Part("user", [dyn("q", Volatility.PER_REQUEST)])], auto_cache=span(50))
    assert run("PRM304", lay) == [(50, "error")]
    assert messages("PRM304", lay) == ["5 cache breakpoints in one request (the automatic one included); "
                                       "claude-sonnet-4-5 allows 4: the API rejects the request"]


def test_prm304_reports_the_first_breakpoint_past_the_limit():
    tools = Part("tools", [static("[]")], [bp(8)])
    assert run("PRM304", layout([tools, four_blocks(4)])) == [(13, "error")]
    assert run("PRM304", layout([four_blocks(4)])) == []
    assert run("PRM304", layout([tools, four_blocks(4)], provider="openai", model="gpt-5.6")) == []


# --- PRM302 missing-cache-breakpoint ---------------------------------------------------------

def test_prm302_long_static_system_without_breakpoint():
    lay = layout([Part("system", [static(POLICY, 16)]), Part("user", [dyn("q", Volatility.PER_REQUEST)])],
                 newest_user=1)
    assert run("PRM302", lay) == [(16, "warning")]
    assert messages("PRM302", lay)[0].endswith(
        "reaches the 1,024-token minimum of claude-sonnet-4-5 but has no cache breakpoint: it is never cached")


def test_prm302_silent_with_any_breakpoint_short_prefix_or_automatic_api():
    system = Part("system", [static(POLICY, 16)])
    user = Part("user", [dyn("q", Volatility.PER_REQUEST)])
    assert run("PRM302", layout([system, user], auto_cache=span(40))) == []
    assert run("PRM302", layout([Part("system", [static(SHORT)]), user])) == []
    assert run("PRM302", layout([system, user], provider="openai", model="gpt-4o")) == []
    assert run("PRM302", layout([system, user], provider=None, model=None)) == []
    assert run("PRM302", layout([system, user], model="claude-haiku-4-5")) == []  # below 4,096
    assert run("PRM302", layout([system, user], model=None)) == []  # not above every Claude minimum


def converted_history(read: bool = True) -> Part:
    return Part("history", [dyn("conversation history", Volatility.UNKNOWN, Kind.HISTORY, 30)], read=read)


def unknown_tools() -> Part:
    return Part("tools", [dyn("payload['tools']", Volatility.UNKNOWN, row=12)])


def test_prm302_tool_loop_resending_a_converted_history_without_breakpoint_is_info():
    lay = layout([unknown_tools(), Part("system", [dyn("request.system_prompt", Volatility.UNKNOWN)]),
                  converted_history()], model=None)
    assert run("PRM302", lay) == [(3, "info")]
    assert messages("PRM302", lay)[0].startswith(  # no loop and no tool turns seen: every request
        "Request re-sends the tool definitions, system prompt and the conversation history on every request with no "
        "cache breakpoint: any anthropic model caches nothing without one, so each request pays")
    lay.tool_turns = True  # the module converts tool results: the history holds a tool loop's steps
    assert "on every step of the tool loop with no cache breakpoint" in messages("PRM302", lay)[0]
    lay.loop_sent = True  # the call sits in the loop that grows what it sends
    assert "on every pass of the loop with no cache breakpoint: any anthropic model caches nothing without one, " \
           "so each pass pays" in messages("PRM302", lay)[0]


def test_prm302_resent_history_silent_when_a_breakpoint_may_exist_or_no_tool_loop():
    tools, system = unknown_tools(), Part("system", [static(SHORT)])
    assert run("PRM302", layout([tools, system, converted_history(read=False)])) == []  # a list passed through
    assert run("PRM302", layout([tools, system, converted_history()], unread_options=True)) == []  # **options
    assert run("PRM302", layout([tools, system, converted_history()], unplaced_markers=True)) == []
    assert run("PRM302", layout([system, converted_history()])) == []  # no tools: may be a one-shot prompt
    assert run("PRM302", layout([tools, system, converted_history()], auto_cache=span(40))) == []
    marked = converted_history()
    marked.breakpoints.append(bp(31))
    assert run("PRM302", layout([tools, system, marked])) == []
    assert run("PRM302", layout([tools, system, converted_history()], provider="openai", model="gpt-4o")) == []


def test_prm302_a_named_conversation_in_a_tree_that_never_sets_a_breakpoint_is_info():
    system = Part("system", [dyn("system_message", Volatility.UNKNOWN)])
    lay = layout([system, converted_history(read=False)], model=None, tree_markers=False, takes_conversation=True)
    assert run("PRM302", lay) == [(3, "info")]
    assert messages("PRM302", lay)[0].startswith(
        "Request re-sends the system prompt and the conversation history on every turn with no cache breakpoint")


def test_prm302_a_named_conversation_needs_a_tree_without_markers_a_system_prompt_and_its_name():
    system = Part("system", [dyn("system_message", Volatility.UNKNOWN)])
    passed = converted_history(read=False)
    assert run("PRM302", layout([system, passed], takes_conversation=True)) == []  # a file names cache_control
    assert run("PRM302", layout([system, passed], tree_markers=False)) == []  # `messages` alone: maybe one-shot
    assert run("PRM302", layout([passed], tree_markers=False, takes_conversation=True)) == []  # no system prompt
    assert run("PRM302", layout([system, passed], tree_markers=False, takes_conversation=True,
                                unread_options=True)) == []
    assert run("PRM302", layout([system, passed], tree_markers=False, takes_conversation=True,
                                provider="openai", model="gpt-4o")) == []


def test_prm302_a_model_checked_for_claude_without_breakpoint_is_info():
    system = Part("system", [dyn("system", Volatility.UNKNOWN)])
    user = Part("user", [dyn("user", Volatility.PER_REQUEST)])
    lay = layout([system, user], provider="litellm", model=None, tree_markers=False, claude_checked=span(9))
    assert run("PRM302", lay) == [(3, "info")]
    assert messages("PRM302", lay)[0].startswith(
        "The code checks for a Claude model (line 9), but sends its system prompt with no cache breakpoint")
    assert run("PRM302", layout([system, user], provider="litellm", model=None, tree_markers=False)) == []
    assert run("PRM302", layout([system, user], provider="litellm", model=None, claude_checked=span(9))) == []
    assert run("PRM302", layout([user], provider="litellm", model=None, tree_markers=False,
                                claude_checked=span(9))) == []
    assert run("PRM302", layout([system, user], provider="litellm", model=None, tree_markers=False,
                                claude_checked=span(9), unread_options=True)) == []



def test_prm302_a_prompt_passed_whole_to_an_adapter_in_a_tree_without_markers_is_info():
    user = Part("user", [dyn("prompt", Volatility.PER_REQUEST)])
    lay = layout([user], model=None, tree_markers=False, passes_prompt=True)
    assert run("PRM302", lay) == [(3, "info")]
    assert messages("PRM302", lay)[0].startswith(
        "Every prompt passed to this function is sent as one user message with no cache breakpoint, and no file "
        "of the package names one: any anthropic model caches nothing without one")
    assert run("PRM302", layout([user], model=None, passes_prompt=True)) == []  # a file names cache_control
    assert run("PRM302", layout([user], model=None, tree_markers=False)) == []  # not the caller's prompt
    assert run("PRM302", layout([user], model=None, tree_markers=False, passes_prompt=True,
                                unread_options=True)) == []
    assert run("PRM302", layout([user], model=None, tree_markers=False, passes_prompt=True,
                                auto_cache=span(40))) == []
    assert run("PRM302", layout([user], provider="openai", model="gpt-4o", tree_markers=False,
                                passes_prompt=True)) == []


def test_prm302_a_resent_converse_conversation_is_fixed_with_cache_points():
    lay = layout([unknown_tools(), Part("system", [dyn("system", Volatility.UNKNOWN)]), converted_history()],
                 provider="bedrock", model=None)
    lay.api = "converse"
    assert messages("PRM302", lay)[0].endswith(
        "a `cachePoint` block after the system prompt and one after the last message would cache it")
    lay.api = "messages.create"  # Claude's Messages API on Bedrock: breakpoints on blocks
    assert messages("PRM302", lay)[0].endswith("a `cache_control` on the last block of the last message would cache it")
    lay.provider = "anthropic"  # the Claude API also takes the top-level one
    assert "a top-level `cache_control` (automatic caching)" in messages("PRM302", lay)[0]

# --- PRM301 prefix-below-minimum -------------------------------------------------------------

def openai_short(provider="openai", **kw) -> PromptLayout:
    return layout([Part("system", [static(SHORT, 24)]), Part("user", [dyn("question", Volatility.PER_REQUEST)])],
                  provider=provider, model="gpt-4.1-mini", newest_user=1, **kw)


def test_prm301_is_info_on_automatic_caching():
    assert run("PRM301", openai_short()) == [(3, "info")]
    assert messages("PRM301", openai_short()) == [
        f"Static prefix of {tokens.count(SHORT)} tokens is below the 1,024-token minimum of gpt-4.1-mini: "
        "nothing of this prompt is cached"]


def test_prm301_is_a_warning_when_caching_was_asked_for():
    key = Segment(text="faq", span=span(26))
    assert run("PRM301", openai_short(options={"prompt_cache_key": key})) == [(3, "warning")]


def test_prm301_silent_when_the_prefix_can_grow_or_is_unknown():
    with_history = layout([Part("system", [static(SHORT)]), history(), Part("user", [dyn("q", Volatility.PER_REQUEST)])],
                          provider="openai", model="gpt-4o")
    assert run("PRM301", with_history) == []
    unknown_tail = layout([Part("system", [static(SHORT)]), Part("user", [dyn("q", Volatility.UNKNOWN)])],
                          provider="openai", model="gpt-4o")
    assert run("PRM301", unknown_tail) == []
    assert run("PRM301", openai_short(provider=None)) == []
    anthropic = layout([Part("system", [static(SHORT)]), Part("user", [dyn("q", Volatility.PER_REQUEST)])])
    assert run("PRM301", anthropic) == []  # opt-in API, nothing asked: not this rule's business
    long_enough = layout([Part("system", [static(POLICY)]), Part("user", [dyn("q", Volatility.PER_REQUEST)])],
                         provider="openai", model="gpt-4o")
    assert run("PRM301", long_enough) == []


# --- PRM306 unstable-cache-key ---------------------------------------------------------------

def keyed(seg: Segment) -> PromptLayout:
    return layout([Part("system", [static(POLICY)]), history()], provider="openai", model="gpt-5-mini",
                  options={"prompt_cache_key": seg})


def test_prm306_random_key_per_request():
    seg = Segment(kind=Kind.UNIQUE_ID, volatility=Volatility.PER_REQUEST, expr="str(uuid.uuid4())",
                  evidence="call to `uuid.uuid4()`", span=span(34, 30))
    assert run("PRM306", keyed(seg)) == [(34, "error")]
    assert messages("PRM306", keyed(seg)) == [
        "`prompt_cache_key` is `str(uuid.uuid4())`, new on every request: requests that share a prefix never share a cache"]


def test_prm306_stable_or_per_conversation_keys_are_fine():
    conv = Segment(kind=Kind.UNIQUE_ID, volatility=Volatility.PER_CONVERSATION, expr="conversation.id", span=span(34))
    assert run("PRM306", keyed(conv)) == []
    assert run("PRM306", keyed(Segment(text="notes-v1", span=span(34)))) == []


def test_prm306_name_only_evidence_is_a_warning():
    seg = Segment(kind=Kind.UNIQUE_ID, volatility=Volatility.PER_REQUEST, expr="request_id", name_only=True,
                  evidence="the name `request_id`", span=span(34))
    assert run("PRM306", keyed(seg)) == [(34, "warning")]
    assert messages("PRM306", keyed(seg))[0].endswith("; only the name `request_id` suggests it")


# --- the case fixtures, end to end -----------------------------------------------------------

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "cases"
MY_NAMES = {"prefix-below-minimum", "missing-cache-breakpoint", "breakpoint-below-minimum", "too-many-breakpoints",
            "breakpoint-after-dynamic-content", "unstable-cache-key"}
KINDS = {"prefix-below-minimum": {"prefix-below-minimum", "breakpoint-below-minimum"},
         "cache-control-misuse": {"breakpoint-after-dynamic-content", "too-many-breakpoints",
                                  "breakpoint-below-minimum", "missing-cache-breakpoint"},
         "unstable-cache-key": {"unstable-cache-key"}}
BLOCKING = {"warning", "error"}
NEEDS_TOOL_SCHEMAS = "the extractor does not yet render @tool functions into static tool schemas"


def _case_params() -> list:
    params = []
    for name in sorted(p.name for p in CASES.iterdir() if (p / "expected.toml").exists()):
        marks = []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.mark.parametrize("case", _case_params())
def test_case_fixture(case, monkeypatch, case_cache):
    from promptlint.api import check

    monkeypatch.chdir(CASES / case)
    expected = tomllib.loads(Path("expected.toml").read_text())
    diags = [d for d in check([Path(".")], cache_dir=case_cache(case)).diagnostics if d.name in MY_NAMES]

    def matches(d, entry) -> bool:
        rows = {entry["line"], *entry.get("lines_accepted", [])}
        same_class = (d.severity.value in BLOCKING) == (entry.get("severity", "warning") in BLOCKING)
        return (Path(d.span.filename).as_posix() == entry["file"] and d.span.start.row in rows
                and d.name in KINDS.get(entry["rule_kind"], set()) and same_class)

    findings = [f for f in expected.get("findings", []) if f["rule_kind"] in KINDS]
    missed = [f"{f['file']}:{f['line']}" for f in findings if f.get("required", True)
              and not any(matches(d, f) for d in diags)]
    tolerated = findings + expected.get("allowed", [])
    unexpected = [f"{d.code} {d.span}" for d in diags
                  if d.severity.value in BLOCKING and not any(matches(d, f) for f in tolerated)]
    assert (missed, unexpected) == ([], [])
