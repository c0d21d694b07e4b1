"""PRM302 at an adapter that converts its callers' prompt into a Claude request with no
breakpoint: fixtures/converted_prompts (its README says what each module shows)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.converted_prompts import converted_from

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "converted_prompts"


def _found(path):
    report = api.check([path], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.message, d.related)
            for d in report.diagnostics]


def test_an_adapter_converting_its_callers_prompt_is_reported_as_info():
    found = _found(FIXTURES / "bare")
    assert [f[:4] for f in found] == [
        ("adapter.py", "PRM302", "info", 29),  # generate_text: system and messages from `prompt`
        ("adapter.py", "PRM302", "info", 38),  # generate_object: tools from `schema` too, via `**params`
        ("adapter.py", "PRM302", "info", 61),  # query: the older whole-prompt shape
        ("adapter.py", "PRM302", "info", 72),  # swapped_query: likewise
    ]
    assert found[0][4].startswith("This function sends the system prompt and messages its callers pass, as it "
                                  "converts them (`prompt`), with no cache breakpoint, and no file of the package "
                                  "writes one")
    assert found[1][4].startswith("This function sends the tools, system prompt and messages its callers pass, as "
                                  "it converts them (`schema`, `prompt`)")
    assert found[2][4].startswith("Every prompt passed to this function")


def test_a_package_that_writes_a_breakpoint_is_not_reported_for_the_adapter():
    found = _found(FIXTURES / "marked")
    assert found == []


def _keys(source: str):
    func = ast.parse(source).body[0]
    call = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create")
    return converted_from(func, call)


def test_the_keys_computed_from_parameters_follow_local_assignments():
    assert _keys("def f(self, prompt, schema, **kw):\n"
                 "    messages, system = self.build(prompt)\n"
                 "    params = {'messages': messages, **kw}\n"
                 "    params['system'] = system\n"
                 "    params.update(tools=[schema])\n"
                 "    return self.c.create(**params)\n") == (("tools", "schema"), ("system", "prompt"),
                                                            ("messages", "prompt"))
    # values of the function's own only: nothing
    assert _keys("def f(self):\n"
                 "    system = self.system_prompt\n"
                 "    return self.c.create(system=system, messages=self.history)\n") == ()
    # a parameter that is not the prompt's: the model name
    assert _keys("def f(self, model):\n"
                 "    return self.c.create(model=model, messages=[{'role': 'user', 'content': 'hi'}])\n") == ()


def test_a_breakpoint_key_named_in_a_docstring_or_a_comment_only_is_no_breakpoint():
    assert [f[:4] for f in _found(FIXTURES / "documented")] == [f[:4] for f in _found(FIXTURES / "bare")]


def test_names_markers_reads_the_code_not_its_docstrings_and_comments():
    from promptlint.python.packages import names_markers
    assert not names_markers('"""Keeps `cache_control` markers."""\n# a cachePoint block\nx = 1\n')
    assert names_markers('block = {"type": "text", "cache_control": {"type": "ephemeral"}}\n')
    assert names_markers('def f(add_cache_control=False):\n    """Marks nothing."""\n')
    assert names_markers('client.create(cache_control_injection_points=[])\n')
    assert names_markers('x = (\n')  # does not parse: taken as naming one


def test_breakpoints_a_sibling_adapter_writes_on_its_own_requests_do_not_silence_another():
    every = _found(FIXTURES / "siblings")
    # (`_build_kwargs` also takes every system message of the conversation into `system`: PRM105's)
    assert [f[:4] for f in every if f[1] == "PRM105"] == [("bedrock_provider.py", "PRM105", "info", 17)]
    found = [f for f in every if f[1] != "PRM105"]
    assert [f[:4] for f in found] == [
        ("anthropic_llm.py", "PRM302", "info", 25),
        ("bedrock_provider.py", "PRM302", "info", 21),  # where `_build_kwargs` writes the system prompt
    ]
    assert "no code of the package writes one on what its callers pass (the modules that write one mark the " \
           "requests they send themselves)" in found[0][4]
    assert found[1][4].startswith("The request built here sends the messages its callers pass, as it converts them "
                                  "(`messages`)")


def test_breakpoints_written_by_a_module_that_sends_nothing_may_reach_the_adapter():
    assert _found(FIXTURES / "shared_marks") == []


def test_marker_uses_tells_a_write_from_a_read():
    from promptlint.python.packages import marker_uses
    assert marker_uses('if "cachePoint" in block:\n    pass\n') == (True, False)
    assert marker_uses('block["cache_control"] = {"type": "ephemeral"}\n') == (True, True)
    assert marker_uses('x = {"cachePoint": {"type": "default"}}\n') == (True, True)
    assert marker_uses('"""`cache_control` survives."""\n') == (False, False)


def test_a_branch_for_another_model_is_no_adapter_request():
    assert _keys("def f(self, messages):\n"
                 "    if self.provider == 'minimax':\n"
                 "        return self.c.create(messages=messages, system=messages[0])\n") == ()
    assert _keys("def f(self, messages):\n"
                 "    if 'claude' in self.model:\n"
                 "        return self.c.create(messages=messages, system=messages[0])\n") == (
        ("system", "messages"), ("messages", "messages"))


def test_a_request_its_callers_build_whole_is_sent_with_no_breakpoint():
    found = _found(FIXTURES / "whole")
    assert [f[:4] for f in found] == [
        # converse_stream(**api_kwargs), under a test of a key, and converse(**api_kwargs): the sends of
        # one request its callers build, one finding (promptlint/dedupe.py), the other send related
        ("clients.py", "PRM302", "info", 18),
        ("clients.py", "PRM302", "info", 26),  # litellm.completion(**params), Claude named in the package
    ]
    assert [(r.span.start.row, r.message) for r in found[0][5]] == [(19, "the same request is sent here too")]
    assert found[0][4].startswith("This function sends the request its callers build, whole (`api_kwargs`), with no "
                                  "cache breakpoint")
    assert "when the model is Claude" in found[1][4]


def test_a_litellm_adapter_of_a_module_naming_the_anthropic_provider_may_send_to_claude():
    found = _found(FIXTURES / "provider_named")
    assert [f[:4] for f in found] == [("adapter.py", "PRM302", "info", 21)]
    assert "when the model is Claude (the package names Claude models or their provider), Anthropic" in found[0][4]
    assert _found(FIXTURES / "provider_other") == []


def test_helper_built_is_a_request_mapping_a_helper_returns():
    from promptlint.python.converted_prompts import helper_built

    def built(source):
        func = ast.parse(source).body[0]
        call = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "converse")
        return helper_built(func, call)

    assert built("def chat(self, messages):\n"
                 "    kwargs = self._build_kwargs(messages)\n"
                 "    return self.c.converse(**kwargs)\n")
    # a message list a helper builds, sent by keyword: the request is written at the call
    assert not built("def chat(self, messages):\n"
                     "    turns = to_list(messages)\n"
                     "    return self.c.converse(modelId=self.m, messages=turns)\n")
    # a mapping the function itself writes into: built here
    assert not built("def chat(self, messages):\n"
                     "    kwargs = self._base()\n"
                     "    kwargs['messages'] = messages\n"
                     "    return self.c.converse(**kwargs)\n")


def test_a_request_handed_whole_to_a_retry_helper_is_reported_where_its_caller_builds_it():
    found = _found(FIXTURES / "handed")
    # `Solver.solve` writes the request (`system=task_state.task_description`, a conversation) and hands
    # it to `anthropic_create_retrying(client, **kwargs)`, which sends it through `create_retrying`
    assert [f[:4] for f in found] == [("solver.py", "PRM302", "info", 17)]
    assert found[0][4].startswith("This request (system prompt, messages) is handed whole to a function that sends "
                                  "it (line 26, as `**kwargs`) with no cache breakpoint")
    assert [(r.span.start.row, r.message) for r in found[0][5]] == [(26, "sent here")]
    # (`summarize`: a one-shot request of known text below the minimum, handed to the same helper: nothing)
    assert _found(FIXTURES / "handed_marked") == []  # the caller marks the system block


IMAGE_FIRST = '''\
import base64

import anthropic


class Vision:
    def __init__(self, model: str):
        self.model = model
        self.client = anthropic.Anthropic()

    def analyze(self, image_path: str, prompt: str) -> str:
        with open(image_path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        response = self.client.messages.create(model=self.model, max_tokens=1000, messages=[{
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                {"type": "text", "text": prompt},
            ],
        }])
        return response.content[0].text
'''


def test_an_adapter_that_puts_a_new_image_before_its_callers_text_gets_no_breakpoint_finding(tmp_path):
    """The image read from the caller's path opens the request: what the callers' prompts repeat
    comes after content new with each call, so a breakpoint would cache nothing they share (a new
    user's trial: "sends the messages its callers pass" for a function that builds its own)."""
    (tmp_path / "vision.py").write_text(IMAGE_FIRST)
    assert [f[1:3] for f in _found(tmp_path / "vision.py")] == [("PRM101", "info")]  # the image before the text
    text_first = IMAGE_FIRST.replace('''                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                {"type": "text", "text": prompt},''', '''                {"type": "text", "text": prompt},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},''')
    (tmp_path / "vision.py").write_text(text_first)
    assert [f[1:3] for f in _found(tmp_path / "vision.py")] == [("PRM302", "info")]  # the adapter, text first


def test_an_http_cache_control_header_is_no_breakpoint_key():
    from promptlint.python.packages import marker_uses
    assert marker_uses('cache_control = "private, no-cache"\nheaders = {"Cache-Control": cache_control}\n') == (False, False)
    assert marker_uses("from django.views.decorators.cache import cache_control\n\n"
                       "@cache_control(max_age=3600)\ndef view(request):\n    pass\n") == (False, False)
    assert marker_uses("def view(response):\n    response.cache_control.max_age = 300\n") == (False, False)
    # a quoted breakpoint key in the same file still counts, and so does a name with no HTTP header near
    assert marker_uses('h = {"Cache-Control": "no-store"}\nb = {"cache_control": {"type": "ephemeral"}}\n') == (True, True)
    assert marker_uses("def f(block, cache_control=None):\n    block.update(cache_control=cache_control)\n") == (True, True)


def test_a_package_whose_only_cache_control_is_an_http_header_names_no_breakpoint(tmp_path):
    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "assets.py").write_text('def headers():\n    cache_control = "private, no-cache"\n'
                                   '    return {"Cache-Control": cache_control}\n')
    (pkg / "chat.py").write_text(
        "import anthropic\n\n\nclass Chat:\n    def __init__(self):\n        self.history = []\n\n"
        "    def ask(self, question):\n        self.history.append({'role': 'user', 'content': question})\n"
        "        reply = anthropic.Anthropic().messages.create(model='claude-sonnet-4-5', max_tokens=1024,\n"
        "            system='You are a helpful assistant.', messages=self.history)\n"
        "        self.history.append({'role': 'assistant', 'content': reply.content[0].text})\n"
        "        return reply\n")
    assert [f[1:4] for f in _found(pkg)] == [("PRM302", "info", 10)]
    (pkg / "assets.py").write_text('def mark(block):\n    block["cache_control"] = {"type": "ephemeral"}\n')
    assert [f[1] for f in _found(pkg)] == []


def test_a_function_named_for_the_http_header_is_no_breakpoint_key():
    from promptlint.python.packages import marker_uses
    assert marker_uses("def set_cache_control(value):\n    return {'Cache-Control': value}\n") == (False, False)
