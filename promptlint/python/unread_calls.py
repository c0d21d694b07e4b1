"""Calls on one line that have the name of an SDK's request but were not read as one, and the facts
of the code that say why (for `promptlint explain FILE:LINE` where no prompt was found).

Read from the file's syntax tree alone, at the user's request: the call's text, the SDKs whose call
shapes have its name, whether one of those shapes matches the call as written, and what its receiver
and its prompt-carrying arguments are in the code (a parameter, a name assigned at a line, a
`**mapping`). States facts only; nothing is evaluated and no value is guessed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .flow.binding_syntax import params_of
from . import sdks
from .walk import subtree

#: Keyword arguments that carry a request's text (messages, body, prompt) in the call shapes.
_CONTENT_KEYWORDS = ("messages", "json", "data", "content", "input", "prompt", "contents", "system", "instructions")
_MAX_CODE = 60  # characters of a call's or an expression's text shown


@dataclass
class UnreadCall:
    """A call at the asked line whose callee name (`name`) is one of the call shapes of `sdks`
    (display names, registry order): `code` its text (shortened), `row` / `column` its 1-based
    start, `matched`: True when one of those shapes matches the call as written (its build then
    read no request), `reasons`: the facts of the code, one short clause each."""

    code: str
    row: int
    column: int
    name: str
    sdks: list[str]
    matched: bool
    reasons: list[str] = field(default_factory=list)


def unread_calls(module, line: int) -> list[UnreadCall]:
    """The calls starting on `line` of `module` (python/module.Module) whose last name is a call
    shape's name, in source order (outer calls first)."""
    found = []
    for node in subtree(module.tree):
        if not isinstance(node, ast.Call) or node.lineno != line:
            continue
        name = _name(module, node)
        shapes = sdks.shapes_for(name) if name else []
        if not shapes:
            continue
        owners = [sdk for sdk in sdks.SDKS if any(s in shapes for s in sdk.shapes)]
        call = sdks.Call.of(module, node)
        matched = any(_matches(shape, call) for shape in shapes)
        func = _enclosing(module.tree, node)
        names = [sdks.DISPLAY_NAMES.get(s.name, s.name) for s in owners]  # (OpenAI's two shapes: one name)
        names = [n for n in names if not (n.endswith(" (before 1.0)") and n[:-13] in names)]
        reasons = _reasons(module, node, func, matched, " or ".join(names))
        own = [s.unread for s in shapes if s.unread] if not matched and _imported_from(call, owners) else []
        if own:  # the SDK's own callee, written in a form that holds no prompt (`GenerativeModel(model_name=m)`)
            reasons = [r for r in reasons if not r.startswith("its receiver ")] + own
        elif call.origin is not None and not _imported_from(call, owners):  # another's class of that name
            roots = ", ".join(f"`{root}`" for sdk in owners for root in sdk.imports)
            where = f"imported from `{call.origin.rsplit('.', 1)[0]}`" if call.origin else "defined in this file"
            reasons = [f"`{name}` is {where}, not imported from {roots}: promptlint does not read its requests"]
        found.append(UnreadCall(code=_short(module.code(node)), row=node.lineno, column=node.col_offset + 1, name=name,
                                sdks=names, matched=matched, reasons=reasons))
    return sorted(found, key=lambda c: (c.row, c.column))


def _imported_from(call, owners) -> bool:
    """True when the callee is a name imported from one of the SDKs `owners` (`genai.GenerativeModel`
    with `import google.generativeai as genai`)."""
    origin = call.origin or ""
    return any(origin == root or origin.startswith(root + ".") for sdk in owners for root in sdk.imports)


def at_line(path, filename: str | None, line: int | None) -> list[str]:
    """`describe` of the unread calls at `line` of the Python file `path` (shown as `filename`);
    [] for another file, no line, or a file that cannot be read or parsed."""
    from .module import load
    from .parsing import ParseError
    from ..source import SourceError, read_python
    if line is None or filename is None or not path.is_file() or path.suffix != ".py":
        return []
    try:
        return describe(unread_calls(load(path, read_python(path), filename=filename), line), filename)
    except (SourceError, ParseError, ValueError, RecursionError):
        return []


def describe(calls: list[UnreadCall], filename: str) -> list[str]:
    """Two lines per call: what it is, then why it was not read (the facts)."""
    lines = []
    for c in calls:
        who = " or ".join(c.sdks)
        lines.append(f"{filename}:{c.row}:{c.column}: `{c.code}` is named like a call of {who} that sends or "
                     f"builds a prompt (`{c.name}`) but was not read as one")
        if c.reasons:
            lines.append("  " + "; ".join(c.reasons))
    return lines


