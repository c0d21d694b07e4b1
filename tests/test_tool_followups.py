"""PRM204: the follow-up request after a tool call that re-sends the conversation without the
tools of the request it continues (a payload copied with `del final["tools"]`, a payload built
without them, a call with no `tools=`). Info, where the tools are left out. Clean: a follow-up
sent with the same tools, one with options of keys not read (`**kwargs`), a follow-up with a new
one-off prompt, a request without tools that is not after a tool call, and tools chosen once."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, source: str):
    write(tmp_path, {"agent.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics if d.code == "PRM204"]


PAYLOAD_DELETED = '''
from litellm import completion


def respond(messages, tools, tool_map, model):
    api_params = {"model": model, "messages": messages}
    if tools:
        api_params["tools"] = tools
    resp = completion(**api_params)
    if resp.choices[0].message.tool_calls:
        clean_messages = []
        for msg in run_tools(resp, tool_map, messages):
            clean_messages.append(msg)
        clean_messages.append({"role": "user", "content": "Sum up the tool results."})
        final_api_params = api_params.copy()
        final_api_params["messages"] = clean_messages
        if "tools" in final_api_params:
            del final_api_params["tools"]
        return completion(**final_api_params)
    return resp
'''

PAYLOAD_BUILT = '''
import ollama


def respond(messages, tools, model):
    client = ollama.Client()
    api_params = {"model": model, "messages": messages, "tools": tools}
    res = client.chat(**api_params)
    message = res.get("message", {})
    if message.get("tool_calls"):
        for result in run_tools(message):
            messages.append({"role": "tool", "content": result})
        final_api_params = {
            "model": model,
            "messages": messages,
        }
        return client.chat(**final_api_params)
    return res
'''

KEYWORDS = '''
from openai import OpenAI

client = OpenAI()


def answer(messages, tools):
    first = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
    calls = first.choices[0].message.tool_calls
    if calls:
        messages.append(first.choices[0].message)
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run(call)})
        second = client.chat.completions.create(model="gpt-4.1", messages=messages)
        return second.choices[0].message.content
    return first.choices[0].message.content
'''


def test_payload_copied_with_tools_deleted_is_info_at_the_deletion(tmp_path):
    assert _found(tmp_path, PAYLOAD_DELETED) == [("PRM204", "info", 17, [8, 9, 18])]


def test_payload_built_without_tools_is_info_at_its_binding(tmp_path):
    assert _found(tmp_path, PAYLOAD_BUILT) == [("PRM204", "info", 12, [7, 9, 16])]


def test_follow_up_call_without_tools_keyword_is_one_info_at_the_call(tmp_path):
    # (the same conversation re-sent without tools is also a wrap-up step: one diagnostic)
    assert _found(tmp_path, KEYWORDS) == [("PRM204", "info", 13, [7])]


def test_follow_up_with_the_same_tools_is_clean(tmp_path):
    source = KEYWORDS.replace('messages=messages)\n        return second',
                              'messages=messages, tools=tools)\n        return second')
    assert 'tools=tools)\n        return second' in source
    assert _found(tmp_path, source) == []


def test_follow_up_with_options_of_keys_not_read_is_clean(tmp_path):
    source = PAYLOAD_BUILT.replace('return client.chat(**final_api_params)',
                                   'return client.chat(**final_api_params, **kwargs)').replace(
        'def respond(messages, tools, model):', 'def respond(messages, tools, model, **kwargs):')
    assert _found(tmp_path, source) == []


def test_follow_up_with_a_one_off_prompt_is_clean(tmp_path):
    source = KEYWORDS.replace('second = client.chat.completions.create(model="gpt-4.1", messages=messages)',
                              'second = client.chat.completions.create(model="gpt-4.1", messages=[{"role": '
                              '"user", "content": "Name a color."}])')
    assert "Name a color" in source
    assert _found(tmp_path, source) == []


def test_request_without_tools_not_after_tool_calls_is_clean(tmp_path):
    source = PAYLOAD_BUILT.replace('if message.get("tool_calls"):', "if len(messages) > 4:")
    assert "tool_calls" not in source
    assert _found(tmp_path, source) == []


def test_payload_copied_with_its_tools_is_clean(tmp_path):
    source = PAYLOAD_DELETED.replace('        if "tools" in final_api_params:\n'
                                     '            del final_api_params["tools"]\n', '')
    assert "del final_api_params" not in source
    assert _found(tmp_path, source) == []


SHARED_CONFIG = '''
import json

from .client import CopilotClient


def talk(question, tools):
    from .config import INSTRUCTION, TALK_CONFIG

    client = CopilotClient()
    messages = [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": question}]
    response = client.complete(messages=messages, tools=[t.spec for t in tools], tool_choice="auto", **TALK_CONFIG)
    if response.tool_calls:
        messages.append(response)
        for call in response.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run(call)})
        response = client.complete(messages=messages, **TALK_CONFIG)
        messages.append({"role": "assistant", "content": response.content})
    return response
'''


def test_follow_up_unpacking_the_options_the_tool_request_unpacked_is_info(tmp_path):
    # `TALK_CONFIG` is unpacked beside `tools=` by the first request: it holds no `tools` key (a
    # keyword given twice raises), so the follow-up that unpacks it unchanged sends no tools
    assert _found(tmp_path, SHARED_CONFIG) == [("PRM204", "info", 16, [11, 12])]


def test_follow_up_unpacking_options_changed_after_the_tool_request_is_clean(tmp_path):
    source = SHARED_CONFIG.replace('        messages.append(response)\n',
                                   '        messages.append(response)\n        TALK_CONFIG.update(extra_options())\n')
    assert "TALK_CONFIG.update" in source
    assert _found(tmp_path, source) == []


def test_follow_up_unpacking_options_the_tool_request_did_not_unpack_is_clean(tmp_path):
    source = SHARED_CONFIG.replace('tool_choice="auto", **TALK_CONFIG)', 'tool_choice="auto")')
    assert source.count("**TALK_CONFIG") == 1
    assert _found(tmp_path, source) == []
