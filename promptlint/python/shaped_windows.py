"""A list known as the conversation by what it holds, cut to its newest items and kept: facts for
PRM105 (the rule judges them).

The other window finders know the conversation by its name (`history[-k:]`, `self.messages`).
A memory class, a store or a context object often keeps it under another name (`record_dicts`,
`nodes`, `self._items`) and hands it back to whatever sends it, in another module or package, so
no request of the module holds the window. Here the list is the conversation by facts of the
function that cuts it:

- its items are read by their role (`record["role"]`, `m.role`, `m.get("role")`, a key named for
  one, `records[0]["role_at_backend"]`), on the list, on what it was taken from
  (`sliding = records[start:]`) or on the items of the window;
- the function is annotated to return messages (`-> List[BaseMessage]`, `-> list[ChatMessage]`)
  and hands the window back;
- a parameter it was taken from is annotated as messages (`items: list[ChatItem]`);
- it is a list the instance keeps (`self._items`) whose items another method of the class reads by
  their role (`for i, item in enumerate(self._items): ... item.role in ("system", "developer")`).

A window is a slice from the end, `xs[-k:]` (also `xs[::-1][:k][::-1]`, the same newest `k` in
time order), `k` not a constant of one or two (the last answer looked up) and not `len(...)` (the
items just added). It is kept when what is made from it reaches a `return` (or `yield`) of the
function or is written on the instance (`self._items[:] = kept`, `self.history = kept`): through
names assigned from it, a list display or `+` holding it, a comprehension over it, a conversion of
it (`list(...)`, `reversed(...)`), a loop over it that appends to another list. Text made from it
(`"\\n".join(...)`, an f-string) is not kept here: a cut rendered into text is judged where a
request carries that text. A function named for building a summary's input is left out (a one-shot
summarizer reads it), as is a slice already inside a prompt the module records (judged there) and
one whose count is a parameter named as a window of the history (`runs[-last_n_runs:]`: reported
where the calls give it, `python/history_loads.py`); so is a function that pages through what is
stored (a `before=`, `cursor=` or `offset=` parameter: a listing for a UI or an API) or searches it
(a `query=` or `needle=` parameter: the newest results of a search), or is annotated
to hand back no messages (`-> list[str]`: names taken from the newest messages).
"""
from __future__ import annotations

import ast
import re

from .history_loads import window_keyword
from .prompt_names import summary_input_named
from .walk import outer_functions, own_nodes

#: Text of a message type in an annotation (`List[BaseMessage]`, `list[ChatItem]`, `Sequence[AnyMessage]`).
_MESSAGE_TYPE = re.compile(r"\w*Message\b|\bChatItem\b|\bMessageParam\b")
#: Calls that read a value without keeping it (what they return is no list of the items).
_READERS = frozenset({"len", "print", "str", "repr", "sum", "any", "all", "bool", "int", "id", "hash", "isinstance",
                      "type", "max", "min"})
#: Calls that keep the items (their result is the list, in another form or order).
_CONVERTERS = frozenset({"list", "tuple", "reversed", "sorted", "filter", "deque", "copy", "deepcopy"})
#: Parameters of a read that pages through what is stored (a listing for a UI or an API).
_PAGING = frozenset({"before", "after", "before_id", "after_id", "cursor", "offset", "page", "page_size",
                     "page_token",
                     "needle", "query", "search", "keyword", "keywords", "pattern"})  # (the newest results of a search)
#: A returned type that holds no messages (`list[str]`, `int`, `set[str]`).
_SCALARS = re.compile(r"(?:(?:typing\.)?(?:list|List|set|Set|tuple|Tuple|Sequence|Iterable)\[\s*)?"
                      r"(?:str|int|float|bool|bytes)(?:\s*,\s*\.\.\.)?\s*\]?")
#: The methods that add to a list.
_ADDS = frozenset({"append", "extend", "insert", "appendleft"})


def might_hold(source: str) -> bool:
    """The text test: a slice from the end (`[-`), or a list turned around (`[::-1]`)."""
    return "[-" in source or "[::-1]" in source


