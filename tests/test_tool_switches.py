"""PRM204 facts: a loop that re-sends the conversation it grows through runnables bound to
different tool lists (python/tool_switches.py)."""
import ast
import textwrap
from pathlib import Path
from types import SimpleNamespace

from promptlint.python.module import load
from promptlint.python.tool_switches import find_tool_switches


def _switches(src: str):
    return find_tool_switches(load(Path("m.py"), textwrap.dedent(src)))


def test_a_runnable_chosen_per_step_with_other_tools_is_a_switch():
    found, = _switches("""
        class Opt:
            def __init__(self, model):
                self.a = create(model, tools=[think, critique])
                self.b = create(model, tools=[recommend])

            def run(self, messages, n):
                for ix in range(n):
                    chain = self.b if ix == n - 1 else self.a
                    chain = self.a if ix < 2 else self.b
                    messages.append(chain.invoke(messages))
    """)
    assert ast.unparse(found.node) == "chain.invoke(messages)" and found.function == "run"
    assert set(found.lists) == {("recommend",), ("think", "critique")}


def test_two_requests_with_runnables_from_a_helper_tuple_are_a_switch():
    found, = _switches("""
        class Opt:
            def _chains(self, model, schema):
                first = model.bind_tools([self.think, schema])
                last = model.with_structured_output(schema)
                return first, last

            async def run(self, model, schema, messages, n):
                first, last = self._chains(model, schema)
                for ix in range(n):
                    if ix == n - 1:
                        return await last.ainvoke(messages)
                    messages += [await first.ainvoke(messages)]
    """)
    assert ast.unparse(found.node) == "last.ainvoke(messages)"
    assert set(found.lists) == {("self.think", "schema"), ("schema",)}


def test_same_tools_unknown_tools_or_a_fresh_conversation_are_no_switch():
    assert not _switches("""
        def same(model, messages, tools, n):
            a = model.bind_tools([t1, t2])
            b = model.bind_tools([t1, t2])
            for ix in range(n):
                chain = a if ix else b
                messages.append(chain.invoke(messages))

        def unknown(x, y, messages, n):
            for ix in range(n):
                chain = x if ix else y
                messages.append(chain.invoke(messages))

        def fresh(model, items):
            a = model.bind_tools([t1])
            b = model.with_structured_output(S)
            for i, item in enumerate(items):
                messages = [item]
                chain = a if i else b
                chain.invoke(messages)
    """)


def _filters(src: str):
    from promptlint.python.tool_switches import find_forced_filters
    return [(ast.unparse(c), f) for c, f in find_forced_filters(load(Path("m.py"), textwrap.dedent(src)))]


def test_a_tool_list_filtered_to_the_forced_tool_is_found():
    assert _filters("""
        def fmt(tools, tool_choice):
            allowed = set(tool_choice.tools)
            return [t for t in tools if t["function"]["name"] in allowed]

        def retry(ctx):
            forced_tool = ctx.tool_choice["tool"]["name"]
            return [s for s in ctx.tool_specs if s.name == forced_tool]
    """) == [("[t for t in tools if t['function']['name'] in allowed]", "fmt"),
             ("[s for s in ctx.tool_specs if s.name == forced_tool]", "retry")]


def test_a_configured_allow_list_or_a_lookup_of_the_forced_tool_is_not():
    assert _filters("""
        def configured(tools, agent):
            return [t for t in tools if t["name"] in agent.allowed_tools]

        def lookup(tools, tool_choice):
            return [t for t in tools if t["name"] == tool_choice["name"]][0]["parameters"]

        def other_lists(rows, tool_choice):
            return [r for r in rows if r["name"] == tool_choice]
    """) == []


def _dropped(src: str):
    from promptlint.python.tool_switches import find_dropped_tools
    return [(v.lineno, c.lineno, f) for v, c, f in find_dropped_tools(load(Path("m.py"), textwrap.dedent(src)))]


def test_a_conversation_re_sent_without_the_tools_it_was_sent_with_is_found():
    assert _dropped("""
        class Agent:
            def chat(self, prompt, tools):
                messages = [{"role": "user", "content": prompt}]
                reply = self._chat_completion(messages, tools=tools, stream=True)
                messages.append({"role": "assistant", "content": reply})
                messages.append({"role": "user", "content": "Reflect."})
                return self._chat_completion(messages=messages, tools=None)
    """) == [(8, 5, "chat")]  # by position, then by keyword: the same list
    assert _dropped("""
        class Agent:
            def chat(self, prompt, tools):
                messages = [{"role": "user", "content": prompt}]
                reply = self._chat_completion(messages, tools=tools)
                messages.append({"role": "assistant", "content": reply})
                for _ in range(3):
                    messages.append({"role": "user", "content": "Reflect."})
                    self._chat_completion(messages, tools=[])
    """) == [(9, 5, "chat")]


