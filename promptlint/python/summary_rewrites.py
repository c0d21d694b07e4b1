"""The conversation's history replaced by a summary made again on every call: facts for PRM105.

A function named for the conversation's history (`_get_compressed_history`, `build_history`) that

- asks a model (or any call) for text given the history (`summary = self.model.chat(message)`, with
  `message = [{"role": "user", "content": f"Summarize this conversation: {history}"}]`),
- puts that answer in the first message of a list (`history = [{"role": "system", "content":
  summary}]`),
- and returns that list (also after adding to it: `history += [...]`)

hands back as the history a message that is written again each time it is called: the summary
of the longer conversation differs from the last one, so the history sent differs from its first
message on and nothing after the system prompt is read from the cache. A summary made only past a
size bound (`if tokens > limit:`) is one all the same: the summary is not kept, so once the
conversation is past the bound it is made again on every call. Reported where the list is made (the summary call
related): info, the request that sends it is not linked. The returned list is then no request of
its own (`python-constant` layout): the per-request summary at its head is this cause, not
content put before a history (PRM101).
"""
from __future__ import annotations

import ast

from .prompt_names import words
from .walk import subtree

#: Words of a name that say it holds the conversation.
_HISTORY = frozenset({"history", "conversation", "transcript", "dialog", "dialogue"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def might_hold(source: str) -> bool:
    """The cheap text test: a function named for the history that returns a list."""
    return "history" in source.lower() and "return " in source and "content" in source


def summary_rewrites(module) -> list[tuple[ast.AST, ast.Call, ast.Return]]:
    """(the list made, the call whose answer heads it, the `return` that hands it back) for each
    function of `module` of the shape in the module docstring, in source order."""
    out = []
    for fn in subtree(module.tree):
        if isinstance(fn, _FUNCS) and words(fn.name) & _HISTORY:
            found = _rewrite(fn)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _rewrite(fn):
    """The fact of `fn` (see `summary_rewrites`), else None."""
    own = _own(fn)
    assigns = [n for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name)]
    returned = {r.value.id: r for r in own if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
    history_built = {a.targets[0].id for a in assigns if _names_history(a.value)}
    answers = {}  # name -> the call whose answer it holds, given the history
    for a in assigns:
        call = a.value.value if isinstance(a.value, ast.Await) else a.value
        if isinstance(call, ast.Call) and _given_history(call, history_built):
            answers[a.targets[0].id] = call
    for a in assigns:
        name = a.targets[0].id
        if name not in returned or not isinstance(a.value, ast.List) or not a.value.elts:
            continue
        head = a.value.elts[0]
        for n in subtree(head):
            if isinstance(n, ast.Name) and n.id in answers and answers[n.id].lineno < a.lineno:
                return a.value, answers[n.id], returned[name]
    return None


def _own(fn) -> list:
    """The nodes of `fn`'s body, nested functions and classes left out."""
    out, todo = [], list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _names_history(node) -> bool:
    """True when `node` reads a name or attribute named for the conversation (`history`,
    `self.chat_history`)."""
    for n in subtree(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
        if name and words(name) & _HISTORY:
            return True
    return False


def _given_history(call: ast.Call, built: set) -> bool:
    """True when an argument of `call` is the conversation or a value built from it in the function."""
    args = [*call.args, *(k.value for k in call.keywords)]
    return any(_names_history(a) or any(isinstance(n, ast.Name) and n.id in built for n in subtree(a))
               for a in args)