def shaped_windows(module, covered) -> list[tuple[ast.expr, str, str]]:
    """(window, how it is kept: "returned" | "kept", the evidence that the list is the conversation)
    for each window of `module` (a `Module` of `python/module.py`) that a function keeps, in source
    order; `covered(span)` is True for a span inside a prompt already recorded."""
    out = []
    for func, stack in outer_functions(module.tree):
        if summary_input_named(func.name):
            continue
        nodes = own_nodes(func)
        windows = [n for n in nodes if isinstance(n, ast.Subscript) and _window(n) is not None]
        if not windows:
            continue
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        if params & _PAGING or func.returns is not None and _SCALARS.fullmatch(ast.unparse(func.returns)):
            continue  # a page of a listing (a UI's, an API's), or what it hands back is no list of messages
        for window in windows:
            if covered(module.span(window)) or _chosen_by_callers(window, params):
                continue
            kept, tainted = _kept(func, nodes, window)
            if not kept:
                continue
            evidence = _evidence(func, nodes, window, tainted, kept) or _class_evidence(stack, func, nodes, window)
            if evidence:
                out.append((window, kept, evidence))
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _chosen_by_callers(window: ast.Subscript, params: set[str]) -> bool:
    """True for a count that is a parameter named as a window of the history (`runs[-last_n_runs:]`
    in `get_messages(self, last_n_runs=None)`): the calls that give it are where the window is
    chosen (`python/history_loads.py` reports them), one cause."""
    s = window.slice
    k = s.lower.operand if isinstance(s, ast.Slice) and isinstance(s.lower, ast.UnaryOp) else \
        window.value.slice.upper if isinstance(window.value, ast.Subscript) else None
    return isinstance(k, ast.Name) and k.id in params and window_keyword(k.id)


def _window(node: ast.Subscript) -> ast.expr | None:
    """The list `node` keeps the newest items of (`xs` of `xs[-k:]` or `xs[::-1][:k][::-1]`), else None."""
    s = node.slice
    if not isinstance(s, ast.Slice):
        return None
    if s.upper is None and s.step is None and isinstance(s.lower, ast.UnaryOp) and isinstance(s.lower.op, ast.USub):
        k = s.lower.operand
        if isinstance(k, ast.Constant) and not (isinstance(k.value, int) and k.value > 2):
            return None
        if isinstance(k, ast.Call) and isinstance(k.func, ast.Name) and k.func.id == "len":
            return None
        return node.value
    if _reversal(node) and isinstance(node.value, ast.Subscript) and isinstance(node.value.slice, ast.Slice):
        head = node.value  # `xs[::-1][:k][::-1]`
        h = head.slice
        if h.lower is None and h.step is None and h.upper is not None and not (
                isinstance(h.upper, ast.Constant) and not (isinstance(h.upper.value, int) and h.upper.value > 2)) \
                and isinstance(head.value, ast.Subscript) and _reversal(head.value):
            return head.value.value
    return None


def _reversal(node: ast.Subscript) -> bool:
    s = node.slice
    return isinstance(s, ast.Slice) and s.lower is None and s.upper is None and isinstance(s.step, ast.UnaryOp) \
        and isinstance(s.step.op, ast.USub) and isinstance(s.step.operand, ast.Constant) and s.step.operand.value == 1


def _key(node) -> str | None:
    """`x` for a name, `self.x` for an attribute of a name; else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _holds(value, tainted: set[str], window) -> bool:
    """True when `value` is (a list made from) the window or a tainted name: itself, awaited, in a
    list display or a side of `+`, a conversion of it, a branch of a conditional, or the iterable
    of a comprehension whose items are not text."""
    if value is window or _key(value) in tainted and isinstance(value, ast.Name):
        return True
    if isinstance(value, ast.Await):
        return _holds(value.value, tainted, window)
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(_holds(e.value if isinstance(e, ast.Starred) else e, tainted, window) for e in value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _holds(value.left, tainted, window) or _holds(value.right, tainted, window)
    if isinstance(value, ast.IfExp):
        return _holds(value.body, tainted, window) or _holds(value.orelse, tainted, window)
    if isinstance(value, ast.Call) and len(value.args) == 1 and isinstance(value.func, ast.Name) \
            and value.func.id in _CONVERTERS:
        return _holds(value.args[0], tainted, window)
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and not isinstance(value.elt, (ast.JoinedStr, ast.Constant)):
        return any(_holds(_iterated(g.iter), tainted, window) for g in value.generators)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        return _holds(value.value, tainted, window)  # a cut of the cut
    return False


def _iterated(node):
    """What a loop walks: `reversed(x)`, `enumerate(x)` and `list(x)` walk `x`."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "reversed", "enumerate", "list", "sorted") and node.args:
        node = node.args[0]
    return node


