"""A request's model chosen by a condition on what the request sends: facts for PRM205.

A request's `model=` is traced back through the sending function: a conditional value between
two models (`"gpt-4o" if size > LIMIT else "gpt-4o-mini"`), or a name assigned other model names
in the branches of an `if` before the request (`if num_tokens > 3500: model = "gpt-3.5-turbo-16k"
else: model = "gpt-3.5-turbo"`). The condition decides:

- it reads a value computed from the messages the same request sends (`messages=prompt`, then
  `num_tokens` summed over `prompt` in a loop; `any(m.get("images") for m in messages)`): the
  model follows the content, so the requests of one conversation go to another model when the
  content crosses the test (`evidence` "messages");
- it reads a name that says the turn's request (`query`, `user_message`): the same, by its name
  (`evidence` "name");
- anything else (a setting, a parameter of the caller's choice, the model asked for) is fixed
  for the conversation: not read.

Each alternative must be a model name written in the code (a string constant): a choice between
a configured model and a default is not a switch between two models.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .tool_variants import PER_TURN
from .walk import own_nodes, statements, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Keywords of a request that carry what it sends.
_SENT_KEYS = ("messages", "contents", "input")


@dataclass
class ModelCondition:
    """`node`: the condition (the test of the `if` or of the conditional value: reported);
    `request`: the call that sends with the chosen model; `models`: the model names, in source
    order; `evidence`: "messages" or "name"; `sent`: the source text of what the request sends."""

    node: ast.expr
    request: ast.Call
    models: list[str]
    evidence: str
    sent: str


def _names(expr) -> set[str]:
    return {n.id for n in subtree(expr) if isinstance(n, ast.Name)}


def _derived(seed: set[str], own) -> set[str]:
    """`seed` and the names computed from them in the function: assigned from them (also by `+=`),
    a loop's variable over them, and what is computed from those."""
    steps: list[tuple[set[str], set[str]]] = []  # (targets, names read)
    for n in own:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            steps.append(({x.id for t in targets for x in subtree(t) if isinstance(x, ast.Name)}, _names(n.value)))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            steps.append((_names(n.target), _names(n.iter)))
    found, changed = set(seed), True
    while changed:
        changed = False
        for targets, reads in steps:
            if reads & found and not targets <= found:
                found |= targets
                changed = True
    return found


def _alternatives(value, own, parents, before: int) -> list[tuple[ast.expr, list[str]]]:
    """(condition, model names) for each place the `model=` value takes one of two written
    model names: a conditional value (also assigned to its name), or assignments of its name in
    the branches of an `if`."""
    if isinstance(value, ast.IfExp):
        names = [v.value for v in (value.body, value.orelse) if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        return [(value.test, names)] if len(set(names)) == 2 else []
    if not isinstance(value, ast.Name):
        return []
    by_test: dict[int, tuple[ast.expr, list[str]]] = {}
    out = []
    for n in sorted((n for n in own if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)):
        if n.lineno < before and isinstance(n.value, ast.IfExp) \
                and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets):
            out += _alternatives(n.value, own, parents, before)
        elif n.lineno < before and isinstance(n.value, ast.Constant) \
                and isinstance(n.value.value, str) and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets):
            at = parents.get(id(n))
            if isinstance(at, ast.If):
                test, names = by_test.setdefault(id(at), (at.test, []))
                names.append(n.value.value)
    return out + [(test, names) for test, names in by_test.values() if len(set(names)) >= 2]


def find_model_conditions(module) -> list[ModelCondition]:
    """Every request whose model is chosen by a condition on what it sends or on the turn's
    request (see the module docstring), once per condition, by line."""
    src = module.source
    if "model" not in src or "if " not in src:
        return []
    if not any(type(n) is ast.Call and any(k.arg == "model" for k in n.keywords)
               and any(k.arg in _SENT_KEYS for k in n.keywords) for n in subtree(module.tree)):
        return []  # (no call is given both a model and what it sends: no function below has one)
    out: dict[int, ModelCondition] = {}
    for func in (n for n in statements(module.tree) if isinstance(n, _FUNCS)):
        own = own_nodes(func)
        calls = [n for n in own if isinstance(n, ast.Call) and any(k.arg == "model" for k in n.keywords)]
        if not calls:
            continue
        parents = {id(c): n for n in own for c in ast.iter_child_nodes(n)}
        for call in calls:
            sent = next((k.value for k in call.keywords if k.arg in _SENT_KEYS), None)
            value = next(k.value for k in call.keywords if k.arg == "model")
            alternatives = _alternatives(value, own, parents, call.lineno) if sent is not None else []
            if not alternatives:
                continue
            derived = _derived(_names(sent) - {"self", "cls"}, own)
            for test, models in alternatives:
                reads = _names(test)
                evidence = "messages" if reads & derived else "name" if any(PER_TURN.search(r) for r in reads) else None
                if evidence is not None and id(test) not in out:
                    out[id(test)] = ModelCondition(test, call, models, evidence, ast.unparse(sent))
    return sorted(out.values(), key=lambda c: (c.node.lineno, c.node.col_offset))
