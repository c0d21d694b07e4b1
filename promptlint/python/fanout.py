"""Fan-out: one function called several times with the same large value and a different
instruction, which it writes into the prompt's text before that value.

`def _request_goal(git_diff, goal): prompt = f"{goal}\\n\\n{git_diff}"; return ask([prompt])`,
called `for check in checks: _request_goal(git_diff, goal=check["goal"])`, sends one request per
check, each with the same diff after another goal: the requests share nothing after their first
bytes, so the diff, usually the largest part of each, is processed uncached every time. The
evidence is in the code of the callers, not in names: a call made once per element of a loop
whose element the first argument reads and the second does not (nor does the loop rebind what
the second reads), or several calls in one function that pass the same name for the second and
different arguments for the first (`ask(doc, "Summarize")`, `ask(doc, "List the risks")`), none
of them excluding another (branches of one `if`, a `try` and its handler, a call after a
`return` of the first).

Facts only (`fanouts`, called by the layout builder for a request): for two values of the
request's text written in one function from its parameters (a name of the parameter at the
place the segment enters the text), the first placed before the second, the `model.Fanout`
that says so, when that function sends the request in each call (the request's own function,
or one whose parameters the request's text was read from: not one whose return value was read,
which may be joined with others into one request). Not for a second argument written as a
literal (short text the code shows: no document), nor for a parameter named as the user's
message (the request's own question, the same across the calls of one request only).
PRM106 judges them.
"""
from __future__ import annotations

import ast
import string

from .. import classify
from ..model import Fanout, Kind, Span
from .flow.callers import argument_node, call_sites
from .flow.per_call import element_loop
from .loop_values import rebinds
from .strings import Piece
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_EXCLUSIVE = {ast.If: ("body", "orelse"), ast.Try: ("body", "handlers", "orelse")}


def _functions(module) -> list[tuple[ast.AST, ast.ClassDef | None]]:
    """(function, the class it is a method of or None) of every function of `module`, read once."""
    key = ("fanout functions",)
    found = module._pieces.get(key)
    if found is None:
        out = []
        def walk(node, cls):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, _FUNCS):
                    out.append((child, cls))
                    walk(child, None)
                elif isinstance(child, ast.ClassDef):
                    walk(child, child)
                else:
                    walk(child, cls if not isinstance(node, _FUNCS) else None)
        walk(module.tree, None)
        found = module._pieces[key] = (None, out)
    return found[1]


def _params(func) -> set[str]:
    a = func.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} - {"self", "cls"}


def _within(inner: Span, outer: Span) -> bool:
    return inner.filename == outer.filename and outer.start <= inner.start and inner.end <= outer.end


def _holder(module, span: Span):
    """(function, class) of the innermost function of `module` around `span`, or None."""
    holding = [(f, c) for f, c in _functions(module) if _within(span, module.span(f))]
    return max(holding, key=lambda fc: fc[0].lineno) if holding else None


def _template(module, node) -> tuple[str, Span] | None:
    """The text and span of a `.format` template: a string literal, or a module-level name bound
    once to one (`PROMPT.format(...)`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, module.span(node)
    if isinstance(node, ast.Name):
        bound = [st.value for st in module.tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1
                 and isinstance(st.targets[0], ast.Name) and st.targets[0].id == node.id]
        if len(bound) == 1 and isinstance(bound[0], ast.Constant) and isinstance(bound[0].value, str):
            return bound[0].value, module.span(bound[0])
    return None


def _fields(text: str) -> list[str]:
    try:
        return [f.split(".")[0].split("[")[0] for _lit, f, _spec, _conv in string.Formatter().parse(text) if f]
    except ValueError:
        return []


def _texts(module, func) -> list[tuple[list[Span], list[tuple[str, Span]]]]:
    """The texts `func` writes with its parameters in them: (the spans that hold their text, the
    parameters in the order the text places them, each with where it enters): f-strings, `+` of
    pieces, `.format(...)` of a template (a literal, or a module constant) with keyword arguments
    that are parameters."""
    names = _params(func)
    out = []
    for node in ast.walk(func):
        if isinstance(node, ast.JoinedStr):
            out.append(([module.span(node)], _fields_of(module, node, names)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and not _added(node, func):
            leaves = _leaves(node)
            placed = [(x.id, module.span(x)) for x in leaves if isinstance(x, ast.Name) and x.id in names]
            if any(isinstance(x, (ast.Constant, ast.JoinedStr)) for x in leaves):
                out.append(([module.span(node)], placed))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            found = _template(module, node.func.value)
            if found is None:
                continue
            text, where = found
            given = {k.arg: k.value for k in node.keywords if k.arg}
            placed = [(given[f].id, module.span(given[f])) for f in _fields(text)
                      if isinstance(given.get(f), ast.Name) and given[f].id in names]
            out.append(([where, module.span(node)], placed))
    return [(spans, placed) for spans, placed in out if len({n for n, _ in placed}) >= 2]


def _fields_of(module, node: ast.JoinedStr, names: set[str]) -> list[tuple[str, Span]]:
    """The parameters (`names`) an f-string writes as a whole field (`{goal}`), in order, each with
    the span of its field as the evaluator places it (`Module.pieces`)."""
    pieces = module.pieces(node)
    if pieces is None:
        return []
    out = []
    for p in pieces:
        if isinstance(p, Piece):
            continue
        expr = module.field_expr(p)
        if isinstance(expr, ast.Name) and expr.id in names:
            out.append((expr.id, module.span_of(p.start, p.end)))
    return out


def _leaves(node) -> list:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _leaves(node.left) + _leaves(node.right)
    return [node]


def _added(node, func) -> bool:
    """True for a `+` inside another `+` (its leaves are read with the outer one)."""
    for n in ast.walk(func):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and (n.left is node or n.right is node):
            return True
    return False


def _reads(node, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in subtree(node))


def _literal(node) -> bool:
    """A constant or an f-string of constants only (text the code shows)."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values)