def _kept(func, nodes: list, window) -> tuple[str, set[str]]:
    """("returned" | "kept" | "", the local names made from the window) for `window` in `func`."""
    tainted: set[str] = set()
    kept = ""
    for _ in range(12):  # (passes until no name is added: names made from names made before)
        before = len(tainted)
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                if not _holds(node.value, tainted, window):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        tainted.add(target.id)
                    elif _on_instance(target):
                        kept = kept or "kept"
            elif isinstance(node, (ast.For, ast.AsyncFor)) and _holds(_iterated(node.iter), tainted, window):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                            and inner.func.attr in _ADDS and isinstance(inner.func.value, ast.Name) \
                            and not (inner.args and isinstance(inner.args[-1], (ast.JoinedStr, ast.Constant))):
                        tainted.add(inner.func.value.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend" \
                    and isinstance(node.func.value, ast.Name) and node.args and _holds(node.args[0], tainted, window):
                tainted.add(node.func.value.id)
        if len(tainted) == before:
            break
    if any(isinstance(node, (ast.Return, ast.Yield)) and node.value is not None and _holds(node.value, tainted, window)
           for node in nodes):
        kept = "returned"
    return kept, tainted


def _on_instance(target) -> bool:
    """True for `self.x`, `self.x[:]` or `self.x[key]`: a value kept on the instance."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def _sources(nodes: list, listed) -> set[str]:
    """The keys of the list `listed` and of what it was taken from (`sliding = records[start:]`:
    `records` too), at most three steps back."""
    found = {k for k in [_key(listed)] if k}
    for _ in range(3):
        more = set()
        for node in nodes:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in found for t in node.targets):
                base = node.value
                while isinstance(base, (ast.Subscript, ast.Await)) or isinstance(base, ast.Call) and isinstance(
                        base.func, ast.Name) and base.func.id in _CONVERTERS and base.args:
                    base = base.value if not isinstance(base, ast.Call) else base.args[0]
                key = _key(base)
                if key and key not in found:
                    more.add(key)
        if not more:
            break
        found |= more
    return found


def _evidence(func, nodes: list, window, tainted: set[str], kept: str) -> str:
    """Why the cut list is the conversation ("" when nothing says so)."""
    sources = _sources(nodes, _window(window))
    if _roles_read(nodes, sources, tainted, window):
        return "its items are read by their role"
    if kept == "returned" and func.returns is not None and _MESSAGE_TYPE.search(ast.unparse(func.returns)):
        return f"the function is annotated to return `{ast.unparse(func.returns)}`"
    for arg in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs):
        if arg.arg in sources and arg.annotation is not None and _MESSAGE_TYPE.search(ast.unparse(arg.annotation)):
            return f"`{arg.arg}` is annotated `{ast.unparse(arg.annotation)}`"
    return ""


def _roles_read(nodes: list, sources: set[str], tainted: set[str], window=None) -> bool:
    """True when `nodes` read the role of an item of a list of `sources` or `tainted` (or of the
    window): `records[0]["role"]`, or a walk over it reading `m.role` of its items."""
    walkers = set()  # the loop names of walks over the list, what it came from or the window's copies
    for node in nodes:
        loops = [(node.target, node.iter)] if isinstance(node, (ast.For, ast.AsyncFor)) else \
            [(g.target, g.iter) for g in node.generators] if isinstance(
                node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) else []
        for target, iterated in loops:
            walked = _iterated(iterated)
            if not (_key(walked) in sources or _key(walked) in tainted or walked is not None and walked is window):
                continue
            names = target.elts if isinstance(target, ast.Tuple) else [target]  # `for i, m in enumerate(xs)`
            walkers.update(n.id for n in names if isinstance(n, ast.Name))
    parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    for node in nodes:
        owner = _role_read(node)
        if owner is None or _other_role(parents.get(id(node)), node):
            continue
        if isinstance(owner, ast.Name) and owner.id in walkers:
            return True
        if isinstance(owner, ast.Subscript) and _key(owner.value) in sources:
            return True
    return False


def _class_evidence(stack: list, func, nodes: list, window) -> str:
    """For a window of a list the instance keeps (`self._items[-k:]`): "" unless another method of
    its class reads the role of that list's items (the class keeps a conversation)."""
    held = {k for k in _sources(nodes, _window(window)) if k.startswith("self.")}
    cls = stack[-2] if len(stack) > 1 and isinstance(stack[-2], ast.ClassDef) else None
    if not held or cls is None:
        return ""
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method is not func \
                and _roles_read(own_nodes(method), held, set()):
            return f"the class `{cls.name}` reads the role of the items of `{sorted(held)[0]}`"
    return ""


#: The roles of a conversation's messages across the chat APIs.
_MESSAGE_ROLES = frozenset({"system", "user", "assistant", "tool", "developer", "function", "model", "human", "ai",
                            "ipython"})


def _other_role(parent, read) -> bool:
    """True when the role read `read` is only compared with text constants none of which is a
    message's role (`user.role == "admin"`: a role of another kind of item)."""
    if not isinstance(parent, ast.Compare):
        return False
    others = [o for o in (parent.left, *parent.comparators) if o is not read]
    texts = []
    for other in others:
        items = other.elts if isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [other]
        if not all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
            return False
        texts += [i.value.lower() for i in items]
    return bool(texts) and not set(texts) & _MESSAGE_ROLES


def _role_read(node):
    """The value whose role `node` reads (`v["role"]`, `v["role_at_backend"]`, `v.role`,
    `v.get("role")`), else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str) and node.slice.value.startswith("role"):
        return node.value
    if isinstance(node, ast.Attribute) and node.attr == "role":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role":
        return node.func.value
    return None
