"""A fresh value made for each message each time the whole conversation is converted for a
request: facts for PRM103 (the converters of one message are in converted_ids.py, whose module
docstring describes both). A function whose first parameter is the conversation (by its name,
`chat_history`, `messages`, or its annotation, `List[AgentMessage]`, `ChatHistory`) that makes a
new id or a random file name inside its walk over the messages and puts it in what it returns
converts the older messages again with new values on every call."""
from __future__ import annotations

import ast
import re

from .converted_ids import ID_WORDS, MESSAGE_NAMES, body_nodes, into_result, makes_id, record_field, returned_names
from .module import statements
from .prompt_names import words
from .walk import own_nodes, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

#: The text of a function whose first parameter may be the conversation (`def prepare(cls,
#: chat_history: "ChatHistory", ...)`, `def add_media(chat: List[AgentMessage])`): a module without
#: one is not walked for `history_ids` (bounded repetition: linear).
CONVERTS_HISTORY = re.compile(r"def[ \t]{1,8}\w{1,60}\(\s{0,40}(?:(?:self|cls)\b[^,()]{0,30},\s{0,40})?"
                              r"\w{0,30}(?:messages|history|chat|conversation)\b")

#: Words of a parameter's name that say it is the conversation.
_HISTORY_WORDS = frozenset({"messages", "history", "chat", "conversation", "msgs", "dialog", "transcript", "turns"})

#: An annotation of the conversation: a list of a message class, or a history class.
_HISTORY_TYPE = re.compile(r"^(?:\w+\.)?(?:List|list|Sequence|Iterable|MutableSequence)\[[\w.]*Message\w*\]$"
                           r"|(?:^|\.)\w*(?:History|Conversation|Thread)$")


# ---------------------------------------------------------------- converters of the whole conversation
def history_ids(module, project, sites) -> list[tuple[ast.Call, str, str, ast.AST | None]]:
    """Each new id or random file name a converter of the whole conversation makes for each
    message and puts in what it returns (see the module docstring), as (the call, the function's
    name, the conversation parameter's name, the call of the converter inside a send call of the
    module, or None); one per function. `project` resolves id helpers of the package tree."""
    if CONVERTS_HISTORY.search(module.source) is None or not any(w in module.source for w in ID_WORDS) \
            and project is None:
        return []
    helpers: dict[str, bool] = {}
    found = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        param = _history_param(func)
        if param is None:
            continue
        own = body_nodes(func)
        walks = _walks(own, param)
        if not walks:
            continue
        returned = _result_names(own)
        copies = _deep_copies(own, param)
        items = {n.id for loop in walks if _names(loop.iter) & copies & returned
                 for n in subtree(loop.target) if isinstance(n, ast.Name)}
        originals = frozenset({param} | {n.id for loop in walks if not _names(loop.iter) & copies
                                         for n in subtree(loop.target) if isinstance(n, ast.Name)})
        parents = {id(c): p for p in own for c in ast.iter_child_nodes(p)}
        inside = {id(n) for loop in walks for n in own_nodes(loop, body_only=True)}
        calls = sorted((n for n in own if isinstance(n, ast.Call) and id(n) in inside),
                       key=lambda c: (c.lineno, c.col_offset))
        for call in calls:
            if makes_id(module, call, project, helpers) \
                    and into_result(call, parents, own, returned | items, originals):
                found.append((call, func.name, param))
                break
    if not found:
        return []
    sent = [(c, n, p, _sent_whole(module, n, sites)) for c, n, p in found]
    return [f for f in sent if f[3] is not None or not record_field(module, f[0], project)]


def _history_param(func) -> str | None:
    """The name of the function's first parameter (after `self` / `cls`) when it is the
    conversation: annotated as a list of a message class or a history class, or, unannotated,
    named for it (`chat_history`, `messages`); not one message (`message`) nor text (`history: str`)."""
    args = [*func.args.posonlyargs, *func.args.args]
    if args and args[0].arg in ("self", "cls"):
        args = args[1:]
    if not args:
        return None
    a = args[0]
    if a.annotation is not None:
        ann = ast.unparse(a.annotation).strip("'\"").replace(" ", "")
        return a.arg if _HISTORY_TYPE.search(ann) else None
    return a.arg if words(a.arg) & _HISTORY_WORDS and a.arg not in MESSAGE_NAMES else None


def _names(node) -> set[str]:
    return {n.id for n in subtree(node) if isinstance(n, ast.Name)}


def _walks(own: list, param: str) -> list:
    """The outermost `for` loops over the conversation: their iterable reads `param` or a name
    made from it (`int_chat = copy.deepcopy(chat)`)."""
    derived = {param}
    for n in own:
        if isinstance(n, ast.Assign) and _names(n.value) & derived:
            derived |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    loops = [n for n in own if isinstance(n, (ast.For, ast.AsyncFor)) and _names(n.iter) & derived]
    nested = {id(x) for loop in loops for x in own_nodes(loop, body_only=True)}
    return [loop for loop in loops if id(loop) not in nested]


def _deep_copies(own: list, param: str) -> set[str]:
    """The names assigned a deep copy of the conversation (`copy.deepcopy(chat)`): writes on their
    items do not reach the caller's messages, so they are made again on every call."""
    return {t.id for n in own if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
            and (getattr(n.value.func, "attr", None) or getattr(n.value.func, "id", None)) == "deepcopy"
            and param in _names(n.value) for t in n.targets if isinstance(t, ast.Name)}


def _result_names(own: list) -> set[str]:
    """The names the function returns (`converted_ids.returned_names`: not a lookup key), with the names whose values are put into one of them
    (`inputs.append({"content": parts})` adds `parts`), to a fixed point (four rounds)."""
    out = returned_names(own)
    grows = [(n.func.value.id, n.args) for n in own if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in ("append", "extend", "insert") and isinstance(n.func.value, ast.Name)]
    for _ in range(4):
        more = {x for name, args in grows if name in out for a in args for x in _names(a)} - out
        if not more:
            break
        out |= more
    return out


def _sent_whole(module, name: str, sites) -> ast.AST | None:
    """The first call of the converter `name` (`name(...)`, `self.name(...)`, `cls.name(...)`)
    inside a send call of the module (`sites`: spans), or None."""
    for node in subtree(module.tree):
        if isinstance(node, ast.Call) and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == name \
                and node.args:
            span = module.span(node)
            if any(s.start <= span.start and span.end <= s.end for s in sites or ()):
                return node
    return None
