"""A system message put before a message list by a helper the request's parameters are built in
(`messages = [{"role": "system", ...}] + messages` under an `if`, the list built by the caller:
`[]`, then `extend(history)` and `append` in a loop): the system message comes first, then the
conversation, in chat completions and in the Responses API's `input` list alike
(flow/core.py `_joined`: a written list joined before a grown one is its head; sdks/openai.py:
one of several input lists is messages, not the newest user message; judged.py: the helper's own
candidate is judged at the send site that carries its value)."""
from __future__ import annotations

from analysis_support import layouts, parts, probe, sent

from promptlint import api
from promptlint.judged import judged
from promptlint.model import Volatility

RULES = "You are a support agent for the billing team. Answer with the policy that applies. " * 20


def agent(api_call: str, key: str, content: str = "self._instructions", condition: bool = True) -> str:
    """The autogen-ext shape: the caller builds the list, a helper prepends the system message."""
    test = "if self._instructions and not has_system_message:" if condition else "pass"
    indent = "    " if condition else ""
    return f"""
        from datetime import datetime
        from typing import Any, Dict, List

        from openai import AsyncOpenAI

        RULES = "{RULES}"


        class Agent:
            def __init__(self, instructions: str, model: str = "gpt-4.1"):
                self._client = AsyncOpenAI()
                self._instructions = instructions
                self._model = model
                self._message_history: List[Dict[str, Any]] = []

            def _build_api_parameters(self, messages: List[Dict[str, Any]]) -> Dict[str, Any]:
                has_system_message = any(msg.get("role") == "system" for msg in messages)
                {test}
                {indent}messages = [{{"role": "system", "content": {content}}}] + messages
                api_params: Dict[str, Any] = {{"model": self._model, "{key}": messages}}
                return api_params

            async def run(self, messages):
                input_messages: List[Dict[str, Any]] = []
                if self._message_history:
                    input_messages.extend(self._message_history)
                for message in messages:
                    dict_message = {{"role": "user", "content": str(message)}}
                    input_messages.append(dict_message)
                    self._message_history.append(dict_message)
                api_params = self._build_api_parameters(input_messages)
                return await self._client.{api_call}(**api_params)
    """


RESPONSES = ("responses.create", "input")
CHAT = ("chat.completions.create", "messages")


def _check(root, source):
    (root / "app.py").write_text(__import__("analysis_support").code(source), encoding="utf-8")
    report = api.check([root], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.message) for d in report.diagnostics]


def test_the_system_message_of_a_helper_stays_first_in_the_responses_input(tmp_path):
    call, = sent(layouts(tmp_path, agent(*RESPONSES)))
    assert [role for role, _ in parts(call)] == ["system", "history", "history"]
    # the instructions an instance is built with: not the newest user message, not per-request
    assert parts(call)[0] == ("system", [("unknown", "unknown", "instructions")])
    assert call.newest_user is None


def test_the_system_message_of_a_helper_stays_first_in_chat_messages(tmp_path):
    call, = sent(layouts(tmp_path, agent(*CHAT)))
    assert parts(call)[0] == ("system", [("unknown", "unknown", "instructions")])
    assert [role for role, _ in parts(call)[1:]] == ["history", "history"]


def test_without_the_condition_the_system_message_is_first_too(tmp_path):
    for shape in (RESPONSES, CHAT):
        call, = sent(layouts(tmp_path, agent(*shape, condition=False)))
        assert [role for role, _ in parts(call)] == ["system", "history", "history"], shape
        assert all(s.volatility is not Volatility.PER_REQUEST for p in call.parts for s in p.segments)


def test_the_helpers_candidate_is_judged_at_the_send_site(tmp_path):
    found = layouts(tmp_path, agent(*RESPONSES))
    assert any(lt.source == "python-constant" for lt in found)  # the message list the helper builds
    assert [lt.source for lt in judged(found)] == ["python-call"]


def test_a_clock_in_the_prepended_system_message_costs_the_history_after_it(tmp_path):
    source = agent(*RESPONSES, content='f"{RULES}\\nNow: {datetime.now()}"')
    (code, severity, message), = _check(tmp_path, source)
    assert (code, severity) == ("PRM102", "warning")
    assert "of the request" in message and "history after it" in message
    call, = sent(layouts(tmp_path, source))
    system = parts(call)[0]
    assert system[0] == "system" and ("timestamp", "per-request", "datetime.now()") in system[1]


def test_a_stable_system_message_of_a_helper_is_clean(tmp_path):
    for shape in (RESPONSES, CHAT):
        assert _check(tmp_path, agent(*shape, content="RULES")) == [], shape
        call, = sent(layouts(tmp_path, agent(*shape, content="RULES")))
        # fixed text present or absent by a condition (whether the history holds a system message)
        (kind, volatility, expr), = parts(call)[0][1]
        assert (call.parts[0].role, kind, volatility) == ("system", "conditional", "unknown")
        assert expr.startswith("You are a support agent")
        unconditional, = sent(layouts(tmp_path, agent(*shape, content="RULES", condition=False)))
        assert parts(unconditional)[0] == ("system", [("text", RULES)])
        assert _check(tmp_path, agent(*shape, content="RULES", condition=False)) == [], shape


def test_a_written_list_joined_before_a_grown_one_is_its_head(tmp_path):
    probed = probe(tmp_path, """
        def run(history, new):
            msgs = []
            msgs.extend(history)
            for m in new:
                msgs.append({"role": "user", "content": m})
            probe([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}] + msgs)
    """)
    value = probed.value
    assert value.repeated and value.head == 3  # the two written messages, then the history extended
    tail = probe(tmp_path, """
        def run(new):
            msgs = []
            for m in new:
                msgs.append({"role": "user", "content": m})
            probe(msgs + [{"role": "user", "content": "end"}])
    """).value
    assert tail.repeated and tail.head == 0  # nothing written before the loop
