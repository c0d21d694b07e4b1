"""promptlint/python/flow/callers.py: a package's own wrappers of the request (`chat` <- `strict`
<- `Agent.query` <- `Agent.plan`), the prompt built three calls up in another module through a
method, with modules that only name the wrapper; fixtures/wrapped_requests."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint.api import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "wrapped_requests"


def _report(tmp_path: Path, plan_context: str | None = None):
    root = tmp_path / "wrapped_requests"
    shutil.copytree(FIXTURE, root)
    if plan_context is not None:
        agent = root / "wraps" / "agent.py"
        agent.write_text(agent.read_text().replace('f"Current time: {datetime.now():%H:%M}"', plan_context))
    return check([root], jobs=1)


def test_the_wrappers_request_takes_the_prompt_its_callers_build_three_calls_up(tmp_path):
    report = _report(tmp_path)
    assert [(d.code, Path(d.span.filename).name, d.span.start.row, d.severity.value) for d in report.diagnostics] == [
        ("PRM102", "agent.py", 45, "warning")]
    request, = [p for p in report.prompts if p.source == "python-call"]
    assert (Path(request.site.filename).name, request.site.start.row) == ("llm.py", 8)
    assert request.static_tokens > 1024  # the policy, read from agent.py


def test_fixed_texts_of_every_caller_leave_the_request_cacheable(tmp_path):
    # (a guard: it passes before the change too, when the request holds no text)
    report = _report(tmp_path, '"You plan the steps of the support team."')
    assert report.diagnostics == []
