"""A provider adapter: the function that turns the application's own messages into the SDK's
shape. Cache breakpoints it sets survive a tuple return (`return messages, system`) and a system
block list sent or None by a condition; a loop that picks the system messages by role
(`if m.role == "system"`) reads only those (flow/roles.py)."""
from __future__ import annotations

from analysis_support import one_call, parts, pos

ADAPTER = """
    import anthropic

    client = anthropic.Anthropic()


    def convert(messages, system_prompt):
        if system_prompt:
            system = [{"type": "text", "text": system_prompt, "cache_control": {"type": "ephemeral"}}]
        else:
            system = None
        out = [{"role": m.role, "content": [{"type": "text", "text": m.content}]} for m in messages]
        if len(out) > 2:
            out[-2]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        return out, system


    def send(messages, system_prompt):
        formatted, system = convert(messages, system_prompt)
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=formatted, system=system)
"""


def test_breakpoints_set_by_an_adapter_that_returns_a_tuple(tmp_path):
    lt = one_call(tmp_path, ADAPTER)
    by_role = {p.role: p for p in lt.parts}
    assert [bp.span.start for bp in by_role["system"].breakpoints] == [pos(ADAPTER, '"cache_control"')]
    assert [bp.span.start for bp in by_role["history"].breakpoints] == [pos(ADAPTER, 'out[-2]')]


def test_a_system_sent_as_text_or_none_keeps_its_text(tmp_path):
    # the text sent when there is one is the parameter: its volatility, not a choice of fixed texts
    source = ADAPTER.replace('[{"type": "text", "text": system_prompt, "cache_control": {"type": "ephemeral"}}]',
                             "system_prompt")
    lt = one_call(tmp_path, source)
    assert parts(lt)[0][0] == "system" and lt.parts[0].breakpoints == []
    assert parts(lt)[0][1][0][0] == "unknown"
    assert lt.parts[0].segments[0].expr == "system_prompt"


BY_ROLE = """
    import anthropic

    client = anthropic.Anthropic()


    def send(question: str):
        messages = load(question)
        system = ""
        for m in messages:
            if m.role == "system":
                system += m.content
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=messages, system=system)
"""


def test_system_messages_of_an_unread_list_are_not_the_users_message(tmp_path):
    system = parts(one_call(tmp_path, BY_ROLE))[0]
    assert system[0] == "system"
    assert [s[:2] for s in system[1] if s[0] != "text"] == [("unknown", "unknown")] * 2


def test_the_user_messages_of_an_unread_list_stay_per_request(tmp_path):
    system = parts(one_call(tmp_path, BY_ROLE.replace('"system"', '"user"')))[0]
    assert [s[:2] for s in system[1] if s[0] != "text"] == [("user-input", "per-request")] * 2


def test_a_known_list_narrowed_to_its_system_message(tmp_path):
    source = BY_ROLE.replace("load(question)",
                             '[{"role": "system", "content": "Be terse."}, {"role": "user", "content": question}]') \
        .replace('m.role == "system"', 'm["role"] == "system"').replace("m.content", 'm["content"]')
    system = parts(one_call(tmp_path, source))[0]
    assert system[0] == "system"
    assert {s[2] for s in system[1] if s[0] != "text"} == {"Be terse."}


def test_after_the_branch_the_loop_variable_is_every_message_again(tmp_path):
    source = BY_ROLE.replace("                system += m.content\n",
                             "                system += m.content\n            last = m.content\n") \
        .replace("system=system)", "system=last)")
    system = parts(one_call(tmp_path, source))[0]
    assert [s[:2] for s in system[1]] == [("user-input", "per-request")]


SERVICE = """
    import anthropic


    class Service:
        def __init__(self, model=None):
            self.model = model or "claude-sonnet-4-5"
            self._client = anthropic.Anthropic()

        def send(self, request):
            payload = self._build(request)
            return self._client.messages.create(**payload)

        def _build(self, request):
            messages = []
            for m in request.messages:
                if m.role == "tool":
                    messages.append({"role": "user", "content": [{"type": "tool_result", "content": m.content}]})
                else:
                    messages.append({"role": m.role, "content": [{"type": "text", "text": m.content}]})
            payload = {"model": self.model, "messages": messages, "max_tokens": 512}
            if request.tools:
                payload["tools"] = [{"name": t.name, "input_schema": t.parameters} for t in request.tools]
            return payload
"""


