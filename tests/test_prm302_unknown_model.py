"""PRM302 for an Anthropic request whose model is not known statically (`model=self.model`, a
parameter with no default): the targets it is estimated for, the same as `promptlint explain`'s,
decide. A target the user configured (`--target`, the `targets` setting) is the model run, so a
static prefix that reaches its minimum with no breakpoint is a warning; with none configured, the
provider's default row stands in for the model and the finding is info, saying that models with a
larger minimum would not cache the prefix either way (a new user's trial: `explain` said "nothing is
cached on this opt-in API" while `check` said nothing)."""
from __future__ import annotations

from promptlint.api import check
from promptlint.config import Settings

POLICY_TIMES = 300  # "Follow the support policy carefully. " x 300: 1,801 o200k tokens, about 2,089 Claude tokens

APP = f'''\
import anthropic

POLICY = "Follow the support policy carefully. " * {POLICY_TIMES}


class LLM:
    def __init__(self, model: str):
        self.model = model
        self.client = anthropic.Anthropic()

    def ask(self, q: str) -> str:
        r = self.client.messages.create(model=self.model, max_tokens=100, system=POLICY,
                                        messages=[{{"role": "user", "content": q}}])
        return r.content[0].text
'''


def _findings(tmp_path, source, targets=None):
    (tmp_path / "app.py").write_text(source)
    settings = Settings(targets=list(targets)) if targets else Settings()
    report = check([tmp_path / "app.py"], settings)
    return [d for d in report.diagnostics if d.code == "PRM302"]


def test_unknown_model_is_info_on_the_default_row_with_the_larger_minimum_named(tmp_path):
    [d] = _findings(tmp_path, APP)
    assert d.severity.value == "info"
    assert (d.span.row, d.span.start.column) == (12, 82)  # the end of `system=POLICY`
    assert "reaches the 1,024-token minimum of Claude Sonnet 3.5 to 4.6" in d.message
    assert "(the model is not known statically: the provider's default)" in d.message
    assert d.message.endswith("a model with a 4,096-token minimum would not cache it either way")


def test_a_configured_target_is_the_model_run_a_warning(tmp_path):
    [d] = _findings(tmp_path, APP, ["anthropic:claude-sonnet-4-5"])
    assert d.severity.value == "warning"
    assert "1,024-token minimum of claude-sonnet-4-5 (the configured target)" in d.message


def test_two_configured_targets_must_both_be_reached_and_are_both_named(tmp_path):
    [d] = _findings(tmp_path, APP, ["anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-1"])
    assert "of claude-opus-4-1, claude-sonnet-4-5 (the configured targets)" in d.message
    assert _findings(tmp_path, APP, ["anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-5"]) == []


def test_a_configured_target_whose_minimum_is_not_reached_gives_nothing(tmp_path):
    assert _findings(tmp_path, APP, ["anthropic:claude-opus-4-5"]) == []  # 4,096 tokens


def test_a_short_prefix_below_the_default_row_gives_nothing(tmp_path):
    assert _findings(tmp_path, APP.replace(f"* {POLICY_TIMES}", "* 100")) == []  # about 700 Claude tokens


def test_a_model_written_at_the_call_keeps_its_warning(tmp_path):
    [d] = _findings(tmp_path, APP.replace("model=self.model", 'model="claude-sonnet-4-5"'))
    assert d.severity.value == "warning"
    assert "not known statically" not in d.message