def built_receivers(path, filename: str | None, line: int | None) -> list[tuple[str, int]]:
    """For each method call starting on `line` of the Python file `path` whose receiver is a
    name (or an attribute of `self`) last assigned from a call on another line (`agent =
    Agent(...)`, then `agent.run_sync(question)`: a framework's send method, whose prompt is read
    where the object is built): (the call's text, the row of that call). [] for another file, no
    line, or a file that cannot be read or parsed."""
    from .module import load
    from .parsing import ParseError
    from ..source import SourceError, read_python
    if line is None or filename is None or not path.is_file() or path.suffix != ".py":
        return []
    try:
        module = load(path, read_python(path), filename=filename)
    except (SourceError, ParseError, ValueError, RecursionError, OSError):
        return []
    out = []
    for node in subtree(module.tree):
        if not (isinstance(node, ast.Call) and node.lineno == line and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        func = _enclosing(module.tree, node)
        if isinstance(receiver, ast.Name):
            scopes = [func, module.tree] if func is not None else [module.tree]
            sets = next((found for found in (_assigned(scope, receiver.id, line, scope is module.tree) for scope in scopes)
                         if found), [])
        elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
            sets = [n for n in subtree(module.tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
                    and any(_is_self_attr(t, receiver.attr) for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        else:
            continue
        if sets and isinstance(sets[-1].value, ast.Call) and sets[-1].value.lineno != line:
            out.append((_short(module.code(node)), sets[-1].value.lineno))
    return out


def receivers_prompts(layouts, path, filename: str | None, line: int | None) -> tuple[list, list[str]]:
    """The requests of `layouts` (model.PromptLayout) read where the receivers of the calls at
    `line` are built (`built_receivers`), and for each such call a line saying so: ([], []) when
    there is none."""
    found, said = [], []
    for code, row in built_receivers(path, filename, line):
        built = [lay for lay in layouts if lay.source == "python-call" and lay.site.filename == filename
                 and lay.site.start.row == row and lay not in found]
        found += built
        if built:
            said.append(f"{filename}:{line}: `{code}` sends the prompt of the object built at line {row}, drawn below")
    return found, said


def _assigned(scope, name: str, before: int, top: bool) -> list:
    """The assignments of `name` in `scope` before line `before` (only the module's own
    statements when `top`), in line order."""
    nodes = scope.body if top else list(subtree(scope))
    return sorted((n for n in nodes if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
                   and n.lineno < before and any(_binds(t, name) for t in (
                       n.targets if isinstance(n, ast.Assign) else [n.target]))), key=lambda n: n.lineno)


def unread_parts(layouts, path, filename: str | None) -> list[str]:
    """For each request of `layouts` (model.PromptLayout) sent from the file `path` (shown as
    `filename`) of which no part was read (python/sdks matched the call, but it has no part): a
    line saying so and the facts of its arguments ('its keywords come from `**parameters` (which is
    the parameter ...)'); [] when there is none or the file cannot be read."""
    from .module import load
    from .parsing import ParseError
    from ..source import SourceError, read_python
    rows = [lt.site.start.row for lt in layouts if lt.source == "python-call" and lt.site.filename == filename
            and not any(part.segments for part in lt.parts)]
    if not rows or filename is None:
        return []
    try:
        module = load(path, read_python(path), filename=filename)
    except (SourceError, ParseError, ValueError, RecursionError, OSError):
        return []
    lines = []
    for row in rows:
        for c in unread_calls(module, row):
            if c.matched and c.reasons != ["it has the form of one, but what it sends was not read"]:
                lines.append(f"{filename}:{c.row}: nothing of `{c.code}` was read: " + "; ".join(c.reasons))
    return lines


def _name(module, node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return module.imports.get(func.id, func.id).rsplit(".", 1)[-1]
    return None


def _matches(shape, call) -> bool:
    try:
        return bool(shape.matches(call))
    except Exception:  # a matcher that needs a frame: not stated
        return False


def _reasons(module, node: ast.Call, func, matched: bool, who: str) -> list[str]:
    reasons = []
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if receiver is not None:
        said = _describe(module, receiver, func)
        if said is not None and not matched:
            reasons.append(f"its receiver `{_short(module.code(receiver))}` {said}, not known to be a client of {who}")
        elif said is not None:
            reasons.append(f"its receiver `{_short(module.code(receiver))}` {said}")
    for kw in node.keywords:
        if kw.arg is None:
            keys = _dict_keys(module, kw.value, func)
            if keys is not None:
                reasons.append(f"its keywords come from `**{_short(module.code(kw.value))}`, {keys}")
                continue
            said = _describe(module, kw.value, func)
            reasons.append(f"its keywords come from `**{_short(module.code(kw.value))}`"
                           + (f" (which {said})" if said else "") + ", whose keys are not written at the call")
    shown = [kw for kw in node.keywords if kw.arg in _CONTENT_KEYWORDS]
    items = [(f"its `{kw.arg}=` argument", kw.value) for kw in shown] + [("its first argument", a) for a in node.args[:1]
                                                             if not isinstance(a, ast.Starred)]
    for what, value in items:
        said = _describe(module, value, func)
        if said is not None:
            reasons.append(f"{what} `{_short(module.code(value))}` {said}")
    starred = [a for a in node.args if isinstance(a, ast.Starred)]
    if starred:
        reasons.append(f"its arguments come from `*{_short(module.code(starred[0].value))}`, not written at the call")
    if matched and not reasons:
        reasons.append("it has the form of one, but what it sends was not read")
    return reasons


def _describe(module, expr: ast.expr, func) -> str | None:
    """What the code says `expr` is: 'is the parameter `x` of `f` (annotated `T`)', 'is assigned at line
    12 from `...`', 'is the module `requests`', 'is set at line 30 from `...`' (an attribute of `self`);
    None when the code says nothing cheap of it (an expression, a name bound elsewhere)."""
    if isinstance(expr, ast.Name):
        if func is not None:
            for arg in params_of(func):
                if arg.arg == expr.id:
                    note = f" (annotated `{_short(module.code(arg.annotation))}`)" if arg.annotation is not None else ""
                    return f"is the parameter `{expr.id}` of `{func.name}`{note}"
            bound = _last_binding(module, func, expr.id, expr.lineno)
            if bound is not None:
                return bound
        imported = module.imports.get(expr.id) or module.late_import(expr.id, expr)
        if imported is not None:
            return f"is the module `{imported}`" if imported == expr.id or "." not in imported \
                else f"is imported as `{imported}`"
        return _last_binding(module, module.tree, expr.id, expr.lineno, top=True)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        sets = [n for n in subtree(module.tree) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
                and any(_is_self_attr(t, expr.attr) for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if sets:
            last = sets[-1]
            return f"is set at line {last.lineno} from `{_short(module.code(last.value))}`"
        return "is an attribute set nowhere in this file"
    return None


def _last_binding(module, scope, name: str, before: int, top: bool = False) -> str | None:
    """'is assigned at line N from `...`' (or 'at lines N, M from `...`, `...`' for several, branches
    of an `if`) for the assignments of `name` in `scope` before line `before` (only the module's own
    statements when `top`); None when there is none."""
    nodes = scope.body if top else list(subtree(scope))
    found = sorted((n for n in nodes if (
        isinstance(n, ast.Assign) and any(_binds(t, name) for t in n.targets)
        or isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name
        and n.value is not None) and n.lineno < before), key=lambda n: n.lineno)[-3:]
    if not found:
        return None
    unpacked = " (unpacked)" if any(isinstance(n, ast.Assign) and not any(
        isinstance(t, ast.Name) and t.id == name for t in n.targets) for n in found) else ""
    rows = ", ".join(str(n.lineno) for n in found)
    values = ", ".join(f"`{_short(module.code(n.value))}`" for n in found)
    return f"is assigned at line{'s' if len(found) > 1 else ''} {rows} from {values}{unpacked}"


def _binds(target, name: str) -> bool:
    """True when assigning to `target` binds `name` (also within a tuple or list unpacked)."""
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(e, name) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


def _dict_keys(module, expr: ast.expr, func) -> str | None:
    """'a dict written at line 12 with the keys `messages`, `model`' when `expr` is a dict literal or a
    name whose last assignment before it (in `func`) is one with string keys only; else None."""
    value, row = expr, expr.lineno
    if isinstance(expr, ast.Name) and func is not None:
        found = [n for n in subtree(func) if isinstance(n, ast.Assign) and n.lineno < expr.lineno
                 and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
        if not found:
            return None
        best = max(found, key=lambda n: n.lineno)
        value, row = best.value, best.lineno
    if not isinstance(value, ast.Dict) or not value.keys or not all(
            k is None or isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
        return None
    written = [f"`{k.value}`" for k in value.keys if k is not None]
    keys = ", ".join(written[:5]) + (", ..." if len(written) > 5 else "")
    spread = [f"`**{_short(module.code(v))}`" for k, v in zip(value.keys, value.values) if k is None]
    return f"a dict written at line {row}" + (f" with the keys {keys}" if written else "") + (
        f" and the keys of {', '.join(spread)}" if spread else "")


def _is_self_attr(target, attr: str) -> bool:
    return isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
        and target.value.id == "self"


def _enclosing(tree, node):
    """The innermost function holding `node`, or None."""
    best = None
    for n in subtree(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= node.lineno <= (n.end_lineno or 0) \
                and any(c is node for c in subtree(n)):
            if best is None or n.lineno >= best.lineno:
                best = n
    return best


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= _MAX_CODE else one[:_MAX_CODE - 3] + "..."
