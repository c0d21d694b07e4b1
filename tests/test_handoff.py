"""A system prompt built in a function and handed on, with the conversation, to a call the
analysis does not follow to its send site (a message builder, a wrapper): the history follows it
in the request (python/handoff.py; docs/policies.md, Policy 2)."""
from __future__ import annotations

from analysis_support import code, layouts, parts, write

from promptlint import api

PERSONA = "You are a careful assistant for a team of accountants. " * 8

BUILDER = """
    def build_messages(user_query, system_message, chat_history):
        out = []
        for chat in chat_history:
            out.insert(0, {"role": chat.role, "content": chat.text})
        out.insert(0, {"role": "user", "content": user_query})
        out.append({"role": "system", "content": system_message})
        return out[::-1]
"""

CHAT = f"""
    from datetime import datetime

    from builder import build_messages
    from sender import send

    PERSONA = "{PERSONA}"


    def converse(user_query, chat_history, location=None):
        today = datetime.now()
        system_prompt = f"{{PERSONA}}\\nToday is {{today.strftime('%Y-%m-%d')}}."
        if location:
            system_prompt = f"{{system_prompt}}\\nThe user is in {{location}}."
        messages = build_messages(user_query, system_prompt, chat_history)
        return send(messages)


    def one_shot(text):
        today = datetime.now()
        system_prompt = f"{{PERSONA}}\\nToday is {{today.strftime('%Y-%m-%d')}}."
        return summarise(system_prompt, text)


    def summarise(system_prompt, text):
        return send([system_prompt, text])
"""

SENDER = """
    def send(messages):
        return messages
"""


def _project(tmp_path, chat=CHAT):
    write(tmp_path, {"builder.py": BUILDER, "sender.py": SENDER})
    return layouts(tmp_path, chat, name="chat.py")


def test_a_system_prompt_handed_on_with_the_conversation_has_the_history_after_it(tmp_path):
    found = {lt.site.start.row: lt for lt in _project(tmp_path)}
    # the assignment nearest the hand-off holds the whole text: the history follows it
    (role, described), (after, history) = parts(found[13])
    assert role == "system" and after == "history"
    assert history == [("history", "unknown", "chat_history")]
    assert any(d[0] == "timestamp" for d in described)
    # an earlier assignment that a later one extends is judged as before, on its own text
    assert [p.role for p in found[11].parts] == ["system"]


def test_a_system_prompt_handed_on_without_a_conversation_has_nothing_after_it(tmp_path):
    found = {lt.site.start.row: lt for lt in _project(tmp_path)}
    assert [p.role for p in found[20].parts] == ["system"]  # summarise(system_prompt, text): no history


def test_a_date_at_the_end_of_a_handed_on_system_prompt_is_reported_before_the_history(tmp_path):
    _project(tmp_path)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    dates = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.span.filename.endswith("chat.py")]
    # at the text handed on (line 13): a day-precision date costs at most one write a day (Policy
    # 1); the location, of unknown volatility, before the history is a note; the one-shot prompt
    # (line 20) has nothing after its date
    assert dates == [("PRM102", "info", 13), ("PRM101", "info", 13)]


def test_per_request_content_at_the_end_of_a_handed_on_system_prompt_is_a_warning(tmp_path):
    chat = f"""
        from builder import build_messages
        from sender import send

        PERSONA = "{PERSONA}"


        def converse(user_query, chat_history, store):
            recalled = store.search(query=user_query)
            system_prompt = f"{{PERSONA}}\\nRelevant notes:\\n{{recalled}}"
            return send(build_messages(user_query, system_prompt, chat_history))
    """
    _project(tmp_path, chat)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.span.filename.endswith("chat.py")]
    assert found == [("PRM101", "warning", 9)]


def test_a_name_rebound_to_other_text_before_the_call_hands_on_that_text(tmp_path):
    chat = f"""
        from datetime import datetime

        from builder import build_messages

        PERSONA = "{PERSONA}"


        def converse(user_query, chat_history):
            system_prompt = f"{{PERSONA}}\\nToday is {{datetime.now().strftime('%Y-%m-%d')}}."
            print(system_prompt)
            system_prompt = PERSONA
            return build_messages(user_query, system_prompt, chat_history)
    """
    found = {lt.site.start.row: lt for lt in _project(tmp_path, chat)}
    assert [p.role for p in found[9].parts] == ["system"]
    assert code(chat).splitlines()[8].lstrip().startswith("system_prompt = f")


