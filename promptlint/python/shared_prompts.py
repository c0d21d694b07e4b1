"""A prompt a class holds for all its instances, added to through `self`: facts for PRM105 (the
rule judges them).

A class that assigns a prompt object or list in its body (`_prompt = PromptTemplate(template=...)`,
`examples = [...]`: a name with a prompt word, `template`, `messages` or `examples`) holds one
object that every instance shares. A method that adds to it through `self` (`self._prompt.template
= self._prompt.template + f"{name} ..."`, `self._prompt.template += ...`, `self.examples.append(x)`,
`self.examples += [x]`) writes into that shared object, not into one of the instance: each instance
made (or each call) adds the text again, so the prompt made from it grows by one addition each time
and what a cache held of it ends where the additions start. An instance that binds the name first
(`self._prompt = copy(self._prompt)`, anywhere in the class) has its own: not one; nor has a
pydantic model (a class whose bases are `BaseModel`, `SQLModel`, `BaseSettings`, `RootModel`, or a
class of the module that is one): pydantic copies a field's default for every instance. How often the
method runs is not followed here: info, where the text is added, with the class's assignment as a
related place.

Read in the modules the prefilter lets through (`prefilter.might_hold_prompt`), which the
modules that send or build a prompt do; the text test below adds none.

Shape: `shared_prompts(module) -> [(the statement that adds, the class-level assignment, the name,
the class's name)]` (ast nodes, names), in source order.
"""
from __future__ import annotations

import ast
import re

from .prompt_names import prompt_named, words
from .walk import last_name, subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_HELD_WORDS = frozenset({"template", "templates", "messages", "examples", "history"})


#: An addition through `self` to a name with a held word (`self._prompt.template += `, `self.examples.append(`).
_ADD_TEXT = re.compile(r"self\.(\w{0,40}(?i:prompt|template|messages|examples|history|instruction)\w{0,40})"
                       r"(?:\.\w{1,40}[ \t]{0,4}\+?=(?!=)|[ \t]{0,4}\+=|\.(?:append|extend)\()")


def might_share(source: str) -> bool:
    """The text test before the module's walk: a class, an addition through `self.` to a name with
    a held word (`_ADD_TEXT`) and that name assigned at an indentation (a class body's, maybe)."""
    if "class " not in source or "self." not in source:
        return False
    names = {m.group(1) for m in _ADD_TEXT.finditer(source)}
    return any(re.search(rf"^[ \t]+{n}[ \t]{{0,4}}(?::[^=\n]{{0,80}})?=(?!=)", source, re.MULTILINE) for n in names)


def shared_prompts(module) -> list[tuple[ast.AST, ast.AST, str, str]]:
    """(the addition, the class-level assignment, the name, the class) (module docstring)."""
    out = []
    classes = [n for n in subtree(module.tree) if isinstance(n, ast.ClassDef)]
    copied = _copying_models(classes)
    for cls in classes:
        if cls.name in copied:
            continue
        held = {}
        for stmt in cls.body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
                stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None
            if isinstance(target, ast.Name) and isinstance(stmt.value, (ast.Call, ast.List)) \
                    and (prompt_named(target.id) or words(target.id) & _HELD_WORDS):
                held[target.id] = stmt
        if not held:
            continue
        methods = [f for f in cls.body if isinstance(f, _FUNCS) and not _classmethod(f)]
        nodes = [n for f in methods for n in subtree(f)]
        bound = {t.attr for n in nodes if isinstance(n, (ast.Assign, ast.AnnAssign))
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if _on_self(t) is not None}
        for n in nodes:
            name = _added_to(n, held)
            if name is not None and name not in bound:
                out.append((n, held[name], name, cls.name))
    return sorted({id(t[0]): t for t in out}.values(), key=lambda t: (t[0].lineno, t[0].col_offset))


#: Bases whose fields' defaults are copied for each instance (pydantic and the libraries built on it).
_COPYING_BASES = frozenset({"BaseModel", "SQLModel", "BaseSettings", "RootModel"})


def _copying_models(classes: list) -> set[str]:
    """The names of the classes (of one module) that are pydantic models: a base named in
    `_COPYING_BASES` (`BaseModel`, `pydantic.BaseModel`) or a class of the module that is one."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls.name not in found and {last_name(b) for b in cls.bases} & (_COPYING_BASES | found):
                found.add(cls.name)
                changed = True
    return found


def _classmethod(f) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in f.decorator_list)


def _on_self(node) -> str | None:
    """X of `self.X` (the node itself, an attribute), else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _added_to(node, held) -> str | None:
    """The held name N that `node` adds to: `self.N.a = self.N.a + x`, `self.N.a += x`, `self.N +=
    [..]` (a list held), `self.N.append(x)` / `self.N.extend(x)` (a list held); else None."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        t = node.target
        if _on_self(t) in held and isinstance(held[_on_self(t)].value, ast.List):
            return _on_self(t)
        if isinstance(t, ast.Attribute) and _on_self(t.value) in held:
            return _on_self(t.value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add):
        t, left = node.targets[0], node.value
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
            left = left.left
        if isinstance(t, ast.Attribute) and _on_self(t.value) in held and ast.unparse(t) == ast.unparse(left):
            return _on_self(t.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend") \
            and _on_self(node.func.value) in held and isinstance(held[_on_self(node.func.value)].value, ast.List):
        return _on_self(node.func.value)
    return None