def test_requests_without_tools_first_or_of_other_lists_are_not():
    assert _dropped("""
        def first(llm, messages, tools):
            plan = llm.create(messages, tools=None)
            messages.append(plan)
            return llm.create(messages, tools=tools)

        def others(llm, messages, notes, tools):
            llm.create(messages, tools=tools)
            notes.append("Summarise.")
            return llm.create(notes, tools=None)

        def not_grown(llm, messages, tools):
            llm.create(messages, tools=tools)
            return llm.create(messages, tools=None)
    """) == []


def test_a_file_that_sends_messages_without_tools_is_read():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("def reflect(self, messages):\n    return self.chat(messages, tools=None)\n")
    assert not might_hold_prompt("def build():\n    return Agent(tools=[])\n")


def _emptied(src: str):
    from promptlint.python.tool_switches import find_tools_emptied_at_limit
    return [s.lineno for s in find_tools_emptied_at_limit(load(Path("m.py"), textwrap.dedent(src)))]


def test_a_tool_list_emptied_once_a_count_reaches_its_limit_is_found():
    assert _emptied("""
        def params(self, task):
            if self._limit_reached:
                tool_definitions = []
            elif self.tool_call_limit and self._tool_call_count >= self.tool_call_limit:
                tool_definitions = []
                self._limit_reached = True
            else:
                tool_definitions = list(self.tool_manager.get_tool_definitions())
            return tool_definitions

        def nothing_to_send(self, tools):
            if len(tools) == 0:
                tool_specs = []
            else:
                tool_specs = [t.spec() for t in tools]
            return tool_specs

        def never_filled(self, n):
            if n > 3:
                tool_specs = []
            return tool_specs
    """) == [6]


def _pushed(src: str):
    from promptlint.python.tool_switches import find_pushed_tool_changes
    text = textwrap.dedent(src)
    module = SimpleNamespace(tree=ast.parse(text), source=text, assigns={}, code=ast.unparse)
    return [(n.lineno, t, u.lineno, f) for n, t, u, f in find_pushed_tool_changes(module)]


def test_a_held_tool_set_grown_and_written_to_a_stored_assistant_is_found():
    assert _pushed("""
        def on_message(agent, client, attachments):
            for a in attachments:
                agent.tools.append(FileSearch)
                client.beta.assistants.update(agent.id, tools=agent.get_oai_tools())

        def set_up(self):
            tools = [t.schema() for t in self.registry]
            self.client.beta.assistants.update(self.id, tools=tools)

        def grown_after(agent, client):
            client.beta.assistants.update(agent.id, tools=agent.tools)
            agent.tools.append(FileSearch)
    """) == [(4, "agent.tools", 5, "on_message")]


def test_records_made_with_and_without_tools_are_not_requests():
    # a converter yields one data record per entry: a class called by its name makes a record
    assert _dropped("""
        def to_records(entries):
            for entry in entries:
                messages = []
                messages.append(entry["prompt"])
                yield Record(messages=messages, tools=entry["tools"])
                messages.append(entry["reply"])
                yield Record(messages=messages, tools=None)
    """) == []


def test_a_function_of_the_module_that_sends_is_a_request():
    assert _dropped("""
        class Agent:
            def _ask(self, messages, tools):
                return self.client.chat.completions.create(model="m", messages=messages, tools=tools)

            def run(self, messages, tools):
                self._ask(messages, tools=tools)
                messages.append({"role": "user", "content": "Reflect."})
                return self._ask(messages, tools=None)

            def pack(self, messages, tools):
                self.pack_turn(messages, tools=tools)
                messages.append({"role": "user", "content": "Reflect."})
                return self.pack_turn(messages, tools=None)

            def pack_turn(self, messages, tools):
                return {"messages": messages, "tools": tools}
    """) == [(9, 7, "run")]  # `pack_turn` neither sends nor is named for sending


def test_the_two_branches_of_one_if_are_not_two_requests_in_sequence():
    assert _dropped("""
        def one_request(llm, messages, tools, entry):
            messages.append(entry)
            if tools:
                return llm.create(messages, tools=tools)
            else:
                return llm.create(messages, tools=None)

        def per_entry(llm, entries, tools):
            for entry in entries:
                messages = []
                messages.append(entry)
                r = llm.create(messages, tools=tools) if tools else llm.create(messages, tools=None)
    """) == []
    # a loop that carries the conversation takes one branch on one turn and the other on the next
    assert _dropped("""
        def steps(llm, messages, tools, n):
            for step in range(n):
                if step < n - 1:
                    reply = llm.create(messages, tools=tools)
                else:
                    reply = llm.create(messages, tools=None)
                messages.append(reply)
    """) == [(7, 5, "steps")]
