"""A message list built in branches that each write a message or not (`if system_prompt:
messages.append(system)`, then the conversation): the system message keeps its place before the
history, present or absent (python/layout.py `_present_or_absent`; docs/policies.md, Policy 2);
and a message list returned with other values (`return messages, original_prompt`) is a prompt
candidate as a list returned alone is (python/candidates.py `returned`); a message inserted into
the conversation at a position counted from its head (`insert(position, memories)`) has the rest
of the conversation after it (python/handoff.py `head_index`)."""
from __future__ import annotations

from analysis_support import layouts, parts

from promptlint import api

RULES = "You are a support agent for the billing team. Answer with the policy that applies. " * 20

SENT = f"""
    from datetime import datetime

    import openai


    class Bot:
        def __init__(self, system_prompt=None):
            self.system_prompt = system_prompt
            self.history = []

        def ask(self, prompt):
            messages = []
            system_prompt = self.system_prompt
            if system_prompt:
                messages.append({{"role": "system", "content": f"Time: {{datetime.now()}}\\n{RULES}"}})
            messages.extend(self.history)
            messages.append({{"role": "user", "content": prompt}})
            r = openai.OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
            self.history.append({{"role": "user", "content": prompt}})
            return r
"""


def _check(root):
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.code, d.severity.value, d.span.start.row) for d in report.diagnostics)


def test_a_system_message_appended_under_a_condition_stays_before_the_history(tmp_path):
    call = next(lt for lt in layouts(tmp_path, SENT) if lt.source == "python-call")
    (role, system), (after, _), (last, _) = parts(call)
    assert (role, after, last) == ("system", "history", "user")
    assert any(s[0] == "timestamp" and s[1] == "per-request" for s in system)
    # the timestamp sits before the static rules and the conversation: a warning
    assert _check(tmp_path) == [("PRM102", "warning", 15)]


OTHER_MESSAGES = f"""
    from datetime import datetime

    import openai


    def ask(prompt, history, late=False):
        messages = []
        if late:
            messages.extend(history)
            messages.append({{"role": "system", "content": f"Time: {{datetime.now()}}"}})
        else:
            messages.append({{"role": "system", "content": "{RULES}"}})
            messages.extend(history)
        messages.append({{"role": "user", "content": prompt}})
        return openai.OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
"""


def test_branches_that_write_other_messages_stay_one_history_value(tmp_path):
    # the time after the history in one branch, the rules before it in the other: no branch holds
    # every message, so the time is not read as present or absent before the other's history
    call = next(lt for lt in layouts(tmp_path, OTHER_MESSAGES) if lt.source == "python-call")
    assert [p.role for p in call.parts] == ["history"]
    assert not any(sev == "warning" for _, sev, _ in _check(tmp_path))


RETURNED = f"""
    class Agent:
        def __init__(self, llm):
            self.chat_history = []
            self.llm = llm

        def _build_system_prompt(self, recalled=""):
            prompt = "{RULES}"
            if recalled:
                prompt += f"\\n## Recalled memories\\n{{recalled}}"
            return prompt

        def _build_messages(self, prompt, recalled=""):
            messages = []
            system_prompt = self._build_system_prompt(recalled=recalled)
            if system_prompt:
                messages.append({{"role": "system", "content": system_prompt}})
            if self.chat_history:
                messages.extend(self.chat_history)
            messages.append({{"role": "user", "content": prompt}})
            return messages, prompt

        def chat(self, prompt):
            recalled = self.memory.search(prompt)
            messages, original = self._build_messages(prompt, recalled=recalled)
            answer = self.llm.get_response(messages=messages)
            self.chat_history.append({{"role": "user", "content": prompt}})
            self.chat_history.append({{"role": "assistant", "content": answer}})
            return answer
"""


def test_a_message_list_returned_with_other_values_is_a_prompt(tmp_path):
    found = [lt for lt in layouts(tmp_path, RETURNED) if lt.source == "python-constant"]
    returned = next(lt for lt in found if lt.site.start.row == 20)
    assert [p.role for p in returned.parts] == ["system", "history", "user"]
    # memories searched with the user's message, at the end of the system prompt: the history
    # after them is re-sent uncached on every turn
    assert ("PRM101", "warning", 9) in _check(tmp_path)


