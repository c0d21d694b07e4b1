"""Templates kept beside their values in one configuration (docs/policies.md, Policy 7): a
module-level template handed to a call together with keywords named as its placeholders, each
given a fixed value

    _SYSTEM_TEMPLATE = "You are a {{ role }}, {% if name %}named {{ name }}. {% endif %}..."
    class ReActAgent(ConversableAgent):
        profile: ProfileConfig = ProfileConfig(
            name=DynConfig("ReAct", category="agent", key="..."),
            role=DynConfig("ReActToolMaster", category="agent", key="..."),
            system_prompt_template=_SYSTEM_TEMPLATE,
        )

The configuration holds the template and what fills `role` and `name`: configured per instance
(or per deployment), fixed for its requests. A placeholder, `{{ x }}` or `{x}`, or a condition
(`{% if name %}`) that reads only such keys is stable; one named for something that changes
(`question`, `now_time`: `configured.named_otherwise`) keeps its reading.

A fixed value: a constant, a name of a module-level constant, or a call whose arguments are all
fixed values (`DynConfig("ReAct", key="...")`, a wrapper of configuration).

Shape: `configured_keys(module, name) -> {key: (call, keyword)}`; `fixed_by_configuration(segs,
keys, module) -> segs`.
"""
from __future__ import annotations

import ast
import re

from ..model import Kind, Volatility, replace
from .flow.configured import MARK, named_otherwise
from .walk import subtree

#: Words of a Jinja test that are not names of values.
_JINJA_WORDS = frozenset({"if", "elif", "and", "or", "not", "is", "in", "none", "None", "true", "false", "True",
                          "False", "defined", "undefined"})
_NAME = re.compile(r"[A-Za-z_]\w*")
MAX_DEPTH = 3  # calls nested in a fixed value (`Wrap(Config("x"))`)


def configured_keys(module, name: str) -> dict[str, tuple[ast.Call, ast.keyword]]:
    """{keyword: (the call, the keyword)} for each keyword with a fixed value given beside the
    template `name` (a module-level constant, passed by name) in a call of the module; a keyword
    given different fixed values in two calls, or a non-fixed value in any, is left out."""
    consts = _module_constants(module.tree)
    found: dict[str, tuple] = {}
    dropped: set[str] = set()
    for call in (n for n in subtree(module.tree) if isinstance(n, ast.Call)):
        given = [*call.args, *(k.value for k in call.keywords)]
        if not any(isinstance(a, ast.Name) and a.id == name for a in given):
            continue
        for kw in call.keywords:
            if kw.arg is None or isinstance(kw.value, ast.Name) and kw.value.id == name:
                continue
            if not _fixed(kw.value, consts, 0):
                dropped.add(kw.arg)
            elif kw.arg in found and ast.dump(found[kw.arg][1].value) != ast.dump(kw.value):
                dropped.add(kw.arg)
            else:
                found.setdefault(kw.arg, (call, kw))
    return {k: v for k, v in found.items() if k not in dropped and not named_otherwise(k)}


def _module_constants(tree: ast.Module) -> set[str]:
    """Names the module binds once, at its top level, to a constant."""
    seen: dict[str, int] = {}
    fixed: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            seen[stmt.targets[0].id] = seen.get(stmt.targets[0].id, 0) + 1
            if isinstance(stmt.value, ast.Constant):
                fixed.add(stmt.targets[0].id)
    return {n for n in fixed if seen[n] == 1}


def _fixed(node, consts: set[str], depth: int) -> bool:
    """True for a constant, a module-level constant by name, or a call of fixed values."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in consts
    if isinstance(node, ast.Call) and depth < MAX_DEPTH and isinstance(node.func, (ast.Name, ast.Attribute)):
        return all(_fixed(a, consts, depth + 1) for a in [*node.args, *(k.value for k in node.keywords)])
    return False


def _names(seg) -> set[str]:
    """The names a placeholder or a condition reads (`if name and role` -> {name, role})."""
    expr = seg.expr.strip()
    if seg.kind is Kind.CONDITIONAL:
        expr = re.sub(r"^(?:el)?if\s+", "", expr)
    expr = re.sub(r"(['\"]).*?\1", "", expr)  # (string literals in a test)
    expr = expr.split("|")[0]  # (a filter's name is no value)
    return {m.group(0).split(".")[0] for m in _NAME.finditer(expr)} - _JINJA_WORDS


def fixed_by_configuration(segs: list, keys: dict, module) -> list:
    """`segs` with each placeholder or condition of unknown volatility that reads only keys of
    `keys` (`configured_keys`) made stable, its evidence saying where the value is given."""
    if not keys:
        return segs
    out = []
    for s in segs:
        names = _names(s) if not s.is_static and s.volatility is Volatility.UNKNOWN \
            and s.kind in (Kind.TEMPLATE_VARIABLE, Kind.CONDITIONAL, Kind.UNKNOWN) else set()
        if names and names <= keys.keys():
            call, kw = keys[sorted(names)[0]]
            given = ", ".join(f"`{n}`" for n in sorted(names))
            where = f"`{module.code(call.func)}(...)` (line {call.lineno})"
            s = replace(s, volatility=Volatility.STABLE, evidence=(
                f"{given} given beside the template in {where}, a fixed value: configured per instance, fixed "
                f"for its requests {MARK}"))
        out.append(s)
    return out
