"""A system message rendered from a template whose text is not in the code, with the values the
user message is made from: facts for PRM101 (the rule judges them).

A function that renders a template whose text it reads from elsewhere (a configuration, a parameter:
`Template(self.config.system_message).render(data)`, `env.from_string(text).render(**data)`,
`self.system_template.format(**data)`, or a function or method of the module that returns such a
render of its parameters: `self._render_template(self.config.system_message, data)`) into the system
message (a name with the word `system`, the content of a `{"role": "system", ...}` message, a
`system=` / `system_prompt=` argument), and makes the user message from the same values
(`user_message = Template(...).render(**data)`, `json.dumps(data)`; or, with keyword arguments, both
read the same name: `self.system_prompt.format(dictionary=self.pick(chunk))` and
`self.human_prompt.format(chunk=chunk)`), hands the system template what changes with each request:
whatever of it the template places (users of such templates are invited to write `{{ variables }}`
in them) sits before everything that follows the system message (examples, the conversation
history). Which values the template places is not known here: info, at the system render, with the
user message's as a related place. A template whose text is in the code is read by the analysis
itself and is not one.

Read in the modules the prefilter lets through (`prefilter.might_hold_prompt`), which the
modules that send or build a prompt do; the text test below adds none.

Shape: `unseen_templates(module) -> [(the system render, the user message's use of the values,
the template's source text, the values' name)]` (ast nodes, code text), in source order.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .walk import statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FROM_TEXT = ("Template", "from_string")  # a template made from its text
_DUMPS = ("dumps", "dump_json", "model_dump_json")
_KEYWORD_FORMAT = re.compile(r"\.format\(\s{0,40}\w{1,60}\s{0,4}=")  # `.format(chunk=...`: bounded, linear


def might_hold(source: str) -> bool:
    """The text test before the module's walk: a render and a system message."""
    if "ystem" not in source:
        return False
    return ("(**" in source or ".render(" in source) \
        and ("Template" in source or "from_string" in source or ".format(**" in source or "substitute(**" in source) \
        or _KEYWORD_FORMAT.search(source) is not None


def unseen_templates(module) -> list[tuple[ast.AST, ast.AST, str, str]]:
    """(system render, user message's use, template source, values) per function (module docstring)."""
    funcs = [f for f in statements(module.tree) if isinstance(f, _FUNCS)]
    wrappers = {f.name: w for f in funcs if (w := _wrapper(f)) is not None}
    out = []
    for f in funcs:
        renders = []  # (call, template expr, values name, the name or role it is for)
        for n in subtree(f):
            r = _render(n, wrappers)
            if r is not None:
                renders.append((n, *r, _destination(f, n)))
        for call, template, values, dest in renders:
            if dest != "system" or _literal(template, f):
                continue
            user = next((c for c, _t, v, d in renders if d == "user" and v == values and c is not call), None) \
                or _dumped_for_user(f, values)
            if user is None:  # `.format(lang=..., glossary=pick(chunk))` and `.format(chunk=chunk)`
                request = _from_params(f)
                shared = next(((c, common) for c, _t, v, d in renders if d == "user" and c is not call
                               and (common := _read(v) & _read(values) & request)), None)
                if shared is not None:
                    user, values = shared[0], ", ".join(sorted(shared[1]))
            if user is not None:
                out.append((call, user, ast.unparse(template), values))
    return sorted({id(t[0]): t for t in out}.values(), key=lambda t: (t[0].lineno, t[0].col_offset))


def _from_text(func) -> ast.AST | None:
    """T of `Template(T)` / `jinja2.Template(T)` / `env.from_string(T)`, else None."""
    if not (isinstance(func, ast.Call) and func.args):
        return None
    f = func.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return func.args[0] if name in _FROM_TEXT else None


def _values(call: ast.Call) -> str | tuple | None:
    """The name D of `.render(D)` / `.render(**D)` (one argument); for keyword arguments only
    (`.format(lang=self.lang, glossary=pick(chunk))`), the tuple of their value expressions;
    else None."""
    if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Name):
        return call.args[0].id
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg is None \
            and isinstance(call.keywords[0].value, ast.Name):
        return call.keywords[0].value.id
    if not call.args and call.keywords and all(k.arg for k in call.keywords):
        return tuple(k.value for k in call.keywords)
    return None


