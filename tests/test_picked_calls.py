"""An SDK method picked by name at run time (`method = getattr(self.client.chat.completions,
endpoint)`, then `method(**request)`) is read as the resource's own method call: its request is
a prompt with its layout, as the call written out is."""
from __future__ import annotations

from promptlint import api

from analysis_support import code, write

GENERATOR = """
    from datetime import datetime

    from openai import OpenAI


    class Generator:
        def __init__(self):
            self.client = OpenAI()

        def _prepare(self, question):
            system = f"Now: {{datetime.now().isoformat()}}\\n" + "Answer questions about orders politely. " * 200
            return {{"model": "gpt-4.1", "messages": [{{"role": "system", "content": system}},
                                                      {{"role": "user", "content": question}}]}}

        def run(self, question, endpoint="create"):
            args = self._prepare(question)
            {call}
"""


def _calls(tmp_path, call: str) -> list[tuple[str, int, str | None]]:
    write(tmp_path, {"gen.py": code(GENERATOR.format(call=call))})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(p.source, p.site.start.row, p.api) for p in report.prompts if p.source == "python-call"]


def test_a_method_picked_by_a_name_known_at_run_time_is_the_request(tmp_path):
    found = _calls(tmp_path, "method = getattr(self.client.chat.completions, endpoint)\n            return method(**args)")
    assert found == [("python-call", 18, "chat.completions.create")]  # `return method(**args)`


def test_a_method_picked_by_a_constant_name_at_once(tmp_path):
    found = _calls(tmp_path, 'return getattr(self.client.chat.completions, "create")(**args)')
    assert found == [("python-call", 17, "chat.completions.create")]


def test_an_attribute_of_another_object_picked_so_is_no_request(tmp_path):
    assert _calls(tmp_path, "method = getattr(self, endpoint)\n            return method(**args)") == []


def test_a_method_of_an_object_not_named_as_a_client_picked_by_a_run_time_name_is_no_request(tmp_path):
    # `getattr(self._github, legacy_method)(**kwargs)`: a REST client's method, any of them; read
    # as every SDK method it would be a Bedrock `converse` with no breakpoint (llama-github 0.4.6)
    assert _calls(tmp_path, "return getattr(self._github, endpoint)(**args)") == []
    assert _calls(tmp_path, "return getattr(self.llm_client.chat.completions, endpoint)(**args)") == [
        ("python-call", 17, "chat.completions.create")]
