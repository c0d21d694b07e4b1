"""PRM302 facts: cache breakpoints set only for some model names (python/gated_markers.model_gates;
fixtures/model_gates/)."""
from pathlib import Path

from promptlint import api
from promptlint.python.gated_markers import model_gates
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "model_gates"


def _gates(name):
    path = FIXTURES / name
    return [(g.test.lineno, g.name, g.marked_when, g.prefixed) for g in model_gates(load(path, path.read_text()))]


def test_a_claude_prefix_test_in_a_module_that_sends_through_litellm_is_a_prefixed_gate():
    # `send`: `str(self.model).startswith("claude")` (within `... and len(messages) > 0`) misses
    # `anthropic/claude-...`; `send_any` tests "claude" anywhere (no gate); `send_narrow` names a
    # version, with a condition that names no model beside it; `send_cut` tests the name with its
    # provider's prefix cut off (`self.model.split("/")[-1]`); `send_either` starts with one of two
    # versions; `send_routed` takes `anthropic/` names too
    assert _gates("prefixed.py") == [(10, "claude", True, True), (22, "claude-3-5", True, False),
                                     (35, "claude-3", True, False)]


def test_a_claude_prefix_test_is_no_gate_where_no_request_names_a_provider_prefix():
    # the Anthropic SDK takes Claude's own names: `claude-...` is every Claude model it sends
    assert _gates("unprefixed.py") == []
    # the module puts `anthropic/` before the name it tested itself
    assert _gates("prefixing.py") == []


def test_a_module_that_writes_a_prefixed_claude_name_or_openrouters_host_may_send_one():
    assert _gates("routed.py") == [(8, "claude-", True, True)]
    assert _gates("openrouter.py") == [(8, "claude", True, True)]  # OpenRouter's Claude: `anthropic/claude-...`


def test_the_prefixed_gate_is_info_at_the_test_and_names_the_prefix():
    report = api.check([FIXTURES / "prefixed.py"], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, d.message.split(":")[0]) for d in report.diagnostics
             if d.code == "PRM302" and "model name" in d.message]
    assert found == [
        ("info", 10, "Cache breakpoints are set only when the model name starts with `claude`"),
        ("info", 22, "Cache breakpoints are set only when the model name matches `claude-3-5`"),
        ("info", 35, "Cache breakpoints are set only when the model name matches `claude-3`")]
