"""A conversation re-sent with no breakpoint: what the site finder knows around the send call
that the request's arguments do not show. `tree_markers`: some Python file of the package tree
names a breakpoint key (cache_control, cachePoint), so a message may carry one set elsewhere;
`takes_conversation`: the sending function takes a list named as the conversation (a parameter
`history`, `self.chat_history`) or grows the list it sends in the loop that sends it."""
from __future__ import annotations

from analysis_support import one_call

QUERY = """
    import anthropic


    class Model:
        def __init__(self):
            self.api = anthropic.Anthropic()

        def to_messages(self, history):
            return [{"role": e["role"], "content": e["content"]} for e in history if e["role"] != "system"]

        def query(self, history):
            system = "\\n".join(e["content"] for e in history if e["role"] == "system")
            messages = self.to_messages(history)
            return self.api.messages.create(model="claude-sonnet-4-5", max_tokens=512, system=system,
                                            messages=messages)
"""

LOOP = """
    import anthropic

    client = anthropic.Anthropic()


    def run(messages, system, tools):
        while True:
            reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=512, system=system,
                                           tools=tools, messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason != "tool_use":
                return reply
            messages.append({"role": "user", "content": run_tools(reply)})
"""


def test_a_conversation_taken_by_its_name_in_a_tree_without_markers(tmp_path):
    lt = one_call(tmp_path, QUERY)
    assert lt.takes_conversation and not lt.tree_markers


def test_a_file_of_the_tree_that_names_cache_control_may_set_a_breakpoint(tmp_path):
    lt = one_call(tmp_path, QUERY, files={"cache.py": 'def mark(block):\n    block["cache_control"] = {"type": "ephemeral"}\n'})
    assert lt.tree_markers
    lt = one_call(tmp_path / "b", QUERY, files={"bedrock.py": 'POINT = {"cachePoint": {"type": "default"}}\n'})
    assert lt.tree_markers


def test_a_generic_messages_parameter_is_no_conversation_name(tmp_path):
    lt = one_call(tmp_path, QUERY.replace("history", "prompt"))
    assert not lt.takes_conversation


def test_a_list_grown_in_the_loop_that_sends_it_is_the_conversation(tmp_path):
    assert one_call(tmp_path, LOOP).takes_conversation
    once = LOOP.replace("    while True:\n", "    if True:\n")
    assert not one_call(tmp_path / "once", once).takes_conversation  # no loop: sent once
