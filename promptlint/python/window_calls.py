"""A kept conversation read back as its newest items through a method of the object that keeps
it: facts for PRM105 (the rule judges them).

    history = self.memory.to_messages(self.name, start_index=-self.max_history)   # the call, here
    window = self.store.get_last_k_messages(self.k - 1)

    def to_messages(self, my_name="", start_index=0):     # a method of the keeper, anywhere in the tree
        for message in self.messages[start_index:]:
            ...
        return messages

    def get_last_k_messages(self, k):
        return self.messages[-k:]

The method slices a sequence its instance keeps (`self.messages`) from a start a parameter gives:
counted from the end (`[-k:]`, `[len(self.messages) - k:]`: the newest `k`), or from an index
the caller chooses (`[start:]`), which the call gives as a negative number (`-self.max_history`).
What the slice yields is what the method returns (the slice returned, or walked to build the
list it returns). Once the kept sequence is longer than the count, the oldest item drops out of
what the call reads on every new turn, so the history built from it never matches the prefix
cached by the previous request. The call chooses the window (its count), so it is where the cut
is made: reported there, the slice as its related place.

A window rendered into text where it is read (an f-string, `"\n".join(...)`, a template's fill) is
judged where a request carries that text, and one read in a function named for building a
summary request's input is what a one-shot summarizer reads: neither is a fact here.

The sequence is the conversation by the words of the method's name or of the kept attribute
(`to_messages`, `self.history`: `classify.CONVERSATION_WORDS`). A count of at most two (the
newest message, the last answer) is no window; a start the call leaves at its default, or gives
as a non-negative value, cuts nothing. The method is found by its name among the definitions of
the package tree (`Project.functions_named`), only where every method of that name the tree
defines in a class that keeps the sequence cuts it the same way (a name shared with an unrelated
method is not read as this one); a call `self.m(...)` in a class that defines `m` reaches that
method alone, whatever other classes of the tree name `m`. A read whose result the function only
looks at by a constant index or its size (`messages = self.get_messages(k)`, then `messages[-1]`,
`len(messages)`) takes the newest message alone: no window is sent.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from .prompt_names import summary_input_named, words
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The cheap test before the module's walk: a method named for the conversation called (`.to_messages(`,
#: `.get_last_k_messages(`), or a negative value passed (`start_index=-n`, `(-n`, `, -n`).
TEXT = re.compile(r"\.\w{0,40}(?i:messages|history|msgs|turns|conversation|chat|dialog|transcript)\w{0,40}\("
                  r"|[(,=][ \t]{0,8}-[ \t]{0,4}[\w(]")
#: The test a file passes to be analysed at all (`prefilter.might_hold_prompt`): a method named for the
#: conversation called with a negative value (`.to_messages(name, start_index=-n)`), or named for its
#: newest items (`.get_last_k_messages(k)`, `.latest_turns(n)`; bounded repetition: linear).
CALL_TEXT = re.compile(r"\.\w{0,40}(?i:messages|history|msgs|turns|conversation|dialog|transcript)\w{0,40}"
                       r"\([^()\n]{0,80}[(,=][ \t]{0,4}-[ \t]{0,4}[\w(]"
                       r"|\.\w{0,20}(?i:last|latest|recent|newest)\w{0,30}"
                       r"(?i:messages|history|msgs|turns|conversation|dialog|transcript)\w{0,20}\(")
#: Definitions of one name read at most (a name defined in more files is too common to follow).
_LIMIT = 6
#: Method names looked up at most per module.
_LOOKUPS = 24


def window_calls(module, project) -> list[tuple[ast.Call, str, object, str]]:
    """(call, method name, span of the method's slice, "tail" | "start") of each call in `module`
    that reads a kept conversation as its newest items through a method that slices it (module
    docstring), in source order."""
    calls = [call for call in subtree(module.tree) if _may_window(call)]
    if not calls:  # (the facts below only tell these calls apart)
        return []
    targets = _assigned_names(module.tree)
    out = []
    looked: dict[str, list] = {}
    summaries = {id(n) for f in subtree(module.tree) if isinstance(f, _FUNCS) and summary_input_named(f.name)
                 for n in subtree(f)}  # (a summarizer's input: one request, not the conversation re-sent)
    summaries |= _rendered(module.tree)
    owners = _self_calls(module.tree)
    summaries |= _items_only(module.tree)
    for call in calls:
        if id(call) in summaries:
            continue
        name = call.func.attr
        own = owners.get(id(call))
        if own is not None:  # `self.name(...)` in a class that defines `name`: that method, whatever others do
            accessors = [(module, func, *shape) for func in own.body
                         if isinstance(func, _FUNCS) and func.name == name and (shape := _slice(func)) is not None]
        else:
            if name not in looked:
                if len(looked) >= _LOOKUPS:
                    continue
                looked[name] = _accessors(module, project, name)
            accessors = looked[name]
        if not accessors:
            continue
        named = bool(words(name) & CONVERSATION_WORDS) or bool(words(targets.get(id(call), "")) & CONVERSATION_WORDS)
        for definer, func, sub, param, form, held in accessors:
            if not (named or words(held) & CONVERSATION_WORDS):
                continue
            given = _argument(call, func, param)
            if given is None or not (_negative(given) if form == "start" else _a_count(given)):
                continue
            out.append((call, name, definer.span(sub), form))
            break
    return sorted(out, key=lambda t: (t[0].lineno, t[0].col_offset))


def _may_window(call) -> bool:
    """True for a call of a method with arguments (`x.m(...)`) given a negative value or named for the
    conversation: the only calls `window_calls` can report."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or not (call.args or call.keywords):
        return False
    return any(_negative(a) for a in (*call.args, *(k.value for k in call.keywords))) \
        or bool(words(call.func.attr) & CONVERSATION_WORDS)


#: Calls that render what they are given into text (where the text goes is judged where a request carries it).
_RENDERS = frozenset({"join", "format", "format_map", "str", "repr", "render", "substitute", "safe_substitute", "dumps"})


def _rendered(tree) -> set[int]:
    """ids of the nodes rendered into text where they are: in an f-string or an argument of a call
    that renders (`"\n".join(...)`, `T.format(history=...)`)."""
    out: set[int] = set()
    for n in subtree(tree):
        if isinstance(n, ast.JoinedStr):
            out |= {id(x) for x in subtree(n)}
        elif isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in _RENDERS:
                out |= {id(x) for a in (*n.args, *(k.value for k in n.keywords)) for x in subtree(a)}
    return out


def _items_only(tree) -> set[int]:
    """ids of the calls whose result a function binds to a name it then reads only an item of by a
    constant index, or the size of (`messages = self.get_messages(k)`, then `messages[-1]`,
    `len(messages)`): the newest message looked up, no window sent."""
    out: set[int] = set()
    for func in subtree(tree):
        if not isinstance(func, _FUNCS):
            continue
        bound: dict[str, ast.Call] = {}
        for n in subtree(func):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Call):
                bound[n.targets[0].id] = n.value
        if not bound:
            continue
        used: dict[str, bool] = {}
        sized = {id(n.args[0]) for n in subtree(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == "len" and len(n.args) == 1}
        items = {id(n.value) for n in subtree(func) if isinstance(n, ast.Subscript)
                 and (isinstance(n.slice, ast.Constant) or isinstance(n.slice, ast.UnaryOp)
                      and isinstance(n.slice.operand, ast.Constant))}
        for n in subtree(func):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound:
                used[n.id] = used.get(n.id, True) and (id(n) in sized or id(n) in items)
        out |= {id(call) for name, call in bound.items() if used.get(name)}
    return out


def _self_calls(tree) -> dict[int, ast.ClassDef]:
    """id of a call `self.m(...)` in a method of a class whose body defines a method `m` -> that
    class: the call reaches the class's own method (a subclass may override it, but not with
    another class's method of the same name elsewhere in the tree)."""
    out: dict[int, ast.ClassDef] = {}
    for cls in subtree(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        names = {f.name for f in cls.body if isinstance(f, _FUNCS)}
        for func in cls.body:
            if not isinstance(func, _FUNCS) or not func.args.args or func.args.args[0].arg != "self":
                continue
            for n in subtree(func):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in names \
                        and isinstance(n.func.value, ast.Name) and n.func.value.id == "self":
                    out[id(n)] = cls
    return out


def _assigned_names(tree) -> dict[int, str]:
    """id of a call -> the name its result is assigned to (`history = x.f(...)`), also through one
    call around it (`converted = convert(x.f(...))`)."""
    out: dict[int, str] = {}
    for node in subtree(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
            if name is None or not isinstance(node.value, ast.Call):
                continue
            out[id(node.value)] = name
            for arg in node.value.args:
                if isinstance(arg, ast.Call):
                    out[id(arg)] = name
    return out


def _accessors(module, project, name: str) -> list[tuple]:
    """(module, method, slice node, parameter, form, kept attribute) of each method `name` of a
    class of the tree that returns a slice of a sequence its instance keeps from a start a
    parameter gives; none when a method of that name in a class does something else with it."""
    modules = [module] + [m for m in (project.functions_named(name, module.path, _LIMIT) or ()) if m is not module] \
        if project is not None else [module]
    found, other = [], False
    for definer in modules:
        for func in _class_methods(definer.tree).get(name, ()):
            shape = _slice(func)
            if shape is None:
                other = other or not _abstract(func)
            else:
                found.append((definer, func, *shape))
    return [] if other else found


def _class_methods(tree) -> dict[str, list]:
    """Method name -> the methods of that name defined in a class body of `tree` (classes in the
    order of `subtree`, methods in body order), read once per tree (kept on it: trees never change
    after parsing)."""
    index = getattr(tree, "_promptlint_class_methods", None)
    if index is None:
        index = {}
        for cls in subtree(tree):
            if isinstance(cls, ast.ClassDef):
                for func in cls.body:
                    if isinstance(func, _FUNCS):
                        index.setdefault(func.name, []).append(func)
        tree._promptlint_class_methods = index
    return index


def _abstract(func) -> bool:
    """True for a method with no body of its own (a docstring, `...`, `pass`, `raise NotImplementedError`)."""
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, (ast.Pass, ast.Raise)) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
               for s in body)


def _slice(func):
    """(slice node, parameter, "tail" | "start", kept attribute) when `func` returns what a slice
    of `self.X` from a start its parameter gives yields (module docstring), else None."""
    params = {a.arg for a in (*func.args.args[1:], *func.args.kwonlyargs)}
    if not params or not func.args.args or func.args.args[0].arg != "self":
        return None
    returned = set()
    returns_value = False
    for n in subtree(func):
        if isinstance(n, ast.Return) and n.value is not None and not (
                isinstance(n.value, ast.Constant) and n.value.value is None):
            returns_value = True
            returned |= {id(x) for x in subtree(n.value)}
    if not returns_value:
        return None
    iterated = {id(n.iter) for n in subtree(func) if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension))}
    stored = {id(x) for n in subtree(func) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
              and any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in getattr(n, "targets", None) or [n.target])
              for x in subtree(n)}
    for n in subtree(func):
        if not isinstance(n, ast.Subscript) or not isinstance(n.slice, ast.Slice) or id(n) in stored:
            continue
        held = _kept(n.value)
        s = n.slice
        if held is None or s.upper is not None or s.step is not None or s.lower is None:
            continue
        if id(n) not in returned and id(n) not in iterated:
            continue
        form_param = _start(s.lower, params, held)
        if form_param is not None:
            return (n, form_param[1], form_param[0], held)
    return None


