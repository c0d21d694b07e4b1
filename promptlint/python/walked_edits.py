"""Messages of the conversation a function is handed, edited in place as it walks them: facts for
PRM105 (the rule judges them).

A function handed the conversation (a parameter named for it, `messages`, or annotated as a list of
messages, `contents: list[types.Content]`) that walks it (`for i, m in enumerate(contents)`, `for m
in messages`, `for i in range(len(messages))`) and writes into what it walks (the caller's list at
the walk's index, `contents[i] = m.model_copy(...)`, `del messages[i]`, or a field of the walked
message itself, `m["output"]["image_url"] = ...`, while `m` is the caller's object and not a copy)
edits the history the caller keeps, which every later turn re-sends. Older messages then differ
from what the previous request sent, from the first one edited on, in two shapes:

- `picked`: the walk picks the messages it edits by their membership in a collection the caller
  hands in or the instance holds (`if skill_name in active_skills: continue`, `skill_name` read
  from the message): when the collection changes between calls, a message of the middle of the
  history is rewritten on that turn;
- `reprocessed`: a field of the message is written back from a call given what that same field
  holds, made by a method of an object the function holds (a parser, a model: not a function of the
  module, the class's own method, a library's function, `re.sub`, `json.loads`, nor a call named
  for validating, cleaning or formatting it, which gives back its own output unchanged) (`result = parser.parse(m["output"]["image_url"])`, then `m["output"]["image_url"] =
  result.image`): each call processes what the previous call wrote, so every such message, the
  oldest too, is sent changed on every turn unless that call gives back its own output unchanged.

Not one: a write into a copy (`m = dict(m)`, `m = m.copy()` before it), a loop that writes every
message the same way from what is not its own field (a format conversion), a test by the message's
own kind alone, and a write only to the newest message (`if i == len(messages) - 1`). The request
that sends the list is not followed here: the rule reports info where the message is written, the
walk as a related place.
"""
from __future__ import annotations

import ast
import re

from .flow.binding_syntax import param_names
from .module import statements
from .prompt_names import words
from .walk import subtree

_HISTORY = frozenset({"history", "messages", "msgs", "conversation", "transcript", "dialog", "dialogue", "turns"})
#: An annotation of a list of messages (`list[Message]`, `List[types.Content]`, `Sequence[BaseMessage]`).
_MESSAGES_TYPE = re.compile(r"(?:list|List|Sequence|Iterable)\[\s*(?:[\w.]+\.)?\w*(?:Message|Content)\s*\]")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The text test before the module's walk: a loop over something and a write by subscript or attribute.
#: (`\bfor\b...`, written to start with its letters: the search then skips to each `for`; the
#: lookbehind is the `\b` before it.)
TEXT = re.compile(r"for(?<!\wfor)\b[^\n]{1,80}\bin\b")
#: Text of a write into a message of a list: an item of a list named for the conversation at an
#: index (`contents[i] = ...`, `del messages[i]`), or a field of a message (`message["output"]["url"] = ...`),
#: the name's word at the end of a longer name too (`chat_messages[i] = ...`). Written to start at
#: the `[` with the word in a lookbehind, so that the search skips from one `[` to the next (as
#: `\b\w*(?:messages|...)\[` it tried every word at every letter: 0.3 ms a file); it matches in
#: the same texts.
_WRITE_TEXT = re.compile(r"\[(?:(?:(?<=messages\[)|(?<=history\[)|(?<=contents\[)|(?<=msgs\[))\w+\]"
                         r"|(?:(?<=message\[)|(?<=msg\[))[\"'][^\"'\n]{1,40}[\"']\])"
                         r"(?:\[[^\]]{1,60}\]|\.\w+)*[ \t]*[-+]?=(?!=)")  # (a key on a line of its own too)
#: Calls that keep the caller's object: `m = m.__dict__`, `m = vars(m)`.
_SAME_OBJECT = frozenset({"vars"})
#: Words of a call whose purpose gives back its own output unchanged when run on it again (a name
#: that clears, Policy 7): validating, cleaning, formatting, shortening a text to a bound.
_IDEMPOTENT = frozenset({"validate", "validation", "validated", "validator", "sanitize", "sanitise", "clean", "redact",
                         "normalize", "normalise", "format", "escape", "strip", "convert", "fix", "cast", "truncate",
                         "trim", "shorten", "summary"})


def might_edit(source: str) -> bool:
    """True when the text can hold a walk of a message list that writes into its items."""
    return (_WRITE_TEXT.search(source) is not None
            or ("Message" in source or "Content" in source) and _MESSAGES_TYPE.search(source) is not None) \
        and TEXT.search(source) is not None


