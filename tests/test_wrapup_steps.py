"""PRM204 facts: requests of one conversation sent with other cache-key options than the requests
before them (python/wrapup_steps.py): a wrap-up request without the tools, with a tools-off
switch, with a response format added, a recursive next step bound to another `tool_choice`; and
the shapes that keep their options (fixtures/wrapup_steps/)."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings
from promptlint.python.module import load
from promptlint.python.wrapup_steps import find_option_changes

from analysis_support import code

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wrapup_steps"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _facts(source: str):
    module = load(Path("app.py"), code(source))
    return [(c.node.lineno, c.request.lineno, c.earlier.lineno, c.option, c.how, c.shape, c.text, c.function)
            for c in find_option_changes(module)]


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return sorted((d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row)
                  for d in result.diagnostics if d.code == "PRM204")


def test_each_changed_option_of_a_conversations_last_request_is_info_where_it_changes():
    folder = FIXTURES / "changed"
    assert _found("changed") == [
        ("PRM204", "info", "agent.py", _row(folder / "agent.py", "tools_enabled=False")),
        ("PRM204", "info", "chat.py", _row(folder / "chat.py", '"none"')),
        ("PRM204", "info", "extract.py", _row(folder / "extract.py", "response_format=Schema")),
        ("PRM204", "info", "judge.py", _row(folder / "judge.py", "verdict = ")),
    ]


def test_same_options_a_fresh_list_a_new_conversation_or_options_passed_through_are_not_found():
    assert _found("kept") == []


def test_a_wrap_up_without_tools_names_the_request_that_sent_them():
    assert _facts("""
        def judge(client, messages, tools):
            reply = client.chat.completions.create(model="m", messages=messages, tools=tools)
            messages.append(reply.choices[0].message)
            return client.chat.completions.create(model="m", messages=messages)
    """) == [(4, 4, 2, "tools", "omitted", "sequence", "", "judge")]


def test_a_callee_whose_tools_default_to_a_list_still_sends_them():
    assert _facts("""
        def ask(messages, tools=DEFAULT_TOOLS):
            return client.chat.completions.create(model="m", messages=messages, tools=tools)

        def judge(messages, tools):
            reply = ask(messages, tools=tools)
            messages.append(reply)
            return ask(messages)
    """) == []


def test_a_changed_tool_choice_with_the_same_tools_is_found_and_the_same_one_is_not():
    changed = """
        def loop(client, messages, tools):
            reply = client.messages.create(model="m", messages=messages, tools=tools, tool_choice={"type": "auto"})
            messages.append(reply)
            return client.messages.create(model="m", messages=messages, tools=tools, tool_choice={"type": "none"})
    """
    assert _facts(changed) == [(4, 4, 2, "tool_choice", "changed", "sequence", "tool_choice={'type': 'none'}", "loop")]
    assert _facts(changed.replace('{"type": "none"}', '{"type": "auto"}')) == []


def test_the_two_branches_of_one_if_are_two_conversations():
    assert _facts("""
        def answer(client, messages, tools, structured):
            messages.append(question)
            if structured:
                return client.chat.completions.create(model="m", messages=messages, response_format=S)
            else:
                return client.chat.completions.create(model="m", messages=messages, tools=tools)
    """) == []


def test_a_recursive_step_given_another_constant_in_the_call_is_found_there():
    assert _facts("""
        class Chat:
            def _call(self, msg, step=1, tool_choice=None):
                self.hist.append(msg)
                res = completion(model=self.model, messages=self.hist, tools=self.tools, tool_choice=tool_choice)
                if res.tool_calls:
                    self.hist += run(res.tool_calls)
                    return self._call(None, step + 1, "required" if step < 2 else "none")
                return self._call(None, step + 1, "none")
    """) == [(8, 8, 4, "tool_choice", "changed", "recursion", "'none'", "_call")]


def test_a_value_bound_before_the_request_is_every_steps_value():
    # (main: a PRM204 info on shell-gpt's `get_completion`, which sets `functions = None` for some
    # roles before its request and passes `functions` on to its next step: every step is sent with
    # the same value; the recursive call is the next step, not the request that sent this one)
    assert _facts("""
        class Handler:
            def get_completion(self, messages, functions):
                if self.role.name in ("shell", "code"):
                    functions = None
                response = completion(model=self.model, messages=messages, **self.kwargs(functions))
                if response.tool_calls:
                    messages.append(run(response.tool_calls))
                    yield from self.get_completion(messages=messages, functions=functions)
    """) == []
    assert _facts("""
        class Chat:
            def _call(self, msg, tool_choice=None):
                self.hist.append(msg)
                res = completion(model=self.model, messages=self.hist, tools=self.tools, tool_choice=tool_choice)
                if res.tool_calls:
                    self.hist += run(res.tool_calls)
                    tool_choice = "none"
                    return self._call(None, tool_choice=tool_choice)
    """) == [(7, 8, 4, "tool_choice", "changed", "recursion", "tool_choice='none'", "_call")]


def test_a_recursive_step_that_passes_the_same_value_or_grows_nothing_is_not_found():
    assert _facts("""
        class Chat:
            def _call(self, msg, step=1, tool_choice="auto"):
                self.hist.append(msg)
                res = completion(model=self.model, messages=self.hist, tools=self.tools, tool_choice=tool_choice)
                return self._call(None, step + 1, "auto") if res.tool_calls else res
    """) == []
    assert _facts("""
        def ask(messages, tool_choice=None):
            res = completion(model="m", messages=messages, tool_choice=tool_choice)
            return ask(messages, tool_choice="none") if res.tool_calls else res
    """) == []


def test_an_options_dict_written_another_tool_choice_before_the_recursive_step_is_found_at_the_write():
    assert _facts("""
        class Model:
            def query(self, chat_history, **kwargs):
                parameters = kwargs
                completion = self.client.chat.completions.create(model=self.model, messages=chat_history, **parameters)
                resp = completion.choices[0].message
                if resp.function_call:
                    self.calls.append(resp.function_call.name)
                    if len(self.calls) > 3:
                        parameters["function_call"] = "none"
                    chat_history.append({"role": "function", "content": run(resp), "name": resp.function_call.name})
                    return self.query(chat_history, **parameters)
                return resp.content
    """) == [(9, 11, 4, "tool_choice", "changed", "recursion", "parameters['function_call'] = 'none'", "query")]


def test_an_options_dict_written_before_the_request_or_not_passed_to_the_next_step_is_not_found():
    assert _facts("""
        class Model:
            def query(self, chat_history, **kwargs):
                parameters = kwargs
                parameters["tool_choice"] = "auto"          # every step's value
                completion = self.client.chat.completions.create(model=self.model, messages=chat_history, **parameters)
                chat_history.append(completion.choices[0].message)
                options = dict(parameters)
                options["tool_choice"] = "none"
                if completion.choices[0].message.tool_calls:
                    return self.query(chat_history, **parameters)   # not the dict written after the request
                return options
    """) == []
