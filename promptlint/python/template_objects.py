"""Template objects whose placeholders are filled by functions given with the template
(docs/policies.md, Policies 1 and 9): a call that builds a template from its text and a dict of
placeholder name -> callable, each called when the template is rendered:

    SYSTEM_PROMPT = PromptTemplate(
        template="... The current date and time is: {{now}} ...",
        functions={"now": lambda data: datetime.now().strftime("%H:%M:%S")},
    )

(a template class of the tree whose render calls its functions and substitutes the results, a
mustache `{{name}}` template, or LangChain's `partial_variables={"date": get_date}` with
`{name}` fields). The text is a prompt constant (candidates.constant: the name says prompt) whose
placeholders named in the dict hold what the function returns on each render, not once per
process as a value computed at import would; the other placeholders stay template variables.
The dict says what fills the text only where one of its keys names a placeholder of it and its
value for that key is a function (a lambda, or a function of the tree by name); plain values
(`defaults=`) are what a caller may override, and are left as template variables.
"""
from __future__ import annotations

import ast

from .flow.core import per_process
from .flow.text import FORMAT_FIELD, MUSTACHE_FIELD
from .flow.values import Func, Text
from . import candidates
from .prompt_names import prompt_named, role_of


def _fields(text: Text, pattern) -> set[str]:
    """The placeholder names in the static text of `text` (`pattern`: mustache or str.format)."""
    out: set[str] = set()
    for seg in text.segs:
        if seg.is_static:
            for mt in pattern.finditer(seg.text):
                name = mt.group(1) or (mt.group(2) if pattern is MUSTACHE_FIELD else None)
                if name:
                    out.add(name.strip())
    return out


def _function_result(finder, node, frame):
    """What the function `node` returns when the template calls it: a lambda's body, or a call of
    a function of the tree named by `node`. None for anything else (a plain value)."""
    if isinstance(node, ast.Lambda):
        return finder.ev.eval(node.body, frame)
    if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(finder.ev.eval(node, frame), Func):
        call = ast.copy_location(ast.Call(func=node, args=[], keywords=[]), node)
        call.end_lineno, call.end_col_offset = node.end_lineno, node.end_col_offset
        return finder.ev.eval(call, frame)
    return None


def constructed(finder, node, name: str, value_node, frame, module_level: bool) -> None:
    """A prompt template object built at module or class level with its text and a dict of
    functions that fill its placeholders (see the module docstring): a `python-constant`
    candidate of the text with those placeholders filled."""
    if not (isinstance(value_node, ast.Call) and prompt_named(name)):
        return
    args = [*value_node.args, *(k.value for k in value_node.keywords)]
    dicts = [a for a in args if isinstance(a, ast.Dict)]
    if not dicts:
        return
    for arg in args:
        if isinstance(arg, ast.Dict):
            continue
        text = finder.ev.eval(arg, frame)
        if not isinstance(text, Text) or not any(s.is_static for s in text.segs):
            continue
        if module_level:
            text = per_process(text)  # the text itself is evaluated once, at import
        mustache = _fields(text, MUSTACHE_FIELD)
        fields = mustache or {f.split(".")[0] for f in _fields(text, FORMAT_FIELD)}
        filled = {}
        for d in dicts:
            for key, value in zip(d.keys, d.values):
                if isinstance(key, ast.Constant) and key.value in fields:
                    result = _function_result(finder, value, frame)
                    if result is not None:
                        filled[key.value] = result
        if not filled:
            continue
        if mustache:
            text = finder.ev.mustache_text(text, filled, frame, keep_unbound=True)
        else:
            text = finder.ev.format_text(text, [], filled, frame, None, keep_unbound=True)
        segs = finder.ev.text_of(text, frame)
        candidates.text_layout(finder, node, segs, finder.m.span(arg), role_of(name))
        return
