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


def rendered_apart(module) -> list[tuple[ast.AST, ast.AST]]:
    """(the test that tells the newest items apart, the loop that builds the text) of each function of the module named for the conversation that returns what such a loop over its
    parameter builds, in source order; one per function."""
    out = []
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        if not words(func.name) & _CONVERSATION:
            continue
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        own = own_nodes(func, body_only=True)
        returned = {r.value.id for r in own if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
        if not returned or not params:
            continue
        resolve = func_resolver(func)
        for loop in (n for n in own if isinstance(n, (ast.For, ast.AsyncFor))):
            found = next((f for name in returned for f in [older_apart(loop, name, resolve)] if f is not None), None)
            if found is not None and found[1] in params:
                out.append((found[0], loop))
                break
    return sorted(out, key=lambda f: (f[0].lineno, f[0].col_offset))
