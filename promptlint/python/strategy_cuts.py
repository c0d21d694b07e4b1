"""A conversation handed to a compaction strategy its configuration chooses: facts for PRM105.

A framework that lets its users pick how the conversation is shortened keeps the choice as a
strategy object (a class per way to cut: a sliding window, a summary of the oldest messages, tool
results dropped past the newest few) and applies it where the history is loaded or sent:

    await _run_compaction_strategy(all_messages, strategy=self.before_strategy)
    context.context_messages[sid] = await apply_compaction(loaded, strategy=self.compaction_strategy)
    history = await self.history_reducer.reduce(history)

The call hands the conversation to a strategy that is configured (an attribute of the instance or a
parameter of the function), in a call named for compacting it (`_COMPACTS`: compaction, truncation,
summarization, a reducer, a condenser), and the conversation by its name (`all_messages`,
`history`) or by what the result is assigned to (`context.context_messages[sid] = ...`). Whatever
strategy the user gives, it runs on every turn here: a window or a summary of the oldest messages
moves the front of the history on every turn once the conversation passes its limit. The strategy
classes themselves are not followed (which one a user configures is not known), so the rule
reports the call at info (docs/policies.md, Policy 9). A function that hands on its own conversation
parameter with its own strategy parameter (`apply_compaction(messages, strategy=strategy)` inside
a helper) is a relay: its callers choose both, and are reported where they call it. Read in the
modules the pre-filter lets through (`prefilter.py`: those that build or send a prompt); the text
test `might_hold` is not one of its tests, so that a module of strategy names alone (a storage
`search_strategy=`, a scorer registry) is not analysed for it.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from .prompt_names import words
from .walk import child_nodes

#: The text test before the module's walk: a strategy-like keyword of a call (`, strategy=`) or a call
#: through a strategy-like attribute (`self.history_reducer.reduce(`), and words of a compaction and of
#: the conversation.
TEXT = re.compile(r"(?i)(?:[(,][ \t\n]{0,40}\w{0,40}(?:strategy|reducer|condenser|compactor|compressor|truncator)"
                  r"[ \t]{0,4}=(?!=)|self\.\w{0,40}(?:strategy|reducer|condenser|compactor|compressor|truncator)\w{0,40}"
                  r"(?:\.\w{1,40})?\()")
_COMPACT_TEXT = re.compile(r"(?i)(?:compact|compress|condens|truncat|summari[sz]|reduc|prun)")
_HISTORY_TEXT = re.compile(r"(?i)(?:messages|history|conversation|transcript|dialog|contents|msgs|turns)")
#: Words of a name that say it holds a way to shorten something chosen by configuration.
_STRATEGY = frozenset({"strategy", "reducer", "condenser", "compactor", "compressor", "truncator"})
#: Words of a name that say the call shortens the conversation (verbs and their nouns).
_COMPACTS = frozenset({"compact", "compaction", "compress", "compression", "compressor", "compactor", "condense",
                       "condenser", "truncate", "truncation", "truncator", "summarize", "summarise",
                       "summarization", "summarisation", "reduce", "reducer", "reduction", "prune", "pruning"})
#: Words of a name that say it holds the conversation.
_HISTORY = (CONVERSATION_WORDS - {"message", "chat"}) | {"contents"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def might_hold(source: str) -> bool:
    """The cheap text test (`TEXT`, and words of a compaction and of the conversation) of `source`."""
    return TEXT.search(source) is not None and _COMPACT_TEXT.search(source) is not None \
        and _HISTORY_TEXT.search(source) is not None


def strategy_cuts(module) -> list[ast.Call]:
    """The calls of `module` that hand the conversation to a configured compaction strategy (see the
    module), in source order. Shapes: `f(conv, strategy=S)` with `f` or the keyword named for
    compacting, `S(conv)` / `S.method(conv)` with `S` such an attribute; `S` is `self.attr` (also
    deeper, `self.config.attr`) or a parameter of the enclosing function."""
    out: list[ast.Call] = []
    todo: list = [(module.tree, frozenset(), None)]
    while todo:
        node, params, target = todo.pop()
        if isinstance(node, _FUNCS):
            a = node.args
            params = frozenset(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            todo.append((node.value, params, targets))
            todo.extend((t, params, None) for t in targets)
            continue
        if isinstance(node, ast.Await):
            todo.append((node.value, params, target))
            continue
        if isinstance(node, ast.Call) and _hands_to_strategy(node, params, target):
            out.append(node)
        todo.extend((child, params, None) for child in child_nodes(node))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _hands_to_strategy(call: ast.Call, params: frozenset, targets) -> bool:
    """True when `call` hands the conversation (its first argument) to a configured strategy."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return False
    conv = call.args[0]
    if not (_named_history(conv) or any(_named_history(t) for t in targets or ())):
        return False
    callee = words(_last(call.func))
    for kw in call.keywords:
        if kw.arg is None or not words(kw.arg) & _STRATEGY or not _configured(kw.value, params):
            continue
        if (callee | words(kw.arg) | words(_last(kw.value))) & _COMPACTS and not _relay(conv, kw.value, params):
            return True
    f = call.func  # the strategy called (`self.strategy(conv)`), or whose method is (`strategy.compact(conv)`)
    held = f.value if isinstance(f, ast.Attribute) and not (isinstance(f.value, ast.Name)
                                                            and f.value.id in ("self", "cls")) else f
    if not words(_last(held)) & _STRATEGY or not _configured(held, params):
        return False
    if held is not f and not callee & (_COMPACTS | {"apply"}):
        return False  # a method of the strategy that does not compact (`compactor.count_tokens(msgs)`)
    return bool((callee | words(_last(held))) & _COMPACTS) and not _relay(conv, held, params)


def _configured(node, params: frozenset) -> bool:
    """True for a value the configuration gives: `self.attr` (any depth) or a parameter's name."""
    if isinstance(node, ast.Name):
        return node.id in params and node.id not in ("self", "cls")
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _relay(conv, strategy, params: frozenset) -> bool:
    """True when both the conversation and the strategy are the function's own parameters."""
    return isinstance(conv, ast.Name) and conv.id in params and isinstance(strategy, ast.Name) \
        and strategy.id in params


def _named_history(node) -> bool:
    """True for a name, attribute or subscript of one whose name says it holds the conversation."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return bool(words(_last(node)) & _HISTORY)


def _last(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
