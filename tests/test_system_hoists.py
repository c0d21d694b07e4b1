"""PRM105 facts: system messages of anywhere in a conversation moved into the Responses API's
instructions, or to the head of the list a converter builds (python/system_hoists.py; the
second's fixture is fixtures/system_moves/converters.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint.python.module import load
from promptlint.python.system_hoists import find_system_hoists


def _hoists(src: str) -> list[tuple[str, str]]:
    module = load(Path("hoists.py"), textwrap.dedent(src))
    return [(ast.unparse(n), f) for n, f in find_system_hoists(module)]


def test_every_system_message_moved_into_instructions_is_found():
    assert _hoists("""
        def to_input(messages):
            parts, items = [], []
            for message in messages:
                role = message.get("role")
                if role == "system":
                    text = message["content"].strip()
                    if text:
                        instructions_parts.append(text)
                    continue
                items.append(message)

        def last_wins(prompt):
            instructions = None
            for msg in prompt.messages:
                if msg.role == "system":
                    instructions = msg.text
                else:
                    items.append(msg)
    """) == [("instructions_parts.append(text)", "to_input"), ("instructions = msg.text", "last_wins")]


def test_leading_system_messages_or_a_system_field_of_another_api_are_not():
    assert _hoists("""
        def leading(messages):
            for m in messages:
                if m["role"] == "system":
                    instructions.append(m["content"])
                    continue
                break

        def anthropic(messages):
            for m in messages:
                if m["role"] == "system":
                    system_instruction = m["content"]
                    continue
                rest.append(m)

        def kept(messages):
            for m in messages:
                if m["role"] == "system":
                    instructions.append(m["content"])
                rest.append(m)
    """) == []


FRONT = Path(__file__).resolve().parent.parent / "fixtures" / "system_moves" / "converters.py"


def test_system_messages_moved_to_the_head_of_the_converted_list_are_found():
    from promptlint.python.system_hoists import find_front_moves
    module = load(FRONT, FRONT.read_text(encoding="utf-8"))
    # `to_endpoint` (`out.insert(0, ...)` in the SystemMessage branch, the others appended),
    # `system_first` (the system part joined before the rest); not `keeps_order`,
    # `one_system_prompt` (its own prompt at index 0, after the walk), `leading_only` (stops),
    # `system_field` (a field of its own), `one_shot` (no conversation walked)
    assert [(n.lineno, f, how) for n, f, how in find_front_moves(module)] == [
        (13, "to_endpoint", "front"), (20, "system_first", "partition")]


def test_the_rule_reports_the_move_once_at_info_not_as_a_head_message_put_on_some_calls():
    from promptlint import api
    report = api.check([FRONT], api.Settings(), jobs=1)
    found = sorted((d.code, d.severity.value, d.span.start.row) for d in report.diagnostics)
    assert found == [("PRM105", "info", 13), ("PRM105", "info", 20)]


def test_the_text_test_needs_a_system_word_and_a_head_put_or_a_filter():
    from promptlint.python.system_hoists import might_move
    assert might_move("out.insert(0, m)  # SystemMessage")
    assert might_move('[m for m in ms if m["role"] != "system"]')
    assert not might_move("out.insert(0, m)")
    assert not might_move('[m for m in ms if m["role"] == "user"]')  # no system test


def _fields(src: str) -> list[tuple[str, str, str, str]]:
    from promptlint.python.field_hoists import find_field_hoists
    module = load(Path("fields.py"), textwrap.dedent(src))
    return [(ast.unparse(n), f, field, how) for n, f, field, how in find_field_hoists(module)]


def test_every_system_message_joined_into_a_system_field_is_found():
    assert _fields("""
        def to_anthropic(messages):
            system_message = None
            out = []
            for message in messages:
                if message["role"] == "system":
                    if system_message is None:
                        system_message = message["content"]
                    else:
                        system_message += "\\n" + message["content"]
                else:
                    out.append({"role": message["role"], "content": message["content"]})
            return system_message, out

        def to_gemini(messages):
            system_instruction, contents = None, []
            for message in messages:
                if message["role"] in ("system", "developer"):
                    text = message["content"].strip()
                    system_instruction = text if system_instruction is None else f"{system_instruction}\\n{text}"
                    continue
                contents.append(message)
            return system_instruction, contents

        def last_one(params):
            system = ""
            rest = []
            for i, msg in enumerate(params.messages):
                if msg.role == "system":
                    system = msg.content
                else:
                    rest.append(msg)
            return system, rest
    """) == [("system_message = message['content']", "to_anthropic", "system_message", "joins"),
             ("system_instruction = text if system_instruction is None else f'{system_instruction}\\n{text}'",
              "to_gemini", "system_instruction", "joins"),
             ("system = msg.content", "last_one", "system", "last")]


def test_a_return_of_a_helper_defined_in_the_loop_does_not_stop_it():
    # (the `return` of `_parse` ends the helper, not the walk: every system message still moves;
    # a `return` of the loop's own function stops it at the first system message)
    assert _fields("""
        def to_gemini(history):
            system_instruction, contents = None, []
            for i, message in enumerate(history):
                if isinstance(message, SystemMessage):
                    system_parts = to_parts(message)
                    if system_instruction is not None:
                        system_instruction.parts.extend(system_parts)
                    else:
                        system_instruction = Content(role="system", parts=system_parts)
                    system_parts = None
                elif isinstance(message, ToolMessage):
                    def _parse(raw):
                        if isinstance(raw, dict):
                            return raw
                        return {"content": raw}
                    contents.append(_parse(message.content))
                else:
                    contents.append(Content(role="user", parts=to_parts(message)))
            return system_instruction, contents

        def first_only(history):
            system_instruction, contents = None, []
            for message in history:
                if isinstance(message, SystemMessage):
                    system_instruction = message.content
                else:
                    contents.append(message)
                    if len(contents) > 8:
                        return system_instruction, contents
    """) == [("system_parts = to_parts(message)", "to_gemini", "system_parts", "joins")]


def test_leading_only_refused_sent_in_place_or_kept_whole_are_not_field_hoists():
    assert _fields("""
        def leading(messages):
            system, out = None, []
            for i, m in enumerate(messages):
                if m["role"] == "system":
                    if i == 0:
                        system = m["content"]
                    continue
                out.append(m)

        def refused(messages):
            system, out = None, []
            for m in messages:
                if m["role"] == "system":
                    if system is not None:
                        raise ValueError("Received multiple non-consecutive system messages.")
                    system = m["content"]
                else:
                    out.append(m)

        def partition(messages):
            system_messages, work = [], []
            for m in messages:
                if m.get("role") == "system":
                    system_messages.append(m)
                else:
                    work.append(m)

        def in_place(parts):
            for part in parts:
                if isinstance(part, SystemPromptPart):
                    system_role = profile.get("role")
                    yield {"role": system_role, "content": part.content}

        def tools_not_messages(tools):
            system_tools, custom = [], []
            for tool in tools:
                if isinstance(tool, NovaSystemTool):
                    system_tools.append(tool.to_bedrock_format())
                else:
                    custom.append(tool)

        def counted(messages):
            system_tokens, out = 0, []
            for m in messages:
                if m["role"] == "system":
                    system_tokens += count(m["content"])
                else:
                    out.append(m)

        def stops(messages):
            system, out = None, []
            for m in messages:
                if m["role"] == "system":
                    system = m["content"]
                else:
                    out.append(m)
                    break
    """) == []


FIELD = Path(__file__).resolve().parent.parent / "fixtures" / "system_moves" / "fields.py"


def test_system_texts_folded_into_the_message_after_them_are_not_field_hoists():
    # each system text rides in the next message, where it stood (from a new user's trial: sycamore's
    # rewrite_system_messages); the same loop keeping the text for a field after it is one
    folded = """
        def rewrite(messages):
            cur_system_message = ""
            for i, message in enumerate(messages):
                if message.get("role") == "system":
                    cur_system_message += message.get("content", "")
                else:
                    if cur_system_message:
                        messages[i]["content"] = cur_system_message + "\\n" + message.get("content", "")
                        cur_system_message = ""
            return [m for m in messages if m.get("role") != "system"]
    """
    assert _fields(folded) == []
    hoisted = """
        def rewrite(messages):
            cur_system_message, out = "", []
            for i, message in enumerate(messages):
                if message.get("role") == "system":
                    cur_system_message += message.get("content", "")
                else:
                    out.append(message)
            return cur_system_message, out
    """
    assert [f[1:] for f in _fields(hoisted)] == [("rewrite", "cur_system_message", "joins")]
    # the system branch empties its own name after adding to the field: a read of it elsewhere carries nothing
    emptied = """
        def parse(history):
            out, system_parts, system_instruction = [], None, None
            for message in history:
                if message["role"] == "system":
                    system_parts = [message["content"]]
                    if system_instruction is not None:
                        system_instruction.extend(system_parts)
                    else:
                        system_instruction = list(system_parts)
                    system_parts = None
                else:
                    parts = [message["content"]]
                    if system_parts is not None:
                        parts = system_parts + parts
                    out.append(parts)
            return system_instruction, out
    """
    assert [f[1:] for f in _fields(emptied)] == [("parse", "system_parts", "joins")]


def test_the_rule_reports_a_system_field_hoist_at_info_where_the_text_is_added():
    from promptlint import api
    report = api.check([FIELD], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, d.message.split(": ")[1]) for d in report.diagnostics
             if d.code == "PRM105"]  # (not `leading_only`; PRM302 reports the adapter's missing breakpoint)
    # the rule's meaning first (the front of the conversation changes), then how
    assert [d.message.split(": ")[0] for d in report.diagnostics if d.code == "PRM105"] == [
        "The front of the conversation changes here"]
    assert found == [("PRM105", "info", 10, "`to_claude` joins the text of every system message of the "
                      "conversation, wherever it is, into `system`, the request's system prompt, which comes "
                      "before all messages")]


def test_a_partition_converted_whole_or_a_walk_by_content_kind_is_a_field_hoist():
    # the system part kept apart whole and then converted into the field (reported at the put);
    # the text of each kind of content added under a test of the content, an unknown kind refused,
    # the other messages stripped by a filter of the module (reported at the branch's test)
    assert _fields("""
        def converse_messages(messages):
            system_messages, rest = [], []
            for message in messages:
                if message.role == "system":
                    system_messages.append(message)
                else:
                    rest.append(message)
            system = as_system_blocks(system_messages)
            return system, rest

        def system_parts_of(messages):
            system_parts = []
            for message in messages:
                if message.role == "system":
                    content = message.content
                    if isinstance(content, str):
                        system_parts.append(Part(text=content))
                    elif isinstance(content, list):
                        system_parts.extend([part_of(c) for c in content])
                    else:
                        raise ValueError(content)
            return system_parts

        def contents_of(messages):
            return [to_content(m) for m in messages if m.role != "system"]
    """) == [("system_messages.append(message)", "converse_messages", "system_messages", "joins"),
             ("message.role == 'system'", "system_parts_of", "system_parts", "joins")]


def test_a_partition_put_back_looked_at_once_or_one_message_kept_is_not_a_field_hoist():
    assert _fields("""
        def compact(messages):
            system_messages, work = [], []
            for message in messages:
                if message.get("role") == "system":
                    system_messages.append(message)
                else:
                    work.append(message)
            messages.clear()
            messages.extend(system_messages)

        def first_only(messages):
            system_messages, rest = [], []
            for m in messages:
                if m.role == "system":
                    system_messages.append(m)
                else:
                    rest.append(m)
            if len(system_messages) > 1:
                raise ValueError("one system message")
            return to_system(system_messages), rest

        def kept_once(messages):
            system_message, rest = None, []
            for m in messages:
                if m.role == "system":
                    if system_message is None:
                        system_message = m
                else:
                    rest.append(m)
            return [system_message] + rest

        def collected_not_stripped(messages):
            system_parts = []
            for message in messages:
                if message.role == "system":
                    if isinstance(message.content, str):
                        system_parts.append(message.content)
            return system_parts
    """) == []


def _filtered(src: str) -> list[tuple[str, str, str]]:
    from promptlint.python.field_hoists import find_filtered_hoists
    module = load(Path("filtered.py"), textwrap.dedent(src))
    return [(ast.unparse(n), f, field) for n, f, field, _how in find_filtered_hoists(module)]


def test_the_text_of_every_system_message_taken_by_a_filter_into_the_field_is_found():
    assert _filtered("""
        def query(history):
            system_message = "\\n".join([e["content"] for e in history if e["role"] == "system"])
            messages = [e for e in history if e["role"] != "system"]
            return client.messages.create(system=system_message, messages=messages)

        def gemini(messages):
            return generate(contents=to_contents(messages),
                            system_instruction=[m.content for m in messages if m.role == "system"])
    """) == [("[e['content'] for e in history if e['role'] == 'system']", "query", "system_message"),
             ("[m.content for m in messages if m.role == 'system']", "gemini", "system_instruction")]


def test_a_filter_that_keeps_the_messages_or_one_of_them_or_strips_nothing_is_not():
    assert _filtered("""
        def snip(messages):
            system_messages = [dict(m) for m in messages if m.get("role") == "system"]
            rest = [m for m in messages if m.get("role") != "system"]
            return system_messages + rest

        def first(messages):
            system = next(m["content"] for m in messages if m["role"] == "system")
            return system
    """) == []
    assert _filtered("""
        def not_stripped(messages):
            system = "\\n".join(m["content"] for m in messages if m["role"] == "system")
            return system, messages
    """) == []


def test_the_rule_reports_a_filtered_or_partitioned_hoist_at_info():
    from promptlint import api
    path = Path(__file__).resolve().parent.parent / "fixtures" / "system_moves" / "filtered.py"
    report = api.check([path], api.Settings(), jobs=1)
    found = [(d.severity.value, d.span.start.row, d.message.split(" the text")[0].split(": ")[-1]) for d in report.diagnostics
             if d.code == "PRM105"]
    assert found == [("info", 7, "`ask` joins"), ("info", 17, "`split` joins")]


def _lifted(src: str) -> list[tuple[str, str, str, str]]:
    from promptlint.python.field_hoists import find_lifted_partitions
    module = load(Path("lifted.py"), textwrap.dedent(src))
    return [(ast.unparse(n), f, field, how) for n, f, field, how in find_lifted_partitions(module)]


def test_system_messages_filtered_out_and_lifted_whole_into_the_system_field_are_found():
    # (main: nothing) the system part goes through a predicate of the module into a flattening call
    # whose value is the request's `instructions`; the others are kept apart by the negated filter
    assert _lifted("""
        def _is_instruction_message(message):
            \"\"\"System or developer.\"\"\"
            return isinstance(message, SystemMessage) or (isinstance(message, ChatMessage) and message.role == "developer")

        def payload(messages, **kwargs):
            system_messages = [m for m in messages if _is_instruction_message(m)]
            if system_messages:
                non_system = [m for m in messages if not _is_instruction_message(m)]
                lifted = flatten(system_messages)
                kwargs["instructions"] = lifted
                messages = non_system
            return {"input": messages, **kwargs}

        def keyword(messages):
            system = [m for m in messages if m["role"] == "system"]
            rest = [m for m in messages if m["role"] != "system"]
            return client.messages.create(system=as_blocks(system), messages=rest)
    """) == [
        ("[m for m in messages if _is_instruction_message(m)]", "payload", "instructions", "joins"),
        ("[m for m in messages if m['role'] == 'system']", "keyword", "system", "joins")]


def test_a_system_part_counted_looked_at_or_put_back_is_not_lifted():
    assert _lifted("""
        def _is_system(m):
            return m.role == "user"

        def counted(messages):
            system = [m for m in messages if m["role"] == "system"]
            rest = [m for m in messages if m["role"] != "system"]
            n = len(system)
            return rest, n

        def first_only(messages, **kwargs):
            system = [m for m in messages if m["role"] == "system"]
            rest = [m for m in messages if m["role"] != "system"]
            kwargs["system"] = system[0].content
            return rest

        def put_back(messages):
            system = [m for m in messages if m["role"] == "system"]
            rest = [m for m in messages if m["role"] != "system"]
            rest.extend(system)
            return rest

        def not_a_system_predicate(messages, **kwargs):
            users = [m for m in messages if _is_system(m)]
            rest = [m for m in messages if not _is_system(m)]
            kwargs["instructions"] = flatten(users)

        def no_others_apart(messages, **kwargs):
            system = [m for m in messages if m["role"] == "system"]
            kwargs["system"] = flatten(system)
            return messages
    """) == []


INTO_NEWEST = Path(__file__).resolve().parent.parent / "fixtures" / "system_moves" / "into_newest.py"


def test_system_text_written_into_the_last_built_message_is_not_a_front_field():
    # the joined system text goes to `return_messages[-1]`, the newest message: "newest", not "joins"
    module = load(INTO_NEWEST, INTO_NEWEST.read_text())
    from promptlint.python.field_hoists import find_field_hoists
    found = [(ast.unparse(n), f, field, how) for n, f, field, how in find_field_hoists(module)]
    assert found == [("system_messages.append(message['content'])", "to_no_system", "return_messages[-1]", "newest"),
                     ("system += message['content']", "to_system_field", "system", "joins")]


def test_the_rule_says_the_system_text_rides_in_the_newest_message_not_at_the_front():
    from promptlint import api
    report = api.check([INTO_NEWEST], api.Settings(), jobs=1)
    found = [(d.span.start.row, d.severity.value, d.message) for d in report.diagnostics if d.code == "PRM105"]
    assert [(row, sev) for row, sev, _ in found] == [(13, "info"), (27, "info")]
    newest, front = found[0][2], found[1][2]
    assert newest.startswith("The newest message is given content the kept conversation does not hold here")
    assert "writes it into the last message (`return_messages[-1]`)" in newest
    assert "comes before all messages" not in newest
    assert front.startswith("The front of the conversation changes here")
