"""PRM302 facts: a class that points its base class's OpenAI client at Anthropic's
OpenAI-compatible endpoint (python/compat_presets.py; fixtures/compat_presets/app)."""
from pathlib import Path

from promptlint import api

APP = Path(__file__).resolve().parent.parent / "fixtures" / "compat_presets" / "app"


def _found():
    report = api.check([APP], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row,
             [(r.span.filename.rsplit("/", 1)[-1], r.span.start.row) for r in d.related])
            for d in report.diagnostics if "OpenAI-compatible endpoint" in d.message]


def test_a_preset_of_the_compatible_endpoint_is_info_at_its_url_with_the_client_related():
    # `AnthropicProvider`: the base's `AsyncOpenAI(base_url=self.resolve_base_url(s))` reads
    # `self.base_url` through `resolve_base_url`; `NativeProvider` builds its own client (the
    # base's `client` overridden); `MessagesProvider` names the Messages API's URL
    assert _found() == [("PRM302", "info", "anthropic.py", 6, [("compatible.py", 14)])]