def _from_params(f) -> set[str]:
    """The function's parameters (not `self` / `cls`) and the local names it binds, in its own
    statements, to a value that reads one (`prompt = piece.converted_value`): what each call is
    handed, per request. A name bound from `self` only (`lang = name_of(self.lang)`, a setting) or
    from a loop's item (`text = message["content"]` for each message) is not one."""
    a = f.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None} - {"self", "cls"}
    out = set(params)
    for n in subtree(f):
        if isinstance(n, ast.Assign) and any(isinstance(x, ast.Name) and x.id in params for x in ast.walk(n.value)):
            out.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return out


def _read(values) -> set[str]:
    """The local names the keyword values of a render read (`pick(chunk)`: `chunk`), not `self`
    nor a function called; empty for a single values name (matched by that name)."""
    if not isinstance(values, tuple):
        return set()
    called = {id(n.func) for v in values for n in ast.walk(v) if isinstance(n, ast.Call)}
    return {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name) and id(n) not in called
            and n.id not in ("self", "cls") and not n.id.isupper()}


def _render(node, wrappers) -> tuple[ast.AST, str] | None:
    """(template text expression, values name) of a render of a template made from its text, or of
    a call of a wrapper of one (`wrappers`: name -> (text position, values position))."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr == "render":
        text, values = _from_text(f.value), _values(node)
        return (text, values) if text is not None and values is not None else None
    if isinstance(f, ast.Attribute) and f.attr in ("format", "safe_substitute", "substitute") and not node.args \
            and (values := _values(node)) is not None:
        return f.value, values  # `text.format(**data)`, `text.format(chunk=chunk)`: the text is the template
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
        and isinstance(f.value, ast.Name) and f.value.id == "self" else None
    if name in wrappers and not node.keywords:
        ti, vi = wrappers[name]
        if max(ti, vi) < len(node.args) and isinstance(node.args[vi], ast.Name):
            return node.args[ti], node.args[vi].id
    return None


def _wrapper(f) -> tuple[int, int] | None:
    """(text position, values position) among the call's arguments of a function that returns a
    render of its parameters (`return Template(text).render(**data)`), else None."""
    params = [p.arg for p in (*f.args.posonlyargs, *f.args.args)]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    for n in subtree(f):
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Call):
            r = _render(n.value, {})
            if r is not None and isinstance(r[0], ast.Name) and r[0].id in params and r[1] in params:
                return params.index(r[0].id), params.index(r[1])
    return None


def _literal(template, f) -> bool:
    """True when the template's text is in the code: a string, or a local name bound to one."""
    if isinstance(template, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(template, ast.Name):
        return any(isinstance(n, ast.Assign) and isinstance(n.value, (ast.Constant, ast.JoinedStr))
                   and any(isinstance(t, ast.Name) and t.id == template.id for t in n.targets) for n in subtree(f)) \
            or template.id.isupper()
    return isinstance(template, ast.Attribute) and template.attr.isupper()  # `prompts.SYSTEM`: a constant


def _destination(f, call) -> str | None:
    """"system" or "user" when the call's result is bound to a name with that word, given as the
    content of a message of that role, or as a `system=` / `system_prompt=` argument; else None."""
    for n in subtree(f):
        if isinstance(n, ast.Assign) and n.value is call:
            for t in n.targets:
                if isinstance(t, ast.Name):
                    return _role_word(t.id)
        if isinstance(n, ast.Dict) and call in n.values:
            role = next((v.value for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)
                         and k.value == "role" and isinstance(v, ast.Constant)), None)
            return role if role in ("system", "user") else None
        if isinstance(n, ast.keyword) and n.value is call and n.arg:
            return _role_word(n.arg)
    return None


def _role_word(name: str) -> str | None:
    w = words(name)
    return "system" if "system" in w else "user" if "user" in w else None


def _dumped_for_user(f, values: str) -> ast.AST | None:
    """`json.dumps(values, ...)` bound to a name with the word `user`, else None."""
    for n in subtree(f):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and n.value.args \
                and isinstance(n.value.args[0], ast.Name) and n.value.args[0].id == values:
            fn = n.value.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in _DUMPS and any(isinstance(t, ast.Name) and _role_word(t.id) == "user" for t in n.targets):
                return n.value
    return None
