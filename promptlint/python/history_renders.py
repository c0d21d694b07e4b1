"""A conversation rendered into text with its newest turns written apart, by a function named for
the conversation and no request linked to it: facts for PRM105 (the rule judges them).

A function whose name says it renders the conversation (`get_colang_history`, `format_history`,
`render_transcript`) that builds a text (or a list) in a loop over a list it is handed (its turns,
events or messages) and returns it, giving each item one rendering or another by its place counted
from the end (`flow/rewrites.older_apart`: `if idx == last_index: history += f"# {note}"` beside
the item's own line, `if i < len(turns) - 4: ... else: ...`), writes the conversation with its
newest turns apart from the older ones: on the next turn the item that was newest is written the
other way, so the text differs from the previous one in its middle, and whatever a cache held of
it ends there. Where the request places the text is not followed here (a template, a filter of a
template engine): info, at the test that tells the newest items apart. A function that the
analysis reads into a request is judged there too (the same place: one finding).

Not only by the function's name: a function (or method) whose loop walks a list named for the
conversation (`for i, step in enumerate(history)`), or a list the instance keeps and grows in
another of the class's methods (`for i, group in enumerate(self.groups)`, with `self.groups.append(...)`
elsewhere: a conversation kept across turns, whatever its name), and returns what the loop builds, is
read the same way (an agent's `flatten()` that gives the newest groups whole and the older ones
without their screenshots). A function named for showing, logging or summarising what it builds
(`format_history_for_display`, `summarize_history`) is not one: its text is not the history re-sent;
nor is a loop that only adds to a count (`num_tokens += len(encode(m["content"]))`, returned).
"""
from __future__ import annotations

import ast
import re

from .prompt_names import words
from .flow.rewrites import func_resolver, older_apart
from .module import statements
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Words of a function's name that say it renders the conversation.
_CONVERSATION = frozenset({"history", "conversation", "transcript", "dialog", "dialogue", "chat"})
#: The text of a function named so (bounded repetition: linear): a module without one is not read.
TEXT = re.compile(r"def[ \t]{1,8}\w{0,40}(?i:history|conversation|transcript|dialog|chat)\w{0,40}\(")
#: The text of a loop by index over a list named for the conversation or kept on the instance.
WALK_TEXT = re.compile(r"for[ \t]+\w+,[ \t]*\w+[ \t]+in[ \t]+enumerate\((?:self\.\w+|\w{0,30}(?i:history|messages|turns|steps)\w{0,20})\)")
#: The text of a comparison with a value counted from an end (`i >= len(xs) - k`, `i < n - shown`).
FROM_END_TEXT = re.compile(r"[<>]=?[ \t]*[^\n:<>]{1,80}?[ \t]-[ \t]")


#: The text of a list named for the conversation joined into text (`"\n".join(formatted_history)`):
#: what a walk by index of any list wrote into it is the conversation written as text.
JOIN_TEXT = re.compile(r"\.join\([ \t]{0,4}\w{0,30}(?i:history|transcript|conversation)\w{0,20}[ \t]{0,4}\)")


def might_walk_apart(source: str) -> bool:
    """True when the module's text may hold a walk by index of a conversation or a kept list told
    apart from its end (`WALK_TEXT`, `FROM_END_TEXT`), or of any list into one named for the
    conversation that is joined into text (`JOIN_TEXT`: `flow.rewrites.rendered_apart` reads it
    where it is joined): the text test before its walk."""
    return "enumerate" in source and (WALK_TEXT.search(source) is not None or JOIN_TEXT.search(source) is not None) \
        and FROM_END_TEXT.search(source) is not None


#: Words of a function's name that say what it builds is shown, logged or summarised, not re-sent.
_NOT_SENT = frozenset({"display", "log", "logs", "print", "debug", "show", "repr", "str", "html", "summary",
                       "summarize", "summarise", "summarization", "summarisation", "summarizer", "recap"})
#: Words of a walked list's name that say it is the conversation.
_WALKED = _CONVERSATION | {"messages", "msgs", "turns"}


def rendered_apart(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the test that tells the newest items apart, the loop that builds the text) of each function of the module named for the conversation that returns what such a loop over its
    parameter builds, in source order; one per function."""
    out = []
    walks = WALK_TEXT.search(module.source) is not None
    for func, kept in _functions(module.tree, walks):
        named = bool(words(func.name) & _CONVERSATION)
        if not named and not walks or words(func.name) & _NOT_SENT:
            continue
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        own = own_nodes(func, body_only=True)
        returned = {r.value.id for r in own if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
        returned -= _counts(own)  # (a count of tokens built in the loop: nothing is rendered)
        if not returned or not params:
            continue
        resolve = func_resolver(func)
        for loop in (n for n in own if isinstance(n, (ast.For, ast.AsyncFor))):
            found = next((f for name in returned for f in [older_apart(loop, name, resolve, flags=True)] if f is not None), None)
            if found is not None and (named and found[1] in params or _conversation(found[1], kept)):
                out.append((found[0], loop))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))


def _counts(nodes) -> set[str]:
    """The names among `nodes` (a function's own) first bound to a number (`num_tokens = 0`): a
    count the loop adds to, not a text or a list it builds."""
    first: dict[str, ast.expr] = {}
    for n in sorted((n for n in nodes if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)):
        for t in n.targets:
            if isinstance(t, ast.Name):
                first.setdefault(t.id, n.value)
    return {name for name, value in first.items() if isinstance(value, ast.Constant)
            and type(value.value) in (int, float)}


def _functions(tree, walks: bool):
    """(function, the attributes of `self` its class grows in its methods) of every function of the
    module (the attributes only when `walks`: the module's text holds a walk by index)."""
    kept = {}
    for node in statements(tree):
        if isinstance(node, ast.ClassDef) and walks:
            methods = [m for m in node.body if isinstance(m, _FUNCS)]
            grown = frozenset(n.func.value.attr for m in methods for n in ast.walk(m) if isinstance(n, ast.Call)
                              and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend", "insert")
                              and _self_attr(n.func.value))
            kept.update((id(m), grown) for m in methods)
        elif isinstance(node, _FUNCS):
            yield node, kept.get(id(node), frozenset())


def _self_attr(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _conversation(source: str, kept: frozenset) -> bool:
    """True for the source of a walked list that is the conversation: named for it (`history`,
    `self.messages`), or a list of `self` its class grows (`self.groups`, in `kept`)."""
    if source.startswith("self.") and source.count(".") == 1 and source[5:] in kept:
        return True
    return bool(words(source.rpartition(".")[2]) & _WALKED)