AGENT = """
    from builder import build_messages
    from enhancer import MemoryEnhancer


    class Agent:
        def __init__(self, store, enhancer=None):
            self.enhancer = enhancer or MemoryEnhancer(store)

        async def turn(self, message, conversation, base_prompt):
            system_prompt = await self.enhancer.enhance(base_prompt, message)
            request = build_messages(message, system_prompt, conversation)
            return request

        async def summary(self, message, base_prompt):
            system_prompt = await self.enhancer.enhance(base_prompt, message)
            return build_messages(message, system_prompt, [])
"""

ENHANCER = """
    class MemoryEnhancer:
        def __init__(self, store):
            self.store = store

        async def enhance(self, system_prompt, user_message):
            found = await self.store.search(query=user_message)
            notes = "\\n## Relevant notes\\n"
            for hit in found:
                notes += f"- {hit.text}\\n"
            return system_prompt + notes
"""


def test_a_system_prompt_returned_by_a_call_and_handed_on_with_the_conversation_is_judged(tmp_path):
    write(tmp_path, {"enhancer.py": ENHANCER})
    _project(tmp_path, AGENT)
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]
    # the notes fetched with the user's message sit at the end of the system prompt, before the
    # whole conversation: a warning (Policy 2), reported where they enter the text
    assert found == [("PRM101", "warning", "enhancer.py", 9)]
    # `summary` hands on no conversation (an empty list): no candidate there
    assert [lt.site.start.row for lt in layouts(tmp_path, AGENT, name="chat.py") if lt.source == "python-constant"] == [10]


WRAPPER = """
    class Agent:
        def __init__(self, llm, store, system_prompt=""):
            self.llm = llm
            self.store = store
            self.system_prompt = system_prompt

        def call_llm(self, question, **kwargs):
            notes = self.store.search(query=question)
            if kwargs.get("messages") is not None:
                kwargs["messages"] = [
                    {"role": "system", "content": f"Notes for this question:\\n{notes}"},
                    *kwargs["messages"],
                ]
            return self.llm.call(task=question, **kwargs)

        def call_plain(self, **kwargs):
            kwargs["messages"] = [{"role": "system", "content": "You are terse."}, *kwargs["messages"]]
            return self.llm.call(**kwargs)
"""


def test_a_message_list_with_a_system_message_and_the_conversation_spread_into_it_is_a_prompt(tmp_path):
    found = [lt for lt in layouts(tmp_path, WRAPPER) if lt.source == "python-constant"]
    # the list handed to a wrapper we do not follow: the notes, then the whole conversation
    (lt,) = found  # a static system message before the history is not a candidate
    assert [(role, [d[0] for d in described]) for role, described in parts(lt)] == \
        [("system", ["text", "user-input"]), ("history", ["history"])]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM101", "warning", 11)]


PLACED = f"""
    import copy

    from sender import send

    REFERENCE = "# Reference material\\n{{ref_doc}}\\n\\n{PERSONA}"


    class DocAgent:
        def run(self, messages, store):
            knowledge = store.search(messages)
            messages = copy.deepcopy(messages)
            system_prompt = REFERENCE.format(ref_doc=knowledge)
            if messages and messages[0]["role"] == "system":
                messages[0]["content"] += "\\n\\n" + system_prompt
            else:
                messages.insert(0, {{"role": "system", "content": system_prompt}})
            return send(messages)

        def prepend(self, messages, store):
            knowledge_prompt = ""
            found = store.search(messages)
            if found:
                knowledge_prompt = REFERENCE.format(ref_doc=found)
            return send([{{"role": "system", "content": knowledge_prompt}}] + messages)

        def last(self, messages, store):
            found = store.search(messages)
            question_prompt = REFERENCE.format(ref_doc=found)
            messages[-1]["content"] += question_prompt
            messages.append({{"role": "system", "content": question_prompt}})
            return send(messages)
"""


def test_text_put_at_the_head_of_the_conversation_has_the_history_after_it(tmp_path):
    write(tmp_path, {"sender.py": SENDER})
    found = {lt.site.start.row: lt for lt in layouts(tmp_path, PLACED, name="agent.py") if lt.source == "python-constant"}
    # added to the first (system) message, or a system message put first: the history follows
    for row in (12, 23):
        (role, described), (after, history) = parts(found[row])
        assert (role, after) == ("system", "history") and history == [("history", "unknown", "messages")]
        assert any(d[0] == "user-input" for d in described)
    # added to the newest message, or appended after the conversation: nothing follows it
    assert [p.role for p in found[28].parts] == ["prompt"]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row, [(r.span.start.row, r.message) for r in d.related])
           for d in report.diagnostics if d.span.filename.endswith("agent.py")]
    # reported where the documents enter the text, with where the conversation is put after it
    assert got == [("PRM101", "warning", 5, [(10, "value produced here"), (14, "the conversation placed after it here")])]