def test_a_history_converted_in_branches_is_read(tmp_path):
    lt = one_call(tmp_path, SERVICE)
    history = lt.parts[-1]
    assert history.is_history and history.read and history.breakpoints == []
    assert not lt.unread_options


def test_breakpoints_on_the_converted_messages_are_kept(tmp_path):
    source = SERVICE.replace('[{"type": "text", "text": m.content}]',
                             '[{"type": "text", "text": m.content, "cache_control": {"type": "ephemeral"}}]')
    history = one_call(tmp_path, source).parts[-1]
    assert [bp.span.start for bp in history.breakpoints] == [pos(source, '"cache_control"')]
    assert history.breakpoints[0].repeated


def test_a_history_passed_through_is_not_read_nor_are_unknown_options(tmp_path):
    source = SERVICE.replace("payload = self._build(request)", "payload = request.payload") \
        .replace("self._client.messages.create(**payload)", "self._client.messages.create(messages=request.messages, **payload)")
    lt = one_call(tmp_path, source)
    assert lt.unread_options and not lt.parts[-1].read


def test_a_tuple_of_two_lists_gives_its_markers_to_the_messages(tmp_path):
    source = ADAPTER.replace("return out, system", 'return out, [{"type": "text", "text": "Be brief."}]')
    lt = one_call(tmp_path, source)
    assert sum(len(p.breakpoints) for p in lt.parts) == 1
    assert lt.parts[-1].is_history and len(lt.parts[-1].breakpoints) == 1


LOOP = """
    import anthropic

    client = anthropic.Anthropic()


    def mark(message):
        message["content"][-1]["cache_control"] = {"type": "ephemeral"}


    def send(request):
        tools = [{"name": t.name, "input_schema": t.schema} for t in request.tools]
        messages = []
        for m in request.messages:
            messages.append({"role": m.role, "content": [{"type": "text", "text": m.content}]})
        # MARK
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=100, tools=tools, messages=messages)
"""


def test_no_marker_statement_around_the_send_site(tmp_path):
    assert not one_call(tmp_path, LOOP).unplaced_markers


def test_a_marker_set_in_the_sending_function_or_by_a_helper_on_a_list_the_call_sends_is_placed_there(tmp_path):
    # (python/marking_helpers.py: the statement's list, or the argument a helper marks, is a keyword of the call)
    for i, (statement, role, row) in enumerate((('tools[-1]["cache_control"] = {"type": "ephemeral"}', "tools", 15),
                                                ('messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}',
                                                 "history", 15),
                                                ("mark(messages[-1])", "history", 7))):
        lt = one_call(tmp_path / str(i), LOOP.replace("# MARK", statement))
        assert not lt.unplaced_markers, statement
        assert [(p.role, [(b.after, b.span.start.row, b.repeated) for b in p.breakpoints]) for p in lt.parts
                if p.breakpoints] == [(role, [(len(p.segments) - 1, row, False)])
                                      for p in lt.parts if p.role == role], statement


def test_a_marker_set_in_the_sending_function_on_a_list_it_does_not_send_whole_is_known_unplaced(tmp_path):
    statement = 'extra = [dict(m) for m in messages]\n        extra[-1]["cache_control"] = {"type": "ephemeral"}'
    lt = one_call(tmp_path, LOOP.replace("# MARK", statement))
    assert lt.unplaced_markers and not any(p.breakpoints for p in lt.parts)


def test_a_marker_set_by_a_payload_builder_is_known_unplaced(tmp_path):
    source = SERVICE.replace("            return payload", '''            system = [{"type": "text", "text": request.system_prompt}]
            system[-1]["cache_control"] = {"type": "ephemeral"}
            payload["system"] = system
            return payload''')
    lt = one_call(tmp_path, source)
    assert lt.unplaced_markers and not any(p.breakpoints for p in lt.parts)


def test_a_marker_the_layout_places_is_not_unplaced(tmp_path):
    lt = one_call(tmp_path, ADAPTER)
    assert any(p.breakpoints for p in lt.parts) and not lt.unplaced_markers


def test_a_breakpoint_in_an_sdk_block_class_is_kept(tmp_path):
    source = LOOP.replace('[{"type": "text", "text": m.content}]',
                          '[TextBlockParam(type="text", text=m.content, cache_control={"type": "ephemeral"})]') \
        .replace("    import anthropic\n", "    import anthropic\n    from anthropic.types import TextBlockParam\n")
    history = one_call(tmp_path, source).parts[-1]
    assert history.is_history and len(history.breakpoints) == 1 and history.breakpoints[0].repeated


