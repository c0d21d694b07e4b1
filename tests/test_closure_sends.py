"""PRM302 at a send made in a function nested in another (a retried inner function) that reads
the prompt and the `**kwargs` of the function around it: the prompt is the callers' and the
options hold what they pass, as for a send made by the outer function itself. Clean: the outer
function rebinds its `**kwargs` (they may hold a breakpoint), or the inner one writes the prompt
text of its own."""
from __future__ import annotations

import ast

from analysis_support import write

from promptlint import api
from promptlint.python.flow.closures import outer_parameters


def _found(tmp_path, source: str):
    write(tmp_path, {"evaluator.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.message) for d in report.diagnostics]


RETRIED = '''
import anthropic
from tenacity import retry


def anthropic_chat(client, model, prompt, max_tokens, temperature, **kwargs):
    @retry
    def messages():
        response = client.messages.create(
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            messages=[{"role": "user", "content": f"{prompt}"}],
            **kwargs,
        )
        return response.content[0].text

    return messages()
'''


def test_a_retried_inner_send_of_the_outer_functions_prompt_is_an_adapter(tmp_path):
    found = _found(tmp_path, RETRIED)
    assert [f[:3] for f in found] == [("PRM302", "info", 8)]
    assert found[0][3].startswith("Every prompt passed to this function is sent as one user message with no cache "
                                  "breakpoint, and no file of the package names one")


def test_outer_keywords_rebound_may_hold_a_breakpoint_so_nothing(tmp_path):
    source = RETRIED.replace("    @retry\n", "    kwargs = load_options()\n\n    @retry\n")
    assert "kwargs = load_options()" in source
    assert _found(tmp_path, source) == []


def test_an_inner_prompt_of_its_own_text_is_no_adapter(tmp_path):
    source = RETRIED.replace('"content": f"{prompt}"', '"content": "Name three colors."')
    assert "Name three colors" in source
    assert _found(tmp_path, source) == []


def test_outer_parameters_are_those_the_inner_function_reads_as_they_are():
    tree = ast.parse("def outer(a, b, c, *args, **kw):\n    b = b.strip()\n    def inner(c):\n        return a\n")

    class _M:  # the few attributes `outer_parameters` reads of a module
        _pieces: dict = {}
    m = _M()
    m.tree = tree
    inner = tree.body[0].body[1]
    # `b` is bound again by `outer`, `c` is `inner`'s own parameter
    assert outer_parameters(m, inner) == ({"a"}, {"kw"})
    assert outer_parameters(m, tree.body[0]) == (set(), set())