def test_a_text_that_renders_the_conversation_among_other_text_is_not_the_conversation(tmp_path):
    chat = f"""
        from sender import send

        PERSONA = "{PERSONA}"


        def evaluate(history, rules, store):
            found = store.search(rules)
            instructions = f"{{PERSONA}}\\n{{found}}"
            query = f"Judge this conversation:\\n{{history}}\\nScore it from 0 to 10."
            return send(text=query, instructions=instructions)
    """
    write(tmp_path, {"sender.py": SENDER})
    found = [lt for lt in layouts(tmp_path, chat, name="chat.py") if lt.source == "python-constant"]
    # a one-shot question that quotes the conversation: nothing of it follows the instructions
    assert [[p.role for p in lt.parts] for lt in found] == [["system"]]


HEAD = f"""
    from dataclasses import dataclass

    SYSTEM = "system"
    RULES = "{PERSONA}"


    @dataclass
    class Message:
        role: str
        content: str


    class Agent:
        def inserted(self, messages, store):
            knowledge = store.search(messages)
            messages.insert(0, Message(SYSTEM, knowledge + RULES))
            return self.call_llm(messages=messages)

        def extended(self, messages, store):
            notes = store.search(messages)
            messages[0].content += "\\n\\n" + RULES + notes
            return self.call_llm(messages=messages)

        def joined(self, messages, store):
            found = store.search(messages)
            messages = [Message(role=SYSTEM, content=found + RULES)] + messages
            return self.call_llm(messages=messages)

        def appended(self, messages, store):
            found = store.search(messages)
            messages.append(Message(SYSTEM, found + RULES))
            messages[-1].content += found + RULES
            rows = [found]
            rows.insert(0, Message(SYSTEM, found + RULES))
            return self.call_llm(messages=messages + rows)

        def recorded(self, conversation, store):
            message_history = []
            for m in conversation.messages[::-1]:
                role, content = m["role"], m.get("content")
                if role == "user":
                    message_history.insert(0, {{"role": role, "content": content}})
            return store.save(message_history)
"""


def test_a_message_put_at_the_head_of_the_conversation_is_judged_with_the_history_after_it(tmp_path):
    found = {lt.site.start.row: lt for lt in layouts(tmp_path, HEAD) if lt.source == "python-constant"}
    # inserted first, added to the first message (after the text it holds: not judged), or
    # joined before the conversation: the whole conversation follows it
    assert sorted(found) == [16, 21, 26]
    for row in (16, 21, 26):
        assert [p.role for p in found[row].parts] == ["system", "history"]
    # appended after the conversation, added to its newest message, put first in a list that is
    # no conversation, or a stored message (its role read from it) copied into a list rebuilt
    # from the front: nothing of the conversation follows it
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row, [(r.span.start.row, r.message) for r in d.related])
           for d in report.diagnostics]
    # where the fetched text enters each message (its value made on the line before: at the
    # value), with where the conversation is put after it
    # (and `extended` adds its text to the caller's own first message: again on every call, PRM105)
    assert got == [("PRM101", "warning", 15, [(16, "the conversation placed after it here")]),
                   ("PRM101", "warning", 20, [(21, "the conversation placed after it here")]),
                   ("PRM105", "info", 21, [(21, "the caller's message looked up here")]),
                   ("PRM101", "warning", 25, [])]


def test_the_prefilter_admits_a_message_put_at_the_head_of_a_conversation():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("messages.insert(0, Message(SYSTEM, knowledge))\n")
    assert might_hold_prompt('messages[0]["content"] += notes\n')
    assert might_hold_prompt("messages[0].content += notes\n")
    assert not might_hold_prompt("rows.insert(0, header)\n")
    assert not might_hold_prompt("messages[1].content += notes\n")


# A system prompt handed by keyword to a callable the analysis cannot follow (a model function
# taken from configuration): the package's own functions that take that keyword decide.

QUERY = """
    TEMPLATE = '''You answer questions about the team's knowledge base, in clear paragraphs.
    Use only the documents below; say so when they do not hold the answer. Cite each document you use.
    Never invent a source, a figure or a name; when two documents disagree, say which says what.
    ---Documents---
    {documents}'''


    async def answer(question, config, store, conversation):
        model_func = config["llm_model_func"]
        documents = await store.search(question)
        sys_prompt = TEMPLATE.format(documents=documents)
        return await model_func(question, system_prompt=sys_prompt, history_messages=conversation, stream=True)
"""

