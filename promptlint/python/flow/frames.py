"""The data the evaluator reads code with: `Thunk`, a lazy binding of a name (what kind of
statement made it and from what), and `Frame`, where an expression is evaluated (a module, a
function and its class, the bindings its callers pass, the snapshots of its body: scopes.py)."""
from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .values import Value


@dataclass(eq=False)
class Thunk:
    """A lazily evaluated binding. `kind` is expr | aug | append | extend | insert | iter | alt |
    param | unpack | value | default | shuffle | global (the module-level binding of `name`) |
    bound (`prev`, a binding of the frame `value`) |
    window (the oldest messages of the list named `name` dropped in a loop; `value` the test where
    a newest-first walk stops at its bound, or None) | apart (the items a
    loop added to `prev` rendered one way among the newest, another older: `node` from
    `rewrites.older_apart`) | setitem (key `name`
    of the dict `prev` set to `node`; `value` the slice that drops its oldest items in a loop that
    runs until a size fits, `d[key] = xs[2:]`, or None) | map (a loop that appends one element per item: `value` the
    append, `env` the bindings before the loop) | keygrow (a list of the dict `prev` grown by a key
    not known in the loop `loop`: `groups[k].append(x)`). `env` is the bindings visible where it was made;
    `prev` the binding it grows (aug, append...); `loop` the enclosing `for` (iterable node, env,
    outer loop) or None. Also setpath: `prev` with its item at the keys `value` set (`name` aug: added to)."""

    kind: str  # (also: sort, the list `name` sorted in place; setkey, an item set by a key not known;
    # called, `prev` after the statement's method calls `node` on it: builders.applied)
    node: Any = None
    env: dict | None = None
    prev: "Thunk | None" = None
    options: list = field(default_factory=list)
    repeated: bool = False
    name: str = ""
    value: Any = None
    loop: Any = None
    cache: Any = None
    shared: bool = False  # made by reading a body (`ScopesMixin.ensure`): its value is cached per frame
    fallback: bool = False  # an alt: the name or the default set when it is missing (values.Alt)
    index: int | None = None  # an iter: the name's place in a flat tuple target (`for k, v in d.items()`)
    each: Any = None  # an iter or a counter: the `for` statement that binds it (a value of each pass)
    at: Any = None  # a setitem of a breakpoint: the target assigned (`d["cache_control"]`), the key's place;
    # a map of a filtered loop (`for m in xs: if t: out.append(f(m))`): that append call


def replace_thunk(th: Thunk, **changes) -> Thunk:
    """A copy of `th` with `changes` (by default without its `for` statement, `each`), never shared."""
    return dataclasses.replace(th, **({"each": None} | changes), shared=False, cache=None)


@dataclass(eq=False)
class Frame:
    """Where an expression is evaluated: a module, an optional function (with its class) and the
    values bound to its parameters by the caller. `depth` counts the calls followed to get here."""

    module: Any
    func: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    cls: ast.ClassDef | None = None
    bindings: dict = field(default_factory=dict)
    self_value: Value | None = None
    depth: int = 0
    module_level: bool = False
    snapshots: dict | None = None
    rows: list | None = None
    returns: list = field(default_factory=list)
    param_names: set | None = None
    replay: bool = False
    markers: list = field(default_factory=list)  # (Span, count) of breakpoints it sets: True once per item, False once, or n
    fitting: int = 0  # `while` loops around the statement read that run until a size fits (`while tokens > n:`)
    runs: int = 0  # `while` loops around it that remove the run of items of a kind at one place (`cuts.pops_run`)
    hops: int | None = None  # a wrapper's caller reached from the prompt's frame: wrappers followed so far
    values: dict = field(default_factory=dict)  # shared Thunk -> its value in this frame (Evaluator.force)
    shared: dict = field(default_factory=dict)  # readings several bindings ask for (_order_in, _branch_test)