def _kept(node) -> str | None:
    """The attribute name of `self.X` (or `self.a.X`), the sequence the instance keeps."""
    if not isinstance(node, ast.Attribute):
        return None
    root = node.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return node.attr if isinstance(root, ast.Name) and root.id == "self" else None


def _start(lower, params: set[str], held: str):
    """("tail" | "start", parameter) of a slice's start: `-k`, `len(self.X) - k` (the newest k) or
    a parameter itself (an index the caller chooses)."""
    if isinstance(lower, ast.Name) and lower.id in params:
        return "start", lower.id
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) and isinstance(lower.operand, ast.Name) \
            and lower.operand.id in params:
        return "tail", lower.operand.id
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Sub) and isinstance(lower.right, ast.Name) \
            and lower.right.id in params and isinstance(lower.left, ast.Call) \
            and isinstance(lower.left.func, ast.Name) and lower.left.func.id == "len" and lower.left.args \
            and _kept(lower.left.args[0]) == held:
        return "tail", lower.right.id
    return None


def _argument(call: ast.Call, func, param: str):
    """The value `call` gives `param` of `func` (by keyword, or by position after `self`); for a
    parameter it leaves out, its default; None when not known."""
    for k in call.keywords:
        if k.arg == param:
            return k.value
    positional = [a.arg for a in func.args.args[1:]]
    if param in positional:
        i = positional.index(param)
        if any(isinstance(a, ast.Starred) for a in call.args[:i + 1]):
            return None
        if i < len(call.args):
            return call.args[i]
        defaults = func.args.defaults
        j = i - (len(positional) - len(defaults))
        return defaults[j] if 0 <= j < len(defaults) else None
    kwonly = [a.arg for a in func.args.kwonlyargs]
    if param in kwonly:
        return func.args.kw_defaults[kwonly.index(param)]
    return None


def _negative(node) -> bool:
    """A negative start of more than two items: `-n`, `-self.max_history`, `-10`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = node.operand
        return not isinstance(inner, ast.Constant) or _big(inner.value)
    return False


def _a_count(node) -> bool:
    """A count that keeps more than the newest answer: not a constant of at most two, not None."""
    if isinstance(node, ast.Constant):
        return _big(node.value)
    return not isinstance(node, (ast.UnaryOp, ast.JoinedStr, ast.List, ast.Dict, ast.Tuple))


def _big(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 2