SYSTEM_BACKEND = """
    async def complete(model, prompt, system_prompt=None, history_messages=None, **kwargs):
        messages = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.extend(history_messages or [])
        messages.append({"role": "user", "content": prompt})
        return await client.chat.completions.create(model=model, messages=messages, **kwargs)


    async def mini_complete(prompt, system_prompt=None, history_messages=None, **kwargs):
        return await complete("mini", prompt, system_prompt=system_prompt, history_messages=history_messages, **kwargs)
"""

ANTHROPIC_BACKEND = """
    async def complete(model, prompt, system_prompt=None, history_messages=None, stream=False):
        messages = [*history_messages, {"role": "user", "content": prompt}]
        return await client.messages.create(model=model, system=system_prompt, messages=messages, stream=stream)
"""

JOINING_BACKEND = """
    async def complete(model, prompt, system_prompt=None, history_messages=None, **kwargs):
        messages = list(history_messages or [])
        messages.append({"role": "user", "content": system_prompt + "\\n\\n" + prompt})
        return await client.chat.completions.create(model=model, messages=messages, **kwargs)
"""


def _roles(tmp_path, backends: dict) -> list[str]:
    found = [lt for lt in layouts(tmp_path, QUERY, files=backends, name="query.py") if lt.source == "python-constant"]
    assert len(found) == 1
    return [p.role for p in found[0].parts]


def test_a_system_prompt_given_by_keyword_to_a_configured_model_function_has_the_history_after_it(tmp_path):
    # every function of the package that takes `system_prompt` puts it in the system part (a
    # system message, Anthropic's `system`) or hands it on by the same keyword
    assert _roles(tmp_path, {"llm/openai_backend.py": SYSTEM_BACKEND,
                             "llm/anthropic_backend.py": ANTHROPIC_BACKEND}) == ["system", "history"]


def test_the_keyword_alone_links_nothing(tmp_path):
    # no function of the package takes `system_prompt`: the call's keyword is only a name
    assert _roles(tmp_path, {}) == ["prompt"]


def test_model_functions_that_disagree_on_the_place_of_the_system_prompt_link_nothing(tmp_path):
    assert _roles(tmp_path, {"llm/openai_backend.py": SYSTEM_BACKEND,
                             "llm/local_backend.py": JOINING_BACKEND}) == ["prompt"]
    assert _roles(tmp_path / "joining", {"llm/local_backend.py": JOINING_BACKEND}) == ["prompt"]


def test_param_names_lists_the_parameters_of_each_def():
    from promptlint.python.packages import param_names
    text = "async def f(model, prompt, system_prompt: str | None = None,\n    history=None, **kw):\n    pass\n"
    assert {"model", "prompt", "system_prompt", "history", "kw"} <= set(param_names(text))
    assert "pass" not in param_names(text)


ROLES = f"""
    from llama_index.core.llms import ChatMessage, MessageRole


    class Agent:
        def enum(self, messages, store):
            knowledge = store.search(messages)
            messages.insert(0, ChatMessage(role=MessageRole.SYSTEM, content=knowledge + "{PERSONA}"))
            return self.llm.chat(messages)

        def chosen(self, messages, store, strict):
            knowledge = store.search(messages)
            messages.insert(0, {{"role": "system" if strict else "developer", "content": knowledge + "{PERSONA}"}})
            return self.llm.chat(messages)

        def copied(self, messages, store):
            out = []
            for m in messages[::-1]:
                out.insert(0, {{"role": m["role"], "content": store.search(m["content"])}})
            return store.save(out)
"""


def test_a_message_put_first_has_a_role_written_in_the_code_not_one_read_from_a_message(tmp_path):
    found = {lt.site.start.row: lt for lt in layouts(tmp_path, ROLES) if lt.source == "python-constant"}
    # an enum member, one of two static roles: a head put before the conversation; a role read
    # from each message of a list being copied: no head
    assert sorted(found) == [7, 12]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert sorted((d.code, d.severity.value, d.span.start.row) for d in report.diagnostics) == \
        [("PRM101", "warning", 6), ("PRM101", "warning", 11)]
    enum, chosen = sorted(report.diagnostics, key=lambda d: d.span.start.row)
    assert "in the system prompt" in enum.message  # (`MessageRole.SYSTEM`: the role enum's member)
    assert "in the message of unknown role" in chosen.message  # ("system" or "developer")


