"""A model chosen anew for each request: facts for PRM205.

Providers cache a prefix per model: a request to another model than the previous one of the same
conversation reads nothing of what the previous request cached. Shapes, in a function that runs
per request (not `__init__`):

- a model drawn at random from a list of models (`random.choice(self.models)`,
  `random.sample(MODELS, 1)[0]`);
- a model taken in turns, by a counter kept across calls (`self.models[self.calls % len(self.models)]`,
  also through an index computed first: `i = self.calls % n`, then `self.models[i]`, the counter
  incremented by a method of a class of the module: `self.calls += 1`), by an index kept on the
  instance that a method advances around the list (`self.current = (self.current + 1) %
  len(self.models)`, then `self.models[self.current]`), or from an `itertools.cycle` of the models
  kept on the instance (`next(self.rotation)`).

The list is one of models by its name (`models`, `llms`, `engines`, `model_names`, `model_ids`):
a name of a pool of anything else (API keys, proxies, examples) is not read. The chosen model must
make a request: a method called on it (`model.query(...)`, `llm.invoke(...)`, or the model called)
or a call given it as `model=`, in the same function, or in a function of the module that calls
the method returning the choice (`model = self.select_model()`, then `model.query(...)`).
`conversation` says the request passes a value named as the conversation (`messages`,
`history`): the code then says it re-sends one to the model it switched to.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .model_payloads import payload_send
from .module import self_attr
from .walk import subtree, own_nodes as _own

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Qualified names of calls that draw items at random.
_RANDOM = {"random.choice", "random.choices", "random.sample", "secrets.choice", "numpy.random.choice"}
#: Functions that run once per instance: a model chosen there is the same on every request.
_ONCE = {"__init__", "__post_init__", "model_post_init", "__new__"}
#: Words of names that say what is sent the conversation (the request's arguments).
_CONVERSATION = {"messages", "msgs", "history", "conversation", "chat_history", "dialog", "transcript"}


@dataclass
class ModelSwitch:
    """`node`: where the model is chosen (the random draw, or the counter's modulo); `how`: "at
    random" or "in turns"; `pool`: the source text of the list of models; `function`: the function
    that chooses; `request`: the call made with the chosen model; `conversation`: the request
    passes a value named as the conversation; `via`: the payload dict the model is written into when
    it reaches the request that way (`form_data["model"] = pick`), and `sent`: how that dict is sent
    ("spread", "wrapper" or "caller", see `model_payloads`; `request` is then the write)."""

    node: ast.AST
    how: str
    pool: str
    function: str
    request: ast.AST
    conversation: bool
    via: str = ""
    sent: str = ""


def is_model_pool(expr: ast.AST) -> bool:
    """True when an expression names a list of models by its last identifier (`self.models`,
    `MODEL_NAMES`, `config.llms`)."""
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""
    words = set(re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()))
    return bool(words & {"models", "llms", "engines"}) or "model" in words and bool(
        words & {"names", "ids", "list", "pool", "choices", "options", "candidates"})


#: The text of a draw or cycle over a list named for models, matched where such a call starts
#: (bounded repetition: linear). A module without it, or without a pool indexed, is not walked.
_POOL = r"(?:models|llms|engines|model_?(?:names|ids|list|pool|choices|options|candidates))"
_TEXT = re.compile(rf"(?i)(?:choices?|sample|cycle)\([\w.]{{0,60}}{_POOL}\b")


_POOL_WORDS = ("models", "llms", "engines", *(f"model{sep}{w}" for sep in ("_", "") for w in
                                                  ("names", "ids", "list", "pool", "choices", "options", "candidates")))


def _may_choose(source: str) -> bool:
    """The cheap text test first (plain substring tests, then `_TEXT`): a pool of models indexed in a
    text with a counter, or a draw or cycle in a text that names one."""
    drawn, cycled = "random" in source or "secrets" in source, "cycle(" in source
    counted = "+= 1" in source or "% len(" in source
    if not (drawn or cycled or counted):
        return False
    low = source.lower()
    if counted and "%" in source and any(f"{w}[" in low for w in _POOL_WORDS):
        return True  # a pool indexed by a counter (`self.models[self.calls % n]`)
    if not (drawn or cycled) or not any(w in low for w in _POOL_WORDS):
        return False
    for call in ("choice(", "choices(", "sample(", "cycle("):  # the text after each draw or cycle
        at = low.find(call)
        while at != -1:
            if _TEXT.match(source, at, at + 100) is not None:
                return True
            at = low.find(call, at + 1)
    return False


def find_model_switches(module) -> list[ModelSwitch]:
    """Every model chosen per request in the module that then makes a request (see the module
    docstring), once per place it is chosen."""
    if not _may_choose(module.source):
        return []
    tree = module.tree
    counters = _counters(tree)
    rotations = _rotations(tree)
    cycles = _cycles(tree)
    choosers: dict[str, list[tuple[ast.AST, str, str]]] = {}  # method name -> [(node, how, pool)]
    found: list[ModelSwitch] = []
    funcs = [f for f in subtree(tree) if isinstance(f, _FUNCS) and f.name not in _ONCE]
    for func in funcs:
        own = _own(func)
        assigned = _assigned(own)
        handled: set[int] | None = None
        for n in own:
            choice = _choice(module, n, assigned, counters, cycles, rotations)
            if choice is None:
                continue
            if handled is None:  # a model chosen only after an error (a fallback) is not chosen per request
                handled = {id(m) for h in own if isinstance(h, ast.ExceptHandler) for m in subtree(h)}
            if id(n) in handled:
                continue
            node, how, pool = choice
            if any(isinstance(r, ast.Return) and r.value is n for r in own):
                choosers.setdefault(func.name, []).append(choice)
                continue
            name = _bound_to(own, n)
            request = _request(own, name, n)
            if request is not None:
                found.append(ModelSwitch(node, how, pool, func.name, request[0], request[1]))
                continue
            sent = payload_send(module, func, own, name, n, _conversation)
            if sent is not None:
                found.append(ModelSwitch(node, how, pool, func.name, sent.request, sent.conversation,
                                         sent.payload, sent.how))
    for func in funcs:
        own = _own(func)
        for n in own:
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in choosers
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"):
                continue
            request = _request(own, _bound_to(own, n), n)
            for node, how, pool in choosers[n.func.attr] if request is not None else ():
                found.append(ModelSwitch(node, how, pool, n.func.attr, request[0], request[1]))
    found.sort(key=lambda s: (s.node.lineno, s.node.col_offset))
    seen: set = set()  # once per place chosen; draws in branches for one request dict are one cause
    return [s for s in found if not (id(s.node) in seen or seen.add(id(s.node))) and not (
        s.via and ((key := (s.function, id(s.request))) in seen or seen.add(key)))]



def _assigned(own) -> dict[str, list[ast.expr]]:
    """Local name -> the values assigned to it in the function, in the order of the source."""
    out: dict[str, list[ast.expr]] = {}
    for n in sorted((n for n in own if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
    return out


def _counters(tree) -> set[str]:
    """Attributes of `self` that a method increments (`self.calls += 1`): counters kept across calls."""
    return {a for n in subtree(tree) if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
            and (a := self_attr(n.target)) is not None}


def _rotations(tree) -> set[str]:
    """Attributes of `self` that a method (not `__init__`) advances around a list by itself:
    `self.current = (self.current + 1) % len(self.models)`: an index kept across calls that takes
    each item in turn."""
    out = set()
    for f in subtree(tree):
        if not isinstance(f, _FUNCS) or f.name in _ONCE:
            continue
        for n in _own(f):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and (a := self_attr(n.targets[0])) is not None \
                    and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Mod) \
                    and any(self_attr(c) == a for c in subtree(n.value.left)):
                out.add(a)
    return out


def _cycles(tree) -> dict[str, ast.expr]:
    """Attributes of `self` assigned an `itertools.cycle(pool)`, and names assigned one at module
    level (`ROTATION = itertools.cycle(MODELS)`), -> the pool. A cycle made in the function that
    reads it starts again on every call: not a turn kept across calls."""
    out = {}
    top = {id(n) for n in tree.body}
    for n in subtree(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and n.value.args:
            f = n.value.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            for t in n.targets:
                if name != "cycle":
                    continue
                if (a := self_attr(t)) is not None:
                    out[a] = n.value.args[0]
                elif isinstance(t, ast.Name) and id(n) in top:
                    out["." + t.id] = n.value.args[0]
    return out


def _choice(module, n, assigned, counters, cycles, rotations=frozenset()) -> tuple[ast.AST, str, str] | None:
    """(where, how, pool) when `n` chooses one item of a list of models per call, else None."""
    if isinstance(n, ast.Call) and n.args:
        qual = module.qualified_name(n.func) or ""
        if qual in _RANDOM and is_model_pool(n.args[0]):
            return n, "at random", module.code(n.args[0])
        if isinstance(n.func, ast.Name) and n.func.id == "next":
            arg = n.args[0]
            a = self_attr(arg) or ("." + arg.id if isinstance(arg, ast.Name) else None)
            if a in cycles and is_model_pool(cycles[a]):
                return n, "in turns", module.code(cycles[a])
    if isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Slice) and is_model_pool(n.value):
        index = [n.slice]
        if isinstance(n.slice, ast.Name):
            index += assigned.get(n.slice.id, [])
        if any(self_attr(expr) in rotations for expr in index):
            return n, "in turns", module.code(n.value)  # `self.models[self.current]`, advanced modulo the list
        for expr in index:
            mod = next((m for m in subtree(expr) if isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mod)
                        and any(self_attr(c) in counters for c in subtree(m.left))), None)
            if mod is not None:
                return mod, "in turns", module.code(n.value)
    return None


def _bound_to(own, value) -> str | None:
    """The local name `value` is assigned to in the function (`model = <value>`), or None."""
    for n in own:
        if isinstance(n, ast.Assign) and n.value is value and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            return n.targets[0].id
    return None


def _request(own, name: str | None, value) -> tuple[ast.Call, bool] | None:
    """The first call made with the chosen model (a method called on it or on the name it is bound
    to, either called, or `model=` given either), and whether it passes a value named
    as the conversation; None when there is none."""
    for n in sorted((c for c in own if isinstance(c, ast.Call)), key=lambda c: (c.lineno, c.col_offset)):
        f = n.func
        receiver = f.value if isinstance(f, ast.Attribute) else f
        on_it = receiver is value or name is not None and isinstance(receiver, ast.Name) and receiver.id == name
        if isinstance(f, ast.Name) and f.id == "dict" or isinstance(f, ast.Attribute) and f.attr == "update":
            continue  # a request dict built (`dict(model=...)`, `params.update(model=...)`): model_payloads
        given = any(kw.arg == "model" and (kw.value is value or name is not None and isinstance(kw.value, ast.Name)
                                           and kw.value.id == name) for kw in n.keywords)
        if on_it or given:
            return n, any(_conversation(a) for a in [*n.args, *(kw.value for kw in n.keywords)])
    return None


def _conversation(arg) -> bool:
    """True for an argument named as the conversation (`messages`, `self.history`, `*messages`)."""
    if isinstance(arg, ast.Starred):
        arg = arg.value
    name = arg.attr if isinstance(arg, ast.Attribute) else arg.id if isinstance(arg, ast.Name) else ""
    return name.lower() in _CONVERSATION or name.lower().endswith(("_messages", "_history"))
