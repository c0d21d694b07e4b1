"""PRM204 facts: options that leave the tools out merged into the options a loop sends its
requests with (after an error, at a limit of rounds), and the pre-filter that lets such files be
analysed."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.tool_options import find_tools_turned_off

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(merge.lineno, request.lineno, name, function) for merge, request, name, function
            in find_tools_turned_off(module)]


AT_A_LIMIT = """
    class Assistant:
        NO_TOOL_OPTIONS = {"tools": None}

        async def converse(self, question, rounds=5, **options):
            self.log.append(question)
            for step in range(rounds):
                reply = await self.backend.reply(self.log, **options)
                self.log.append(reply)
                if not reply.calls:
                    return reply
                for call in reply.calls:
                    self.log.append(await self.run_tool(call))
                if step == rounds - 2:
                    options.update(self.NO_TOOL_OPTIONS)
"""


def test_tools_off_options_merged_at_a_limit_of_rounds_are_found_where_they_are_merged():
    assert _found(AT_A_LIMIT) == [(14, 7, "options", "converse")]


AFTER_AN_ERROR = """
    async def solve(client, history, params):
        while True:
            out = await client.send(history=history, **params)
            history.append(out)
            try:
                history.append(run(out))
                break
            except ToolError:
                params["include_tools"] = False
                params["tools"] = []
"""


def test_a_key_that_turns_tools_off_after_an_error_is_one_merge_per_loop():
    assert _found(AFTER_AN_ERROR) == [(9, 3, "params", "solve")]


CLEAN = """
    async def solve(client, history, params, extra):
        params.update(self.disable_tools_kwargs)            # before the loop: every request alike
        while True:
            out = await client.send(history=history, **params)
            history.append(out)
            if out.done:
                break
            params["tool_choice"] = "none"                  # the definitions stay
            params["include_tools"] = True
            extra.update(tools=None)                        # not the options the loop sends with
            params.update(temperature=0)
"""


def test_options_that_keep_the_tools_or_are_not_sent_by_the_loop_are_not_read():
    assert _found(CLEAN) == []


def test_the_rule_reports_the_merge_at_info_with_the_request(tmp_path):
    write(tmp_path, {"app.py": AT_A_LIMIT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics] == [("PRM204", "info", 14, [7])]


def test_the_prefilter_lets_a_file_that_turns_tools_off_be_analysed():
    assert might_hold_prompt("while True:\n    go(**kw)\n    kw.update(self.engine.disable_function_calling_kwargs)\n")
    assert might_hold_prompt('kw["include_functions"] = False\n')
    assert not might_hold_prompt('kw.update(self.defaults)\n')


def test_names_that_say_the_tools_are_off():
    from promptlint.python.tool_options import OFF_NAME
    names = {"disable_function_calling_kwargs": True, "NO_TOOL_OPTIONS": True, "without_tools": True,
             "tools_off": True, "function_calling_disabled": True, "known_tools": False,
             "function_tradeoff": False, "annotation_tools": False, "tool_defaults": False}
    assert {n: OFF_NAME.search(n) is not None for n in names} == names