EMPTIED = """
    from datetime import datetime

    import openai


    class Agent:
        instruction = "You are a support agent for the billing team. Answer with the policy that applies."

        def generate(self, message, use_history=True):
            messages = []
            if use_history:
                messages.extend(self.history.get())
            if len(messages) == 0:
                messages.append({"role": "system", "content": f"Current time: {datetime.now()}\\n{self.instruction}"})
            messages.append({"role": "user", "content": message})
            for _ in range(10):
                response = openai.OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
                messages.append(response.choices[0].message)
            self.history.set(messages)
"""


def test_a_message_appended_to_an_empty_conversation_is_its_head(tmp_path):
    found = layouts(tmp_path, EMPTIED)
    # the system message goes first whenever it is added (the list is empty then): it is written once
    # per conversation, and the conversation follows it
    placed = next(lt for lt in found if lt.source == "python-constant")
    (role, system), (after, _) = parts(placed)
    assert (role, after) == ("system", "history")
    assert ("timestamp", "per-conversation", "datetime.now()") in system
    # the send call: the messages written before the loop (the history and the system message
    # present or absent) and then what the loop appends
    call = next(lt for lt in found if lt.source == "python-call")
    assert [p.role for p in call.parts] == ["history", "system", "user", "history"]
    # not when the test does not say the list is empty
    other = layouts(tmp_path / "other", EMPTIED.replace("if len(messages) == 0:", "if use_history:"))
    assert [[p.role for p in lt.parts] for lt in other if lt.source == "python-constant"] == [["system"]]


def test_a_local_list_found_empty_is_not_the_conversation(tmp_path):
    # a tool's observations, named `messages`, with a note when none was collected: no history follows
    found = layouts(tmp_path, """
        def observe(url, screenshot):
            messages = []
            if screenshot:
                messages.append({"role": "user", "content": screenshot(url)})
            if not messages:
                messages.append({"role": "system", "content": f"observe({url!r}) failed: nothing was collected."})
            return messages
    """)
    assert not any(p.is_history for lt in found for p in lt.parts)


COPIED_HEAD = """
    async def recalled(memory, data):
        messages = data.get("messages", [])
        found = await memory.recall(query=messages[-1].content)
        updated_messages: list = list(messages)
        updated_messages.insert(0, {"role": "system", "content": "[Relevant memories]\\n" + found})
        data["messages"] = updated_messages
        return data


    def noted(state, notepad):
        history = state.get("history")
        msgs = history.copy()
        msgs.insert(0, {"role": "system", "content": "[Notepad]\\n" + notepad.read_all()})
        state["history"] = msgs
        return state


    def aliased(state, store):
        chat_history = state.get("chat_history")
        out = chat_history
        out.insert(0, {"role": "system", "content": "Known facts:\\n" + store.facts()})
        state["chat_history"] = out
        return state


    def documents(data, store):
        docs = data.get("documents", [])
        kept = list(docs)
        kept.insert(0, {"role": "system", "content": "Known facts:\\n" + store.facts()})
        data["documents"] = kept
        return data


    def rebound(data, store):
        messages = data.get("messages", [])
        out = list(messages)
        out = [m for m in out if m]
        out.insert(0, {"role": "system", "content": "Known facts:\\n" + store.facts()})
        data["messages"] = out
        return data
"""


def test_a_message_put_at_the_head_of_a_copy_of_the_conversation_is_judged_with_the_history_after_it(tmp_path):
    # (main 40c7fa0d: no layout with the history at lines 5 and 21, no finding there: the copy's
    # own name says nothing, and the list it copies is read from a dict, not known as the
    # conversation by its value; `history.copy()` keeps the value's name and was read so already)
    with_history = sorted(lt.site.start.row for lt in layouts(tmp_path, COPIED_HEAD)
                          if lt.source == "python-constant" and [p.role for p in lt.parts] == ["system", "history"])
    # a copy (`list(messages)`, `history.copy()`) or an alias of a list named as the conversation:
    # the system message, then the whole conversation; a copy of a list named otherwise
    # (`list(docs)`) or a name bound twice (what it holds at the insert is no one copy) is not
    assert with_history == [5, 13, 21]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert got == [("PRM101", "info", 3), ("PRM101", "info", 13), ("PRM101", "info", 21)]
    assert all("at least the conversation history after it is processed uncached" in d.message
               for d in report.diagnostics)
