"""A class that keeps a conversation, marks the newest tool result with `cache_control` in one
method and sends the list in another (`PromptLayout.history_marker`): the history may end at that
breakpoint, so what changes in the system prompt before it is judged against the history too, at
most info (the breakpoint's place is not known; docs/policies.md, Policies 4 and 7)."""
from __future__ import annotations

from analysis_support import layouts, sent, write

from promptlint import api

OPERATOR = '''
    from datetime import datetime

    import anthropic

    SYS = """<CAPABILITY>
    * You are a careful web browser operating assistant. You help the users finish tasks in a browser.
    * You operate a Chromium browser through the 'computer' tool and cannot read the filesystem.
    * You can click, type, scroll and navigate; chain several actions into one call where you can.
    """


    class Operator:
        def __init__(self, query):
            self.query = query
            self.messages = []

        async def act(self, state):
            system_prompt = self.instructions(state)
            if not self.messages:
                self.messages = [{"role": "user", "content": self.query}]
            content = await self._call_model(messages=self.messages, system_prompt=system_prompt)
            self.messages.append({"role": "assistant", "content": content})
            return content

        def add_results(self, results):
            MARK
            self.messages += [{"role": "user", "content": results}]

        async def _call_model(self, messages, system_prompt):
            client = anthropic.AsyncAnthropic()
            system = [{"type": "text", "text": system_prompt, "cache_control": {"type": "ephemeral"}}]
            response = await client.messages.create(messages=messages, model="claude-sonnet-4-5", system=system,
                                                    max_tokens=1024)
            return response.content

        def instructions(self, state):
            return f"""{SYS}
    * The current date is {datetime.today().strftime('%A, %B %-d, %Y')}.
    * The current URL is {state.url}.
    </CAPABILITY>
    * Do not wait or take screenshots for many turns without acting.
    """
'''

RESULT_MARK = 'results[-1]["cache_control"] = {"type": "ephemeral"}'


def _found(tmp_path, mark):
    write(tmp_path, {"app.py": OPERATOR.replace("MARK", mark)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_a_breakpoint_set_on_a_tool_result_in_another_method_may_close_the_history(tmp_path):
    # the system prompt (about 110 tokens, closed by its own breakpoint) is far below the minimum;
    # the history after it may be cached at the tool result's breakpoint: the date (line 38) and
    # the URL of unknown volatility (line 39) before it are notes
    assert _found(tmp_path, RESULT_MARK) == [("PRM102", "info", 38), ("PRM101", "info", 39)]
    lay = sent(layouts(tmp_path, OPERATOR.replace("MARK", RESULT_MARK)))[0]
    assert lay.history_marker is not None and lay.history_marker.start.row == 26


def test_without_a_breakpoint_on_a_message_nothing_after_the_system_prompt_is_cached(tmp_path):
    # Anthropic caches nothing after the last breakpoint (the system prompt's): nothing to report
    assert _found(tmp_path, "pass") == []
    # a breakpoint on the tools closes the tools, not the history
    assert _found(tmp_path, 'tools[-1]["cache_control"] = {"type": "ephemeral"}') == []
    assert _found(tmp_path, 'self.system_blocks[-1]["cache_control"] = {"type": "ephemeral"}') == []
    lay = sent(layouts(tmp_path, OPERATOR.replace("MARK", "pass")))[0]
    assert lay.history_marker is None


def test_with_no_breakpoint_on_the_system_prompt_the_history_marker_still_closes_the_history(tmp_path):
    # the request's only breakpoint is the tool result's: caching is on (not dormant), and what
    # changes in the system prompt before the history is a note
    source = OPERATOR.replace("MARK", RESULT_MARK).replace(
        'system = [{"type": "text", "text": system_prompt, "cache_control": {"type": "ephemeral"}}]',
        "system = system_prompt")
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [
        ("PRM102", "info", 38), ("PRM101", "info", 39)]
