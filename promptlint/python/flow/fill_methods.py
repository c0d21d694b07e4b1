"""A template class's fill method: a method of a class of the tree that fills the placeholders of
the template its instance holds with the entries of a dict it is given (Policies 8 and 9), read
at the call that fills it rather than followed through its body:

    class PromptTemplate:
        def generate_prompt(self, template_fields: dict) -> str:
            def replace_placeholder(match):
                return template_fields.get(match.group(1), match.group(0))
            prompt = re.sub(r"\\{(\\w+)\\}", replace_placeholder, self.template)
            return self._remove_empty_placeholders(prompt)

    PromptTemplate.from_string(T).generate_prompt({"QUERY": query, "WEBSITE_URL": url})

The method is one when its body, itself, says so: a `re.sub` with a constant pattern over an
attribute of the instance (`self.template`), whose replacement function looks a group of its match
up in a parameter of the method (`fields.get(match.group(1), ...)`, `fields[match.group(1)]`,
through a name bound to the group), and it returns that substitution (as it is, or handed to a
method of its class whose every return joins, trims or returns its parameter: a clean-up of the
filled text). At the call, with the dict's keys known (a display, `dict(...)`, keywords for a
`**fields` parameter), the result is the instance's template with each placeholder whose group is
a key replaced by that key's value, reported at the placeholder (its origin: where the value is
given); a placeholder no key names stays as written, as the lookup's default leaves it. A key's
value made empty by the clean-up (a line removed) is not followed: its place is kept.

Shape: `fill_call(ev, fn, base, node, args, kwargs, frame, env) -> Value | None` (None: not a fill
method, or its dict or template not known: the call is followed as any other).
"""
from __future__ import annotations

import ast
import re

from .replaced import keyed_sub
from .values import Alt, Mapping, Text, Value

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CLEANUPS = frozenset({"join", "strip", "rstrip", "lstrip"})


def fill_shape(fn) -> tuple[str, re.Pattern, int, str] | None:
    """(the instance's template attribute, the compiled pattern, the group looked up, the
    parameter holding the dict) of a fill method (module docstring), else None."""
    node = fn.node
    cached = getattr(node, "_promptlint_fill", False)
    if cached is not False:
        return cached
    found = _shape(fn)
    node._promptlint_fill = found
    return found


def _shape(fn):
    if fn.cls is None:
        return None
    node = fn.node
    a = node.args
    params = [p.arg for p in [*a.posonlyargs, *a.args][1:]] + [p.arg for p in a.kwonlyargs]
    if a.kwarg is not None:
        params.append(a.kwarg.arg)
    nested = None  # (the functions defined in it by name: read at the first `re.sub` that may be one)
    for call in _own_nodes(node):
        if not (isinstance(call, ast.Call) and fn.module.qualified_name(call.func) == "re.sub"
                and len(call.args) >= 3 and not call.keywords):
            continue
        pat, repl, text = call.args[:3]
        attr = _self_attr(text)
        if attr is None or not (isinstance(pat, ast.Constant) and isinstance(pat.value, str)):
            continue
        try:
            pattern = re.compile(pat.value)
        except (re.error, RecursionError, OverflowError):
            continue
        if nested is None:
            nested = {s.name: s for s in ast.walk(node) if isinstance(s, _FUNCS) and s is not node}
        func = nested.get(repl.id) if isinstance(repl, ast.Name) else repl if isinstance(repl, ast.Lambda) else None
        if func is None or not func.args.args:
            continue
        looked = _looked_up(func, func.args.args[0].arg, params)
        if looked is None or looked[0] > pattern.groups:
            continue
        if not _returns_fill(fn, node, call):
            continue
        return attr, pattern, looked[0], looked[1]
    return None