def walked_edits(module) -> list[tuple[ast.AST, ast.AST, str]]:
    """(the statement that writes into a walked message of the conversation handed in, the test
    that picks it (`picked`) or the walk (`reprocessed`), the shape), one per write, in source order."""
    out = {}
    globals_ = _module_names(module.tree)
    for func in statements(module.tree):
        if not isinstance(func, _FUNCS):
            continue
        held = _conversation_params(func)
        if not held:
            continue
        others = {p for p in param_names(func) if p not in held and p not in ("self", "cls")}
        for loop in subtree(func):
            if not isinstance(loop, ast.For):
                continue
            walk = _walk(loop, held)
            if walk is None:
                continue
            lst, index, item = walk
            for write, why, shape in _edits(loop, lst, index, item, others, globals_):
                out.setdefault(id(write), (write, why, shape))
    return sorted(out.values(), key=lambda e: (e[0].lineno, e[0].col_offset))


def _conversation_params(func) -> set[str]:
    a = func.args
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)
            if words(p.arg) & _HISTORY or p.annotation is not None and _MESSAGES_TYPE.search(ast.unparse(p.annotation))}


def _walk(loop: ast.For, held: set[str]) -> tuple[str, str | None, str | None] | None:
    """(the list walked, the index name, the item name) of `for m in L`, `for i, m in enumerate(L)`,
    `for i in range(len(L))` with L a conversation parameter; else None."""
    it, target = loop.iter, loop.target
    if isinstance(it, ast.Name) and it.id in held and isinstance(target, ast.Name):
        return it.id, None, target.id
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args:
        arg = it.args[0]
        if it.func.id == "enumerate" and isinstance(arg, ast.Name) and arg.id in held \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and all(isinstance(e, ast.Name) for e in target.elts):
            return arg.id, target.elts[0].id, target.elts[1].id
        if it.func.id == "range" and len(it.args) == 1 and isinstance(arg, ast.Call) \
                and getattr(arg.func, "id", None) == "len" and arg.args and isinstance(arg.args[0], ast.Name) \
                and arg.args[0].id in held and isinstance(target, ast.Name):
            return arg.args[0].id, target.id, None
    return None


def _edits(loop: ast.For, lst: str, index: str | None, item: str | None, others: set[str], globals_: set[str]):
    """(write, the test that picks it or the walk, shape) for each write of `loop` into the walked list's items (module docstring)."""
    body = [n for stmt in loop.body for n in subtree(stmt)]
    if _newest_only(body, lst, index):
        return
    copied = item is not None and any(_rebinds(n, item) for n in body)
    writes = [n for n in body if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete))
              and any(_into_item(t, lst, index, None if copied else item) is not None for t in _targets(n))]
    if not writes:
        return
    derived = _derived(body, {n for n in (item, index) if n} | set())
    picks = _membership_picks(body, derived, others)
    for write in writes:
        pick = next((p for p in picks if _before_or_around(p, write)), None)
        if pick is not None:
            yield write, pick.test, "picked"
        elif isinstance(write, ast.Assign) and _reprocessed(body, write, lst, index, item if not copied else None,
                                                               globals_):
            yield write, loop, "reprocessed"


def _targets(node) -> list:
    return node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]


def _into_item(target, lst: str, index: str | None, item: str | None) -> tuple | None:
    """The key path a target writes into a walked message (`()` for the list's item itself:
    `L[i] = ...`), else None: `L[i]...`, or `m[...]...` / `m.x...` for the walked item `m`."""
    path = []
    node = target
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == lst:
            if index is not None and isinstance(node.slice, ast.Name) and node.slice.id == index:
                return tuple(reversed(path))
            return None
        path.append(_key(node))
        node = node.value
    if item is not None and isinstance(node, ast.Name) and node.id == item and path:
        return tuple(reversed(path))
    return None


def _key(node) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    s = node.slice
    return s.value if isinstance(s, ast.Constant) and isinstance(s.value, str) else None


def _read_path(node, item: str | None, lst: str, index: str | None) -> tuple | None:
    """The key path an expression reads from the walked message (`m["a"]["b"]`, `m.get("a", {}).get("b")`,
    `L[i].a`), else None."""
    path = []
    while True:
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == lst:
                ok = index is not None and isinstance(node.slice, ast.Name) and node.slice.id == index
                return tuple(reversed(path)) if ok and path else None
            path.append(_key(node))
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            path.append(node.args[0].value)
            node = node.func.value
        else:
            break
    return tuple(reversed(path)) if item is not None and isinstance(node, ast.Name) and node.id == item and path \
        else None


def _rebinds(node, item: str) -> bool:
    """True when `node` rebinds the walked item to another object (a copy), not `m = m.__dict__`."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not any(isinstance(t, ast.Name) and t.id == item for t in targets):
        return False
    v = node.value
    same = isinstance(v, ast.Attribute) and v.attr == "__dict__" and isinstance(v.value, ast.Name) and v.value.id == item \
        or isinstance(v, ast.Call) and getattr(v.func, "id", None) in _SAME_OBJECT
    return not same


def _newest_only(body, lst: str, index: str | None) -> bool:
    """True when the loop tests its index against the list's last one (`i == len(L) - 1`)."""
    if index is None:
        return False
    for n in body:
        if isinstance(n, ast.Compare) and any(isinstance(o, (ast.Eq, ast.NotEq)) for o in n.ops):
            names = {x.id for x in subtree(n) if isinstance(x, ast.Name)}
            if index in names and "len" in names and lst in names:
                return True
    return False


