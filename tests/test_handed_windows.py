"""A conversation handed to a call as its newest messages by a keyword named for it (PRM105,
python/handed_windows.py): info where it is cut, when the call is not read as a request."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

ROUTE = """
    from agent import run_agent

    LIMIT = 10


    async def turn(request, chat_messages: list):
        return await run_agent(request=request, chat_history=to_history(chat_messages[{cut}]),
                               prior_messages=to_history(chat_messages), last_answer=chat_messages[-1:])


    def to_history(rows):
        return [{{"role": r.sender, "content": r.text}} for r in rows]
"""


def _found(tmp_path, cut):
    write(tmp_path, {"route.py": ROUTE.format(cut=cut), "agent.py": "async def run_agent(**kw):\n    pass\n"})
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_the_newest_messages_handed_on_as_the_conversation_are_a_window(tmp_path):
    assert _found(tmp_path, "-LIMIT:") == [("PRM105", "info", 7, 69)]


def test_the_whole_conversation_or_its_last_answer_handed_on_is_no_window(tmp_path):
    assert _found(tmp_path, ":") == []
    assert _found(tmp_path, "-2:") == []


MERGED = """
    from kernel import invoke_function_calls, merge_function_results


    class Chat:
        def __init__(self, max_turns: int):
            self.max_turns = max_turns

        async def step(self, chat_history, calls):
            results = await invoke_function_calls(calls, chat_history)
            shown = merge_function_results(messages=chat_history.messages[{cut}], name="assistant")
            return shown
"""


def _merged(tmp_path, cut):
    write(tmp_path, {"chat.py": MERGED.format(cut=cut),
                     "kernel.py": "async def invoke_function_calls(calls, history):\n    return calls\n\n\n"
                                  "def merge_function_results(**kw):\n    return kw\n"})
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_the_messages_just_added_one_per_result_are_no_window(tmp_path):
    # `[-len(results):]`: the function results appended for this step, handed on to be merged
    assert _merged(tmp_path, "-len(results):") == []


def test_a_slice_as_long_as_a_setting_is_still_a_window(tmp_path):
    assert _merged(tmp_path, "-self.max_turns:") == [("PRM105", "info", 10, 49)]


def test_a_window_inside_a_request_is_judged_there_once(tmp_path):
    write(tmp_path, {"app.py": '''
        from openai import OpenAI

        client = OpenAI()


        def ask(history: list, question: str):
            return client.chat.completions.create(
                model="gpt-4.1", messages=[*history[-20:], {"role": "user", "content": question}])
    '''})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.span.start.row) for d in found if d.code == "PRM105"] == [("PRM105", 8)]


COMPACT = """
    from agents import Agent
    from context import compact_messages_for_llm

    KEEP = 3


    def _compact(items: list) -> list:
        return compact_messages_for_llm(items, keep_recent_tool_outputs={keep}, max_chars=4000)


    def compact_for(items: list, keep_recent_tool_outputs: int) -> list:
        return compact_messages_for_llm(items, keep_recent_tool_outputs=keep_recent_tool_outputs)


    def input_filter(data):
        return _compact(list(data.model_data.input))
"""


def _compacted(tmp_path, keep):
    write(tmp_path, {"app.py": COMPACT.format(keep=keep),
                     "context.py": "def compact_messages_for_llm(items, **kw):\n    return items\n"})
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_a_compaction_that_keeps_the_newest_few_whole_rewrites_the_older_ones(tmp_path):
    """Reported where the window is chosen (a constant, a module name), not where a parameter hands it on."""
    assert _compacted(tmp_path, "KEEP") == [("PRM105", "info", 8, 12)]


def test_a_compaction_that_keeps_none_whole_is_no_window(tmp_path):
    assert _compacted(tmp_path, "0") == []


TRIMMED = """
    from openai import OpenAI
    from navigator import estimate_size, trimmed_messages_to_fit

    client = OpenAI()


    def step(messages: list):
        if estimate_size(messages) > 9_500_000:
            {target} = trimmed_messages_to_fit(messages, max_bytes=9_500_000)
        return client.chat.completions.create(model="gpt-4.1", messages=messages)
