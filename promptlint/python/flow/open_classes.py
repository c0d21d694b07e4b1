"""Classes built where the analysis does not look: their users build them.

A field that a class's own method reads (`self.description` in `Agent.get_system_message`) holds
what the constructor calls of the instance passed (`callers.field_arguments`). The calls of the
analysed tree are all of them only for a class private to its package (a helper record built in
one or two places: `PlannerConfig(doc_schema=agent.schema())`). A class the package offers to its
users is built by them, with values of their own: the few calls of the tree (an evaluator's
`Agent(description=f"...{self.question}...")`) are examples of its use, not the value of its
field, which is then configuration (`configured.configured_field`) or unknown. Such a class:

- is exported: an `__init__.py` of a package that holds its module imports it (by name, or with
  `*`), or the `__all__` of its module lists it;
- is a base of another class of the tree (a framework's base class: its users subclass it, and an
  instance of a subclass is built by that subclass's calls, not by calls of its name).

A class whose name starts with `_` is private, whoever imports it.
"""
from __future__ import annotations

import ast

from ..module import _from_base

MAX_SUBCLASSERS = 8  # modules read for the subclasses of a class; more: it is a framework's base


def built_unseen(evaluator, module, cls: ast.ClassDef) -> bool:
    """True when instances of `cls` (of `module`) are built by code the analysis does not see:
    the class is exported or subclassed (see the module docstring). Once per class in the
    analysis of a file."""
    if cls.name.startswith("_"):
        return False
    key = ("built unseen", id(cls))
    known = evaluator._return_cache.get(key)
    if known is not None:
        return known
    found = evaluator._return_cache[key] = _exported(evaluator, module, cls) or _subclassed(evaluator, module, cls)
    return found


def _listed(module, name: str) -> bool:
    """True when the `__all__` of `module` (a list or tuple of strings) names `name`."""
    for node in module.assigns.get("__all__", []):
        if isinstance(node, (ast.List, ast.Tuple)) and any(
                isinstance(e, ast.Constant) and e.value == name for e in node.elts):
            return True
    return False


def _exported(evaluator, module, cls: ast.ClassDef) -> bool:
    """True when the `__all__` of the class's module lists it, or an `__init__.py` of a package
    above its module imports it (`from fw.agent import Agent`, `from .agent import *`, or from
    another module that imports it in turn: `from phi.agent.agent import AgentSession`)."""
    if _listed(module, cls.name):
        return True
    dotted = getattr(module, "dotted", None)
    if not dotted or "." not in dotted:
        return False
    parts = dotted.split(".")
    # what an `__init__.py` may import it from: its module, or a package that exports it in turn
    sources = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    for i in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:i])
        init = evaluator.project.find(package)
        if init is None or init is module or not init.filename.endswith("__init__.py"):
            continue
        target = init.imports.get(cls.name)
        if target is not None and (target.rpartition(".")[0] in sources and target.endswith("." + cls.name)
                                   or _resolves_to(evaluator, init, cls)):
            return True
        for node in init.tree.body:
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names) \
                    and _from_base(node, package) == dotted:
                return True
    return False


def _resolves_to(evaluator, init, cls: ast.ClassDef) -> bool:
    """True when the name `cls.name` that the module `init` imports is `cls` itself."""
    ref = evaluator.resolve_global(init, cls.name, 0)
    return getattr(ref, "node", None) is cls


def _subclassed(evaluator, module, cls: ast.ClassDef) -> bool:
    """True when a class of the package tree names `cls` among its bases (or more modules than
    `MAX_SUBCLASSERS` may: a base that many classes extend)."""
    if getattr(module, "path", None) is None:
        modules = [module]
    else:
        modules = evaluator.project.subclassers_of(cls.name, module.path, MAX_SUBCLASSERS)
        if modules is None:
            return True
    for other in modules:
        for klass in other.classes.values():
            if klass is not cls and any(_names(base, cls.name) and _is(evaluator, other, base, cls)
                                        for base in klass.bases):
                return True
    return False


def _names(base: ast.expr, name: str) -> bool:
    """True when a base of a class statement is written as `name` (`Agent`, `agent.Agent`,
    `Agent[T]`)."""
    if isinstance(base, ast.Subscript):
        base = base.value
    return isinstance(base, ast.Name) and base.id == name or isinstance(base, ast.Attribute) and base.attr == name


def _is(evaluator, module, base: ast.expr, cls: ast.ClassDef) -> bool:
    """True when the base, read in its module, is `cls` itself (not a namesake)."""
    if isinstance(base, ast.Subscript):
        base = base.value
    ref = evaluator._base_class(module, base)
    return ref is not None and ref.node is cls
