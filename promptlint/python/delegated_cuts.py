"""A conversation a memory class keeps in another object and cuts through that object's remover
(facts for PRM105, the rule judges them):

    class SlidingWindowMemory(Memory):
        def add_message(self, message):
            super().add_message(message)               # (the base class adds it to self.msg_manager)
            self.prune_message()

        def prune_message(self):
            while len(self.get_messages()) > self.max_round * 2:     # a size test
                self.msg_manager.pop_message(self.retained_round * 2)  # the cut, here

    class MessageManager:                              # anywhere in the package tree
        def pop_message(self, index: int = 0):
            return self.messages.pop(index)            # the remover: an item at the index it is given

Under a test that compares a size with a bound (a `while` or an `if`, in a method of a class that a
method adding to the conversation calls, or that adds itself: `add_message`, `append`, `put`), a call
`self.<holder>.<remover>(...)` whose name says it removes a message (a verb of `_VERBS` and a word of
`classify.CONVERSATION_WORDS`, `pop_message`, `delete_turn`) removes one of the oldest messages of the
list the holder keeps, when every method of that name the package tree defines in a class (read by
`Project.functions_named`) pops or deletes from a list its instance keeps (`self.messages.pop(index)`,
`del self.messages[index]`) at the index its parameter gives, and the call gives an index from the
head (no `len(...)`, no subtraction, not negative) or none, the parameter's default then being 0 or
1. Once the conversation reaches the bound, every add pushes an older message out: a sliding window.
A remover that pops the newest (`pop()`, a default of -1 or none) or a name defined otherwise
elsewhere is not read.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from .prompt_names import words
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_VERBS = frozenset({"pop", "remove", "delete", "drop", "evict", "discard"})
_NOUNS = CONVERSATION_WORDS | {"msg", "turn", "round", "rounds"}
_ADDS = frozenset({"add", "append", "put", "push", "save", "insert", "extend"})
#: The cheap text test before the module's walk (and the pre-filter's): a method of another object
#: named for removing a message called (`self.msg_manager.pop_message(`).
TEXT = re.compile(r"self\.\w{1,40}\.\w{0,20}(?:pop|remove|delete|drop|evict|discard)_\w{0,20}"
                  r"(?:message|msg|turn|round|histor|conversation|chat|dialog)\w{0,20}\(")
_LIMIT = 6  # definitions of one remover read at most


def delegated_cuts(module, project) -> list[tuple[ast.Call, str, object, str]]:
    """(call, remover name, span of the remover's pop, "self.holder.list") for each cut of the
    module docstring, in source order."""
    out, looked = [], {}
    for cls in (n for n in subtree(module.tree) if isinstance(n, ast.ClassDef)):
        methods = {f.name: f for f in cls.body if isinstance(f, _FUNCS)}
        for func in methods.values():
            if not _per_add(func, methods):
                continue
            for test in subtree(func):
                if not isinstance(test, (ast.While, ast.If)) or not _size_test(test.test, methods):
                    continue
                for call in (c for s in test.body for c in subtree(s) if isinstance(c, ast.Call)):
                    holder = _holder_call(call)
                    if holder is None:
                        continue
                    name = call.func.attr
                    if name not in looked:
                        looked[name] = _removers(module, project, name) if len(looked) < 12 else []
                    for definer, pop, param, default, kept in looked[name]:
                        if _from_head(call, param, default):
                            out.append((func, call, name, definer.span(pop), f"self.{holder}.{kept}"))
                            break
    seen, uniq = set(), []  # one cause per method and list: its first cut (a nested test's is the same)
    for func, call, *rest in sorted(out, key=lambda t: (t[1].lineno, t[1].col_offset)):
        if (id(func), rest[-1]) not in seen:
            seen.add((id(func), rest[-1]))
            uniq.append((call, *rest))
    return uniq


def _per_add(func, methods: dict) -> bool:
    """True when `func` runs as the conversation grows: named for adding, or called by a method of
    its class that is (`add_message` calling `self.prune_message()`)."""
    if words(func.name) & _ADDS:
        return True
    return any(words(m.name) & _ADDS and any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
        and c.func.value.id == "self" and c.func.attr == func.name for c in subtree(m)) for m in methods.values())


def _orders(node) -> bool:
    return any(isinstance(n, ast.Compare) and any(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in n.ops)
               for n in subtree(node))


def _size_test(test, methods: dict) -> bool:
    """True for a test that compares a size with a bound, itself or through a method of the class
    that returns such a comparison (`self._is_overflow()`)."""
    if _orders(test):
        return True
    for n in subtree(test):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == "self" and n.func.attr in methods and any(
                    isinstance(r, ast.Return) and r.value is not None and _orders(r.value)
                    for r in subtree(methods[n.func.attr])):
            return True
    return False


def _holder_call(call: ast.Call) -> str | None:
    """The holder `h` of a call `self.h.<remover>(...)` named for removing a message, else None."""
    f = call.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name)
            and f.value.value.id == "self"):
        return None
    parts = words(f.attr)
    if not (parts & _VERBS and parts & _NOUNS) or len(call.args) > 1 or call.keywords:
        return None
    return f.value.attr


def _from_head(call: ast.Call, param: str, default) -> bool:
    """True when the call removes one of the first items: given no index and the remover's
    default is 0 or 1, or given an index that counts from the head (no `len(...)`, no subtraction,
    not negative)."""
    if not call.args:
        return isinstance(default, ast.Constant) and type(default.value) is int and default.value in (0, 1)
    arg = call.args[0]
    for n in subtree(arg):
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) or isinstance(n, ast.BinOp) \
                and isinstance(n.op, ast.Sub) or isinstance(n, ast.Call):
            return False
    return not (isinstance(arg, ast.Constant) and not (type(arg.value) is int and arg.value >= 0))


def _removers(module, project, name: str) -> list[tuple]:
    """(module, the pop or del node, index parameter, its default or None, kept attribute) of each
    method `name` of a class of the tree that removes an item of a list its instance keeps at the
    index its parameter gives; none when a method of that name does something else."""
    modules = [module] + [m for m in (project.functions_named(name, module.path, _LIMIT) or ()) if m is not module] \
        if project is not None else [module]
    found, other = [], False
    for definer in modules:
        for cls in (n for n in subtree(definer.tree) if isinstance(n, ast.ClassDef)):
            for func in cls.body:
                if isinstance(func, _FUNCS) and func.name == name:
                    shape = _pops_index(func)
                    if shape is None:
                        other = True
                    else:
                        found.append((definer, *shape))
    return [] if other else found


def _pops_index(func):
    """(node, parameter, its default, kept attribute) when `func` pops or deletes `self.X[param]`
    (`self.messages.pop(index)`, `del self.messages[index]`) for its one index parameter."""
    args = func.args.args
    if len(args) != 2 or args[0].arg != "self" or func.args.kwonlyargs:
        return None
    param = args[1].arg
    default = func.args.defaults[-1] if func.args.defaults else None
    for n in subtree(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop" \
                and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id == param:
            kept = _self_attr(n.func.value)
        elif isinstance(n, ast.Delete) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript) \
                and isinstance(n.targets[0].slice, ast.Name) and n.targets[0].slice.id == param:
            kept = _self_attr(n.targets[0].value)
        else:
            continue
        if kept is not None:
            return n, param, default, kept
    return None


def _self_attr(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None
