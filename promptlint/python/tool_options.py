"""Request options that turn the tools off, merged into the options a loop sends its requests
with: facts for PRM204.

A loop that makes a request on every pass with options kept in a dict (`await
self.complete(**options)`) and, on some pass (a limit of rounds reached, an error a tool raised),
merges options into that dict that leave the tools out (`options.update(self.no_tools_kwargs)`,
`options["include_functions"] = False`, `options["tools"] = None`, `options.update(tools=[])`):
the requests after it go out without the tool definitions the earlier requests of the
conversation carried, and the tools come before the system prompt and the history. Options that
only choose whether a tool is called (`tool_choice="none"`) keep the definitions and are not read.
"""
from __future__ import annotations

import ast
import re

from .module import statements
from .walk import child_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: A name that says its options turn tools or function calling off (`disable_function_calling_kwargs`,
#: `NO_TOOLS_OPTIONS`, `without_tools`); bounded repetition: linear.
OFF_NAME = re.compile(r"(?i)(?:^|_)(?:disable|disabled|no|without|off)_\w{0,30}?(?:tool|function)"
                      r"|(?:tool|function)s?(?:_\w{0,30})?_(?:disabled|off)$")
_KEYED_HINTS = ("tools\"]", "tools']", "functions\"]", "functions']", "update(tools=", "update(functions=",
                "update(include_", "update(use_", "update(enable_", "update(with_")
#: Keys of request options that turn the tools off when False (`include_functions=False`).
_INCLUDE_KEYS = re.compile(r"(?i)^(?:include|use|enable|with)_(?:tools|functions)$")
_TOOL_KEYS = ("tools", "functions")
#: Text of a tools-off option set by key or keyword (`opts["tools"] = ...`, `opts.update(tools=...)`,
#: `opts["include_functions"] = ...`); bounded repetition: linear.
_KEYED_TEXT = re.compile(r"(?:\[[\"'](?:tools|functions)[\"']\][ \t]{0,4}=|\.update\((?:tools|functions)[ \t]{0,4}=)"
                         r"[ \t]{0,4}(?:None\b|\[[ \t]{0,4}\]|\([ \t]{0,4}\))"
                         r"|(?:\[[\"'](?:include|use|enable|with)_(?:tools|functions)[\"']\][ \t]{0,4}="
                         r"|\.update\((?:include|use|enable|with)_(?:tools|functions)[ \t]{0,4}=)[ \t]{0,4}False\b")


def find_tools_turned_off(module) -> list[tuple[ast.AST, ast.Call, str, str]]:
    """Each merge of tools-off options into the options a loop's request is sent with, as (the
    merge, the request, the options' name, the function's name); one per loop."""
    out = []
    src = module.source
    low = src.lower()
    named = ".update(" in src and any(w in low for w in ("disable", "no_", "without", "_off")) and _updates_off(src)
    if not (named or any(k in src for k in _KEYED_HINTS) and _KEYED_TEXT.search(src) is not None):
        return out  # no tools-off options written: the cheap tests first
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        for loop in _own_loops(func):
            body = sorted((n for stmt in loop.body for n in _own(stmt) if hasattr(n, "lineno")),
                          key=lambda n: (n.lineno, n.col_offset))
            sends = {}
            for n in body:
                if isinstance(n, ast.Call):
                    for kw in n.keywords:
                        if kw.arg is None and isinstance(kw.value, ast.Name):
                            sends.setdefault(kw.value.id, n)
            merge = next(((n, name) for n in body if isinstance(n, (ast.Call, ast.Assign))
                          and (name := _turns_off(n)) in sends), None)
            if merge is not None:
                out.append((merge[0], sends[merge[1]], merge[1], func.name))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _updates_off(src: str) -> bool:
    """True when the argument of some `.update(...)` in the text ends with a name that says tools
    off (`kwargs.update(self.engine.disable_function_calling_kwargs)`): only those arguments are read."""
    at = src.find(".update(")
    while at != -1:
        end = src.find(")", at + 8, at + 208)
        arg = src[at + 8:end] if end != -1 else ""
        if arg and OFF_NAME.search(arg.rsplit(".", 1)[-1].strip()) is not None:
            return True
        at = src.find(".update(", at + 8)
    return False


def _own_loops(func) -> list[ast.AST]:
    """The loops of a function's body (nested ones too), not those of functions nested in it."""
    return [n for n in _own(func) if isinstance(n, _LOOPS)]


def _own(node) -> list[ast.AST]:
    """`node` and the nodes under it, not those of functions or classes nested in it."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in child_nodes(n) if not isinstance(c, (*_FUNCS, ast.Lambda, ast.ClassDef)))
    return out


def _turns_off(n) -> str | None:
    """The name of the options dict a statement merges tools-off options into, else None:
    `opts.update(<a name that says tools off>)`, `opts.update(tools=None)`, `opts["tools"] = []`,
    `opts["include_functions"] = False` (an `update` read by its first keyword)."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "update" \
            and isinstance(n.func.value, ast.Name):
        named = len(n.args) == 1 and not n.keywords and OFF_NAME.search(_last_name(n.args[0])) is not None
        keyed = not n.args and any(_off(kw.arg, kw.value) for kw in n.keywords)
        return n.func.value.id if named or keyed else None
    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript):
        t = n.targets[0]
        key = t.slice.value if isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str) else None
        if isinstance(t.value, ast.Name) and key is not None and _off(key, n.value):
            return t.value.id
    return None


def _off(key: str | None, value) -> bool:
    """True for an option that leaves the tools out: `tools=None` / `[]`, `include_tools=False`."""
    if key in _TOOL_KEYS:
        return isinstance(value, ast.Constant) and value.value is None or \
            isinstance(value, (ast.List, ast.Tuple)) and not value.elts
    return key is not None and _INCLUDE_KEYS.match(key) is not None \
        and isinstance(value, ast.Constant) and value.value is False


def _last_name(expr) -> str:
    """The last identifier of a name or attribute chain (`self.engine.no_tools` -> `no_tools`)."""
    return expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""
