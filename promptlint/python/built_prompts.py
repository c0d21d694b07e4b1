"""Prompts built by a prompt-builder object (docs/policies.md, Policy 9): a function that makes an
instance of a builder class (python/flow/builder_facts.py) and adds its sections, then returns
the builder or hands it to code that builds the text (`generate(prompt=builder)`, where an
adapter calls `prompt.build()`), or builds it there:

    def _build_prompt(self, customer, history):
        builder = PromptBuilder()
        builder.add_section("instructions", GENERAL)
        builder.add_customer_identity(customer)       # per user, before...
        builder.add_section("task", TASK)             # ...2,000 static tokens
        builder.add_interaction_history(history)
        return builder

The text the builder's renderer makes of the sections as they stand at the end of the function
(python/flow/builders.py) is a `python-constant` candidate with one part, judged on its own
unless a send site carries its text (engine). Only a builder whose class, renderer, local name
or function says prompt (a word of `prompt_names.prompt_named`) is one; a report or document
builder is not. A builder whose sections are a message list (`get_messages()` returning the list
of `{"role": ..., "content": ...}` it keeps) is a message-list candidate.
"""
from __future__ import annotations

import ast

from .candidates import MIN_STATIC_CHARS, text_layout
from .prompt_names import prompt_named, role_of
from .flow import builders
from .flow.builder_facts import builder_of
from .flow.class_facts import walk_statements
from .flow.values import ClassRef, Func, Seq, Text
from .message_candidates import has_messages, message_list

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Names of methods that render a builder's text (tried first, in this order).
_RENDER_NAMES = ("build", "render", "to_string", "to_prompt", "get_prompt", "format", "compile", "__str__")


def _root(call: ast.Call):
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


def _added_names(func) -> dict:
    """name -> the statement that binds it to a call, for the local names of `func` that a later
    statement calls a method of (`builder = PromptBuilder()`, then `builder.add_section(...)`)."""
    made, called = {}, set()
    for stmt in walk_statements(func.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call):
            made.setdefault(stmt.targets[0].id, stmt)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
            name = _root(stmt.value)
            if name is not None:
                called.add(name)
    return {n: s for n, s in made.items() if n in called}


def _builder_class(finder, callee) -> bool:
    """True when the callee of a constructor call names a builder class of the tree (a class of
    the module or one it imports: `PromptBuilder(...)`, `prompts.PromptBuilder(...)`), read
    without reading the function's body."""
    chain = []
    while isinstance(callee, ast.Attribute):
        chain.append(callee.attr)
        callee = callee.value
    if not isinstance(callee, ast.Name) or not (chain or callee.id[:1].isupper()):
        return False
    value = finder.ev.resolve_global(finder.m, callee.id)
    for attr in reversed(chain):
        value = finder.ev.attr_of(value, attr, None, finder.ev.module_frame(finder.m)) if value is not None else None
    return isinstance(value, ClassRef) and builder_of(value.node) is not None


def built(finder, func) -> bool:
    """The candidates of the builders `func` makes and adds to (module docstring). True when one
    was added."""
    names = {n: s for n, s in _added_names(func).items() if _builder_class(finder, s.value.func)}
    if not names:
        return False
    frame = finder.frame()
    env = finder.ev.env_at(frame, None)  # (the bindings at the end of the function)
    added = False
    for name, stmt in names.items():
        th = env.get(name)
        if th is None or finder.b.covered(finder.m.span(stmt)):
            continue
        finder.ev.reset_budget()
        obj = builders.one_builder(finder.ev, finder.ev.force(frame, th), frame)
        if obj is None or obj.state is None:
            continue
        ref = obj.args[0]
        facts = builder_of(ref.node)
        said = prompt_named(ref.node.name, functions=True) or prompt_named(name, functions=True) \
            or prompt_named(func.name, functions=True)
        for method in _renderers(ref.node, facts):
            if not (said or prompt_named(method.name, functions=True)):
                continue
            value = builders.rendered(finder.ev, obj, method.name, frame) if method.name in facts.renders \
                else _called(finder.ev, obj, method, frame)
            if isinstance(value, Seq) and has_messages(value):
                added = message_list(finder, stmt, value, frame) or added
                break
            if isinstance(value, Text) and any(s.is_static and s.text.strip() for s in value.segs):
                role = role_of(ref.node.name) if role_of(ref.node.name) == "system" else role_of(func.name)
                added = text_layout(finder, stmt, value.segs, finder.m.span(stmt), role, MIN_STATIC_CHARS) \
                    is not None or added
                break
    return added


def _renderers(cls: ast.ClassDef, facts) -> list:
    """The methods of a builder class that may render it: no parameter but `self`, not an adder,
    reading a container attribute; those named as renderers first."""
    out = []
    for m in cls.body:
        if not isinstance(m, _FUNCS) or m.name in facts.adders or m.name == "__init__":
            continue
        a = m.args
        if len(a.args) != 1 or a.vararg or a.kwonlyargs or a.posonlyargs:
            continue
        if m.name.startswith("__") and m.name != "__str__":
            continue
        if not any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
                   and n.attr in facts.kinds for n in ast.walk(m)):
            continue
        out.append(m)
    order = {n: i for i, n in enumerate(_RENDER_NAMES)}
    return sorted(out, key=lambda m: order.get(m.name, len(order)))


def _called(ev, obj, method, frame):
    """What `obj.method()` returns (a renderer that is no loop: `"\\n\\n".join(self.parts)`)."""
    fn = ev.attr_of(obj, method.name, None, frame)
    if not isinstance(fn, Func):
        return None
    return ev.call_function(fn, {}, frame.depth + 1, obj.span)
