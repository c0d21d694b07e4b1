"""What a user reads names models as the user's code or the provider's documentation does, never
by promptlint's internal profile rows (`openai-gpt-5-to-5.4`, `claude-1024`) or tokenizer keys
(`claude-legacy`), and the `explain` drawing fits an 80-column terminal (a new user's trial)."""
from __future__ import annotations

import io
import json

from rich.console import Console

from promptlint.estimates import estimate, tokenizer_name
from promptlint.model import Breakpoint, Part, Position, PromptLayout, Report, Segment, Span
from promptlint.profiles import active_profiles, apply_overrides, lookup
from promptlint.report import html
from promptlint.report.explain import explain_json, render_explain
from promptlint.report.statistics import render_targets

POLICY = "\n".join(f"{i}. Answer questions about order {i} politely, cite the order number and never guess."
                   for i in range(1, 61))
LONG_ID = "src/helpdesk_assistant/agents/claude_support_agent.py:153"


def span(row: int, col: int = 1, name: str = "chat.py") -> Span:
    return Span(name, Position(row, col), Position(row, col + 10))


def layout(provider: str | None, model: str | None, lid: str = "chat.py:30") -> PromptLayout:
    apply_overrides([])
    name = lid.rsplit(":", 1)[0]
    lay = PromptLayout(id=lid, site=span(30, 5, name), source="python-call", provider=provider,
                       api="messages.create" if provider == "anthropic" else "chat.completions.create", model=model,
                       parts=[Part("system", [Segment(text=POLICY, span=span(32, 1, name))],
                                   [Breakpoint(after=0, span=span(32, 40, name))] if provider == "anthropic" else [])])
    lay.estimates = estimate(lay)
    return lay


def internal_names() -> set[str]:
    """Row names and tokenizer keys that are no model or tokenizer a user could look up."""
    rows = {p.name for p in active_profiles()}
    keys = {p.tokenizer for p in active_profiles()} - {"o200k_base", "cl100k_base", "o200k_harmony", "unknown"}
    return {n for n in rows | keys if not any(n == pat.rstrip("*") for p in active_profiles() for pat in p.model_patterns)}


def draw(layouts, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, no_color=True, highlight=False)
    render_explain(layouts, console=console)
    return console.file.getvalue().splitlines()


def test_default_rows_are_named_by_their_models_in_notes_and_statistics():
    assert lookup("openai", None)[1] == "model not known statically: taken as the openai default, GPT-5 to GPT-5.4"
    assert lookup("openai", "gpt-9")[1] == "model `gpt-9` has no openai profile: taken as the openai default, " \
                                           "GPT-5 to GPT-5.4"
    for provider in {p.provider for p in active_profiles() if p.default}:
        profile, note = lookup(provider, None)
        assert profile.family and note.endswith(f"taken as the {provider} default, {profile.family}"), provider
        assert profile.name == provider or profile.name not in note, provider  # `deepseek` is also the provider
    lay = layout("openai", None)
    [row] = lay.estimates
    assert row["note"] == "model not known statically: taken as the openai default, GPT-5 to GPT-5.4"
    table = render_targets(Report(prompts=[lay]))
    assert "openai (default: GPT-5 to GPT-5.4)" in table and "openai-gpt-5-to-5.4" not in table


def test_tokenizers_are_named_in_words_where_people_read_them():
    assert [tokenizer_name(k) for k in ("claude-legacy", "claude-2026", "gemma3", "o200k_base")] == [
        "Claude 3-4.6", "Claude 4.7+", "Gemma 3", "o200k_base"]
    lays = [layout("anthropic", "claude-sonnet-4-5"), layout("anthropic", None, "chat.py:60"),
            layout("openai", None, "chat.py:90")]
    text = "\n".join(draw(lays, 100))
    assert "anthropic:claude-sonnet-4-5 Claude 3-4.6" in text
    page = html.render(Report(prompts=lays), read_text=lambda name: None)
    assert "<td>Claude 3-4.6</td>" in page
    for shown in (text, page):
        assert not {n for n in internal_names() if n in shown}, sorted(n for n in internal_names() if n in shown)
    # the JSON keeps the tokenizer key (a stable identifier for programs), and no row name
    data = json.dumps(explain_json(lays))
    assert '"tokenizer": "claude-legacy"' in data and "claude-1024" not in data and "openai-gpt-5-to-5.4" not in data


def test_explain_header_fits_80_columns():
    lines = draw([layout("anthropic", "claude-sonnet-4-5", LONG_ID)], 80)
    assert lines[0] == LONG_ID  # id and facts do not fit one line: the facts go on the next, whole
    assert lines[1] == "  python-call | anthropic | messages.create | claude-sonnet-4-5"
    notes = [line for line in lines if line.startswith("anthropic:claude-sonnet-4-5: ")]
    assert all(len(line) <= 80 for line in lines if line not in notes), [line for line in lines if len(line) > 80]
    short = draw([layout("anthropic", "claude-sonnet-4-5")], 80)
    assert short[0] == "chat.py:30  python-call | anthropic | messages.create | claude-sonnet-4-5"  # fits: one line
