"""A request sent by unpacking a dict (`client.messages.create(**payload)`, `**self._params(...)`):
the keyword arguments the dict gives the call.

A dict with static keys adds its entries to the call's keyword arguments (keywords written at
the call win); a dict whose keys are not known marks the call (`Call.unread`: it may hold any
option); one whose known keys were merged with such a dict (`Mapping.open`) adds the entries it
is known to hold and marks the call `open` (what else it sets is not known). A dict that is one of several the code builds with different messages (a wrapper
`send(client, payload)` whose callers build two requests: a chat turn and a one-shot structured
request) is several requests: one call per dict, each built into a layout of its own, instead of
one dict whose messages are an unreadable choice between lists. A dict completed in branches
(`if tools: payload["tools"] = tools`) keeps one message list and stays one request. A
module-level dict (`additional_kwargs = {...}`) holds the keys that the functions of its module
write into it: the sending function before it sends (read where it writes them: flow/scopes.py),
and another function that fills it (`def load_tools(): OPTIONS["tools"] = [...]`).
"""
from __future__ import annotations

import ast
from copy import copy

from .flow.binding_syntax import param_names
from .flow.closures import outer_parameters
from .flow.configured import MARK
from .flow.segment_text import const_str
from .flow.keyed_targets import global_writes
from .flow.variants import dict_variants, merged_dict, one_dict
from .flow.values import Alt, Mapping, Seq
from .layout import Evaluated, dict_entries
from . import passed_options
from .walk import subtree

#: Keys of a request dict that carry its messages (the SDKs' message and input arguments): dicts
#: with one list there are one request, whatever system prompt or options each branch sets.
MESSAGE_KEYS = ("messages", "input", "contents", "prompt", "inputs")
MAX_REQUESTS = 4  # dicts read as requests of their own; past it, one dict of every key
#: Request options that carry no prompt text and no cache breakpoint (sampling and transport): a
#: dict filtered to keys of these alone adds nothing a layout reads.
OPTION_KEYS = frozenset({"temperature", "max_tokens", "max_completion_tokens", "max_output_tokens", "top_p", "top_k",
                         "stop", "stop_sequences", "seed", "presence_penalty", "frequency_penalty", "n", "timeout",
                         "max_retries", "num_retries", "stream", "user", "logprobs", "top_logprobs",
                         "reasoning_effort", "candidate_count"})


def expansions(builder, call, frame) -> list:
    """The calls the `**mapping` arguments of `call` stand for: `[call]` with their entries added
    to `call.kwargs`, or one copy of `call` per request dict (see the module docstring)."""
    spread = [kw for kw in call.node.keywords if kw.arg is None]
    values = [builder.ev.eval(kw.value, frame) for kw in spread]
    if len(spread) == 1 and isinstance(values[0], Alt):
        requests = _requests(dict_variants(values[0], merge=False) or [])
        if 1 < len(requests) <= MAX_REQUESTS:
            out = []
            for dicts in requests:
                one = copy(call)
                one.kwargs = dict(call.kwargs)
                _add(builder, one, spread[0], dicts[0] if len(dicts) == 1 else merged_dict(dicts, True))
                _filled_elsewhere(builder, one, spread[0])
                out.append(one)
            return out
    for kw, value in zip(spread, values):
        merged = _merged_operands(kw.value) if one_dict(value) is None or one_dict(value).open else None
        if merged is not None:  # `**(kwargs | self.options)`, `**{**kwargs, **self.options}`: each dict on its own
            for operand in reversed(merged):  # (the right side's keys win: added first, kept by `setdefault`)
                part = ast.copy_location(ast.keyword(arg=None, value=operand), kw)
                inner = builder.ev.eval(operand, frame)
                _add(builder, call, part, one_dict(inner), inner)
            continue
        _add(builder, call, kw, one_dict(value), value)
        _filled_elsewhere(builder, call, kw)
    return [call]


