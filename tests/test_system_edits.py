"""Text put into the system message by a helper that edits the message list in place
(python/system_edits.py): the conversation handed to the helper follows it (docs/policies.md,
Policies 2 and 7)."""
from __future__ import annotations

from analysis_support import layouts, parts, write

from promptlint import api

HELPERS = """
    def update_message_content(message, content, append=True):
        text = message.get("content", "")
        return {**message, "content": f"{text}\\n{content}" if append else f"{content}\\n{text}"}


    def add_or_update_system_message(content, messages, append=False):
        if messages and messages[0].get("role") == "system":
            messages[0] = update_message_content(messages[0], content, append)
        else:
            messages.insert(0, {"role": "system", "content": content})
        return messages


    def add_or_update_user_message(content, messages, append=True):
        if messages and messages[-1].get("role") == "user":
            messages[-1] = update_message_content(messages[-1], content, append)
        else:
            messages.append({"role": "user", "content": content})
        return messages
"""

RULES = "You are the support assistant of a bookshop. Answer politely, cite the order number. " * 4

CHAT = f"""
    from datetime import datetime

    from helpers import add_or_update_system_message, add_or_update_user_message

    RULES = "{RULES}"


    async def add_memories(messages, store):
        found = await store.search(messages[-1]["content"])
        notes = f"<memories>\\n{{found}}\\n</memories>"
        messages = add_or_update_system_message(notes, messages, append=True)
        return {{"messages": messages}}


    async def add_clock(form_data):
        stamp = datetime.now().strftime("%H:%M:%S")
        form_data["messages"] = add_or_update_system_message(f"The time is {{stamp}}.", form_data["messages"])
        return form_data


    async def add_documents(form_data, store):
        query = form_data["messages"][-1]["content"]
        found = await store.search(query)
        form_data["messages"] = add_or_update_user_message(f"<docs>{{found}}</docs>", form_data["messages"])
        return form_data


    async def add_rules(form_data):
        form_data["messages"] = add_or_update_system_message(RULES, form_data["messages"], append=True)
        return form_data
"""


def _found(tmp_path):
    write(tmp_path, {"helpers.py": HELPERS})
    return {lt.site.start.row: lt for lt in layouts(tmp_path, CHAT, name="chat.py") if lt.source == "python-constant"}


def test_text_a_helper_writes_into_the_system_message_has_the_conversation_after_it(tmp_path):
    found = _found(tmp_path)
    (role, described), (after, history) = parts(found[11])
    assert (role, after) == ("system", "history")
    assert history == [("history", "unknown", "messages")]
    assert described[1][:2] == ("user-input", "per-request")  # fetched with the newest message
    (role, described), (after, history) = parts(found[17])
    assert (role, after) == ("system", "history")
    assert described == [("text", "The time is "), ("timestamp", "per-request", 'datetime.now().strftime("%H:%M:%S")'),
                         ("text", ".")]
    assert history == [("history", "unknown", 'form_data["messages"]')]  # an item of a request named so


def test_text_a_helper_adds_to_the_newest_user_message_or_static_rules_are_no_candidate(tmp_path):
    found = _found(tmp_path)
    assert sorted(found) == [11, 17]  # the newest message; static text in the system message


def test_per_turn_text_written_into_the_system_message_by_a_helper_is_reported(tmp_path):
    write(tmp_path, {"helpers.py": HELPERS, "chat.py": CHAT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = sorted((d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
                 if d.span.filename.endswith("chat.py"))
    # the memories fetched with the newest message, the clock: before the whole history
    assert got == [("PRM101", "warning", 10), ("PRM102", "warning", 17)]


def test_a_helper_that_writes_the_head_of_its_list_is_told_from_its_code():
    import ast
    from promptlint.python.system_edits import head_writer
    from analysis_support import code
    tree = ast.parse(code(HELPERS))
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert head_writer(funcs["add_or_update_system_message"]) == ("content", "messages", None)
    assert head_writer(funcs["add_or_update_user_message"]) is None  # the end of the list
    assert head_writer(funcs["update_message_content"]) is None
    other = ast.parse("def f(text, rows):\n    rows.insert(0, {'role': rows[1]['role'], 'content': text})\n").body[0]
    assert head_writer(other) is None  # a role read from data: no system message
    method = ast.parse(code("""
        def put_system(self, messages, notes):
            if messages[0].role == "system":
                messages[0].content = messages[0].content + notes
            else:
                messages.insert(0, SystemMessage(content=notes))
    """)).body[0]
    assert head_writer(method) == ("notes", "messages", None)