def test_a_block_spread_from_unread_data_makes_the_history_unread(tmp_path):
    source = LOOP.replace('{"type": "text", "text": m.content}', '{"type": "text", "text": m.content, **m.options}')
    history = one_call(tmp_path, source).parts[-1]
    assert history.is_history and not history.read
    assert one_call(tmp_path / "plain", LOOP).parts[-1].read


def test_a_breakpoint_spread_by_a_condition_is_on_the_messages_it_picks(tmp_path):
    # `**({...} if m.last else {})` is read variant by variant: the breakpoint is not on every message
    for i, block in enumerate(('{"type": "text", "text": m.content, **({"cache_control": {"type": "ephemeral"}} if m.last else {})}',
                               '{"type": "text", "text": m.content, "cache_control": {"type": "ephemeral"}} if m.last '
                               'else {"type": "text", "text": m.content}')):
        history = one_call(tmp_path / str(i), LOOP.replace('{"type": "text", "text": m.content}', block)).parts[-1]
        assert history.is_history and len(history.breakpoints) == 1 and not history.breakpoints[0].repeated


CONVERTED = """
    import anthropic

    client = anthropic.Anthropic()


    def convert(request):
        messages = []
        for m in request.messages:
            messages.append({"role": m.role, "content": [{"type": "text", "text": m.content}]})
        return messages


    def send(request, short):
        tools = [{"name": t.name, "input_schema": t.schema} for t in request.tools]
        system = "Be brief."
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=100, tools=tools, system=system,
                                      messages=convert(request))
"""


def test_cache_control_keys_in_values_read_as_text_are_known_unplaced(tmp_path):
    assert not one_call(tmp_path / "plain", CONVERTED).unplaced_markers
    on_tools = CONVERTED.replace('"input_schema": t.schema}', '"input_schema": t.schema, "cache_control": {"type": "ephemeral"}}')
    assert one_call(tmp_path / "tools", on_tools).unplaced_markers
    either = CONVERTED.replace('system = "Be brief."', 'system = [{"type": "text", "text": "a", "cache_control": {}}] '
                               'if short else [{"type": "text", "text": "b"}, {"type": "text", "text": "c", "cache_control": {}}]')
    assert one_call(tmp_path / "system", either).unplaced_markers


def test_automatic_caching_sent_in_extra_body(tmp_path):
    source = CONVERTED.replace("messages=convert(request))",
                               'messages=convert(request), extra_body={"cache_control": {"type": "ephemeral"}})')
    assert one_call(tmp_path / "known", source).auto_cache is not None
    unread = CONVERTED.replace("messages=convert(request))", "messages=convert(request), extra_body=request.extra)")
    assert one_call(tmp_path / "unread", unread).unread_options


GUARDED = """
    import boto3

    from roles import AuthorRole


    def system_blocks(chat_history):
        out = []
        for message in chat_history.messages:
            if message.role != AuthorRole.SYSTEM:
                continue
            out.append({"text": convert(message)})
        return out


    def converse(chat_history):
        client = boto3.client("bedrock-runtime")
        return client.converse(modelId="anthropic.claude-3-5-sonnet", system=system_blocks(chat_history),
                               messages=chat_history.messages)
"""


def test_a_loop_guarded_by_a_role_reads_the_messages_of_that_role(tmp_path):
    # `if message.role != AuthorRole.SYSTEM: continue`: the rest of the body reads system messages,
    # not the newest user message of the conversation
    lt = one_call(tmp_path, GUARDED, files={"roles.py": "class AuthorRole:\n    SYSTEM = 'system'\n"})
    system = parts(lt)[0]
    assert system[0] == "system" and [s[:2] for s in system[1]] == [("unknown", "unknown")]
    # without the guard, a message of the conversation is the user's, new on every request
    unguarded = one_call(tmp_path / "plain", GUARDED.replace(
        "if message.role != AuthorRole.SYSTEM:\n                continue\n", ""),
        files={"roles.py": "class AuthorRole:\n    SYSTEM = 'system'\n"})
    assert [s[:2] for s in parts(unguarded)[0][1]] == [("user-input", "per-request")]
