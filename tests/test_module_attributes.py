"""A call through `self.X` where the class assigns X an imported module is read as the module's
function (sdks/base.py `module_attributes`): fixtures/module_attributes."""
from __future__ import annotations

from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "module_attributes"


def test_a_module_kept_on_the_instance_sends_its_requests():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = sorted((p.site.start.row, p.provider, p.api) for p in report.prompts if p.source == "python-call")
    assert found == [(16, "litellm", "litellm.completion"), (26, "litellm", "litellm.acompletion"),
                     (55, "litellm", "litellm.completion"),  # TracedAdapter: the function kept, traced or not
                     (77, "litellm", "litellm.completion")]  # Chosen: a client's method, a callable or LiteLLM's
    # (Swapped: a backend object handed in for the module; Rebuilt: a function the class builds)