def _merged_operands(node: ast.expr) -> list[ast.expr] | None:
    """The dicts a `**` argument merges, left to right, when it is nothing but their merge:
    `a | b | c` (the right side's keys win) or a dict display of spreads alone (`{**a, **b}`);
    None for any other expression (a display that writes a key of its own is read whole)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _merged_operands(node.left) or [node.left]
        return left + (_merged_operands(node.right) or [node.right])
    if isinstance(node, ast.Dict) and node.keys and all(k is None for k in node.keys):
        return list(node.values)
    return None


def _filled_elsewhere(builder, call, kw) -> None:
    """Add to the call's keyword arguments the keys another function of the module writes into
    the module-level dict passed as `**kw.value` (`def load_tools(): OPTIONS["tools"] = [...]`,
    then `create(..., **OPTIONS)`: `keyed_targets.global_writes`), each value read in its writer
    (the keys the dict is built with, and those written at the call, win). The sending function's
    own writes are read where it makes them (scopes)."""
    node, frame = kw.value, call.frame
    func = getattr(frame, "func", None)
    if not isinstance(node, ast.Name) or func is None or getattr(frame, "module_level", False) \
            or _binds_name(func, node.id):
        return
    m = builder.m
    for writer, cls, target, value in global_writes(m, node.id, skip=func):
        key = target.slice.value
        if key in call.kwargs:
            continue
        entry = builder.ev.eval(value, builder.ev.unbound_frame(m, writer, cls))
        call.kwargs[key] = Evaluated(entry, m.span(target), f"{node.id}[{key!r}]")


def _binds_name(func, name: str) -> bool:
    """True when `name` is a parameter of `func` or a name it assigns."""
    return name in set(param_names(func, stars=True)) or name in _bound(func)


def _requests(variants: list[Mapping]) -> list[list[Mapping]]:
    """The dicts grouped by request: dicts that give the same values (by identity) to the
    message keys every one of them sets are one request completed in branches (a system prompt
    set one way or another: `base_args["system"] = [block]`); [] when no message key is set by
    all."""
    keys = [k for k in MESSAGE_KEYS if variants and all(k in v.items for v in variants)]
    if not keys:
        return []
    groups: dict[tuple, list[Mapping]] = {}
    for v in variants:
        groups.setdefault(tuple(id(v.items[k]) for k in keys), []).append(v)
    return list(groups.values())


def forwarded_kwargs(node: ast.expr, func: ast.AST | None, module=None) -> bool:
    """True when `node`, passed as `**node`, is the `**kwargs` parameter of `func` (the sending
    function), or a local name bound once in `func`, to a copy or a filter of it (`dict(kwargs)`,
    `kwargs.copy()`, `deepcopy(kwargs)`, `select_values(notnone, kwargs)`: a call whose other
    arguments are names `func` does not bind, functions of the module): the mapping holds the
    keyword arguments its callers pass, and no key of its own. So is, given the `module`, the
    `**kwargs` of a function around a nested `func` that reads it as it is
    (`flow.closures.outer_parameters`: a send in a retried inner function)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(node, ast.Name):
        return False
    if module is not None and node.id in outer_parameters(module, func)[1]:
        return True
    if func.args.kwarg is None:
        return False
    param = func.args.kwarg.arg
    local = _bound(func)
    if node.id == param:
        return param not in local
    binds = [n for n in subtree(func) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
             and any(isinstance(t, ast.Name) and t.id == node.id for t in _targets(n))]
    if len(binds) != 1 or not isinstance(binds[0], (ast.Assign, ast.AnnAssign)) or binds[0].value is None:
        return False
    value = binds[0].value
    if not isinstance(value, ast.Call) or value.keywords or param in local:
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args:
        return isinstance(value.func.value, ast.Name) and value.func.value.id == param
    names = [a.id for a in value.args if isinstance(a, ast.Name)]
    return len(names) == len(value.args) and names.count(param) == 1 \
        and not any(n in local or n in set(param_names(func, stars=True)) for n in names if n != param)


