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
"""
from __future__ import annotations

import ast
import re

from .candidates import words
from .module import callee_name, statements
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_WRITE = frozenset({"replace", "set", "save", "store", "write", "persist", "overwrite"})
_CONVERSATION = frozenset({"messages", "context", "history", "conversation", "transcript"})
#: The text of a call named so (bounded repetition: linear): a module without one is not read.
TEXT = re.compile(r"(?i:replace|set|save|store|write|persist|overwrite)_\w{0,40}"
                  r"(?i:messages|context|history|conversation|transcript)\w{0,20}\(")


def kept_removals(module) -> list[tuple[ast.AST, ast.Call]]:
    """(the comprehension that leaves the handed messages out, the call that writes it back) for
    each function of the module that removes messages it is handed from the kept conversation,
    in source order; one per function."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)} - {"self", "cls"}
        if not params:
            continue
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