def _own_nodes(func):
    """The nodes of `func`'s body, not those of the functions and classes defined in it."""
    todo = list(func.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def _self_attr(node) -> str | None:
    """`ATTR` of `self.ATTR`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _group_of(node, match: str, groups: dict[str, int]) -> int | None:
    """The group index `node` reads of the match: `match.group(i)` (`group()`: 0), or a name bound to one."""
    if isinstance(node, ast.Name):
        return groups.get(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "group" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == match and len(node.args) <= 1:
        if not node.args:
            return 0
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and type(arg.value) is int:
            return arg.value
    return None


def _looked_up(func, match: str, params: list[str]) -> tuple[int, str] | None:
    """(group, parameter) when the replacement function looks its match's group up in a parameter
    of the method: `fields.get(match.group(1), ...)`, `fields[key]` with `key = match.group(1)`."""
    groups: dict[str, int] = {}
    body = [func.body] if isinstance(func, ast.Lambda) else func.body
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            g = _group_of(stmt.value, match, {})
            if g is not None:
                groups[stmt.targets[0].id] = g
    for n in ast.walk(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args:
            holder, key = n.func.value, n.args[0]
        elif isinstance(n, ast.Subscript):
            holder, key = n.value, n.slice
        else:
            continue
        g = _group_of(key, match, groups)
        if g is not None and isinstance(holder, ast.Name) and holder.id in params:
            return g, holder.id
    return None


def _returns_fill(fn, node, call) -> bool:
    """True when every `return` of the method returns the substitution `call`: the call itself,
    the name it is bound to, or that name handed to a clean-up method of the class
    (`self._remove_empty_placeholders(prompt)`)."""
    bound = {t.id for s in _own_nodes(node) if isinstance(s, ast.Assign) and s.value is call
             for t in s.targets if isinstance(t, ast.Name)}
    returns = [s for s in _own_nodes(node) if isinstance(s, ast.Return)]
    if not returns:
        return False
    for r in returns:
        v = r.value
        if v is call or isinstance(v, ast.Name) and v.id in bound:
            continue
        if isinstance(v, ast.Call) and len(v.args) == 1 and not v.keywords and isinstance(v.args[0], ast.Name) \
                and v.args[0].id in bound and _self_attr(v.func) is not None and _cleanup(fn, _self_attr(v.func)):
            continue
        return False
    return True


def _cleanup(fn, name: str) -> bool:
    """True for a method `name` of the class with one parameter whose every return is that
    parameter, or a join or trim (`"\\n".join(lines)`, `text.strip()`)."""
    method = next((s for s in fn.cls.body if isinstance(s, _FUNCS) and s.name == name), None)
    if method is None or len(method.args.args) != 2:
        return False
    param = method.args.args[1].arg
    returns = [s.value for s in _own_nodes(method) if isinstance(s, ast.Return)]
    return bool(returns) and all(
        isinstance(v, ast.Name) and v.id == param
        or isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _CLEANUPS
        for v in returns)


def fill_call(ev, fn, base, node, args, kwargs, frame, env) -> Value | None:
    """The text a call of a fill method gives (module docstring), or None."""
    shape = fill_shape(fn)
    if shape is None:
        return None
    attr, pattern, group, param = shape
    a = fn.node.args
    values = None
    if a.kwarg is not None and a.kwarg.arg == param:
        if args or any(k.arg is None for k in node.keywords):
            return None
        values = {k: ev.eval(v, frame, env) for k, v in kwargs.items()}
    else:
        names = [p.arg for p in [*a.posonlyargs, *a.args][1:]]
        given = args[names.index(param)] if param in names and names.index(param) < len(args) else kwargs.get(param)
        if given is None or isinstance(given, ast.Starred):
            return None
        mapping = ev.eval(given, frame, env)
        if not isinstance(mapping, Mapping) or mapping.repeated or mapping.open:
            return None
        values = mapping.items
    template = ev.attr_of(base, attr, node.func, frame)
    if not isinstance(template, (Text, Alt)):
        return None
    return keyed_sub(ev, template, pattern, group, values, node, frame)


def fills(ev, node, frame) -> bool:
    """True when `node` is a call of a fill method (`PromptTemplate.from_string(T).generate_prompt({...})`,
    `self.template.fill(values)`): its receiver read as an instance of a class of the tree (or the
    class) whose method of that name is one (module docstring)."""
    from .values import ClassRef, Func, Obj
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    base = ev.eval(node.func.value, frame)
    if not (isinstance(base, ClassRef) or isinstance(base, Obj) and base.qualname.startswith(("self:", "instance:"))):
        return False
    member = ev.attr_of(base, node.func.attr, node.func, frame)
    return isinstance(member, Func) and fill_shape(member) is not None