"""


def test_a_conversation_replaced_by_its_trim_to_fit_a_bound_is_a_window(tmp_path):
    write(tmp_path, {"app.py": TRIMMED.format(target="messages, _, removed")})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found
            if d.code == "PRM105"] == [("PRM105", "info", 9, 32)]


def test_a_conversation_given_to_its_truncation_by_keyword_and_replaced_is_a_window(tmp_path):
    write(tmp_path, {"app.py": """
        from openai import OpenAI
        from .utils import truncate_input_messages

        client = OpenAI()


        def chat(messages: list, max_input_tokens: int = 58000):
            if max_input_tokens > 0:
                messages = truncate_input_messages(messages=messages, max_tokens=max_input_tokens)
            preview = truncate_input_messages(messages=messages[:2], max_tokens=100)
            shown = truncate_input_messages(text=str(messages), max_tokens=100)
            return client.chat.completions.create(model="gpt-4.1", messages=messages), preview, shown
    """})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found
            if d.code == "PRM105"] == [("PRM105", "info", 9, 20)]


def test_a_trim_whose_result_does_not_replace_the_conversation_is_not_one(tmp_path):
    write(tmp_path, {"app.py": TRIMMED.format(target="preview, _, removed")})
    assert [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"] == []


def test_the_newest_messages_rendered_into_a_template_are_judged_where_a_request_carries_it(tmp_path):
    write(tmp_path, {"app.py": '''
        PROMPT = "Task: {task}\\nLatest steps: {history}\\nAnswer in JSON."


        def observe(task, history: list):
            return PROMPT.format(task=task, history=history[-5:])
    '''})
    assert [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"] == []


HANDED_BACK = """
    from navigator import count_tokens, trim_history_messages


    def state_modifier(state, max_input_tokens=120_000):
        messages = state["messages"]
        result = trim_history_messages(messages, token_counter=count_tokens, max_tokens=max_input_tokens,
                                       strategy="{strategy}")
        return result
"""


def test_a_trim_to_fit_whose_result_the_function_hands_back_is_a_window(tmp_path):
    write(tmp_path, {"app.py": HANDED_BACK.format(strategy="last")})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found
            if d.code == "PRM105"] == [("PRM105", "info", 6, 14)]


def test_a_trim_that_keeps_the_first_messages_is_no_window(tmp_path):
    write(tmp_path, {"app.py": HANDED_BACK.format(strategy="first")})
    assert [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"] == []


BUILT = """
    SYSTEM = "You play the user in a simulated conversation. Stay in character. " * 20


    class ConversationBot:
        def __init__(self, model, max_history):
            self.model = model
            self.max_history = max_history

        async def respond(self, session, conversation_history):
            messages = [{{"role": "system", "content": SYSTEM}}]
            messages.extend([turn.to_message() for turn in conversation_history[{cut}]])
            return await self.model.get_completion(messages=messages, session=session)

        async def grade(self, session, conversation_history):
            checked = [turn.to_message() for turn in conversation_history[-self.max_history:]]
            return await self.model.get_completion(prompt=SYSTEM, items=checked)
"""


def _built(tmp_path, cut):
    write(tmp_path, {"bot.py": BUILT.format(cut=cut)})
    return [(d.code, d.severity.value, d.span.start.row)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def test_a_local_list_built_from_the_newest_messages_and_handed_on_as_the_conversation_is_a_window(tmp_path):
    # the list `messages=` hands on holds a comprehension over `conversation_history[-k:]`
    assert _built(tmp_path, "-self.max_history:") == [("PRM105", "info", 11)]


def test_a_local_list_built_from_the_whole_conversation_or_handed_under_another_name_is_no_window(tmp_path):
    # `items=` is no conversation keyword: the slice in `grade` is not reported
    assert _built(tmp_path, ":") == []
    assert _built(tmp_path, "-1:") == []