def test_a_tuple_without_a_message_list_is_no_prompt(tmp_path):
    source = RETURNED.replace("return messages, prompt", "return len(messages), prompt")
    found = [lt for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    assert not any(lt.site.start.row == 20 for lt in found)
    # the system prompt alone (no history known after it), below every minimum: no warning
    assert not any(sev == "warning" for _, sev, _ in _check(tmp_path))


SHAPES = """
    from datetime import datetime

    import openai

    client = openai.OpenAI()


    def chosen(prompt, history, system_prompt=None):
        messages = [{"role": "system", "content": f"{system_prompt}\\nNow: {datetime.now()}"}] if system_prompt else []
        messages += history
        messages.append({"role": "user", "content": prompt})
        return client.chat.completions.create(model="gpt-4o", messages=messages)


    def converted(prompt, chat_history, system_prompt=None, tools=None):
        messages = []
        if system_prompt:
            messages.append({"role": "system", "content": f"{system_prompt}\\nNow: {datetime.now()}"})
        if tools:
            messages.append({"role": "system", "content": "You may call tools."})
        for m in chat_history:
            messages.append({"role": m["role"], "content": m["content"]})
        messages.append({"role": "user", "content": prompt})
        return client.chat.completions.create(model="gpt-4o", messages=messages)
"""


def test_a_system_message_chosen_or_appended_before_a_converted_history(tmp_path):
    # a list chosen by a condition and then extended by the conversation (`+=`, a list we cannot
    # read: one spread item in each variant); a loop that converts the conversation after messages
    # that some branches leave out (one variant writes none before the loop)
    found = [lt for lt in layouts(tmp_path, SHAPES) if lt.source == "python-call"]
    assert [[p.role for p in lt.parts][:1] + [p.role for p in lt.parts if p.is_history][:1] for lt in found] == \
        [["system", "history"], ["system", "history"]]
    # (the caller's system prompt before the time is judged as if the time were moved: of unknown
    # volatility with the history after it, info; Policy 8)
    assert _check(tmp_path) == [("PRM101", "info", 9), ("PRM101", "info", 18),
                                ("PRM102", "warning", 9), ("PRM102", "warning", 18)]


POSITIONED = """
    class Memory:
        def __init__(self, client, position=1):
            self.client = client
            self.position = position

        def enhance(self, context, query):
            memories = self.client.search(query=query)
            text = "Based on previous conversations, I recall:\\n"
            for m in memories:
                text += f"- {m}\\n"
            messages = context.get_messages()
            position = max(0, min(self.position, len(messages)))
            messages.insert(position, {"role": "user", "content": text})
            context.set_messages(messages)

        def noted(self, context, query):
            messages = context.get_messages()
            messages.insert(len(messages) - 1, {"role": "user", "content": f"Note: {self.client.search(query=query)}"})
            context.set_messages(messages)

        def example(self, query):
            parts = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": query}]
            parts.insert(1, {"role": "user", "content": f"For example: {self.client.search(query=query)}"})
            return self.client.complete(parts)
"""


def test_a_message_inserted_at_a_position_from_the_head_of_the_conversation(tmp_path):
    # memories found for the newest message, inserted after the first message of the conversation
    # the context keeps: every later message shifts on every turn
    found = [lt for lt in layouts(tmp_path, POSITIONED) if lt.source == "python-constant"]
    placed = [lt for lt in found if any(p.is_history for p in lt.parts)]
    assert [lt.site.start.row for lt in placed] == [13]
    assert [p.role for p in placed[0].parts] == ["user", "history"]
    # before the newest message (counted from the end), or into a list written here: no history after it
    assert _check(tmp_path) == [("PRM101", "warning", 10)]


def test_a_message_of_either_role_inserted_into_the_conversation(tmp_path):
    # the memories sent as a developer message or a user message, by a setting: either way they go
    # before the rest of the conversation
    source = POSITIONED.replace(
        'messages.insert(position, {"role": "user", "content": text})',
        'message = {"role": "developer", "content": text} if self.as_system else {"role": "user", "content": text}\n'
        '            messages.insert(position, message)')
    found = [lt for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    placed = [lt for lt in found if any(p.is_history for p in lt.parts)]
    assert [[p.role for p in lt.parts] for lt in placed] == [["unknown", "history"]]
    assert _check(tmp_path) == [("PRM101", "warning", 10)]


def test_an_index_handed_in_is_no_position_from_the_head(tmp_path):
    # `insert(at, marker)` with `at` a parameter: where it points is not known
    source = POSITIONED.replace("def enhance(self, context, query):", "def enhance(self, context, query, at):")
    source = source.replace("messages.insert(position, ", "messages.insert(at, ")
    found = [lt for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    assert not any(p.is_history for lt in found for p in lt.parts)
