"""A send through a name bound to an SDK method (python/picked.py `aliased_calls`):
`completion = litellm.completion` or `completion = client.chat.completions.create`, chosen at
module level or in the function, then `completion(model=..., messages=...)`."""
from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

CHOSEN_AT_IMPORT = '''from datetime import datetime

completion = lambda *args, **kwargs: None

if USE_LITELLM:
    import litellm

    completion = litellm.completion
else:
    from openai import OpenAI

    client = OpenAI()
    completion = client.chat.completions.create


def ask(question, history):
    system = f"Today is {datetime.now().isoformat()}. You are the shell assistant. " + "Answer in one line. " * 300
    return completion(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history,
                                                {"role": "user", "content": question}])
'''

CHOSEN_IN_THE_FUNCTION = '''from anthropic import Anthropic

client = Anthropic()


def ask(question, fast):
    send = client.messages.create
    return send(model="claude-sonnet-4-5", max_tokens=100, system="You are terse.",
                messages=[{"role": "user", "content": question}])
'''

NOT_AN_SDK_METHOD = '''class Queue:
    def submit(self, **kw):
        return kw


queue = Queue()
submit = queue.submit


def ask(question):
    return submit(model="gpt-4.1", messages=[{"role": "user", "content": question}])
'''


def _report(tmp_path: Path, text: str):
    (tmp_path / "app.py").write_text(text, encoding="utf-8")
    return check([tmp_path / "app.py"], Settings())


def test_a_method_chosen_at_import_is_read_once_per_sdk(tmp_path):
    report = _report(tmp_path, CHOSEN_AT_IMPORT)
    sent = sorted(p.api for p in report.prompts if p.source == "python-call")
    assert sent == ["chat.completions.create", "litellm.completion"]
    stamped = [d for d in report.diagnostics if d.code == "PRM102"]
    assert stamped and all(d.span.start.row == 17 for d in stamped)


def test_a_method_bound_in_the_function_is_its_sdk_call(tmp_path):
    report = _report(tmp_path, CHOSEN_IN_THE_FUNCTION)
    [layout] = [p for p in report.prompts if p.source == "python-call"]
    assert (layout.provider, layout.site.start.row) == ("anthropic", 8)


def test_a_name_bound_to_a_method_of_no_sdk_is_no_send(tmp_path):
    report = _report(tmp_path, NOT_AN_SDK_METHOD)
    assert [p for p in report.prompts if p.source == "python-call"] == []


PARAMETER_SHADOWS = '''from openai import OpenAI

client = OpenAI()
completion = client.chat.completions.create


def log_it(completion, question):
    return completion(model="gpt-4o", messages=[{"role": "user", "content": question}])
'''


def test_a_parameter_named_as_the_module_binding_is_the_callers_value(tmp_path):
    report = _report(tmp_path, PARAMETER_SHADOWS)
    assert [p.api for p in report.prompts if p.source == "python-call"] == []