def _loop_evidence(module, caller, call, a_arg, b_arg) -> bool:
    """True when `call` is made once per element of a loop (or comprehension) of `caller` whose
    element `a_arg` reads and `b_arg` does not, the loop not rebinding what `b_arg` reads, over
    more than one element (a literal list of one is one call)."""
    loop = element_loop(module, caller, call)
    if loop is None:
        return False
    names, iterable, stmt = loop
    if not _reads(a_arg, names) or _reads(b_arg, names):
        return False
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)) and len(iterable.elts) < 2:
        return False
    return not (isinstance(stmt, (ast.For, ast.AsyncFor)) and rebinds(stmt, b_arg))


def _chain(parents: dict, node, top) -> list[tuple[ast.AST, str]]:
    """(compound statement, the field of it that holds `node`) from `node` up to `top`."""
    out = []
    while node in parents and node is not top:
        parent = parents[node]
        for name in _EXCLUSIVE.get(type(parent), ()):
            held = getattr(parent, name, [])
            if node in held:
                out.append((parent, name))
        node = parent
    return out


def _parents(top) -> dict:
    out = {}
    for node in ast.walk(top):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _exclusive(caller, calls: list[ast.Call]) -> bool:
    """True when two of `calls` (in `caller`) never both run: in different branches of one `if`,
    in a `try` and its handler, or the first one returned or raised without the others (the later
    one is another run)."""
    parents = _parents(caller)
    chains = [dict((id(s), f) for s, f in _chain(parents, c, caller)) for c in calls]
    for i, a in enumerate(chains):
        for b in chains[i + 1:]:
            if any(k in b and b[k] != f for k, f in a.items()):
                return True
    first = min(calls, key=lambda c: (c.lineno, c.col_offset))
    node = first
    while node in parents and node is not caller:
        node = parents[node]
        if isinstance(node, (ast.Return, ast.Raise)):
            inside = {id(n) for n in ast.walk(node)}
            return not all(id(c) in inside for c in calls)  # (`return ask(a, doc), ask(b, doc)`: both run)
    return False


def _assigned_between(caller, name: str, first: int, last: int) -> bool:
    """True when `caller` binds `name` (the root of a shared argument) on a row in [first, last]."""
    for n in ast.walk(caller):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name and first <= n.lineno <= last:
            return True
    return False