def _reads(node, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in subtree(node))


def _derived(body, seeds: set[str]) -> set[str]:
    """The names the loop binds from the walked item or index, transitively (nested loops too)."""
    derived = set(seeds)
    for _ in range(4):
        size = len(derived)
        for n in body:
            if isinstance(n, ast.Assign) and _reads(n.value, derived):
                derived |= _bound_names(n)
            elif isinstance(n, ast.NamedExpr) and _reads(n.value, derived):
                derived.add(n.target.id)
            elif isinstance(n, ast.For) and _reads(n.iter, derived):
                derived |= {x.id for x in subtree(n.target) if isinstance(x, ast.Name)}
        if len(derived) == size:
            break
    return derived


def _membership_picks(body, derived: set[str], others: set[str]) -> list[ast.If]:
    """The `if`s of the loop that test a value read from the message for membership in a
    collection of a parameter (not the list) or of the instance: `if name in active_skills`."""
    out = []
    for n in body:
        if not isinstance(n, ast.If):
            continue
        for c in subtree(n.test):
            if isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], (ast.In, ast.NotIn)) \
                    and _reads(c.left, derived) and _collection(c.comparators[0], others):
                out.append(n)
                break
    return out


def _collection(node, others: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in others
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _before_or_around(test: ast.If, write) -> bool:
    """True when the `if` holds the write, or comes before it and skips the rest of its pass
    (`continue`) in its body."""
    if any(n is write for n in subtree(test)):
        return True
    return (test.lineno, test.col_offset) < (write.lineno, write.col_offset) and \
        any(isinstance(n, ast.Continue) for s in test.body for n in subtree(s))


def _reprocessed(body, write: ast.Assign, lst: str, index: str | None, item: str | None, globals_: set[str]) -> bool:
    """True when the value written into a field of the message comes from a call given what
    that same field holds (`result = parse(m["image"])`, then `m["image"] = result.image`)."""
    path = _into_item(write.targets[0], lst, index, item)
    if not path or None in path or _marked_done(body, item):
        return False
    field = set()  # names holding the field's text
    processed = set()  # names holding what a call made from it
    for _ in range(4):
        size = len(field) + len(processed)
        for n in body:
            if not isinstance(n, ast.Assign) or n is write:
                continue
            names = _bound_names(n)
            if _reads(n.value, processed) or _processes(n.value, field, path, item, lst, index, globals_):
                processed |= names
            elif any(_read_path(x, item, lst, index) == path for x in subtree(n.value)) or _reads(n.value, field):
                field |= names
        if len(field) + len(processed) == size:
            break
    return _reads(write.value, processed) or _processes(write.value, field, path, item, lst, index, globals_)


def _module_names(tree) -> set[str]:
    """The names a module binds at its top level: imports, constants, functions and classes."""
    out = set()
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            out |= {t.id for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            out.add(n.name)
    return out


def _bound_names(node: ast.Assign) -> set[str]:
    """The names an assignment binds (`a = ...`, `a, b = ...`), not the roots of `x[k] = ...`."""
    return {x.id for t in node.targets for x in ([t] if isinstance(t, ast.Name) else t.elts
                                                 if isinstance(t, (ast.Tuple, ast.List)) else [])
            if isinstance(x, ast.Name)}


def _marked_done(body, item: str | None) -> bool:
    """True when the walk removes a field of the message it walks (`msg.pop("files", None)`, `del
    m["pending"]`): the mark that it is still to be processed, so each is processed once."""
    for n in body:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop" \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == item and n.args:
            return True
        if isinstance(n, ast.Delete) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                             and t.value.id == item for t in n.targets):
            return True
    return False


def _processes(value, field: set[str], path: tuple, item, lst, index, globals_: set[str]) -> bool:
    """A call in `value` of a method of an object the function holds (a parameter or a local, `parser.parse`),
    other than the field's own text or a module or module-level object (`re.sub`, `json.loads`,
    `PATTERN.sub`), given the field: a plain function or the class's own method converts it."""
    for c in subtree(value):
        if not isinstance(c, ast.Call):
            continue
        f = c.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in ("self", "cls")):
            continue  # a function of the module or the class's own method: a conversion of the text
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in globals_:
            continue  # a library's function or a module's pattern: `re.sub(p, r, text)`, `json.loads(text)`
        if name[:1].isupper() or words(name) & _IDEMPOTENT:
            continue  # a record built with it (`Inputs(text=t)`), or a validation or a format: not re-processed
        if isinstance(f, ast.Attribute) and (_reads(f.value, field) or _read_path(f.value, item, lst, index) == path
                                            or isinstance(f.value, ast.Constant)):
            continue  # `text.split(",")`, `", ".join(...)`: the text's own methods
        args = [*c.args, *(k.value for k in c.keywords)]
        if any(_reads(a, field) or any(_read_path(x, item, lst, index) == path for x in subtree(a)) for a in args):
            return True
    return False
