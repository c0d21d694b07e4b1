"""A prompt-caching switch handed to LiteLLM under a name it does not read: a fact for PRM302
(`unread_cache_flags`; the rule judges it).

LiteLLM sets a cache breakpoint only where the request says so: a `cache_control` on a message's
content part, or its `cache_control_injection_points` option (docs.litellm.ai/docs/completion/
prompt_caching, docs.litellm.ai/docs/tutorials/prompt_caching). A caller's wish for prompt caching
written into the call's options as a switch of the code's own naming

    api_kwargs = {"model": model, "messages": messages, **kwargs}
    if use_prompt_caching:
        api_kwargs["use_prompt_caching"] = use_prompt_caching
    response = await litellm.acompletion(**api_kwargs)

sets none: on Claude (which caches nothing without a breakpoint) the request is sent uncached
whatever the switch says.

Found, in a module that imports LiteLLM, at each key named for prompt caching (`use_prompt_caching`,
`enable_prompt_cache`: `prompt_cach` in it, and not one of LiteLLM's own options,
`LITELLM_CACHE_OPTIONS`) written into the options of a call of `litellm.completion` /
`acompletion` (a keyword, or a key of the dict the call spreads with `**`: its display, or a
subscript assigned), when no file of the package that names a breakpoint key reads that key (a
subscript, `.get`, `.pop`, `in`): nothing in the package turns the switch into a breakpoint.
"""
from __future__ import annotations

import ast
import re

from .gated_markers import module_functions
from .parsing import ParseError
from .tree_search import OverBudget
from .walk import subtree

#: LiteLLM's calls that send a chat request.
_SENDS = frozenset({"litellm.completion", "litellm.acompletion"})
#: LiteLLM's own options of prompt caching, forwarded or read by it.
LITELLM_CACHE_OPTIONS = frozenset({"prompt_cache_key", "prompt_cache_retention", "cache_control_injection_points"})
_FLAG = re.compile(r"prompt_cach")


def might_flag(source: str) -> bool:
    """The cheap test: LiteLLM and a name of a prompt-caching switch."""
    return "litellm" in source and "prompt_cach" in source


def _flag(key) -> bool:
    return isinstance(key, str) and _FLAG.search(key) is not None and key not in LITELLM_CACHE_OPTIONS


def _keys(func, call) -> list[ast.AST]:
    """The nodes that write a prompt-caching switch into the call's options: its keyword, a key of
    a dict display it spreads (or that a name it spreads is bound to), a subscript assigned into
    that name."""
    out = []
    spread = set()
    for kw in call.keywords:
        if kw.arg is not None and _flag(kw.arg):
            out.append(kw)
        elif kw.arg is None and isinstance(kw.value, ast.Name):
            spread.add(kw.value.id)
        elif kw.arg is None and isinstance(kw.value, ast.Dict):
            out += [k for k in kw.value.keys if isinstance(k, ast.Constant) and _flag(k.value)]
    if not spread:
        return out
    for n in subtree(func):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and (isinstance(n, ast.AnnAssign) or len(n.targets) == 1):
            target = n.target if isinstance(n, ast.AnnAssign) else n.targets[0]
            if isinstance(target, ast.Name) and target.id in spread and isinstance(n.value, ast.Dict):
                out += [k for k in n.value.keys if isinstance(k, ast.Constant) and _flag(k.value)]
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and target.value.id in spread and isinstance(target.slice, ast.Constant) \
                    and _flag(target.slice.value):
                out.append(n)
    return out


def reads_key(module, key: str) -> bool:
    """True when the module reads `key` off a mapping: `x[key]` (not assigned), `x.get(key)`,
    `x.pop(key)`, `key in x`."""
    for n in subtree(module.tree):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.slice, ast.Constant) \
                and n.slice.value == key:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "pop") \
                and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == key:
            return True
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) and n.left.value == key \
                and isinstance(n.ops[0], (ast.In, ast.NotIn)):
            return True
    return False


def _key_name(node) -> str:
    if isinstance(node, ast.keyword):
        return node.arg
    if isinstance(node, ast.Assign):
        return node.targets[0].slice.value
    return node.value


def unread_cache_flags(module, project) -> list[tuple[ast.AST, str]]:
    """(the write, the key) of each switch of the module docstring, in source order."""
    if not module.imports_from("litellm"):
        return []
    found = []
    for _cls, func in module_functions(module):
        for n in subtree(func):
            if isinstance(n, ast.Call) and module.qualified_name(n.func) in _SENDS:
                found += _keys(func, n)
    if not found:
        return []
    readers = []  # the modules of the package that name a breakpoint key (one that turns a switch into one)
    for path in project.marker_files(module.path):
        try:
            readers.append(project.load(path))
        except (ParseError, OverBudget):
            return []  # (unread: it may read the switch)
    out = []
    for node in sorted(found, key=lambda n: (n.lineno, n.col_offset)):
        key = _key_name(node)
        if not any(reads_key(m, key) for m in [module, *readers]):
            out.append((node, key))
    return out
