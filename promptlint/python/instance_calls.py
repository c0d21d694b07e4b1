"""Expressions the evaluator reads as no list and no conversation whatever their operands hold,
known from their syntax and their callee alone: a candidate read only in case it is a message list
(candidates.returned, of a function not named for prompts) or a cut conversation
(history_cuts.window) is then not read, since no layout can come of its value.

- a constant, a comparison, `not x`, a lambda, an f-string: text, never a list;
- a call by name of a class of the tree (`return Settings(history_of(turns))`): the evaluator
  builds an instance of it (`CallsMixin.invoke`), an `Obj` holding the arguments as fields, which
  neither a message list nor a cut conversation is (`history_cuts.windows_in` reads no object);
  not a `str` subclass handed one text (`class TextPrompt(str)`: the evaluator reads that call as
  the text, which may be a conversation rendered);
- a call by name of a callable not of the tree whose name is written as a class's
  (`BetaMessageTokensCount(input_tokens=n)`, `ImportError(...)`): an `Obj` too (`invoke`).

Only the callee (one name) is evaluated; a function of the tree, a builtin (`list(...)`), a
library call the evaluator reads itself (`copy.deepcopy(...)`, `pathlib.Path(...)`) and a method
are not known here.
"""
from __future__ import annotations

import ast

#: Expressions the evaluator reads as text whatever their operands are.
_TEXTS = (ast.Compare, ast.Lambda, ast.JoinedStr, ast.Constant)


def never_a_list(finder, node, frame) -> bool:
    """True when the evaluator reads `node` (in `frame`) as text or as an instance: no list, no
    conversation. `await` looks at what is awaited."""
    if isinstance(node, ast.Await):
        node = node.value
    if isinstance(node, _TEXTS) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return isinstance(node, ast.Call) and instance_call(finder, node, frame)


def instance_call(finder, call: ast.Call, frame) -> bool:
    """True when the evaluator reads `call` as an instance (`Obj`): a call by name of a class
    of the tree (not a `str` subclass handed one text), or of a callable not of the tree named as
    a class, that no handler of its own reads (`library.KNOWN`, a builtin)."""
    from .flow import builtin_calls, library
    from .flow.values import ClassRef, Func
    func = call.func
    if not isinstance(func, ast.Name):
        return False
    qual = finder.m.qualified_name(func) or ""
    if library.KNOWN.get(qual) or library.known_prefix(qual) or func.id in builtin_calls.BUILTINS:
        return False  # (read by the evaluator's own handler: `list(...)`, `copy.deepcopy(...)`)
    target = finder.ev.eval(func, frame)
    if isinstance(target, ClassRef):
        args = [a for a in call.args if not isinstance(a, ast.Starred)]
        kwargs = [k for k in call.keywords if k.arg is not None]
        return not (len(args) == 1 and not kwargs and finder.ev.plain_str(target))
    return not isinstance(target, Func) and qual.rsplit(".", 1)[-1][:1].isupper()
