"""Messages a caller names removed from the kept conversation, wherever they are: facts for PRM105
(the rule judges them).

A function handed messages (or their ids) that writes the kept conversation back without them
(`replace_context_messages(ctx, [m for m in get_context_messages(ctx) if m.id not in msg_ids])`,
`msg_ids` made from its parameter) removes messages from anywhere in the conversation, not only
its oldest: when its callers remove a message of the middle (a tool result that no longer
applies, a recalled memory dropped), the history re-sent next differs from the previous request's
from that message on, and what a cache held of it ends there. The write is a call named for
storing the conversation (a verb `replace`, `set`, `save`, `store`, `write`, `persist`,
`overwrite` and a word `messages`, `context`, `history`, `conversation`); the kept list is a
comprehension over the conversation (a call or a name named for it) whose test leaves out the
items whose key is in what the function was handed. When its callers remove messages is not
followed here (often on an event, not on every turn): info, where the messages are left out.

A caller that hands such a function messages of the conversation chosen by a test
(`pipe(get_context_messages(ctx), filter(partial(is_in_context_message, memory)), list,
partial(remove_context_messages, ctx))`, `remove_messages(ctx, [m for m in history if m.stale])`)
removes them from wherever they are (`chosen_removals`): info, where it hands them, with the
place that leaves them out as a related location.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .module import callee_name, statements
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_WRITE = frozenset({"replace", "set", "save", "store", "write", "persist", "overwrite"})
_CONVERSATION = frozenset({"messages", "context", "history", "conversation", "transcript"})
#: The text of a call named so, in snake case (bounded repetition: linear): a module without one is
#: not read. `ENDS`: what the name's text ends with, looked for first (a scan for the pattern is slower).
TEXT = re.compile(r"(?:replace|set|save|store|write|persist|overwrite)_\w{0,40}"
                  r"(?:messages|context|history|conversation|transcript)\w{0,20}\(")
ENDS = ("messages(", "context(", "history(", "conversation(", "transcript(")


def may_hold(source: str) -> bool:
    """True when `source` may hold the shape (`TEXT`, after the cheaper tests)."""
    return " not in " in source and any(e in source for e in ENDS) and TEXT.search(source) is not None


def kept_removals(module) -> list[tuple[ast.AST, ast.Call]]:
    """(the comprehension that leaves the handed messages out, the call that writes it back) for
    each function of the module that removes messages it is handed from the kept conversation,
    in source order; one per function."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
        a, b = module.offsets(func)
        if not params or module.source.find(" not in ", a, b) == -1 or TEXT.search(module.source, a, b) is None:
            continue  # (its text holds no such write: not walked)
        own = own_nodes(func, body_only=True)
        handed = _handed(own, params)
        assigned = {t.id: n.value for n in own if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        for call in (n for n in own if isinstance(n, ast.Call)):
            name = callee_name(call)
            if not (words(name) & _WRITE and words(name) & _CONVERSATION):
                continue
            for arg in call.args:
                kept = assigned.get(arg.id) if isinstance(arg, ast.Name) else arg
                if _leaves_out(kept, handed, module):
                    out.append((kept, call))
                    break
            else:
                continue
            break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _handed(own: list, params: set[str]) -> set[str]:
    """`params` with the local names assigned from them (`msg_ids = [m.id for m in messages]`)."""
    out = set(params)
    for node in own:
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id in out for n in subtree(node.value)):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def _leaves_out(node, handed: set[str], module) -> bool:
    """True for `[m for m in <conversation> if <key of m> not in <handed>]` (a list or generator,
    one loop, a source named for the conversation)."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
        return False
    gen = node.generators[0]
    if not words(module.code(gen.iter)) & _CONVERSATION:
        return False
    item = {n.id for n in subtree(gen.target) if isinstance(n, ast.Name)}
    for test in gen.ifs:
        for cmp in subtree(test):
            if isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.NotIn) \
                    and {n.id for n in subtree(cmp.left) if isinstance(n, ast.Name)} & item \
                    and {n.id for n in subtree(cmp.comparators[0]) if isinstance(n, ast.Name)} & handed:
                return True
    return False


# ---------------------------------------------------------------- the callers that remove chosen messages
#: Words of a call's name that say it removes messages (`remove_context_messages(ctx, chosen)`).
_REMOVE = frozenset({"remove", "delete", "drop", "discard", "purge"})
#: Calls that hand an iterable through functions (toolz): `pipe(msgs, filter(test), list, remover)`.
_PIPES = frozenset({"pipe", "thread_last", "thread_first"})
#: The text of a call named so, in snake case (bounded repetition: linear).
CALLER_TEXT = re.compile(r"(?:remove|delete|drop|discard|purge)_\w{0,40}"
                         r"(?:messages|context|history|conversation|transcript)\b")


def chosen_removals(module, project) -> list[tuple[ast.Call, ast.AST]]:
    """(the call that hands the remover messages of the conversation chosen by a test, where the
    remover leaves them out: `kept_removals` of its module) for each function of the module, in
    source order; one per function. The remover is a function of the module or, through
    `project`, of the package tree whose name says it removes messages; the messages are a
    comprehension with a test, or a `filter(...)`, over the conversation (also through a local
    name), or the conversation handed through a toolz `pipe` with a `filter(...)` to the remover."""
    out = []
    removers: dict[str, ast.AST | None] = {}
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        a, b = module.offsets(func)
        if CALLER_TEXT.search(module.source, a, b) is None:
            continue
        own = own_nodes(func, body_only=True)
        assigned = {t.id: n.value for n in own if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        for call in (n for n in own if isinstance(n, ast.Call)):
            found = _chosen(call, assigned, module, project, removers)
            if found is not None:
                out.append((call, found))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _remover(name_node, module, project, removers: dict):
    """Where the function `name_node` names leaves out the messages it is handed (a node of its
    module's `kept_removals`, with that module), or None; `removers` caches by qualified name."""
    if not isinstance(name_node, ast.Name) or not words(name_node.id) & _REMOVE \
            or not words(name_node.id) & _CONVERSATION:
        return None
    qual = module.qualified_name(name_node) or name_node.id
    if qual not in removers:
        owner, func_name = module, name_node.id
        if qual != name_node.id and project is not None:
            found = project.resolve_symbol(qual)
            owner, func_name = found if found is not None else (None, None)
        func = owner.functions.get(func_name) if owner is not None else None
        kept = [k for k, _ in kept_removals(owner)] if func is not None and may_hold(owner.source) else []
        a, b = owner.offsets(func) if func is not None else (0, 0)
        removers[qual] = next(((k, owner) for k in kept if a <= owner.offsets(k)[0] < b), None)
    return removers[qual]


def _chosen(call: ast.Call, assigned: dict, module, project, removers: dict):
    """The remover's place (see `_remover`) when `call` hands it messages chosen by a test."""
    name = callee_name(call)
    if name in _PIPES and call.args and words(module.code(call.args[0])) & _CONVERSATION \
            and any(isinstance(a, ast.Call) and callee_name(a) == "filter" for a in call.args[1:]):
        for arg in call.args[1:]:
            target = arg.args[0] if isinstance(arg, ast.Call) and callee_name(arg) == "partial" and arg.args else arg
            found = _remover(target, module, project, removers)
            if found is not None:
                return found
        return None
    found = _remover(call.func, module, project, removers)
    if found is None:
        return None
    for arg in call.args:
        value = assigned.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
        if isinstance(value, ast.Call) and callee_name(value) == "list" and value.args:
            value = value.args[0]
        comp = isinstance(value, (ast.ListComp, ast.GeneratorExp)) and value.generators[0].ifs \
            and words(module.code(value.generators[0].iter)) & _CONVERSATION
        filtered = isinstance(value, ast.Call) and callee_name(value) == "filter" and len(value.args) == 2 \
            and words(module.code(value.args[1])) & _CONVERSATION
        if comp or filtered:
            return found
    return None
