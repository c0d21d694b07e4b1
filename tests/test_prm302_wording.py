"""PRM302's message on a re-sent conversation says how often it is re-sent as the code shows it
(a new user's trial: "on every step" for one call that is in no loop): every pass of a loop that
grows the list the call sends, every step of a tool loop when the module converts tool turns,
every turn of a conversation the function takes by name, else every request."""
from __future__ import annotations

import json

from ci_support import cli

HEAD = '''\
import anthropic

client = anthropic.Anthropic()
TOOLS = [{"name": "lookup", "description": "Look up an order.", "input_schema": {"type": "object"}}]
'''

ONE_CALL = HEAD + '''

def answer(question: str, past: list) -> str:
    messages = [{"role": m["role"], "content": m["content"]} for m in past]
    messages.append({"role": "user", "content": question})
    response = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system="You help.",
                                      tools=TOOLS, messages=messages)
    return response.content[0].text
'''

LOOP = HEAD + '''

def run(question: str, run_tool) -> list:
    messages = [{"role": "user", "content": question}]
    while True:
        response = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system="You help.",
                                          tools=TOOLS, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return messages
        messages.append({"role": "user", "content": run_tool(response.content)})
'''

TOOL_TURNS = HEAD + '''

def send(past: list):
    messages = []
    for m in past:
        if m["role"] == "tool":
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}]})
        else:
            messages.append({"role": m["role"], "content": m["content"]})
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system="You help.",
                                  tools=TOOLS, messages=messages)
'''


def message(tmp_path, monkeypatch, source: str) -> str:
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = cli("check", "app.py", "--no-cache", "--isolated", "--select", "PRM302", "--output-format", "json")
    found = json.loads(result.stdout)["diagnostics"]
    assert [(d["code"], d["severity"]) for d in found] == [("PRM302", "info")], found
    return found[0]["message"]


def test_one_call_in_no_loop_is_every_request(tmp_path, monkeypatch):
    text = message(tmp_path, monkeypatch, ONE_CALL)
    assert "history on every request with no cache breakpoint" in text and "so each request pays" in text
    assert "step" not in text and "loop" not in text


def test_a_call_in_a_loop_that_grows_what_it_sends_is_every_pass(tmp_path, monkeypatch):
    text = message(tmp_path, monkeypatch, LOOP)
    assert "history on every pass of the loop with no cache breakpoint" in text and "so each pass pays" in text


def test_a_module_converting_tool_turns_is_every_step_of_the_tool_loop(tmp_path, monkeypatch):
    text = message(tmp_path, monkeypatch, TOOL_TURNS)
    assert "history on every step of the tool loop with no cache breakpoint" in text and "so each step pays" in text