def _root(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _calls_evidence(group: list, a: str, b: str, func, method: bool):
    """The calls of `group` (all in one function) that pass the same name for `b` and different
    arguments for `a`, when there are two or more of them that may all run; else None."""
    by_shared: dict[str, list] = {}
    for call in group:
        a_arg, b_arg = argument_node(func, call, a, method), argument_node(func, call, b, method)
        if a_arg is None or b_arg is None or _literal(b_arg) or _root(b_arg) is None:
            continue
        if not isinstance(b_arg, (ast.Name, ast.Attribute)):
            continue
        by_shared.setdefault(ast.dump(b_arg), []).append((call, a_arg, b_arg))
    for found in by_shared.values():
        if len(found) < 2 or len({ast.dump(x[1]) for x in found}) < 2:
            continue
        return found
    return None


def _evidence(ev, module, func, cls, a: str, b: str):
    """(how, the call, its module, its caller, the shared argument, the number of calls) when
    the callers of `func` show that `a` differs between calls that share `b`, else None."""
    sites = call_sites(ev, module, func, cls)
    if not sites:
        return None
    method = cls is not None
    for site_module, call, caller, _c in sites:
        a_arg, b_arg = argument_node(func, call, a, method), argument_node(func, call, b, method)
        if a_arg is None or b_arg is None or _literal(b_arg):
            continue
        if _loop_evidence(site_module, caller, call, a_arg, b_arg):
            return "loop", call, site_module, caller, b_arg, 0
    groups: dict[tuple, list] = {}
    for site_module, call, caller, c in sites:
        if caller is not None:
            groups.setdefault((id(site_module), id(caller)), []).append((site_module, call, caller, c))
    for group in groups.values():
        site_module, _call, caller, _c = group[0]
        found = _calls_evidence([g[1] for g in group], a, b, func, method)
        if found is None:
            continue
        calls = [x[0] for x in found]
        rows = sorted(c.lineno for c in calls)
        if _exclusive(caller, calls) or _assigned_between(caller, _root(found[0][2]), rows[0], rows[-1]):
            continue
        first = min(found, key=lambda x: (x[0].lineno, x[0].col_offset))
        return "calls", first[0], site_module, caller, first[2], len(found)
    return None


def _shared_tokens(ev, module, caller, cls, arg) -> int | None:
    """The o200k tokens of the value `arg` (read in `caller`) when its whole text is known."""
    from ..tokens import count
    from .flow.values import Text
    try:
        frame = ev.module_frame(module) if caller is None else ev.unbound_frame(module, caller, cls, 1, None)
        value = ev.eval(arg, frame)
    except Exception:  # (the evaluator's budget or a shape it does not read: the size is not known)
        return None
    if not isinstance(value, Text) or not value.segs or not all(s.is_static for s in value.segs):
        return None
    return count("".join(s.text for s in value.segs))


def _user_named(name: str) -> bool:
    found = classify.classify_name(name)
    return found is not None and found[0] is Kind.USER_INPUT


def fanouts(ev, parts, site_module, site: Span) -> list[Fanout]:
    """The `Fanout`s of a request sent at `site` of `site_module`, whose request-order `parts` are
    given (the evaluator `ev` has just read them: its `reached_funcs` are the functions whose
    return values were read to build it, whose calls need not each send a request)."""
    reached = {id(fn) for _m, fn in ev.reached_funcs}
    holding = _holder(site_module, site)
    site_func = holding[0] if holding else None
    placed = []  # (part index, segment index, segment) of the request's own parts with a place
    for pi, part in enumerate(parts):
        if part.is_history or part.role == "tools":
            continue
        placed += [(pi, si, seg) for si, seg in enumerate(part.segments) if seg.span is not None]
    funcs = {}  # id(function) -> (module, function, class): the functions that write its text
    modules = {site_module.filename: site_module}
    for _pi, _si, seg in placed:
        name = seg.span.filename
        module = modules[name] if name in modules else modules.setdefault(name, ev.project.held_named(name))
        found = _holder(module, seg.span) if module is not None else None
        if found is not None and id(found[0]) not in funcs:
            funcs[id(found[0])] = (module, *found)
    asked = {key: names for key, (_m, _f, _c, names) in ev.asked.items()}
    for key, (module, func, cls, names) in ev.asked.items():
        if key not in funcs and len(names) >= 2:
            funcs[key] = (module, func, cls)  # (its text reached the request, merged with other callers')
    out: list[Fanout] = []
    for module, func, cls in funcs.values():
        if func is not site_func and id(func) in reached:
            continue  # (its return value was read: its calls need not each send a request)
        fan = _fanout(ev, module, func, cls, placed, parts, asked.get(id(func), set()))
        if fan is not None:
            out.append(fan)
    return out


def _fanout(ev, module, func, cls, placed, parts, asked: set[str]) -> Fanout | None:
    """The first `Fanout` of a text of `func` that the request holds (`placed`: a segment of it
    inside one of the text's spans; or, merged away with the texts of other callers of a wrapper,
    one whose parameters' callers were read for it, `asked`: it is then placed at the start of the
    request's last user message, else of its first part that is not the tools), or None."""
    for spans, order in _texts(module, func):
        inside = [(pi, si, seg) for pi, si, seg in placed if any(_within(seg.span, sp) for sp in spans)]
        if not inside:
            if not {n for n, _ in order} <= asked:
                continue
            own = [pi for pi, part in enumerate(parts) if part.role != "tools" and not part.is_history]
            users = [pi for pi in own if parts[pi].role == "user"]
            if not own:
                continue
            inside = [((users or own)[-1 if users else 0], 0, None)]
        eaches = {seg.each for _pi, _si, seg in inside if seg is not None and seg.each is not None}
        if any(seg is not None and seg.same is not None and seg.same in eaches for _pi, _si, seg in inside):
            continue  # (a value of each pass before text the same in every pass: PRM101 judges it)
        for i, (a, a_span) in enumerate(order):
            for b, b_span in order[i + 1:]:
                if b == a or _user_named(b):
                    continue
                found = _evidence(ev, module, func, cls, a, b)
                if found is None:
                    continue
                how, call, call_module, caller, b_arg, calls = found
                pi, si, _seg = inside[0]
                return Fanout(varying=a_span, shared=b_span, builder=func.name, varying_name=a, shared_name=b,
                              how=how, evidence=call_module.span(call), shared_expr=call_module.code(b_arg),
                              calls=calls, shared_tokens=_shared_tokens(ev, call_module, caller, None, b_arg),
                              part=pi, at=si)
    return None