def configured_options(value) -> bool:
    """True when `value` (what a `**mapping` evaluates to) is options the instance is built with
    and nothing of the code's own: a parameter of `__init__` with a default or a field declared
    with one (`configured.MARK`: `self.model_params = model_params or {}` with `def __init__(self,
    model_params: dict | None = None)`), or a choice between such a value and dicts with no entry
    (`or {}`). Like the sending function's own `**kwargs`, it holds what those who build the
    instance pass: a breakpoint key only where one of them writes it."""
    options = value.options if isinstance(value, Alt) else [value]
    configured = False
    for option in options:
        if isinstance(option, Mapping):
            if option.items or option.open or option.repeated:
                return False
            continue
        segs = getattr(option, "segs", None)
        if not segs or not all(not s.is_static and s.evidence.endswith(MARK) for s in segs):
            return False
        configured = True
    return configured


def _bound(func) -> set[str]:
    """The names `func` binds by assignment (its parameters aside)."""
    return {n.id for n in subtree(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _targets(node) -> list:
    """The names an assignment binds (`x = ...`, `a, b = ...`; not `x["k"] = ...`, which adds to `x`)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _add(builder, call, kw, value: Mapping | None, raw=None) -> None:
    """Add the entries of the dict `value` passed as `**kw.value` to the call's keyword
    arguments; None (keys not known) marks the call (`Call.unread`), and keeps it `forwarded`
    when the mapping is the sending function's own `**kwargs` (also as a helper of the module
    returns it with a few fixed keys set: `passed_options`) or the instance's configuration
    (`raw`, what `kw.value` evaluates to: `configured_options`); a dict that may hold keys
    not known besides its entries (`Mapping.open`: `{**params, "system": text}`) adds them and
    marks the call `open`."""
    if (value is None or value.repeated) and _options_only(builder, kw.value, call.frame):
        return  # a dict filtered to sampling options: no text and no breakpoint in it
    if value is None or value.repeated:
        call.unread = True
        func = getattr(call.frame, "func", None)
        call.forwarded = call.forwarded and (forwarded_kwargs(kw.value, func, builder.m) or configured_options(raw)
                                             or passed_options.through_helper(builder.m, func, kw.value))
        return
    call.open = call.open or value.open
    m = builder.m
    for key, entry in dict_entries(value.items, value.key_spans, m.span(kw.value), m.code(kw.value)).items():
        call.kwargs.setdefault(key, entry)  # (keywords written at the call win)


def _options_only(builder, node: ast.expr, frame) -> bool:
    """True when `node` (passed as `**node`) is a dict comprehension, or a local name bound once
    to one, that keeps only keys found in a list known statically whose every key is one of
    `OPTION_KEYS`: `{k: v for k, v in hints.items() if k in self.supported_hints}` with
    `supported_hints = ["temperature"]`. Such a dict may set sampling options, never a message,
    a system prompt, tools or a `cache_control`."""
    func = getattr(frame, "func", None)
    if isinstance(node, ast.Name) and isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        binds = [n for n in subtree(func) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
                 and any(isinstance(t, ast.Name) and t.id == node.id for t in _targets(n))]
        if len(binds) != 1 or isinstance(binds[0], ast.AugAssign) or binds[0].value is None:
            return False
        node = binds[0].value
    if not isinstance(node, ast.DictComp) or len(node.generators) != 1 or frame is None:
        return False
    gen = node.generators[0]
    key = gen.target.elts[0] if isinstance(gen.target, ast.Tuple) and gen.target.elts else gen.target
    if not (isinstance(key, ast.Name) and isinstance(node.key, ast.Name) and node.key.id == key.id):
        return False
    for test in gen.ifs:
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In) \
                and isinstance(test.left, ast.Name) and test.left.id == key.id:
            keys = _static_keys(builder.ev.eval(test.comparators[0], frame))
            if keys is not None and keys <= OPTION_KEYS:
                return True
    return False


def _static_keys(value) -> set[str] | None:
    """The strings of a list, tuple or set known whole (every item static text), else None."""
    if isinstance(value, Alt) and len(value.options) == 1:
        value = value.options[0]
    if not isinstance(value, Seq) or value.repeated:
        return None
    keys = [const_str(v) for v in value.items]
    return None if any(k is None for k in keys) else set(keys)
